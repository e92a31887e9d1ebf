"""Check a page's glossary marks and senses in its raw Markdown, with 1-based line numbers.

A term whose definition holds only on some pages lists ``senses: [causal]``; a page declares
what holds on it with ``<!-- glossary senses: causal -->``. A term used on a page that does not
declare all its senses is reported at its first use.
"""

from __future__ import annotations

import re
from bisect import bisect
from collections.abc import Callable
from pathlib import Path

from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem
from lessonkit.glossary.terms import SENSE_RE, Glossary, Term

MARK_RE = r"\[\[(!?)([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]"  # [[term]], [[term|shown]], [[!text]]
BLANK_LINE = re.compile(r"\n[ \t]*\n")  # a mark, like any inline Markdown, never crosses one
SENSES_RE = re.compile(r"<!--\s*glossary senses:(?P<labels>.*?)-->", re.DOTALL)


def unknown_term(written: str, target: str, glossary: Glossary, line: int | None = None) -> Problem:
    close = glossary.suggest(target)
    hint = (
        f"did you mean {' or '.join(repr(c) for c in close)}? "
        if close
        else f"add '{target}' to {Path(glossary.path).name}, or "
    )
    hint += "write [[!text]] for a word that is not a glossary term"
    return Problem(f"unknown glossary term '{target}' in {written}", line, hint)


def check(markdown_text: str, glossary: Glossary) -> list[Problem]:
    """Problems with the glossary marks in a page's Markdown, with 1-based line numbers.

    >>> from lessonkit.glossary.terms import Term
    >>> g = Glossary([Term("token", "t."), Term("tokenizer", "t.")])
    >>> print(check("Fine: [[tokens]], `[[nope]]`.\\n\\nBad: [[tokeniser]].", g)[0].format())
    <markdown>:3: error: unknown glossary term 'tokeniser' in [[tokeniser]]
      hint: did you mean 'tokenizer' or 'token'? write [[!text]] for a word that is not a \
glossary term
    """
    text = re.sub(r"\\.", "  ", mask_code(markdown_text))  # backslash escapes blanked too
    line_of = lines_of(text)
    marks = [m for m in re.finditer(MARK_RE, text) if not BLANK_LINE.search(m[0])]
    problems = [
        unknown_term(m[0], target, glossary, line_of(m.start()))
        for m in marks
        if not m[1] and glossary.lookup(target := " ".join(m[2].split())) is None
    ]
    covered = {m.start() for m in marks}
    hint = "write [[term]], [[term|shown text]] or [[!text]]; write \\[[ for literal brackets"
    problems += [
        Problem("'[[' starts no glossary mark", line_of(m.start()), hint)
        for m in re.finditer(r"\[\[", text)
        if m.start() not in covered and m.start() - 1 not in covered
    ]
    problems += sense_problems(text, glossary)
    return sorted(problems, key=lambda p: p.line or 0)


def lines_of(text: str) -> Callable[[int], int]:
    """The 1-based line of an offset in ``text`` (a binary search: linear in many marks).

    >>> line_of = lines_of("a\\nb\\n\\nc")
    >>> [line_of(0), line_of(2), line_of(5)]
    [1, 2, 4]
    """
    starts = [m.end() for m in re.finditer("\n", text)]
    return lambda offset: bisect(starts, offset) + 1


def page_senses(text: str) -> tuple[set[str], list[Problem]]:
    """The senses a page's markers declare (code already masked), and problems with them."""
    senses: set[str] = set()
    problems = []
    line_of = lines_of(text)
    for m in SENSES_RE.finditer(text):
        line = line_of(m.start())
        labels = [w for w in re.split(r"[\s,]+", m["labels"]) if w]
        if not labels:
            hint = "write <!-- glossary senses: causal --> (comma-separated for more)"
            problems.append(Problem("the page's senses marker names no sense", line, hint))
        senses.update(label for label in labels if SENSE_RE.match(label))
        problems += [
            Problem(
                f"sense '{label}' in the page's senses marker must be lowercase words joined by "
                "hyphens",
                line,
                hint="e.g. <!-- glossary senses: causal, left-to-right -->",
            )
            for label in labels
            if not SENSE_RE.match(label)
        ]
    return senses, problems


