"""Authoring problems: what is wrong, where (file:line), and how to fix it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple


class Problem(NamedTuple):
    """One problem in a lesson source; ``line`` is 1-based in the text that was checked;
    ``details``: lines shown under the message; ``near``: text on its line when the line is
    unknown (:meth:`lessonkit.core.page.Page.place` finds it)."""

    message: str
    line: int | None = None
    hint: str = ""
    severity: Literal["error", "warning"] = "error"
    path: str = "<markdown>"
    details: str = ""
    near: str = ""

    def at(self, path: str, line_offset: int = 0) -> Problem:
        """The same problem placed in ``path``, its line shifted by ``line_offset``."""
        line = None if self.line is None else self.line + line_offset
        return self._replace(path=path, line=line)

    def format(self) -> str:
        """``path:line: severity: message``, then indented details and hint.

        >>> print(Problem("quiz has no correct option", 12, "mark one with - [x]").at("a.md", 4)
        ...       .format())
        a.md:16: error: quiz has no correct option
          hint: mark one with - [x]
        """
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        lines = [f"{where}: {self.severity}: {self.message}"]
        lines += [f"  {d}" for d in self.details.splitlines()]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class LessonError(Exception):
    """Raised when a lesson cannot be built; carries every problem found, not just the first."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(p.format() for p in self.problems))
