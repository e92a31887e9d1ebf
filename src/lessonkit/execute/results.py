"""What running a page produced: each step's output and figures, or the problems that stopped it.

Empty defaults are shared, never filled."""

from __future__ import annotations

from typing import NamedTuple

from lessonkit.core.problems import Problem


class Figure(NamedTuple):
    svg: str
    alt: str


class StepResult(NamedTuple):
    """What one step produced."""

    stdout: str = ""
    figures: list[Figure] = []  # noqa: RUF012
    text: str = ""  # a value's formatted text, or a doctest's transcript with the real outputs
    # a notebook cell's displays, value or expected error: (characters printed before it,
    # html/markdown/text/error, text)
    shown: list[tuple[int, str, str]] = []  # noqa: RUF012


class PageResult(NamedTuple):
    """Every step's result, or the problems that stopped the page; and what else it depends on."""

    steps: list[StepResult] = []  # noqa: RUF012
    problems: list[Problem] = []  # noqa: RUF012
    reads: dict[str, str] = {}  # noqa: RUF012  (files and folders the code read: path -> sha256)
    sources: dict[str, str] = {}  # noqa: RUF012  (its lessonkit or local modules: path -> sha256)

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)
