"""The page model every feature and host shares: a lesson's source, read and split once.

>>> page = Page.from_text("---\\ntitle: T\\n---\\n\\n# T\\n\\nText.\\n", "a/b.md", "docs/a/b.md")
>>> page.offset, page.body, page.meta["title"]
(4, '# T\\n\\nText.\\n', 'T')
>>> page.problem("no description", 2).format()
'docs/a/b.md:2: error: no description'

A check of the body reports body lines and :meth:`Page.place` adds the front matter's; on a
page made from a notebook, :class:`Origins` turns a line into the cell and line it came from:

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
    """``(cell, line in cell)`` for each line of a page's text (line 0: the whole cell; cell 0:
    the source file itself)."""

    lines: tuple[tuple[int, int], ...]

    def locate(self, problem: Problem) -> Problem:
        """``problem`` at its cell and line, the ``line N:`` its details quote too."""
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


_DETAIL_LINE = re.compile(r"^line (\d+):", re.M)  # a line quoted in a problem's details


class Page:
    """One lesson's source and what lessonkit reads from it (each part computed once).

    ``path``: in the docs folder (``a/b.md``); ``where``: as messages name it (``docs/a/b.md``);
    ``notes``: what reading the source found; ``offset``: the front matter's lines."""

    def __init__(
        self,
        text: str,
        path: str,
        where: str,
        file: Path | None = None,
        origins: Origins | None = None,
        notes: list[Problem] | None = None,
    ) -> None:
        self.text, self.path, self.where, self.file, self.origins = text, path, where, file, origins
        self.notes: list[Problem] = notes if notes is not None else []
        split = split_source(text)
        self.offset, self.front_matter = split.offset, split.front_matter
        self._body_at = len(text) - len(split.body)  # the body ends the text

    @property
    def body(self) -> str:
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
        """:attr:`meta`, or {} when the front matter is invalid (the checks report it)."""
        try:
            return self.meta
        except LessonError:
            return {}

    @property
    def markdown(self) -> str:
        """The body as Python-Markdown's preprocessors receive it."""
        return normalized(self.body)

    @cached_property
    def program(self) -> Program:
        """What the page executes; LessonError (placed in the file) on bad block options."""
        return self._parse(self.markdown, self.offset)

    def program_of(self, markdown: str) -> tuple[Program, str]:
        """The program of ``markdown`` (what a host converts; another plugin may have changed
        the body) and the text its errors quote."""
        if markdown == self.body:
            return self.program, self.text
        return self._parse(normalized(markdown), 0), markdown

    def _parse(self, markdown: str, offset: int) -> Program:
        from lessonkit.execute.program import parse_program

        try:
            return parse_program(markdown, offset, self.path)
        except LessonError as error:
            raise LessonError(self.place_all(error.problems, body=False)) from None

    def problem(self, message: str, line: int | None = None, hint: str = "") -> Problem:
        return Problem(message, line, hint, path=self.where)

    def place(self, problem: Problem, body: bool = True) -> Problem:
        """``problem`` placed in this file (a ``body`` line shifted past the front matter; one
        with only ``near`` text at the first body line holding it).

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
        """``problem``, at a line of :attr:`text`, in the source's terms (a notebook's cells)."""
        if self.origins is None or problem.path != self.where:
            return problem
        return self.origins.locate(problem)

    def line_of(self, text: str) -> int | None:
        """The file line of the first body line holding ``text`` (or it unescaped); else None."""
        wanted = [t for t in dict.fromkeys((text.strip(), html.unescape(text).strip())) if t]
        for number, line in enumerate(self.body.split("\n"), self.offset + 1):
            if any(t in line for t in wanted):
                return number
        return None

    def place_all(self, problems: Iterable[Problem], body: bool = True) -> list[Problem]:
        return [self.place(p, body) for p in problems]
