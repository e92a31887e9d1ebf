"""Check a page's glossary marks and senses in its raw Markdown, with 1-based line numbers.

**Senses.** A definition can be true on one kind of page and false on another: "each token
weighs the tokens before it" holds where the model reads left to right, not on a page about a
bidirectional encoder. A term that assumes something lists it as ``senses: [causal]`` in the
glossary, and a page says what holds on it with a marker, anywhere in its Markdown (outside
code), e.g. after the front matter::

    <!-- glossary senses: causal -->

A term with senses, used on a page that does not declare every one of them, is reported at its
first use, with the lines of the others. A page may declare senses no term needs (they state
what the page is about). The marker is an HTML comment, so readers never see it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem
from lessonkit.glossary.terms import SENSE_RE, Glossary, Term

MARK_RE = r"\[\[(!?)([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]"
"""``[[term]]``, ``[[term|shown text]]``, ``[[!text]]``."""
SENSES_RE = re.compile(r"<!--\s*glossary senses:(?P<labels>.*?)-->", re.DOTALL)
"""A page's senses marker: ``<!-- glossary senses: causal, left-to-right -->``."""


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
    problems: list[Problem] = []
    marks: list[re.Match[str]] = []
    if "[[" in text:  # most pages' prose: no mark (build speed)
        for first, paragraph in _paragraphs(text):
            problems += _paragraph_problems(paragraph, first, glossary)
        marks = list(re.finditer(MARK_RE, text))
    problems += sense_problems(text, glossary, marks)
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


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def page_senses(text: str) -> tuple[set[str], list[Problem]]:
    """The senses a page's markers declare (code already masked), and problems with them.

    >>> senses, problems = page_senses("# A\\n<!-- glossary senses: causal, left-to-right -->\\n")
    >>> sorted(senses), problems
    (['causal', 'left-to-right'], [])
    >>> [p.message for p in page_senses("<!-- glossary senses: Causal -->")[1]]
    ["sense 'Causal' in the page's senses marker must be lowercase words joined by hyphens"]
    """
    senses: set[str] = set()
    problems = []
    for m in SENSES_RE.finditer(text):
        labels = [w for w in re.split(r"[\s,]+", m["labels"]) if w]
        if not labels:
            problems.append(
                Problem(
                    "the page's senses marker names no sense",
                    _line_of(text, m.start()),
                    hint="write <!-- glossary senses: causal --> (comma-separated for more)",
                )
            )
        for label in labels:
            if SENSE_RE.match(label):
                senses.add(label)
            else:
                problems.append(
                    Problem(
                        f"sense '{label}' in the page's senses marker must be lowercase words "
                        "joined by hyphens",
                        _line_of(text, m.start()),
                        hint="e.g. <!-- glossary senses: causal, left-to-right -->",
                    )
                )
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
    line_of = _LineOf(text)  # marks, then matches, each in order: newlines counted once
    for m in marks:  # [[term]] and [[term|shown]] link wherever they are written
        term = None if m.group(1) else glossary.lookup(" ".join(m.group(2).split()))
        if term is not None:
            uses.setdefault(term.id, []).append(line_of(m.start()))
    blank = _PROSE_SKIPS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    blank = re.sub(MARK_RE, lambda m: " " * len(m.group(0)), blank)
    for match in glossary.find(blank):  # any of these can be the page's first, linked, use
        uses.setdefault(match.term.id, []).append(line_of(match.start))
    return {term_id: sorted(set(lines)) for term_id, lines in uses.items()}


def sense_problems(
    text: str, glossary: Glossary, marks: list[re.Match[str]] | None = None
) -> list[Problem]:
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
    if marks is None:
        marks = list(re.finditer(MARK_RE, text))
    assuming = [t for t in glossary if t.senses and not set(t.senses) <= senses]
    if not assuming:
        return problems
    uses = _uses(text, marks, glossary)
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
