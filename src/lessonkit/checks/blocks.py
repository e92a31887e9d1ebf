"""Check ``///`` block lines: a block that no extension reads is published as plain text.

A misspelt ``/// quizz`` would publish the question and its answer key as text and the build
would pass. So a ``///`` line (at most 3 spaces in, in any container, outside code and HTML
comments) must name a block the site has, or, when the site's blocks are unknown, must not be a
near miss of lessonkit's own (``// quiz`` too). ``/// quiz`` lines are the quiz check's.

>>> [(p.line, p.message) for p in block_problems("Text.\\n\\n/// quizz\\nWhy?\\n///\\n", None)]
[(3, 'unknown block `/// quizz`: no Markdown extension of this site reads it, so the page would \
show the block, answers and all, as plain text')]
>>> block_problems("/// note\\nText.\\n///\\n", frozenset({"note", "quiz"}))
[]
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from lessonkit.core.containers import regions_of
from lessonkit.core.fences import fenced_lines
from lessonkit.core.problems import Problem

LESSONKIT_BLOCKS = ("quiz",)
_LINE = re.compile(r" {0,3}(?P<slashes>/{1,})[ ]*(?P<name>[\w-]+)(?P<rest>.*)")
_REST = re.compile(r"[ ]*(?:\|.*)?")  # what may follow a block's name: ``| a title``
_QUICK = re.compile(r"(?m)^[ \t>]*/{1,}[ ]*[\w-]")  # any such line, at any depth
_QUIZ = re.compile(r"/{3,} *quiz(?![\w-])", re.I)


def block_problems(body: str, blocks: frozenset[str] | None) -> list[Problem]:
    """A problem for each ``///`` line of ``body`` that would open no block; ``blocks``: the
    site's block names (lowercase), or None when unknown."""
    if "/" not in body or not _QUICK.search(body):
        return []
    known = blocks if blocks is not None else frozenset(LESSONKIT_BLOCKS)
    problems = []
    for region in regions_of(body, "//"):
        for index, m in _block_lines(region.lines):
            found = _judge(m, known, blocks is not None)
            if found:
                problems.append(found._replace(line=region.numbers[index] + 1))
    return sorted(problems, key=lambda p: p.line or 0)


def _block_lines(lines: list[str]) -> Iterator[tuple[int, re.Match[str]]]:
    """``(index, match)`` for each line of a region that looks like a block line."""
    code = fenced_lines(lines)
    in_comment = False
    for index, line in enumerate(lines):
        if in_comment:
            in_comment = "-->" not in line
            continue
        if index in code:
            continue
        if "<!--" in line and "-->" not in line[line.index("<!--") :]:
            in_comment = True
        m = _LINE.fullmatch(line)
        if m and not _QUIZ.match(line.lstrip(" ")):
            yield index, m


def _judge(m: re.Match[str], known: frozenset[str], complete: bool) -> Problem | None:
    """The problem with one block line, without its line."""
    slashes, name, rest = m["slashes"], m["name"], m["rest"]
    written = f"{slashes} {name}"
    key = name.lower()
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    if len(slashes) < 3:
        if key not in known and not close:
            return None  # prose that starts with // (a comment, a path)
        block = key if key in known else close[0]
        message = f"`{written}` opens no block: a block opens with three slashes"
        return Problem(message, hint=f"write `/// {block}`")
    if key in known:
        if _REST.fullmatch(rest):
            return None
        message = f"`{written}{rest}` opens no block: only `| a title` may follow the block's name"
        hint = f"write `/// {key}` alone on its line (or `/// {key} | Title`)"
        return Problem(message, hint=hint)
    if not complete and not close:
        return None  # blocks unknown: only near misses of lessonkit's are sure
    listed = ", ".join(sorted(known))
    hint = f"did you mean `/// {close[0]}`? " if close else ""
    hint += f"The blocks this site has: {listed}. To show the line as text, write \\///"
    answers = ", answers and all," if close and close[0] == "quiz" else ""
    message = (
        f"unknown block `{written}`: no Markdown extension of this site reads it, so the page "
        f"would show the block{answers} as plain text"
    )
    return Problem(message, hint=hint)
