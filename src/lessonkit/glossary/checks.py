"""Check a page's glossary marks in its raw Markdown, with 1-based line numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem
from lessonkit.glossary.terms import Glossary

MARK_RE = r"\[\[(!?)([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]"
"""``[[term]]``, ``[[term|shown text]]``, ``[[!text]]``."""


def unknown_term(written: str, target: str, glossary: Glossary, line: int | None = None) -> Problem:
    close = glossary.suggest(target)
    hint = (
        f"did you mean {' or '.join(repr(c) for c in close)}? "
        if close
        else f"add '{target}' to {Path(glossary.path).name}, or "
    )
    hint += "write [[!text]] for a word that is not a glossary term"
    return Problem(f"unknown glossary term '{target}' in {written}", line, hint)


def _mask_code(text: str) -> str:
    """``text`` with fenced blocks, code spans and backslash escapes blanked (newlines kept)."""
    return re.sub(r"\\.", "  ", mask_code(text))


def check(markdown_text: str, glossary: Glossary) -> list[Problem]:
    """Problems with the glossary marks in a page's Markdown, with 1-based line numbers.

    >>> from lessonkit.glossary.terms import Term
    >>> g = Glossary([Term("token", "t."), Term("tokenizer", "t.")])
    >>> print(check("Fine: [[tokens]], `[[nope]]`.\\n\\nBad: [[tokeniser]].", g)[0].format())
    <markdown>:3: error: unknown glossary term 'tokeniser' in [[tokeniser]]
      hint: did you mean 'tokenizer' or 'token'? write [[!text]] for a word that is not a \
glossary term
    """
    text = _mask_code(markdown_text)
    if "[[" not in text:
        return []  # most pages' prose: no mark (build speed)
    problems: list[Problem] = []
    for first, paragraph in _paragraphs(text):
        problems += _paragraph_problems(paragraph, first, glossary)
    return sorted(problems, key=lambda p: p.line or 0)


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """``(first line, text)`` of each paragraph of ``text`` that holds ``[[``: a mark, like any
    inline Markdown, never crosses a blank line (and a short string scans fast)."""
    lines = text.split("\n")
    start = 0
    for index, line in enumerate([*lines, ""]):
        if line.strip(" \t"):
            continue
        if index > start and any("[[" in row for row in lines[start:index]):
            yield start + 1, "\n".join(lines[start:index])
        start = index + 1


def _paragraph_problems(text: str, first: int, glossary: Glossary) -> list[Problem]:
    """The problems with the marks of one paragraph whose first line is ``first``."""
    line_of = _LineOf(text)
    problems = []
    marks = list(re.finditer(MARK_RE, text))
    covered = {m.start() for m in marks}
    for m in marks:
        target = " ".join(m.group(2).split())
        if not m.group(1) and glossary.lookup(target) is None:
            line = first - 1 + line_of(m.start())
            problems.append(unknown_term(m.group(0), target, glossary, line))
    for m in re.finditer(r"\[\[", text):
        if m.start() not in covered and m.start() - 1 not in covered:
            problems.append(
                Problem(
                    "'[[' starts no glossary mark",
                    first - 1 + line_of(m.start()),
                    hint="write [[term]], [[term|shown text]] or [[!text]]; "
                    "write \\[[ for literal brackets",
                )
            )
    return problems


class _LineOf:
    """The 1-based line of an offset in ``text``, for offsets asked in increasing order.

    Counting newlines from the start for every mark made a page of many marks quadratic; this
    counts each newline once, however many marks there are.

    >>> line_of = _LineOf("a\\nb\\n\\nc")
    >>> [line_of(0), line_of(2), line_of(5)]
    [1, 2, 4]
    """

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def __call__(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 1
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line
