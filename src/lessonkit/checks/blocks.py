"""Check ``///`` block lines: a block that no extension reads is published as plain text.

pymdown-extensions renders a ``/// name`` line whose name no registered block has, and
everything up to its ``///``, as ordinary paragraphs: a misspelt ``/// quizz`` publishes the
question, the ``[x]`` answer key and the feedback as text, and the build passes. So a ``///``
line must name a block the site has (when the site's blocks are known, see
:mod:`.markdown_setup`), or, when they are not, must not be a near miss of lessonkit's own.
A line that opens a block with fewer than three slashes (``// quiz``) is a near miss too.
``/// quiz`` lines themselves are the quiz check's (:func:`lessonkit.quiz.check`).

Lines are looked for as pymdown-extensions finds them: at most 3 spaces in, at the top level
or inside any container (:mod:`lessonkit.core.containers`), outside fenced code and HTML
comments; ``\\///`` is a literal ``///``.

>>> [(p.line, p.message) for p in block_problems("Text.\\n\\n/// quizz\\nWhy?\\n///\\n", None)]
[(3, 'unknown block `/// quizz`: no Markdown extension of this site reads it, so the page would \
show the block, answers and all, as plain text')]
>>> block_problems("/// note\\nText.\\n///\\n", frozenset({"note", "quiz"}))
[]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lessonkit.core.containers import regions_of
from lessonkit.core.fences import fences
from lessonkit.core.problems import Problem

LESSONKIT_BLOCKS = ("quiz",)
_LINE = re.compile(r" {0,3}(?P<slashes>/{1,})[ ]*(?P<name>[\w-]+)(?P<rest>.*)")
"""A line that opens a block or tries to: slashes, a name, and what follows it."""
_REST = re.compile(r"[ ]*(?:\|.*)?")
"""What may follow a block's name on its opening line: nothing, or ``| a title``."""
_QUICK = re.compile(r"(?m)^[ \t>]*/{1,}[ ]*[\w-]")
"""Any such line at any depth: a page without one has nothing to check (build speed)."""
_QUIZ = re.compile(r"/{3,} *quiz(?![\w-])", re.I)


def block_problems(body: str, blocks: frozenset[str] | None) -> list[Problem]:
    """A problem for each ``///`` line of ``body`` that would not open a block, by body line.

    ``blocks``: the site's block names (lowercase), or None when unknown.
    """
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
    code = {i for f in fences(lines) for i in range(f.start, min(f.end + 1, len(lines)))}
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
    """The problem with one block line, without its line (the caller knows it)."""
    slashes, name, rest = m["slashes"], m["name"], m["rest"]
    written = f"{slashes} {name}"
    key = name.lower()
    import difflib  # only for a hint: most builds never need it

    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    if len(slashes) < 3:
        if key not in known and not close:
            return None  # prose that happens to start with // (a comment, a path)
        block = key if key in known else close[0]
        return Problem(
            f"`{written}` opens no block: a block opens with three slashes",
            hint=f"write `/// {block}`",
        )
    if key in known:
        if _REST.fullmatch(rest):
            return None
        return Problem(
            f"`{written}{rest}` opens no block: only `| a title` may follow the block's name",
            hint=f"write `/// {key}` alone on its line (or `/// {key} | Title`)",
        )
    if not complete and not close:
        return None  # the site's blocks are unknown: only near misses of lessonkit's are sure
    listed = ", ".join(sorted(known))
    hint = f"did you mean `/// {close[0]}`? " if close else ""
    hint += f"The blocks this site has: {listed}. To show the line as text, write \\///"
    answers = ", answers and all," if close and close[0] == "quiz" else ""
    message = (
        f"unknown block `{written}`: no Markdown extension of this site reads it, so the page "
        f"would show the block{answers} as plain text"
    )
    return Problem(message, hint=hint)
