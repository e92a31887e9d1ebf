"""The page model every feature and host shares: a lesson's source, read and split once.

>>> page = Page.from_text("---\\ntitle: T\\n---\\n\\n# T\\n\\nText.\\n", "a/b.md", "docs/a/b.md")
>>> page.offset, page.body, page.meta["title"]
(4, '# T\\n\\nText.\\n', 'T')
>>> page.problem("no description", 2).format()
'docs/a/b.md:2: error: no description'

Line numbers: a feature that checks the *body* reports body lines and places them with
:meth:`Page.place` (which adds the front matter's lines); one that checks the whole *text*
(front matter keys) reports file lines already.

A page made from another source (a notebook: :mod:`lessonkit.notebooks.convert`) carries its
:class:`Origins`, and :meth:`Page.place` (:meth:`Page.locate` for what the engine placed) names
the source's cell and line instead of a line of the Markdown made from it:

>>> made = Page.from_text("# T\\n\\n```python exec\\n1 / 0\\n```\\n", "n.ipynb", "docs/n.ipynb")
>>> made.origins = Origins(((1, 1), (1, 0), (2, 0), (2, 1), (2, 0)))
>>> failed = Problem("ZeroDivisionError", 4, details="line 4: 1 / 0").at("docs/n.ipynb")
>>> print(made.locate(failed).format())
docs/n.ipynb:cell 2:1: error: ZeroDivisionError
  line 1: 1 / 0
>>> made.place(Problem("bad fence", 3)).format()
'docs/n.ipynb:cell 2: error: bad fence'
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import normalized, read_front_matter, read_source, split_source

if TYPE_CHECKING:
    from lessonkit.execute.program import Program


class Origins(NamedTuple):
    """Where each line of a page's text comes from in its source: ``(cell, line in cell)`` for
    text line ``n`` at index ``n - 1``; line 0 is the cell as a whole (a fence it was given).
    Cell 0 is the source file itself (a script's own lines: ``(0, line in the file)``)."""

    lines: tuple[tuple[int, int], ...]

    def locate(self, problem: Problem) -> Problem:
        """``problem`` (at a line of the page's text) at its cell and line in the source; the
        ``line N:`` its details quote is the cell's line too (or ``cell C, line N:`` elsewhere)."""
        if problem.line is None or not 0 < problem.line <= len(self.lines):
            return problem
        cell, line = self.lines[problem.line - 1]

        def detail(match: re.Match[str]) -> str:
            number = int(match[1])
            if not 0 < number <= len(self.lines):
                return match[0]
            other, within = self.lines[number - 1]
            return f"line {within}:" if other == cell else f"cell {other}, line {within}:"

        details = _DETAIL_LINE.sub(detail, problem.details)
        path = f"{problem.path}:cell {cell}" if cell else problem.path
        return problem._replace(path=path, line=line or None, details=details)


_DETAIL_LINE = re.compile(r"^line (\d+):", re.M)
"""How a problem's details quote a line of the page (a traceback's frames, a syntax error)."""


class Page:
    """One lesson's source and what lessonkit reads from it (each part computed once).

    A plain class, not a dataclass: every build defines it, and Python 3.11 takes about 2.5
    million instructions to define a dataclass (its methods are compiled from source)."""

    def __init__(
        self,
        text: str,
        path: str,
        where: str,
        file: Path | None = None,
        origins: Origins | None = None,
        notes: list[Problem] | None = None,
    ) -> None:
        self.text = text
        """The whole file, as read (UTF-8, a byte-order mark dropped)."""
        self.path = path
        """Where the page sits in the docs folder, with ``/`` (e.g. ``building-blocks/a.md``)."""
        self.where = where
        """The page's file as messages name it (e.g. ``docs/building-blocks/a.md``)."""
        self.file = file
        """The file on disk, when there is one (relative links are checked against it)."""
        self.origins = origins
        """For a page made from a notebook: where each line of :attr:`text` comes from."""
        self.notes: list[Problem] = notes if notes is not None else []
        """What reading the source found (a notebook's stored outputs, cell tags): checked with
        the page's own problems (:func:`lessonkit.checks.recipe.check_page`)."""
        split = split_source(text)
        self.offset = split.offset
        """How many lines the front matter took."""
        self.front_matter = split.front_matter
        """The front matter's YAML, unread; None when the page has none."""
        self._body_at = len(text) - len(split.body)  # the body ends the text

    @property
    def body(self) -> str:
        """The Markdown after the front matter (cut from :attr:`text` when asked: a page's
        model holds one copy of its source for the whole build)."""
        return self.text[self._body_at :]

    @classmethod
    def from_text(cls, text: str, path: str, where: str = "", file: Path | None = None) -> Page:
        return cls(text.removeprefix("\ufeff"), path, where or path, file)

    @classmethod
    def read(cls, file: Path, path: str, where: str) -> Page:
        """Read ``file``; LessonError naming it when it cannot be read as UTF-8 text."""
        return cls(read_source(file, where), path, where, file)

    @cached_property
    def meta(self) -> dict[str, Any]:
        """The front matter's keys and values ({} without front matter); LessonError if invalid."""
        if self.front_matter is None:
            return {}
        try:
            return read_front_matter(self.front_matter)
        except LessonError as error:
            raise LessonError(self.place_all(error.problems, body=False)) from None

    @property
    def valid_meta(self) -> dict[str, Any]:
        """:attr:`meta`, or {} when the front matter is invalid (the page's checks report it)."""
        try:
            return self.meta
        except LessonError:
            return {}

    @property
    def markdown(self) -> str:
        """The body as Python-Markdown's preprocessors receive it (whitespace normalised; made
        when asked, as :attr:`body` is)."""
        return normalized(self.body)

    @cached_property
    def program(self) -> Program:
        """What the page executes; LessonError (placed in the file) on bad block options."""
        from lessonkit.execute.program import parse_program

        try:
            return parse_program(self.markdown, self.offset, self.path)
        except LessonError as error:
            raise LessonError(self.place_all(error.problems, body=False)) from None

    def program_of(self, markdown: str) -> tuple[Program, str]:
        """The program of ``markdown`` (what a host converts) and the text its errors quote.

        That is the page's own program, unless another plugin changed the body: then the
        changed Markdown is what runs (its lines no longer match the file's).
        """
        if markdown == self.body:
            return self.program, self.text
        from lessonkit.execute.program import parse_program

        try:
            return parse_program(normalized(markdown), 0, self.path), markdown
        except LessonError as error:
            raise LessonError(self.place_all(error.problems, body=False)) from None

    def problem(self, message: str, line: int | None = None, hint: str = "") -> Problem:
        """A problem at file line ``line`` of this page."""
        return Problem(message, line, hint, path=self.where)

    def place(self, problem: Problem, body: bool = True) -> Problem:
        """``problem`` placed in this file; a ``body`` line is shifted past the front matter.

        A problem without a line that says what text is on it (found while rendering) gets the
        first line of the body that holds that text:

        >>> page = Page.from_text("---\\ntitle: T\\n---\\nWhy *this*?\\n", "a.md")
        >>> page.place(Problem("bad quiz", near="Why *this*?")).format()
        'a.md:4: error: bad quiz'
        """
        if self.origins and problem.path.startswith(f"{self.where}:cell "):
            return problem  # placed already
        if problem.line is None and problem.near:
            return self.locate(problem.at(self.where)._replace(line=self.line_of(problem.near)))
        return self.locate(problem.at(self.where, self.offset if body else 0))

    def locate(self, problem: Problem) -> Problem:
        """``problem``, placed at a line of :attr:`text` (as the engine places a run's problems),
        in the source's own terms: unchanged, except on a page made from a notebook."""
        if self.origins is None or problem.path != self.where:
            return problem
        return self.origins.locate(problem)

    def line_of(self, text: str) -> int | None:
        """The file line of the first body line that holds ``text`` (as written, or with the
        ``&lt;`` that raw HTML in a quiz becomes read back as ``<``); None if none does."""
        wanted = [t for t in dict.fromkeys((text.strip(), html.unescape(text).strip())) if t]
        for number, line in enumerate(self.body.split("\n"), self.offset + 1):
            if any(t in line for t in wanted):
                return number
        return None

    def place_all(self, problems: Iterable[Problem], body: bool = True) -> list[Problem]:
        return [self.place(p, body) for p in problems]
