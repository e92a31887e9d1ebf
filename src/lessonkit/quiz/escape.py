"""Raw HTML in a quiz is shown as text: a quiz copies its text into labels, seals and the
no-JavaScript answers, where a ``<script>`` or a stray ``</fieldset>`` would do harm. Before
Python-Markdown reads raw HTML, each ``<`` that could open a tag (outside code and autolinks)
becomes ``&lt;``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from markdown.inlinepatterns import AUTOLINK_RE, AUTOMAIL_RE

from lessonkit.core.fences import fenced_lines, paragraph_spans

from .check import RE_END, RE_START

RE_OPENER = re.compile(r"^(?P<prefix>[ >]*?)/{3,} *quiz(?![\w-])", re.I)
"""A ``/// quiz`` line behind the indent or ``>`` of the containers it sits in."""
RE_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
RE_AUTOLINK = re.compile(f"{AUTOLINK_RE}|{AUTOMAIL_RE}")
RE_OPTION = re.compile(r" {0,3}[-*+] ")
"""From the first option on, lines indented 4 spaces are feedback, not code."""
RE_PLACEHOLDER_LINE = re.compile("^[ >]*\x02wzxhzdk:\\d+\x03[ ]*$")
"""A line already replaced by stashed HTML (a fenced or executed block)."""


def escape_quizzes(lines: list[str]) -> list[str]:
    """``lines`` with raw HTML escaped inside every ``/// quiz`` block (see the module)."""
    out = list(lines)
    index = 0
    while index < len(lines):
        m = RE_OPENER.match(lines[index])
        if m is None:
            index += 1
            continue
        prefix = m["prefix"]
        body = list(_body(lines, index + 1, prefix))
        for at, text in _escaped(lines, body, prefix):
            out[at] = text
        index = (body[-1] if body else index) + 1
    return out


def _body(lines: list[str], start: int, prefix: str) -> Iterator[int]:
    """Indices of the quiz's lines up to its closing ``///`` or the end of its container."""
    header = RE_START.match(lines[start - 1][len(prefix) :])
    stack = [len(header[1])] if header else [3]
    for index in range(start, len(lines)):
        line = lines[index]
        if line.strip(" >") and not line.startswith(prefix):
            return
        own = line[len(prefix) :]
        if (end := RE_END.match(own)) and len(end[1]) == stack[-1]:
            stack.pop()
            if not stack:
                return
        elif start_ := RE_START.match(own):
            stack.append(len(start_[1]))
        yield index


def _escaped(lines: list[str], body: list[int], prefix: str) -> Iterator[tuple[int, str]]:
    """``(index, line)`` for each line of the quiz whose text changes."""
    own = [lines[i][len(prefix) :] if lines[i].startswith(prefix) else "" for i in body]
    code = fenced_lines(own)
    spans: dict[int, list[tuple[int, int]]] = {}
    options = False
    for n, text in enumerate(own):
        options = options or (n not in code and bool(RE_OPTION.match(text)))
        if n in code or "<" not in text or RE_PLACEHOLDER_LINE.match(text):
            continue
        if _indented_code(own, n, options):
            continue
        if n not in spans:
            spans = paragraph_spans(own, n)
        escaped = _escape(text, spans[n])
        if escaped != text:
            yield body[n], prefix + escaped


def _indented_code(own: list[str], n: int, options: bool) -> bool:
    """Whether line ``n`` of a quiz is an indented code block: 8 spaces in (below an option's
    4-space feedback), or 4 spaces in after a blank line in the question."""
    indent = len(own[n]) - len(own[n].lstrip(" "))
    if indent >= 8:
        return True
    return not options and indent >= 4 and n > 0 and not own[n - 1].strip()


def _escape(text: str, code: list[tuple[int, int]]) -> str:
    """``text`` with each tag-opening ``<`` outside code spans and autolinks made ``&lt;``."""
    parts, last = [], 0
    for m in RE_TAG_START.finditer(text):
        at = m.start()
        if at < last or any(begin <= at < end for begin, end in code):
            continue
        if link := RE_AUTOLINK.match(text, at):
            parts.append(text[last : link.end()])
            last = link.end()
            continue
        parts += [text[last:at], "&lt;"]
        last = at + 1
    return "".join(parts) + text[last:]
