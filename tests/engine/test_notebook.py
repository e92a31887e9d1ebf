"""A page's notebook: its prose, code and the build's outputs as cells, with nothing run again."""

from __future__ import annotations

import nbformat

from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program
from lessonkit.notebooks.site import notebook_bytes, page_notebook

PAGE = """\
# Weights

[Download this page as a notebook](weights.ipynb)

```python exec source="hide"
import matplotlib.pyplot as plt
weights = [0.75, 0.25]
```

The first weight is {{ weights[0]:.2f }}, the second {{ weights[1]:.2f }}; {{ "0.25 < 0.75" }}.

```python exec output="markdown"
print("| weight |\\n| ---: |")
for w in weights:
    print(f"| {w} |")
```

```python exec alt="Two bars, the first three times the second."
fig, ax = plt.subplots()
bars = ax.bar([0, 1], weights)
```

1. Check the sum:

    ```pycon
    >>> sum(weights)
    1.0
    >>> print("done")
    done
    ```

    It is 1, as weights must be.

The end.
"""


def _notebook(result: bool = True) -> nbformat.NotebookNode:
    program = parse_program(PAGE)
    ran = run_program(program, "weights.md") if result else None
    notebook = page_notebook(PAGE, program, ran, title="Weights", name="weights.ipynb")
    return nbformat.from_dict(notebook)  # attribute access: cell.source


def test_cells_follow_the_page_with_values_filled_in_and_hidden_code_kept() -> None:
    cells = [(c.cell_type, c.source) for c in _notebook().cells]
    assert [(kind, source.split("\n")[0]) for kind, source in cells] == [
        ("markdown", "From the lesson “Weights”: every output is what its build computed."),
        ("markdown", "# Weights"),
        ("code", "import matplotlib.pyplot as plt"),
        ("markdown", "The first weight is 0.75, the second 0.25; 0.25 &lt; 0.75."),
        ("code", 'print("| weight |\\n| ---: |")'),
        ("code", "fig, ax = plt.subplots()"),
        ("markdown", "1. Check the sum:"),
        ("code", "sum(weights)"),
        ("code", 'print("done")'),
        ("markdown", "It is 1, as weights must be."),
    ]
    assert cells[-1][1] == "It is 1, as weights must be.\n\nThe end.", "out of the list item"


def test_the_notebook_does_not_link_to_itself() -> None:
    assert not any("weights.ipynb" in cell.source for cell in _notebook().cells)


def test_outputs_are_shown_as_the_page_shows_them() -> None:
    cells = [c for c in _notebook().cells if c.cell_type == "code"]
    setup, table, figure, total, printed = cells
    assert setup.outputs == []
    assert table.outputs[0].data["text/markdown"] == "| weight |\n| ---: |\n| 0.75 |\n| 0.25 |\n"
    (svg,) = figure.outputs
    assert svg.data["image/svg+xml"].lstrip().startswith("<svg")
    assert svg.data["text/plain"] == "Two bars, the first three times the second."
    assert total.outputs[0].data["text/plain"] == "1.0"
    assert printed.outputs[0].data["text/plain"] == "done"


def test_the_file_is_what_nbformat_writes_and_the_same_page_gives_the_same_bytes() -> None:
    first, second = notebook_bytes(_notebook()), notebook_bytes(_notebook())
    assert first == second
    read = nbformat.reads(first, as_version=4)
    nbformat.validate(read)  # raises when the notebook breaks nbformat's schema
    assert first.decode() == nbformat.writes(read) + "\n"


def test_without_a_result_the_code_is_there_and_values_stay_as_written() -> None:
    notebook = _notebook(result=False)
    preface, *_ = [c.source for c in notebook.cells]
    assert (
        preface
        == "From the lesson “Weights”: its code, not run (the site was built without execution)."
    )
    setup, table, figure, total, printed = [c for c in notebook.cells if c.cell_type == "code"]
    assert setup.outputs == table.outputs == figure.outputs == []
    # A doctest's output is part of its source.
    assert total.outputs[0].data["text/plain"] == "1.0"
    assert printed.outputs[0].data["text/plain"] == "done"
    prose = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    assert any("The first weight is {{ weights[0]:.2f }}" in p for p in prose)
