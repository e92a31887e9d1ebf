"""lessonkit finds a page's code where Python-Markdown (with superfences) renders code.

Each generated page marks its lines with unique tokens (``w007``; an info string's own token,
``i003``, shows only when its line is not an opening fence). Python-Markdown renders the page,
and every token must land inside ``<pre>`` exactly when :func:`fences` says its line is fenced
code, and inside ``<code>`` exactly when :func:`mask_code` blanks it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from bs4 import BeautifulSoup
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lessonkit.checks.links import link_problems
from lessonkit.checks.recipe import Context, check_text
from lessonkit.core.fences import Fence, code_spans, fences, mask_code, paragraph_spans
from lessonkit.execute.program import parse_program
from lessonkit.glossary.terms import Glossary, Term
from lessonkit.quiz import check as quiz_check

TOKEN = re.compile(r"[wi]\d{3}")
EXTENSIONS = {
    "superfences": ["pymdownx.superfences"],
    "site": ["pymdownx.superfences", "pymdownx.inlinehilite"],  # the site's code extensions
}


class _Where(HTMLParser):
    """For each token in rendered HTML: (inside <pre>, inside <code>)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = {"pre": 0, "code": 0}
        self.found: dict[str, tuple[bool, bool]] = {}

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in self.depth:
            self.depth[tag] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.depth:
            self.depth[tag] -= 1

    def handle_data(self, data: str) -> None:
        for token in TOKEN.findall(data):
            assert token not in self.found, f"{token} rendered twice"
            self.found[token] = (self.depth["pre"] > 0, self.depth["code"] > 0)


def rendered(text: str, extensions: str = "superfences") -> dict[str, tuple[bool, bool]]:
    where = _Where()
    where.feed(markdown.Markdown(extensions=EXTENSIONS[extensions]).convert(text))
    return where.found


# --- fenced blocks -----------------------------------------------------------------------------

INFOS = ["", "", "python", "{token}", " {token}", ".{token}", "{{.{token}}}", "{token}`x"]
"""Info strings superfences accepts (a token in one vanishes into a class), and one it refuses."""
INDENT = st.sampled_from(["base", "base", "base", "less", "more", "most"])
FENCE = st.tuples(
    st.just("fence"),
    INDENT,
    st.sampled_from("`~"),
    st.sampled_from([3, 3, 4, 5]),
    st.sampled_from(INFOS),
    st.sampled_from(["", "", " ", "\t"]),
)
TEXT = st.tuples(st.just("text"), INDENT)
BLANK = st.tuples(st.just("blank"), st.sampled_from(["", "", "  "]))
LINE = st.one_of(FENCE, TEXT, TEXT, BLANK)
BLOCK = st.tuples(  # an opening fence, some lines, and its closing fence (most often)
    st.just("block"),
    FENCE,
    st.lists(LINE, max_size=5),
    st.sampled_from(["same", "same", "same", "same", "base", "more", "less"]),
    st.sampled_from(["", "", " ", "\t"]),
)
LAYOUT = st.tuples(
    st.sampled_from(["", "", " ", "  ", "   ", "list", "list-tab"]),
    st.lists(st.one_of(BLOCK, BLOCK, TEXT, BLANK, FENCE), max_size=8),
)


def build(layout: tuple[str, list[tuple]]) -> tuple[list[str], dict[int, str]]:
    """The page's lines and, for each line that shows a token, that token."""
    base, specs = layout
    lines: list[str] = []
    tokens: dict[int, str] = {}
    if base.startswith("list"):  # fences indented inside a list item
        lines, base, top = ["- w999", ""], "\t" if base == "list-tab" else "    ", 7
    else:
        top = 3  # at the top level, 4 spaces would make an indented code block

    def indent(variant: str) -> str:
        if variant == "less" and top == 3:  # (in a list, a line further left would end it)
            return ""
        extra = {"more": 1, "most": 2}.get(variant, 0)
        return base + " " * min(extra, top - len(base.expandtabs(4)))

    def add(spec: tuple) -> None:
        kind, *rest = spec
        token = f"{'i' if kind == 'fence' else 'w'}{len(lines):03d}"
        if kind == "block":
            opening, inner, closing, trailing = rest
            add(opening)
            for line in inner:
                add(line)
            _, variant, char, length, _, _ = opening
            lines.append(
                indent(variant if closing == "same" else closing) + char * length + trailing
            )
        elif kind == "blank":
            lines.append(rest[0])
        elif kind == "text":
            tokens[len(lines)] = token
            lines.append(indent(rest[0]) + token)
        else:
            variant, char, length, info, trailing = rest
            if "{token}" in info:
                tokens[len(lines)] = token
            lines.append(indent(variant) + char * length + info.format(token=token) + trailing)

    for spec in specs:
        add(spec)
    return lines, tokens


