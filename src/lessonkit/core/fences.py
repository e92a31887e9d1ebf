"""Which parts of a page are code: fenced blocks and code spans, found as the site renders them.

Every feature that reads a page's raw Markdown (running its code, checking its links, glossary
marks and quizzes) asks this module where the code is, so that ``lessonkit check``, the build's
checks and the rendered page agree. The rules are those of the site's renderer, Python-Markdown
with ``pymdownx.superfences``, which are stricter than CommonMark's:

- A fence opens on a line of three or more backticks or tildes, indented by any spaces or tabs
  and followed by an info string without a backtick (```` ```a`b ```` is inline code, not a
  fence).
- It closes on a line of *the same* fence (same character, same length) at the opening line's
  indentation, followed by nothing but spaces or tabs. A longer or an indented fence, or one with
  an info string (``~~~python`` inside a ``~~~`` block), is a line of code.
- A non-blank line less indented than the opening line abandons the fence: superfences renders
  all of it as text and looks for the next fence after that line. So does this scanner.
- A fence never closed runs to the end of the text (:attr:`Fence.closed` is False), as in
  CommonMark. Superfences shows such a fence as text; lessonkit keeps it code, so a block whose
  closing line is missing still runs (``python exec``) and is not checked as prose.

Code spans are paired as Python-Markdown pairs them (:func:`code_spans`), within a paragraph.

Lines are indexed from 0, and indents are measured with tabs stopping every 4 columns, as
Python-Markdown expands tabs before superfences reads a line. Not looked for: fences in block
quotes (after ``>``), and which info strings superfences itself would refuse (e.g. unknown
options): lessonkit's own ```` ```python exec ```` blocks are of that kind, and are taken out
before superfences runs.

>>> lines = ["Text.", "~~~", "~~~python", "x = [[1, 2]]", "~~~", "More text."]
>>> [(f.start, f.end, f.fence, f.info) for f in fences(lines)]
[(1, 4, '~~~', '')]
>>> print(mask_code("Use `[[x]]`:\\n\\n```\\n[[y]]\\n```\\nDone."))
Use        :
<BLANKLINE>
<BLANKLINE>
<BLANKLINE>
<BLANKLINE>
Done.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

TAB_LENGTH = 4
"""Python-Markdown's default tab length (MkDocs keeps it): where a tab in an indent stops."""

_OPEN = re.compile(r"([ \t]*)(`{3,}|~{3,})([^`]*)")
"""An opening fence line (matched whole): indent, fence, info string (no backtick in it)."""


class Fence(NamedTuple):
    """One fenced block of a page: lines ``start`` to ``end``, both fence lines included."""

    start: int
    """Index of the opening line."""
    end: int
    """Index of the closing line; ``len(lines)`` when the fence is never closed."""
    indent: str
    """The opening line's indentation, as written."""
    fence: str
    """The opening fence itself, e.g. ```` ``` ```` or ``~~~~``."""
    info: str
    """What follows the opening fence, stripped, e.g. ``python exec source="hide"``."""
    closed: bool = True
    """False when the text ends before a closing fence (the block then runs to its end)."""

    @property
    def body(self) -> range:
        """Indices of the lines between the fence lines."""
        return range(self.start + 1, self.end)


