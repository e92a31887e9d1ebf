"""A page's ``.ipynb`` download on any host: whether it gets one, where, and its bytes: the
notebook of what the build ran (:func:`page_notebook`; nothing runs again)."""

from __future__ import annotations

import copy
import html
import json
import os
import posixpath
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from lessonkit.core.page import Page
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import key_line
from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import PageResult, StepResult

Notebook = dict[str, Any]  # as nbformat holds it in memory: strings whole
SPLIT_MIMES = ("text/", "image/svg+xml", "application/javascript")  # written as lines
METADATA = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}


def wants_notebook(page: Page) -> bool:
    """Whether the page is a notebook lesson, or its front matter says ``notebook: true``."""
    return page.origins is not None or page.valid_meta.get("notebook") is True


def notebook_path(page: Page) -> str:
    """Where the notebook goes in docs/: ``a/b.md``'s is ``a/b.ipynb``; a notebook lesson's own
    ``x.ipynb`` is its source, so what the build ran is ``x.executed.ipynb``."""
    stem = posixpath.splitext(page.path)[0]
    own = page.origins is not None and page.file is not None and page.file.suffix == ".ipynb"
    return stem + (".executed.ipynb" if own else ".ipynb")


def download_href(path: str, url: str) -> str:
    """The relative link from the page at ``url`` to ``path`` (in the docs), as MkDocs makes it.

    >>> download_href("a/b.executed.ipynb", "a/b/"), download_href("x.ipynb", "")
    ('../b.executed.ipynb', 'x.ipynb')
    >>> download_href("a/b.ipynb", "a/b.html")
    'b.ipynb'
    """
    here = url if url.endswith("/") else posixpath.dirname(url)
    return posixpath.relpath(path, here.rstrip("/") or ".")


def download_html(page: Page, href: str) -> str:
    """The download button (to ``href``) a notebook lesson's page ends with; a browser saves
    what the build ran as ``x.ipynb``."""
    href = html.escape(href)
    name = html.escape(posixpath.basename(posixpath.splitext(page.path)[0]) + ".ipynb")
    link = "Download this lesson as a notebook (.ipynb)"
    return f'<p><a class="md-button" download="{name}" href="{href}">{link}</a></p>'


def clash(page: Page) -> Problem:
    """The error for a docs file that already has the notebook's name."""
    name = notebook_path(page)
    message = f"the front matter asks for a notebook, but docs/{name} already exists"
    return _problem(page, message, f"rename {name}, or drop notebook: true")


def page_notebook_bytes(
    page: Page, result: PageResult | None, *, title: str, url: str, root: Path
) -> bytes:
    """The notebook's bytes (``result`` None: execution off); LessonError when the code read
    files of the site (under ``root``): a notebook lacks them."""
    if result and not result.ok:
        raise LessonError(result.problems)
    carried = [os.path.relpath(r, root) for r in result.reads] if result else []
    if page.origins is not None:  # a notebook lesson reads the files beside it, as in Jupyter
        carried = []
    if carried := [r for r in carried if not r.startswith("..")]:
        read = ", ".join(sorted(carried))
        message = f"the page's code reads files a notebook cannot carry: {read}"
        raise LessonError(
            [_problem(page, message, "drop notebook: true, or make the data in the page's code")]
        )
    name = PurePosixPath(notebook_path(page)).name
    notebook = page_notebook(page.markdown, page.program, result, title=title, url=url, name=name)
    return notebook_bytes(notebook)


def _problem(page: Page, message: str, hint: str) -> Problem:
    return page.problem(message, key_line(page.text, "notebook"), hint)


def page_notebook(
    text: str,
    program: Program,
    result: PageResult | None,
    *,
    title: str = "",
    url: str = "",
    name: str = "",
) -> Notebook:
    """The notebook of the page whose body is ``text``: prose as Markdown cells (values filled
    in), each exec block a code cell with its outputs, each doctest example a code cell; with
    ``title`` a first cell says where it comes from; a line linking to ``name`` is left out."""
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
    """``notebook`` as the bytes ``nbformat.writes`` makes, without importing nbformat (0.2 s on
    every build of a site with a notebook); the tests check them against nbformat's schema."""
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
    """Rich output (``result``: a doctest's)."""
    shown = {"output_type": "display_data", "data": data, "metadata": {}}
    return {**shown, "output_type": "execute_result", "execution_count": None} if result else shown


def _preface(title: str, url: str, ran: bool) -> str:
    lesson = f"[{title}]({url})" if url else f"“{title}”"
    if ran:
        return f"From the lesson {lesson}: every output is what its build computed."
    return f"From the lesson {lesson}: its code, not run (the site was built without execution)."


def _prose_cell(lines: list[str], indent: str) -> dict[str, Any]:
    """The prose after a block indented by ``indent``, which loses it (else it reads as code).

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
    """A block's printed output as the page shows it, then its figures."""
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
    import doctest  # here: it imports pdb and unittest, which a warm build never needs

    cells = []
    for example in doctest.DocTestParser().get_examples(transcript):
        want = example.want.rstrip("\n")
        shown = [_display({"text/plain": want}, result=True)] if want else []
        cells.append(_code(example.source.rstrip("\n"), shown))
    return cells


def notebook(cells: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """An nbformat 4.5 notebook of ``cells`` (stable ids: the same page gives the same bytes)."""
    cells = list(cells)
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return {"cells": cells, "metadata": METADATA, "nbformat": 4, "nbformat_minor": 5}


def raw(source: str) -> dict[str, Any]:
    return {"cell_type": "raw", "metadata": {}, "source": source}


def markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def code(source: str, tags: Iterable[str] = (), **options: str) -> dict[str, Any]:
    """A code cell without output; ``tags`` and block ``options`` in its metadata."""
    metadata: dict[str, Any] = {"tags": list(tags)} if tags else {}
    if options:
        metadata["lessonkit"] = dict(options)
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": metadata,
        "outputs": [],
        "source": source,
    }