_PROSE_SKIPS = re.compile(
    r"<!--.*?-->"  # comments, the senses marker among them
    r"|<[^>\n]+>"  # HTML tags
    r"|^[ \t]*#{1,6}[ \t][^\n]*$"  # headings: never linked
    r"|^[ \t]*\|[^\n]*$"  # table rows: never linked
    r"|^[ \t]*(?:!!!|\?\?\?\+?)[^\n]*$"  # admonition titles
    r"|^///[ \t]*quiz.*?^///[ \t]*$"  # quizzes: never linked
    r"|\[(?:[^\[\]\n]|\[\[[^\]\n]*\]\])*\]\([^)\n]*\)",  # links [text](target): never linked
    re.MULTILINE | re.DOTALL,
)


def _uses(text: str, marks: list[re.Match[str]], glossary: Glossary) -> dict[str, list[int]]:
    """For each term id, the lines where the glossary extension could link it on this page."""
    uses: dict[str, list[int]] = {}
    line_of = lines_of(text)
    for m in marks:  # [[term]] and [[term|shown]] link wherever they are written
        term = None if m.group(1) else glossary.lookup(" ".join(m.group(2).split()))
        if term is not None:
            uses.setdefault(term.id, []).append(line_of(m.start()))
    blank = _PROSE_SKIPS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    blank = re.sub(MARK_RE, lambda m: " " * len(m.group(0)), blank)
    for match in glossary.find(blank):  # any of these can be the page's first, linked, use
        uses.setdefault(match.term.id, []).append(line_of(match.start))
    return {term_id: sorted(set(lines)) for term_id, lines in uses.items()}


def sense_problems(text: str, glossary: Glossary) -> list[Problem]:
    """A problem for each term with senses the page (code masked) does not declare, if used.

    >>> from lessonkit.glossary.terms import Term
    >>> g = Glossary([Term("attention", "Each token weighs the earlier ones.", senses=("causal",),
    ...                    line=7)])
    >>> print(sense_problems("An encoder.\\n\\nIts attention looks both ways.\\n", g)[0].format())
    <markdown>:3: error: the definition of 'attention' does not hold on this page: it assumes \
'causal', which the page does not declare
      hint: make the definition true on every page and drop its 'senses' (glossary.yml:7), \
declare <!-- glossary senses: causal --> if it holds here, or write [[!attention]] at each use
    >>> sense_problems("<!-- glossary senses: causal -->\\nIts attention looks back.", g)
    []
    """
    senses, problems = page_senses(text)
    assuming = [t for t in glossary if t.senses and not set(t.senses) <= senses]
    if not assuming:
        return problems
    uses = _uses(text, list(re.finditer(MARK_RE, text)), glossary)
    for term in assuming:
        if term.id in uses:
            problems.append(_sense_problem(term, senses, uses[term.id], glossary.path))
    return problems


def _sense_problem(term: Term, senses: set[str], lines: list[int], path: str) -> Problem:
    missing = [s for s in term.senses if s not in senses]
    where = f"{path}:{term.line}" if term.line else path
    more = f" (and {len(lines) - 1} more use{'s' if len(lines) > 2 else ''} below)"
    return Problem(
        f"the definition of '{term.name}' does not hold on this page: it assumes "
        + " and ".join(f"'{s}'" for s in missing)
        + ", which the page does not declare"
        + (more if len(lines) > 1 else ""),
        lines[0],
        hint=f"make the definition true on every page and drop its 'senses' ({where}), declare "
        f"<!-- glossary senses: {', '.join(term.senses)} --> if it holds here, or write "
        f"[[!{term.name}]] at each use",
    )
