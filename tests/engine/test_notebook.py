"""A page's notebook: its prose, code and the build's outputs as cells, with nothing run again."""

from __future__ import annotations

import nbformat

from lessonkit.build.notebook import notebook_bytes, page_notebook
from lessonkit.build.program import parse_program
from lessonkit.build.runner import run_program

PAGE = """\
# Weights

```python exec source="hide"
import matplotlib.pyplot as plt
weights = [0.75, 0.25]
```

The first weight is {{ weights[0]:.2f }}, the second {{ weights[1]:.2f }}.

```python exec output="markdown"
print("| weight |\\n| ---: |")
for w in weights:
    print(f"| {w} |")
```

```python exec alt="Two bars, the first three times the second."
fig, ax = plt.subplots()
bars = ax.bar([0, 1], weights)
```

```pycon
>>> sum(weights)
1.0
>>> print("done")
done
```

The end.
"""


def _notebook(result: bool = True) -> nbformat.NotebookNode:
    program = parse_program(PAGE)
    ran = run_program(program, "weights.md") if result else None
    return page_notebook(PAGE, program, ran, preface="From the page.")


def test_cells_follow_the_page_with_values_filled_in_and_hidden_code_kept() -> None:
    cells = [(c.cell_type, c.source.split("\n")[0]) for c in _notebook().cells]
    assert cells == [
        ("markdown", "From the page."),
        ("markdown", "# Weights"),
        ("code", "import matplotlib.pyplot as plt"),
        ("markdown", "The first weight is 0.75, the second 0.25."),
        ("code", 'print("| weight |\\n| ---: |")'),
        ("code", "fig, ax = plt.subplots()"),
        ("code", "sum(weights)"),
        ("code", 'print("done")'),
        ("markdown", "The end."),
    ]


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


def test_the_notebook_is_valid_and_the_same_page_gives_the_same_bytes() -> None:
    first, second = notebook_bytes(_notebook()), notebook_bytes(_notebook())
    assert first == second
    assert nbformat.validate(nbformat.reads(first, as_version=4)) is None


def test_without_a_result_the_code_is_there_and_values_stay_as_written() -> None:
    notebook = _notebook(result=False)
    setup, table, figure, total, printed = [c for c in notebook.cells if c.cell_type == "code"]
    assert setup.outputs == table.outputs == figure.outputs == []
    assert total.outputs[0].data["text/plain"] == "1.0"  # a doctest's output is in its source
    prose = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    assert "The first weight is {{ weights[0]:.2f }}, the second {{ weights[1]:.2f }}." in prose
    assert notebook_bytes(notebook)