@settings(max_examples=1500)
@given(LAYOUT)
@example(("", [("fence", "base", "~", 3, "", ""), ("fence", "base", "~", 3, "python", "")]))
@example(
    ("", [("fence", "base", "`", 3, "", ""), ("text", "base"), ("fence", "base", "`", 4, "", "")])
)
@example(
    (" ", [("fence", "base", "`", 3, "", ""), ("text", "less"), ("fence", "base", "`", 3, "", "")])
)
@example(
    (
        "list",
        [("fence", "base", "`", 3, "", ""), ("text", "base"), ("fence", "more", "`", 3, "", "")],
    )
)
def test_fenced_lines_are_exactly_those_python_markdown_puts_in_pre(layout) -> None:
    lines, tokens = build(layout)
    found = list(fences(lines))
    assert all(f.closed for f in found[:-1]), "only the last fence can run to the end"
    closed = [f for f in found if f.closed]
    body = {i for f in closed for i in f.body}
    fence_lines = {f.start for f in closed} | {f.end for f in closed}
    where = rendered("\n".join(lines) + "\n")
    page = "\n".join(f"{i:2} {line!r}" for i, line in enumerate(lines))
    for i, token in tokens.items():
        in_pre = where.get(token, (None, None))[0]
        if i in body:
            assert in_pre, f"line {i} is fenced code, Python-Markdown shows it as text:\n{page}"
        elif i in fence_lines:  # an opening line: its info string becomes a class
            assert in_pre in (None, True), f"line {i} opens a fence, but shows:\n{page}"
        else:  # text, or in a fence that never closes (superfences shows that as text)
            assert in_pre is False, f"line {i} is text, Python-Markdown shows {in_pre}:\n{page}"
    masked = mask_code("\n".join(lines)).split("\n")
    in_fence = {i for f in found for i in range(f.start, min(f.end + 1, len(lines)))}
    assert [i for i, line in enumerate(masked) if i in in_fence and line] == []


def test_a_tilde_fence_holding_an_opening_line_closes_only_at_a_bare_fence() -> None:
    lines = ["~~~", "~~~python", "x = [[1, 2]]", "~~~", "[[token]]"]
    assert list(fences(lines)) == [Fence(0, 3, "", "~~~", "")]
    assert mask_code("\n".join(lines)) == "\n\n\n\n[[token]]"


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("```\na\n````\nb\n```\n", [Fence(0, 4, "", "```", "")]),  # a longer fence is code
        ("````\na\n```\nb\n````\n", [Fence(0, 4, "", "````", "")]),  # and so is a shorter one
        ("```\na\n ```\nb\n```\n", [Fence(0, 4, "", "```", "")]),  # and an indented one
        ("  ```\n  a\n```\nb\n", []),  # a line left of the opening one abandons the fence
        ("- a\n\n\t```\n\tb\n    ```\n", [Fence(2, 4, "\t", "```", "")]),  # a tab is 4 columns
        ("```a`b\nc\n```\n", [Fence(2, 4, "", "```", "", closed=False)]),  # no ` in the info
        ("~~~ {.python}\nc\n~~~  \n", [Fence(0, 2, "", "~~~", "{.python}")]),
    ],
)
def test_fence_rules_python_markdown_keeps(page: str, expected: list[Fence]) -> None:
    assert list(fences(page.split("\n"))) == expected


def test_a_fence_never_closed_runs_to_the_end_though_superfences_shows_it_as_text() -> None:
    """The one rule lessonkit keeps from CommonMark: a half-written block is not prose to check."""
    lines = ["w000", "```", "w001", "~~~", "w002", "~~~"]
    assert list(fences(lines)) == [Fence(1, 6, "", "```", "", closed=False)]
    assert mask_code("\n".join(lines)) == "w000\n\n\n\n\n"
    assert rendered("\n".join(lines)) == {f"w00{n}": (False, False) for n in range(3)}


# --- code spans --------------------------------------------------------------------------------

PIECES = ["`", "`", "``", "```", "\\", "\\\\", " ", "x", "TOKEN", "TOKEN", "\n", "\n\n", "\n  \n"]


@st.composite
def paragraphs(draw: st.DrawFn) -> tuple[str, dict[int, str]]:
    """Prose with backticks and backslashes; each line starts with a token (never a fence)."""
    text, tokens = "", {}

    def token() -> None:
        nonlocal text
        tokens[len(text)] = f"w{len(tokens):03d}"
        text += tokens[len(text)]

    token()
    for piece in draw(st.lists(st.sampled_from(PIECES), max_size=30)):
        if piece == "TOKEN":
            token()
            continue
        text += piece
        if piece.startswith("\n"):
            token()
    return text, tokens


