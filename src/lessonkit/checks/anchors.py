"""The ids a page will have, read from its source: its headings' ids as the ``toc`` extension
makes them (its own slugify of the heading's rendered text, ``_1``, ``_2``... for repeats),
explicit ``{#id}`` attribute lists, and ``id``/``name`` attributes in raw HTML (see
:mod:`.links`, which checks anchors against them).
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
from lessonkit.core.fences import fences
from lessonkit.core.page import Page
from lessonkit.core.problems import LessonError
from lessonkit.core.source import split_source
from lessonkit.notebooks.lesson import read_lesson


class PageIds(NamedTuple):
    """The ids a page's source shows; ``complete`` when its rendering can make no others."""

    ids: frozenset[str]
    complete: bool = True


class Anchors:
    """The ids pages will have, read from their sources once per check (or build)."""

    def __init__(self) -> None:
        self._ids: dict[Path, PageIds | None] = {}

    def of_file(self, file: Path, separator: str = "-") -> PageIds | None:
        """The ids of the page in ``file`` (None if it cannot be read)."""
        key = file.resolve()
        if key not in self._ids:
            try:
                text = file.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                self._ids[key] = None
            else:
                self._ids[key] = text_ids(text, separator)
        return self._ids[key]

    def of_lesson(self, file: Path, separator: str = "-") -> PageIds | None:
        """The ids of the notebook lesson in ``file``: those of the Markdown it stands for."""
        key = file.resolve()
        if key not in self._ids:
            try:
                text = read_lesson(file, file.name, str(file)).text
            except LessonError:
                self._ids[key] = None
            else:
                self._ids[key] = text_ids(text, separator)
        return self._ids[key]

    def of_text(self, file: Path, text: str, separator: str = "-") -> PageIds:
        """The ids of the page ``file`` whose source is ``text`` (the page being checked)."""
        key = file.resolve()
        if self._ids.get(key) is None:
            self._ids[key] = text_ids(text, separator)
        return self._ids[key] or PageIds(frozenset())


def text_ids(text: str, separator: str = "-") -> PageIds:
    """The ids of a page whose whole source is ``text``: its body's, and those of what the host
    appends to it (the "Go deeper" section, when its front matter lists ``resources:``)."""
    split = split_source(text)
    ids = page_ids(split.body, separator)
    if split.front_matter and _lists_resources(split.front_matter):
        return PageIds(ids.ids | _section_ids(separator), ids.complete)
    return ids


def _lists_resources(front_matter: str) -> bool:
    """Whether front matter gives ``resources:`` entries (an empty list adds no section), read
    without YAML: a page only linked to need not be parsed (one id too many is harmless).

    >>> [_lists_resources(t) for t in ["resources:\\n- kind: x\\n", "resources: []\\n", "a: 1\\n"]]
    [True, False, False]
    """
    lines = front_matter.split("\n")
    for index, line in enumerate(lines):
        if m := re.match(r"resources[ \t]*:(.*)", line):
            rest = m[1].split(" #", 1)[0].strip()
            if rest not in ("", "null", "~"):
                return rest.replace(" ", "") != "[]"
            following = (t.strip() for t in lines[index + 1 :])
            return next((t for t in following if t and not t.startswith("#")), "").startswith("-")
    return False


@functools.lru_cache(maxsize=4)
def _section_ids(separator: str) -> frozenset[str]:
    """The ids of the "Go deeper" section the host appends, from the section itself."""
    entry = "{kind: Paper, title: T, author: A, url: 'https://example.org', note: N}"
    page = Page.from_text(f"---\nresources: [{entry}]\n---\n", "")
    return page_ids(resources.section(page), separator).ids


_ATX = re.compile(r"^[ \t>]*(#{1,6})(?P<text>.*?)#*[ \t]*$")
"""An ATX heading, at any depth (in a container, behind a block quote's ``>``)."""
_SETEXT = re.compile(r"^[ \t>]*(?:=+|-+)[ \t]*$")
_ATTRS = re.compile(r"[ \t]*\{:?[ \t]*([^}\n]*?)[ \t]*\}[ \t]*$")
"""An attribute list at the end of a heading: ``{#id .class}`` (``attr_list``)."""
_EXPLICIT_ID = re.compile(r"\{:?[^}\n]*?#([^\s}]+)[^}\n]*\}")
_HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
_MARKUP = re.compile(r"[*_`\[<&\\!]")
_MARK = re.compile(r"\[\[!?([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]")
_UNKNOWABLE = re.compile(
    r"""(?m)^[ \t>]*(`{3,}|~{3,})[ \t]*python[ \t]+exec\b.*\boutput=["']?(?:markdown|html)"""
    r"|--8<--|\{%"
)
"""What makes a page's ids unknowable from its source: output that Markdown or HTML code
prints, snippets and template includes."""


@functools.cache
def _headings_md() -> markdown.Markdown:
    """The Markdown that renders a heading with markup, made on first use: most pages' headings
    are plain text, and a warm build need not pay for it (build speed)."""
    return markdown.Markdown()


def page_ids(body: str, separator: str = "-") -> PageIds:
    """The ids a page's body shows, and whether it will have no others (see the module).

    >>> sorted(page_ids("# The `softmax` function\\n\\nText.\\n\\n## Why? {#why}\\n"
    ...                 "\\nAgain\\n-----\\n\\n## Again\\n\\n<a id='x'></a>\\n").ids)
    ['again', 'again_1', 'the-softmax-function', 'why', 'x']
    """
    complete = not _UNKNOWABLE.search(body)
    lines = body.split("\n")
    code = {i for f in fences(lines) for i in range(f.start, min(f.end + 1, len(lines)))}
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
    # Ids written out: outside fenced code (in a code span too: one id too many is harmless).
    prose = "\n".join(line for i, line in enumerate(lines) if i not in code)
    ids: set[str] = set(_EXPLICIT_ID.findall(prose)) if "{" in prose else set()
    if "=" in prose:
        ids |= {next(g for g in m.groups() if g is not None) for m in _HTML_ID.finditer(prose)}
    for text in headings:
        if "{{" in text:
            complete = False  # an inline value: its text is known only once the code ran
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
