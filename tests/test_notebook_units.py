"""Examples of the notebook helpers, moved here from their docstrings."""

from __future__ import annotations

import base64
import linecache
from pathlib import Path

from lessonkit.notebooks.convert import convert
from lessonkit.notebooks.expected import expected, shown
from lessonkit.notebooks.ipython import as_page, best_output, bind, value_bundle
from lessonkit.notebooks.lesson import is_notebook
from lessonkit.notebooks.links import to_pages
from lessonkit.notebooks.site import code, markdown, notebook, raw
from lessonkit.notebooks.twin import stored_outputs_note


def test_a_notebook_is_the_lesson_markdown_it_stands_for_line_by_line() -> None:
    cells = [
        raw("---\ntitle: Sums\n---"),
        markdown("# Sums"),
        code("x = 1 + 1\nprint(x)", tags=["hide-input"]),
        markdown("Two is {{ x }}."),
    ]
    made = convert(notebook(cells))
    assert made.text == (
        "---\ntitle: Sums\n---\n\n# Sums\n\n"
        '```python exec source="hide"\nx = 1 + 1\nprint(x)\n```\n\nTwo is {{ x }}.\n'
    )
    assert made.origins.lines[8] == (3, 2)  # text line 9, print(x): cell 3, line 2
    assert made.origins.lines[6] == (3, 0)  # the fence: cell 3, no line of its own


def test_a_tagged_cell_s_exception_is_shown_as_jupyter_shows_it() -> None:
    source = "def half(n):\n    return n / 0\nhalf(4)\n"
    linecache.cache["page.md"] = (len(source), None, source.splitlines(True), "page.md")
    try:
        exec(compile(source, "page.md", "exec"), {})
    except ZeroDivisionError as error:
        text = shown(error, "page.md")
    lines = [line.strip() for line in text.split("\n")]
    assert lines[0] == "-" * 75
    assert lines[1].split() == [
        "ZeroDivisionError",
        "Traceback",
        "(most",
        "recent",
        "call",
        "last)",
    ]
    assert lines[2:] == [
        "line 3",
        "----> 3 half(4)",
        "",
        "line 2, in half",
        "----> 2 return n / 0",
        "",
        "ZeroDivisionError: division by zero",
    ]


def test_a_value_shows_its_best_bundle_and_never_a_memory_address() -> None:
    class Table:
        def _repr_html_(self) -> str:
            return "<table></table>"

    assert best_output(value_bundle(bind({}), Table())) == ("text/html", "<table></table>")
    assert value_bundle(bind({}), object()) == {}


def test_links_by_notebook_name_become_links_to_their_pages() -> None:
    text = "See [sums](sub/a.ipynb#Means-&-Medians) and [b](b.ipynb).\n[c]: c.ipynb"
    assert to_pages(text) == "See [sums](sub/a.md#means-medians) and [b](b.md).\n[c]: c.md"
    assert to_pages("[a](a.ipynb#means-medians) [s](s.ipynb#Self-attention)") == (
        "[a](a.md#means-medians) [s](s.md#self-attention)"
    )
    assert to_pages("[web](https://host/x.ipynb)") == "[web](https://host/x.ipynb)"
    only = to_pages("[a](../a.ipynb) [b](b.ipynb)", "sub/c.md", {"a.ipynb"})
    assert only == "[a](../a.md) [b](b.ipynb)"  # b.ipynb is no notebook lesson: a download


def test_stored_outputs_are_one_note(tmp_path: Path) -> None:
    (tmp_path / "a.ipynb").write_text('{"cells": [{"execution_count": 1}]}')
    assert stored_outputs_note([tmp_path / "a.ipynb"], lambda p: p.name) == (
        "note: 1 notebook carries stored outputs (a.ipynb): its page shows what the build "
        "computes, not them; lessonkit strip removes them (smaller diffs)"
    )


def test_a_percent_script_is_a_notebook_only_with_its_header() -> None:
    header = "# ---\n# jupyter:\n#   jupytext:\n#     format_name: percent\n"
    assert is_notebook(Path("a.py"), header)
    assert not is_notebook(Path("a.py"), "import numpy\n")


def test_a_page_shows_the_best_output_it_can() -> None:
    assert best_output({"text/plain": "df", "text/html": "<table/>"}) == ("text/html", "<table/>")
    assert best_output({"application/vnd.jupyter.widget-view+json": {}}) is None
    assert as_page("text/markdown", "*hi*") == ("markdown", "*hi*")
    assert as_page("text/plain", "3") == ("text", "3")
    png = base64.b64encode(bytes(16) + bytes([0, 0, 0, 4] * 2)).decode()
    assert as_page("image/png", png)[1] == (
        '<img class="lk-image" src="data:image/png;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAE" '
        'alt="Generated description: an image of 4 × 4 pixels." width="4" height="4">'
    )


def test_a_page_s_limits_are_never_the_expected_exception() -> None:
    assert expected(ValueError("shapes"))
    assert not expected(KeyboardInterrupt())
    assert not expected(MemoryError())
