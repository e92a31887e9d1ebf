"""The ids a page will have, read from its source: its headings' ids as ``toc`` makes them
(``_1``, ``_2``... for repeats), ``{#id}`` attribute lists, and raw HTML ``id``/``name``s.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path
from typing import NamedTuple

import markdown
from markdown.extensions.toc import slugify, strip_tags, unique

from lessonkit import resources
from lessonkit.core.fences import fenced_lines
from lessonkit.core.page import Page
from lessonkit.core.problems import LessonError
from lessonkit.notebooks.lesson import read_lesson


class PageIds(NamedTuple):
    """The ids a page's source shows; ``complete`` when its rendering can make no others."""

    ids: frozenset[str]
    complete: bool = True


class Anchors:
    """The ids pages will have, read from their sources once per check (or build)."""

    def __init__(self) -> None:
        self._ids: dict[Path, PageIds | None] = {}

    def of(self, file: Path, separator: str = "-", text: str | None = None) -> PageIds | None:
        """The ids of the page in ``file`` (a notebook lesson: of the Markdown it stands for),
        whose source is ``text`` when given; None if it cannot be read."""
        key = file.resolve()
        if self._ids.get(key) is None:
            try:
                if text is None and file.suffix != ".md":
                    text = read_lesson(file, file.name, str(file)).text
                elif text is None:
                    text = file.read_text(encoding="utf-8-sig")
                self._ids[key] = text_ids(text, separator)
            except (OSError, UnicodeDecodeError, LessonError):
                self._ids[key] = None
        return self._ids[key]


def text_ids(text: str, separator: str = "-") -> PageIds:
    """The ids of a page whose whole source is ``text``, with the "Go deeper" section that its
    ``resources:`` add."""
    page = Page.from_text(text, "")
    ids = page_ids(page.body, separator)
    if page.valid_meta.get("resources"):
        return PageIds(ids.ids | _section_ids(separator), ids.complete)
    return ids


@functools.lru_cache(maxsize=4)
def _section_ids(separator: str) -> frozenset[str]:
    """The ids of the "Go deeper" section the host appends."""
    entry = "{kind: Paper, title: T, author: A, url: 'https://example.org', note: N}"
    page = Page.from_text(f"---\nresources: [{entry}]\n---\n", "")
    return page_ids(resources.section(page), separator).ids


_ATX = re.compile(r"^[ \t>]*(#{1,6})(?P<text>.*?)#*[ \t]*$")  # at any depth
_SETEXT = re.compile(r"^[ \t>]*(?:=+|-+)[ \t]*$")
_ATTRS = re.compile(r"[ \t]*\{:?[ \t]*([^}\n]*?)[ \t]*\}[ \t]*$")  # ``{#id .class}``
_EXPLICIT_ID = re.compile(r"\{:?[^}\n]*?#([^\s}]+)[^}\n]*\}")
_HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
_MARKUP = re.compile(r"[*_`\[<&\\!]")
_MARK = re.compile(r"\[\[!?([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]")
# Markdown or HTML that code prints, snippets, template includes: ids known only once rendered.
_UNKNOWABLE = re.compile(
    r"""(?m)^[ \t>]*(`{3,}|~{3,})[ \t]*python[ \t]+exec\b.*\boutput=["']?(?:markdown|html)"""
    r"|--8<--|\{%"
)


@functools.cache
def _headings_md() -> markdown.Markdown:
    """The Markdown that renders a heading with markup."""
    return markdown.Markdown()


def page_ids(body: str, separator: str = "-") -> PageIds:
    """The ids a page's body shows, and whether it will have no others.

    >>> sorted(page_ids("# The `softmax` function\\n\\nText.\\n\\n## Why? {#why}\\n"
    ...                 "\\nAgain\\n-----\\n\\n## Again\\n\\n<a id='x'></a>\\n").ids)
    ['again', 'again_1', 'the-softmax-function', 'why', 'x']
    """
    complete = not _UNKNOWABLE.search(body)
    lines = body.split("\n")
    code = fenced_lines(lines)
    headings = []
    for index, line in enumerate(lines):
        if index in code:
            continue
        if m := _ATX.match(line):
            headings.append(m["text"])
        elif _SETEXT.match(line) and index > 0 and index - 1 not in code:
            previous = lines[index - 1].strip(" \t>")
            if previous and not previous.startswith(("#", "-", "*", "+")):
                headings.append(previous)
    # Ids written out, outside fenced code (one too many, from a code span, is harmless).
    prose = "\n".join(line for i, line in enumerate(lines) if i not in code)
    ids: set[str] = set(_EXPLICIT_ID.findall(prose)) if "{" in prose else set()
    if "=" in prose:
        ids |= {next(g for g in m.groups() if g is not None) for m in _HTML_ID.finditer(prose)}
    for text in headings:
        if "{{" in text:
            complete = False  # an inline value: known once the code ran
            continue
        attrs = _ATTRS.search(text)
        if attrs:
            text = text[: attrs.start()]
            if explicit := re.search(r"#([^\s}]+)", attrs[1]):
                ids.add(explicit[1])
                continue
        ids.add(unique(slugify(html.unescape(_heading_text(text)), separator), ids))
    return PageIds(frozenset(ids), complete)


def _heading_text(text: str) -> str:
    """A heading's text as ``toc`` reads it: rendered, tags stripped, whitespace collapsed."""
    text = _MARK.sub(lambda m: m[2] or m[1], text.strip())
    if not _MARKUP.search(text):
        return " ".join(text.split())
    rendered = _headings_md().reset().convert("# " + text)
    inner = rendered[rendered.index(">") + 1 : rendered.rindex("<")]
    return strip_tags(inner)