def fences(lines: Sequence[str]) -> Iterator[Fence]:
    """The fenced blocks of a page's ``lines``, in order, by the rules of the module docstring.

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
            if not text.strip():  # blank lines belong to the block, at any indentation
                end += 1
                continue
            at = _width(line[: len(line) - len(text)]) if line[0] in " \t" else 0
            if at < width:
                break  # abandoned: this line is text, and so is everything since the opening
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


def _width(indent: str) -> int:
    """Columns an indent of spaces and tabs takes up, tabs stopping every 4 columns."""
    return len(indent.expandtabs(TAB_LENGTH)) if "\t" in indent else len(indent)


def code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each code span in ``text``, backticks included, as Python-Markdown finds.

    ``text`` is one line or one paragraph: a span may cross a line break, never a blank line
    (:func:`mask_code` cuts a page into paragraphs). The rules are Python-Markdown's (3.11, and
    pymdownx.inlinehilite's, which copies them), scanning left to right:

    - a run of backticks opens a span unless an odd number of backslashes precedes it;
    - the span ends at the next run of exactly as many backticks (a longer or a shorter run is
      part of the code);
    - when no run is as long, it ends at the longest shorter run, the opening's extra backticks
      being code; when there is none either, the opening run is literal text, *and so are as
      many characters after it* (Python-Markdown resumes its search that much further on).

    >>> text = "a `b` c ``d ` e`` f \\\\`g` ```h`` i"
    >>> [text[s:e] for s, e in code_spans(text)]
    ['`b`', '``d ` e``', '```h``']
    >>> code_spans("no `pair"), code_spans("`\\\\``a``")
    ([], [])
    """
    spans: list[tuple[int, int]] = []
    position, length = 0, len(text)
    literal_before = False  # is text[position - 1] text still, not a span Python-Markdown took?
    while (tick := text.find("`", position)) != -1:
        escapes = tick
        while escapes > position and text[escapes - 1] == "\\":
            escapes -= 1
        odd = (tick - escapes) % 2 == 1
        if odd or (escapes == position and literal_before and text[position - 1] == "\\"):
            position, literal_before = tick + 1, True  # an escaped backtick: a literal one
            continue
        run_end = tick
        while run_end < length and text[run_end] == "`":
            run_end += 1
        ticks, end, longest, longest_end = run_end - tick, None, 0, 0
        other = text.find("`", run_end)
        while other != -1:
            other_end = other
            while other_end < length and text[other_end] == "`":
                other_end += 1
            if other_end - other == ticks:
                end = other_end
                break
            if other_end - other > longest:
                longest, longest_end = other_end - other, other_end
            other = text.find("`", other_end)
        if end is None and 0 < longest < ticks:
            end = longest_end
        if end is None:
            position, literal_before = run_end + ticks, True  # as Python-Markdown skips on
        else:
            spans.append((tick, end))
            position, literal_before = end, False
    return spans


def paragraph_spans(
    lines: Sequence[str], index: int, start: int = 0, stop: int | None = None
) -> dict[int, list[tuple[int, int]]]:
    """For each line of the paragraph around line ``index``: its columns inside code spans.

    The paragraph is the run of non-blank lines around ``index`` within ``lines[start:stop]``
    (pass the prose between two fences), so a span that opens on an earlier line counts. Every
    line of the paragraph is a key: ask again only for a line that is not (build speed).

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
    """Whether Python-Markdown takes ``line`` for a blank one (it ends paragraphs)."""
    return not line.strip(" \t")


def mask_code(text: str) -> str:
    """``text`` as prose only: fenced blocks emptied, code spans replaced by as many spaces.

    Newlines are kept, so line numbers (and columns outside fences) stay those of ``text``.

    >>> mask_code("See `a\\nb` and [c](d.md).")
    'See   \\n   and [c](d.md).'
    """
    if "`" not in text and "~~~" not in text:
        return text  # no fence, no code span (build speed)
    lines = text.split("\n")
    for fence in fences(lines):
        lines[fence.start : fence.end + 1] = [""] * (min(fence.end + 1, len(lines)) - fence.start)
    start = 0
    for index, line in enumerate([*lines, ""]):
        if not _blank(line):
            continue
        if index - start > 0:
            _mask_spans(lines, start, index)
        start = index + 1
    return "\n".join(lines)


def _mask_spans(lines: list[str], start: int, stop: int) -> None:
    """Blank the code spans of the paragraph ``lines[start:stop]`` in place."""
    paragraph = "\n".join(lines[start:stop])
    if "`" not in paragraph:
        return
    spans = code_spans(paragraph)
    if not spans:
        return
    masked, last = [], 0
    for begin, end in spans:
        masked += [paragraph[last:begin], re.sub(r"[^\n]", " ", paragraph[begin:end])]
        last = end
    masked.append(paragraph[last:])
    lines[start:stop] = "".join(masked).split("\n")
