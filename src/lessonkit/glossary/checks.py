"""Check a page's glossary marks in its raw Markdown, with 1-based line numbers."""

from __future__ import annotations

import re
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
    problems = []
    marks = list(re.finditer(MARK_RE, text))
    covered = {m.start() for m in marks}
    for m in marks:
        line = text.count("\n", 0, m.start()) + 1
        if not m.group(1) and glossary.lookup(" ".join(m.group(2).split())) is None:
            problems.append(unknown_term(m.group(0), " ".join(m.group(2).split()), glossary, line))
    for m in re.finditer(r"\[\[", text):
        if m.start() not in covered and m.start() - 1 not in covered:
            problems.append(
                Problem(
                    "'[[' starts no glossary mark",
                    text.count("\n", 0, m.start()) + 1,
                    hint="write [[term]], [[term|shown text]] or [[!text]]; "
                    "write \\[[ for literal brackets",
                )
            )
    return sorted(problems, key=lambda p: p.line or 0)
