"""What running a page produced: each step's output and figures, or the problems that stopped it.

Kept apart from the runner so that a warm build (everything cached) never imports the code that
runs lessons.
"""

from __future__ import annotations

from typing import NamedTuple

from lessonkit.core.problems import Problem

# Records made once and never changed; their empty defaults are shared, never filled in.


class Figure(NamedTuple):
    svg: str
    alt: str


class StepResult(NamedTuple):
    """What one step produced."""

    stdout: str = ""
    figures: list[Figure] = []  # noqa: RUF012 (shared, never changed: see above)
    text: str = ""
    """A value's formatted text, or a doctest's transcript with the real outputs."""
    shown: list[tuple[int, str, str]] = []  # noqa: RUF012
    """What a notebook cell showed besides its printed text (``display()``, its value, an
    expected error), each as (characters printed before it, kind, text); kind is ``html``,
    ``markdown``, ``text`` or ``error``."""


class PageResult(NamedTuple):
    """Every step's result, or the problems that stopped the page; and what else it depends on:
    the files its code read, the modules it imported."""

    steps: list[StepResult] = []  # noqa: RUF012
    problems: list[Problem] = []  # noqa: RUF012
    reads: dict[str, str] = {}  # noqa: RUF012
    """Files under the docs folder that the code read: path -> sha256 of the content read."""
    sources: dict[str, str] = {}  # noqa: RUF012
    """Source files of the lessonkit (or local) modules the code imported, and of what those
    import in turn: path -> sha256 (see :mod:`lessonkit.execute.imports`)."""
    packages: dict[str, str] = {}  # noqa: RUF012
    """Installed distributions the code imported, and those they require: name -> version."""

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)
