"""A lesson page as a Jupyter notebook: its prose and code as cells, with the outputs the build got.

The notebook is made from the page's program and the result the build already has (nothing runs
again): prose becomes Markdown cells with inline values filled in, each ``python exec`` block a
code cell with its printed output and figures, each doctest example a code cell with its output.

>>> from lessonkit.build.program import parse_program
>>> from lessonkit.build.runner import run_program
>>> text = '''# Sums
...
... ```python exec
... total = sum([1, 2, 3])
... print(total)
... ```
...
... The total is {{ total }}.'''
>>> program = parse_program(text)
>>> notebook = page_notebook(text, program, run_program(program, "sums.md"))
>>> [(cell.cell_type, cell.source) for cell in notebook.cells]  # doctest: +NORMALIZE_WHITESPACE
[('markdown', '# Sums'), ('code', 'total = sum([1, 2, 3])\\nprint(total)'),
 ('markdown', 'The total is 6.')]
>>> notebook.cells[1].outputs[0].text
'6\\n'
"""

from __future__ import annotations

import doctest

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from lessonkit.build.program import Program, Step
from lessonkit.build.results import PageResult, StepResult

METADATA = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}


def page_notebook(
    text: str, program: Program, result: PageResult | None, preface: str = ""
) -> NotebookNode:
    """The notebook of a page whose body is ``text``; ``result`` None gives cells without output.

    ``preface``, when given, is the first cell (say where the notebook comes from).
    """
    notebook = new_notebook(metadata=METADATA)
    outputs = result.steps if result else [StepResult() for _ in program.steps]
    lines = _fill_values(text.split("\n"), program, result.steps if result else None)
    cells = [new_markdown_cell(preface)] if preface else []
    position = 0
    for step, span, out in zip(program.steps, program.spans, outputs, strict=True):
        if step.kind == "value":
            continue
        cells.append(new_markdown_cell("\n".join(lines[position : span.start]).strip("\n")))
        position = span.end
        if step.kind == "exec":
            cells.append(new_code_cell(step.source, outputs=_block_outputs(step, out)))
        else:
            cells += _doctest_cells(out.text if result else step.source)
    cells.append(new_markdown_cell("\n".join(lines[position:]).strip("\n")))
    notebook.cells = [cell for cell in cells if cell.source.strip()]
    for number, cell in enumerate(notebook.cells):
        cell.id = f"cell-{number}"  # stable ids: the same page gives the same bytes
    return notebook


def notebook_bytes(notebook: NotebookNode) -> bytes:
    """``notebook`` validated against the nbformat schema, as the bytes of an ``.ipynb`` file."""
    nbformat.validate(notebook)
    return nbformat.writes(notebook).encode("utf-8")


def _fill_values(lines: list[str], program: Program, outputs: list[StepResult] | None) -> list[str]:
    """``lines`` with each inline value replaced by its text (left as written, without outputs)."""
    if outputs is None:
        return lines
    values = [
        (span, out)
        for step, span, out in zip(program.steps, program.spans, outputs, strict=True)
        if step.kind == "value"
    ]
    for span, out in sorted(values, key=lambda v: (v[0].start, v[0].column), reverse=True):
        line = lines[span.start]
        lines[span.start] = line[: span.column] + out.text + line[span.column + span.length :]
    return lines


def _block_outputs(step: Step, out: StepResult) -> list[NotebookNode]:
    """A block's printed output, shown as the page shows it, then its figures."""
    outputs = []
    shown = step.option("output", "text")
    if out.stdout and shown == "text":
        outputs.append(new_output("stream", name="stdout", text=out.stdout))
    elif out.stdout and shown in ("markdown", "html"):
        data = {f"text/{shown}": out.stdout, "text/plain": out.stdout}
        outputs.append(new_output("display_data", data=data))
    for figure in out.figures:
        data = {"image/svg+xml": figure.svg, "text/plain": figure.alt}
        outputs.append(new_output("display_data", data=data))
    return outputs


def _doctest_cells(transcript: str) -> list[NotebookNode]:
    """One code cell per ``>>>`` example of ``transcript``, its output as the cell's result."""
    cells = []
    for example in doctest.DocTestParser().get_examples(transcript):
        want = example.want.rstrip("\n")
        data = {"text/plain": want}
        shown = [new_output("execute_result", data=data, execution_count=None)] if want else []
        cells.append(new_code_cell(example.source.rstrip("\n"), outputs=shown))
    return cells
