"""Which parts of a page are code: fenced blocks and code spans, as the site renders them.

The rules are Python-Markdown's with ``pymdownx.superfences`` (stricter than CommonMark's), so
``lessonkit check``, the build's checks and the rendered page agree:

- a fence opens on three or more backticks or tildes, at any indent, with an info string
  without a backtick; it closes on the same fence at the same indent, followed by blanks only;
- a non-blank line less indented than the opening abandons the fence (it is all text);
- a fence never closed runs to the end (``closed`` False): lessonkit keeps it code, so its
  ``python exec`` block still runs;
- code spans pair as Python-Markdown pairs them, within a paragraph.

Lines are indexed from 0; tabs stop every 4 columns. Not looked for: fences behind ``>``.

>>> lines = ["Text.", "~~~", "~~~python", "x = [[1, 2]]", "~~~", "More text."]
>>> [(f.start, f.end, f.fence, f.info) for f in fences(lines)]
[(1, 4, '~~~', '')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from markdown.inlinepatterns import BACKTICK_RE, BacktickInlineProcessor

TAB_LENGTH = 4  # Python-Markdown's default, which MkDocs keeps
_BACKTICK = BacktickInlineProcessor(BACKTICK_RE)
_OPEN = re.compile(r"([ \t]*)(`{3,}|~{3,})([^`]*)")  # indent, fence, info string


class Fence(NamedTuple):
    """One fenced block: lines ``start`` to ``end`` (``len(lines)`` if never closed), both fence
    lines included; ``info`` is what follows the opening fence, stripped."""

    start: int
    end: int
    indent: str
    fence: str
    info: str
    closed: bool = True

    @property
    def body(self) -> range:
        """Indices of the lines between the fence lines."""
        return range(self.start + 1, self.end)


def fences(lines: Sequence[str]) -> Iterator[Fence]:
    """The fenced blocks of ``lines``, in order.

    >>> page = ["```python", "print(1)", "````", "  ```", "```", "~~~ text", "unclosed"]
    >>> for fence in fences(page):
    ...     print(fence)
    Fence(start=0, end=4, indent='', fence='```', info='python', closed=True)
    Fence(start=5, end=7, indent='', fence='~~~', info='text', closed=False)

    A fence in a list item closes at its own indentation; a line left of it abandons it:

    >>> [f.start for f in fences(["- item", "", "    ```", "    code", "    ```"])]
    [2]
    >>> list(fences(["  ```", "  code", "text", "  ```"]))
    [Fence(start=3, end=4, indent='  ', fence='```', info='', closed=False)]
    """
    index, count = 0, len(lines)
    while index < count:
        opening = _OPEN.fullmatch(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening[1], opening[2]
        width = _width(indent)
        end, closing = index + 1, None
        while end < count:
            line = lines[end]
            text = line.lstrip(" \t")
            if not text.strip():  # a blank line belongs to the block
                end += 1
                continue
            at = _width(line[: len(line) - len(text)]) if line[0] in " \t" else 0
            if at < width:
                break  # abandoned: all text
            if at == width and text.startswith(fence) and not text[len(fence) :].strip(" \t"):
                closing = end
                break
            end += 1
        if end == count:
            yield Fence(index, end, indent, fence, opening[3].strip(), closed=False)
            return
        if closing is not None:
            yield Fence(index, closing, indent, fence, opening[3].strip())
        index = end + 1


def fenced_lines(lines: Sequence[str]) -> set[int]:
    """Indices of the lines inside fenced blocks, fence lines included."""
    return {i for f in fences(lines) for i in range(f.start, min(f.end + 1, len(lines)))}


def _width(indent: str) -> int:
    return len(indent.expandtabs(TAB_LENGTH)) if "\t" in indent else len(indent)


def code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each code span in the paragraph ``text``, backticks included, found
    by Python-Markdown's own pattern.

    >>> text = "a `b` c ``d ` e`` f \\\\`g` ```h`` i"
    >>> [text[s:e] for s, e in code_spans(text)]
    ['`b`', '``d ` e``', '```h``']
    >>> code_spans("no `pair"), code_spans("`\\\\``a``")
    ([], [])
    """
    spans: list[tuple[int, int]] = []
    position = 0
    while m := _BACKTICK.compiled_re.search(text, position):
        begin = m.end() if m[1] else m.start()  # after escaped backslashes, a backtick run
        start, end = _BACKTICK.find_code_spans(begin, text)
        if end is None:
            position = start
        else:
            spans.append((begin, end + start - begin))
            position = spans[-1][1]
    return spans


def paragraph_spans(
    lines: Sequence[str], index: int, start: int = 0, stop: int | None = None
) -> dict[int, list[tuple[int, int]]]:
    """For each line of the paragraph around line ``index`` (within ``lines[start:stop]``):
    its columns inside code spans.

    >>> paragraph_spans(["Write `a", "{{ b }}` and {{ c }}.", "", "`{{ d }}"], 1)
    {0: [(6, 8)], 1: [(0, 8)]}
    """
    stop = len(lines) if stop is None else stop
    first = last = index
    while first > start and not _blank(lines[first - 1]):
        first -= 1
    while last + 1 < stop and not _blank(lines[last + 1]):
        last += 1
    found: dict[int, list[tuple[int, int]]] = {i: [] for i in range(first, last + 1)}
    paragraph = "\n".join(lines[first : last + 1])
    if "`" not in paragraph:
        return found
    spans = code_spans(paragraph)
    begin_of_line = 0
    for line in range(first, last + 1):
        end_of_line = begin_of_line + len(lines[line])
        for begin, end in spans:
            if begin < end_of_line and end > begin_of_line:
                columns = (max(begin, begin_of_line), min(end, end_of_line))
                found[line].append((columns[0] - begin_of_line, columns[1] - begin_of_line))
        begin_of_line = end_of_line + 1
    return found


def _blank(line: str) -> bool:
    return not line.strip(" \t")


def mask_code(text: str) -> str:
    """``text`` with fenced blocks emptied and code spans blanked; lines and columns kept.

    >>> mask_code("See `a\\nb` and [c](d.md).")
    'See   \\n   and [c](d.md).'
    """
    if "`" not in text and "~~~" not in text:
        return text
    lines = text.split("\n")
    for fence in fences(lines):
        lines[fence.start : fence.end + 1] = [""] * (min(fence.end + 1, len(lines)) - fence.start)
    index = 0
    while index < len(lines):
        if _blank(lines[index]):
            index += 1
            continue
        spans = paragraph_spans(lines, index, index)
        for number, columns in spans.items():
            for begin, end in columns:
                lines[number] = lines[number][:begin] + " " * (end - begin) + lines[number][end:]
        index = max(spans) + 1
    return "\n".join(lines)
