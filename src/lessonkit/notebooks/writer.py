"""A lesson page as a Jupyter notebook: its prose and code as cells, with the build's outputs.

Nothing runs again: prose becomes Markdown cells with inline values filled in, each ``python
exec`` block a code cell with its output and figures, each doctest example a code cell. Written
byte for byte as ``nbformat.writes`` would, without importing nbformat (0.3 s on every build
of a site with a notebook, warm ones too); the tests check each against nbformat's schema.

>>> from lessonkit.execute.program import parse_program
>>> from lessonkit.execute.runner import run_program
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
>>> [(c["cell_type"], c["source"]) for c in notebook["cells"]]  # doctest: +NORMALIZE_WHITESPACE
[('markdown', '# Sums'), ('code', 'total = sum([1, 2, 3])\\nprint(total)'),
 ('markdown', 'The total is 6.')]
>>> notebook["cells"][1]["outputs"][0]["text"]
'6\\n'
"""

from __future__ import annotations

import copy
import html
import json
from typing import Any

from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import PageResult, StepResult
from lessonkit.notebooks.convert import code, markdown, notebook

Notebook = dict[str, Any]  # as nbformat holds it in memory: strings whole

SPLIT_MIMES = ("text/", "image/svg+xml", "application/javascript")  # written as lines


def page_notebook(
    text: str,
    program: Program,
    result: PageResult | None,
    *,
    title: str = "",
    url: str = "",
    name: str = "",
) -> Notebook:
    """The notebook of the page whose body is ``text`` (``result`` None: no outputs); with
    ``title`` (and ``url``) a first cell says where it comes from; a prose line linking to ``name``
    (its own file) is left out."""
    outputs = result.steps if result else [StepResult() for _ in program.steps]
    lines = _fill_values(text.split("\n"), program, result)
    if name:
        lines = ["" if f"]({name})" in line else line for line in lines]
    cells = [markdown(_preface(title, url, ran=result is not None))] if title else []
    position, indent = 0, ""
    for step, span, out in zip(program.steps, program.spans, outputs, strict=True):
        if step.kind == "value":
            continue
        cells.append(_prose_cell(lines[position : span.start], indent))
        position, indent = span.end, span.indent
        if step.kind == "exec":
            cells.append(_code(step.source, _block_outputs(step, out)))
        else:
            cells += _doctest_cells(out.text if result else step.source)
    cells.append(_prose_cell(lines[position:], indent))
    cells = [cell for cell in cells if cell["source"].strip()]
    return notebook(cells)


def notebook_bytes(notebook: Notebook) -> bytes:
    """``notebook`` as the bytes of an ``.ipynb`` file, laid out as nbformat lays it out.

    >>> print(notebook_bytes({"cells": [markdown("Hi\\nthere")], "metadata": {}}).decode())
    {
     "cells": [
      {
       "cell_type": "markdown",
       "metadata": {},
       "source": [
        "Hi\\n",
        "there"
       ]
      }
     ],
     "metadata": {}
    }
    <BLANKLINE>
    """
    notebook = copy.deepcopy(notebook)
    for cell in notebook["cells"]:
        cell["source"] = cell["source"].splitlines(keepends=True)
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = output["text"].splitlines(keepends=True)
            for mime, value in output.get("data", {}).items():
                if mime.startswith(SPLIT_MIMES):
                    output["data"][mime] = value.splitlines(keepends=True)
    text = json.dumps(
        notebook, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False
    )
    return (text + "\n").encode("utf-8")


def _code(source: str, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {**code(source), "outputs": outputs}


def _display(data: dict[str, str], result: bool = False) -> dict[str, Any]:
    """Rich output: a block's printed Markdown, HTML or figure, or a doctest's result."""
    if result:
        return {
            "output_type": "execute_result",
            "data": data,
            "metadata": {},
            "execution_count": None,
        }
    return {"output_type": "display_data", "data": data, "metadata": {}}


def _preface(title: str, url: str, ran: bool) -> str:
    """Where the notebook comes from, and whether its outputs are the build's.

    >>> _preface("Sums", "https://example.org/sums/", ran=True)
    'From the lesson [Sums](https://example.org/sums/): every output is what its build computed.'
    """
    lesson = f"[{title}]({url})" if url else f"“{title}”"
    if ran:
        return f"From the lesson {lesson}: every output is what its build computed."
    return f"From the lesson {lesson}: its code, not run (the site was built without execution)."


def _prose_cell(lines: list[str], indent: str) -> dict[str, Any]:
    """A Markdown cell of the prose after a block indented by ``indent``, which loses it
    while it goes on at that indent (in a cell of its own it would read as code).

    >>> _prose_cell(["", "    More on step 1.", "", "Back at the top."], "    ")["source"]
    'More on step 1.\\n\\nBack at the top.'
    """
    kept = len(lines)
    for number, line in enumerate(lines):
        if line.strip() and not line.startswith(indent):
            kept = number
            break
    inside = [line.removeprefix(indent) for line in lines[:kept]]
    return markdown("\n".join(inside + lines[kept:]).strip("\n"))


def _fill_values(lines: list[str], program: Program, result: PageResult | None) -> list[str]:
    """``lines`` with each inline value replaced by its text (as written, without a result)."""
    if result is None:
        return lines
    values = [
        (span, out)
        for step, span, out in zip(program.steps, program.spans, result.steps, strict=True)
        if step.kind == "value"
    ]
    for span, out in sorted(values, key=lambda v: (v[0].start, v[0].column), reverse=True):
        line = lines[span.start]
        shown = html.escape(out.text, quote=False)  # as the page shows it: text, never markup
        lines[span.start] = line[: span.column] + shown + line[span.column + span.length :]
    return lines


def _block_outputs(step: Step, out: StepResult) -> list[dict[str, Any]]:
    """A block's printed output, shown as the page shows it, then its figures."""
    outputs = []
    shown = step.option("output", "text")
    if out.stdout and shown == "text":
        outputs.append({"output_type": "stream", "name": "stdout", "text": out.stdout})
    elif out.stdout and shown in ("markdown", "html"):
        outputs.append(_display({f"text/{shown}": out.stdout, "text/plain": out.stdout}))
    for figure in out.figures:
        outputs.append(_display({"image/svg+xml": figure.svg, "text/plain": figure.alt}))
    return outputs


def _doctest_cells(transcript: str) -> list[dict[str, Any]]:
    """One code cell per ``>>>`` example of ``transcript``, its output as the cell's result."""
    import doctest  # here: it imports pdb and unittest, which a warm build never needs

    cells = []
    for example in doctest.DocTestParser().get_examples(transcript):
        want = example.want.rstrip("\n")
        shown = [_display({"text/plain": want}, result=True)] if want else []
        cells.append(_code(example.source.rstrip("\n"), shown))
    return cells
