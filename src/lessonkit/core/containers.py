"""Where a page's containers put their content: each one's lines, dedented, with their lines.

Python-Markdown reads what an admonition (``!!! note``), a details block (``??? note``,
``???+ note``), a content tab (``=== "Tab"``), a list item, a footnote, a definition (``:``)
or a block quote (``>``) holds as Markdown of its own: it takes the lines indented 4 spaces under
the opening line (for a block quote, the lines behind ``>``), removes that indentation and
parses them as if they were a page. A check that looks for something at the start of a line
(``/// quiz``, a fence) must look inside those containers too, in the same dedented lines, and
report the lines they stand on in the file. :func:`regions` gives it the page and every
container's content, nested ones included, each as a :class:`Region`:

>>> lines = ["Text.", "", "!!! note", "", "    /// quiz", "    Why?", "", "> - a", ">", ">     b"]
>>> for region in regions(lines):
...     print(region.numbers, region.lines)
[0, 1, 2, 3, 4, 5, 6, 7, 8, 9] ['Text.', '', '!!! note', '', '    /// quiz', '    Why?', '', \
'> - a', '>', '>     b']
[3, 4, 5] ['', '/// quiz', 'Why?']
[7, 8, 9] ['- a', '', '    b']
[7, 8, 9] ['a', '', 'b']

Every line of a container's content is in its region, and no line that opens something at the
start of a line (indented at most 3 spaces) is in two regions: in its parent region a
container's content is indented 4 spaces or more, or stands behind ``>`` or a list marker.
Lines of fenced code open no container. Not modelled: a lazy continuation line (text that
continues an item's or a quote's paragraph without its indent or ``>``) stays in the parent
region only; raw HTML blocks are read like Markdown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import NamedTuple

from lessonkit.core.fences import TAB_LENGTH, fences

_INDENTED_BODY = re.compile(r" {0,3}(?:!!!|\?\?\?\+?|===[!+]{0,2})(?:[ \t].*)?")
"""An admonition, a details block or a content tab: the content is indented under it."""
_ITEM = re.compile(r"( {0,3})(?:[-*+]|\d{1,9}[.)]|\[\^[^\]]+\]:|:)(?:[ \t]+(.*))?")
"""A list item, a footnote or a definition: content on the line itself and indented under it."""
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
"""A thematic break (``- - -``, ``***``), which looks like a list item and is not one."""
_QUOTE = re.compile(r" {0,3}> ?(.*)")
_OPENING = frozenset("!?=-*+:>[0123456789")
"""The characters a container's opening line can start with (after its indent)."""


class Region(NamedTuple):
    """Lines read as one Markdown document: the page, or a container's dedented content."""

    lines: list[str]
    numbers: list[int]
    """For each line, its index in the page's lines."""


@functools.lru_cache(maxsize=8)
def regions_of(text: str, needle: str = "") -> tuple[Region, ...]:
    """:func:`regions` of ``text``'s lines, remembered: the quiz and block checks both walk a
    page with ``//`` in it (build speed)."""
    return tuple(regions(text.split("\n"), needle))


def regions(lines: list[str], needle: str = "") -> list[Region]:
    """The page (first) and the content of every container in it, nested ones included.

    With a ``needle``, only the regions whose lines hold it (the page always comes first): a
    check that looks for ``///`` lines need not walk every list item (build speed).
    """
    found = [Region(lines, list(range(len(lines))))]
    index = 0
    while index < len(found):
        found += [
            child
            for child in _children(found[index])
            if not needle or any(needle in line for line in child.lines)
        ]
        index += 1
    return found


def _children(region: Region) -> Iterator[Region]:
    """The containers opened in ``region`` itself (not inside other containers)."""
    lines = [line.expandtabs(TAB_LENGTH) if "\t" in line else line for line in region.lines]
    code = {i for f in fences(lines) for i in range(f.start, min(f.end + 1, len(lines)))}
    index = 0
    while index < len(lines):
        line = lines[index]
        first = line.lstrip(" ")[:1]
        if index in code or not first or first not in _OPENING:
            index += 1
            continue
        if _INDENTED_BODY.fullmatch(line):
            body, end = _indented(lines, index + 1)
        elif (item := _ITEM.fullmatch(line)) and not _RULE.fullmatch(line):
            body, end = _indented(lines, index + 1)
            body.insert(0, (index, item[2] or ""))
        elif _QUOTE.fullmatch(line):
            body, end = _quoted(lines, index)
        else:
            index += 1
            continue
        if body:
            yield Region([text for _, text in body], [region.numbers[i] for i, _ in body])
        index = max(end, index + 1)


def _indented(lines: list[str], start: int) -> tuple[list[tuple[int, str]], int]:
    """The lines from ``start`` that are blank or indented 4 spaces, dedented; where they end."""
    body: list[tuple[int, str]] = []
    end = start
    for index in range(start, len(lines)):
        line = lines[index]
        if line.strip():
            if not line.startswith("    "):
                break
            body.append((index, line[4:]))
            end = index + 1
        else:
            body.append((index, ""))
    return body[: end - start], end


def _quoted(lines: list[str], start: int) -> tuple[list[tuple[int, str]], int]:
    """A block quote's lines from ``start``, behind their ``>``; where it ends.

    Blank lines belong to it when the quote goes on after them.
    """
    body: list[tuple[int, str]] = []
    end = start
    for index in range(start, len(lines)):
        line = lines[index]
        if not line.strip():
            body.append((index, ""))
            continue
        quoted = _QUOTE.fullmatch(line)
        if quoted is None:
            break
        body.append((index, quoted[1]))
        end = index + 1
    return body[: end - start], end