@pytest.mark.parametrize("extensions", list(EXTENSIONS))
@settings(max_examples=1000)
@given(paragraphs())
@example(("w000 ```w001`` w002", {0: "w000", 8: "w001", 16: "w002"}))
@example(("w000 \\\\`w001`", {0: "w000", 8: "w001"}))
@example(
    (
        "w000 `w001\nw002` w003\n\nw004 `w005",
        {0: "w000", 6: "w001", 11: "w002", 17: "w003", 23: "w004", 29: "w005"},
    )
)
def test_code_spans_are_where_python_markdown_renders_code(extensions: str, paragraph) -> None:
    text, tokens = paragraph
    masked = mask_code(text)
    where = rendered(text, extensions)
    for at, token in tokens.items():
        assert where[token][1] == (masked[at : at + 4] == "    "), f"{token} in {text!r}"


@given(paragraphs())
def test_a_lines_spans_are_the_columns_mask_code_blanks(paragraph) -> None:
    text = paragraph[0]
    lines, masked = text.split("\n"), mask_code(text).split("\n")
    for i, line in enumerate(lines):
        blanked = {c for c, (a, b) in enumerate(zip(line, masked[i], strict=True)) if a != b}
        spans = paragraph_spans(lines, i)[i]
        assert blanked == {c for a, b in spans for c in range(a, b) if line[c] != " "}
    if "\n" not in text:
        assert mask_code(text) == "".join(
            " " if any(a <= c < b for a, b in code_spans(text)) else ch for c, ch in enumerate(text)
        )


# --- every feature reads the page so ----------------------------------------------------------

QUIZ = """\
/// quiz
What does this page show?

```text
````
///
```

- [x] A fence
- [ ] A quiz's end

    Not quite. The `///` line is inside the fence.
///
"""


def test_a_quiz_holding_a_longer_fence_and_a_closing_line_in_its_code_is_one_quiz() -> None:
    assert quiz_check(QUIZ) == []
    html = markdown.Markdown(extensions=["pymdownx.superfences", "lessonkit.quiz"]).convert(QUIZ)
    assert 'class="lk-quiz"' in html and "<code>````\n///\n</code>" in html


def test_an_inline_value_in_a_code_span_begun_on_the_line_above_is_left_alone() -> None:
    text = "Write `b\n{{ c }}` for a value, as {{ d }} does.\n"
    assert [s.source for s in parse_program(text).steps] == ["d"]
    assert "<code>b\n{{ c }}</code>" in markdown.markdown(text)


def test_a_link_in_a_fence_that_a_longer_fence_leaves_open_is_code(tmp_path: Path) -> None:
    body = "```\n````\n[gone](gone.md)\n```\n[also gone](gone.md)\n"
    assert [p.line for p in link_problems(body, 0, tmp_path / "page.md", Context())] == [5]


# --- the false positive that started it ---------------------------------------------------------

PAGE = """\
---
title: Fences
description: A tilde fence that holds a line like an opening one.
---

# Fences

Every [[token]] counts.

~~~
~~~python
x = [[1, 2]]
~~~
"""
GLOSSARY = "- term: token\n  definition: A piece of text.\n"
CONFIG = """\
site_name: fences
strict: true
plugins:
  - lessonkit:
      execute: false
      glossary: glossary.yml
markdown_extensions:
  - pymdownx.superfences
"""


def test_the_nested_opening_line_is_code_to_lessonkit_check() -> None:
    context = Context(glossary=Glossary([Term("token", "A piece of text.")]))
    assert check_text(PAGE, "page.md", context=context) == []
    outside = PAGE.replace("~~~\n~~~python\n", "").replace("~~~\n", "")
    [problem] = check_text(outside, "page.md", context=context)
    assert problem.format().startswith("page.md:10: error: unknown glossary term '1, 2'")


def test_the_nested_opening_line_is_code_to_a_strict_build(
    tmp_path: Path, mkdocs_build_shared
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(PAGE)
    (tmp_path / "docs" / "glossary.yml").write_text(GLOSSARY)
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    done = mkdocs_build_shared(tmp_path)
    assert done.returncode == 0, done.stderr
    html = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    [code] = html.select("pre code")
    assert code.get_text() == "~~~python\nx = [[1, 2]]\n"
    assert html.select_one("a.lk-term__link").get_text() == "token"
