"""Where a page's containers put their content: each one's lines, dedented, with their lines.

Python-Markdown parses what an admonition, details block, content tab, list item, footnote,
definition (indented 4 spaces) or block quote (behind ``>``) holds as a page of its own; a check
for something at the start of a line (``/// quiz``) must look there too, and report file lines.

>>> lines = ["Text.", "", "!!! note", "", "    /// quiz", "    Why?", "", "> - a", ">", ">     b"]
>>> for region in regions(lines):
...     print(region.numbers, region.lines)
[0, 1, 2, 3, 4, 5, 6, 7, 8, 9] ['Text.', '', '!!! note', '', '    /// quiz', '    Why?', '', \
'> - a', '>', '>     b']
[3, 4, 5] ['', '/// quiz', 'Why?']
[7, 8, 9] ['- a', '', '    b']
[7, 8, 9] ['a', '', 'b']

No line that opens something is in two regions. Not modelled: lazy continuation lines (they
stay in the parent region); raw HTML blocks are read like Markdown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from lessonkit.core.fences import TAB_LENGTH, fenced_lines

# An admonition, details block or content tab: its content is indented under it.
_INDENTED_BODY = re.compile(r" {0,3}(?:!!!|\?\?\?\+?|===[!+]{0,2})(?:[ \t].*)?")
# A list item, footnote or definition: content on the line and indented under it.
_ITEM = re.compile(r"( {0,3})(?:[-*+]|\d{1,9}[.)]|\[\^[^\]]+\]:|:)(?:[ \t]+(.*))?")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")  # ``***`` is no list item
_QUOTE = re.compile(r" {0,3}> ?(.*)")
_OPENING = frozenset("!?=-*+:>[0123456789")  # what an opening line can start with


class Region(NamedTuple):
    """The page, or a container's dedented content; ``numbers``: each line's index in the page."""

    lines: list[str]
    numbers: list[int]


@functools.lru_cache(maxsize=8)
def regions_of(text: str, needle: str = "") -> tuple[Region, ...]:
    """:func:`regions` of ``text``'s lines, remembered for the quiz and block checks."""
    return tuple(regions(text.split("\n"), needle))


def regions(lines: list[str], needle: str = "") -> list[Region]:
    """The page (first) and every container's content, nested ones included; with a
    ``needle``, only the regions that hold it."""
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
    """The containers opened in ``region`` itself (not in other containers)."""
    lines = [line.expandtabs(TAB_LENGTH) if "\t" in line else line for line in region.lines]
    code = fenced_lines(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        first = line.lstrip(" ")[:1]
        if index in code or not first or first not in _OPENING:
            index += 1
            continue
        if _INDENTED_BODY.fullmatch(line):
            body, end = _content(lines, index + 1, _indented)
        elif (item := _ITEM.fullmatch(line)) and not _RULE.fullmatch(line):
            body, end = _content(lines, index + 1, _indented)
            body.insert(0, (index, item[2] or ""))
        elif _QUOTE.fullmatch(line):
            body, end = _content(lines, index, _quoted)
        else:
            index += 1
            continue
        if body:
            yield Region([text for _, text in body], [region.numbers[i] for i, _ in body])
        index = max(end, index + 1)


def _indented(line: str) -> str | None:
    return line[4:] if line.startswith("    ") else None


def _quoted(line: str) -> str | None:
    return m[1] if (m := _QUOTE.fullmatch(line)) else None


def _content(
    lines: list[str], start: int, inner: Callable[[str], str | None]
) -> tuple[list[tuple[int, str]], int]:
    """The lines from ``start`` that are blank or ``inner`` reads, as it reads them; where
    they end (blank lines after the last such line are not the container's)."""
    body: list[tuple[int, str]] = []
    end = start
    for index in range(start, len(lines)):
        if not lines[index].strip():
            body.append((index, ""))
            continue
        if (text := inner(lines[index])) is None:
            break
        body.append((index, text))
        end = index + 1
    return body[: end - start], end
