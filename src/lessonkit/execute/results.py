"""What running a page produced: each step's output and figures, or the problems that stopped it.

Kept apart from the runner so that a warm build (everything cached) never imports the code that
runs lessons.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lessonkit.core.problems import Problem


@dataclass
class Figure:
    svg: str
    alt: str


@dataclass
class StepResult:
    """What one step produced."""

    stdout: str = ""
    figures: list[Figure] = field(default_factory=list)
    text: str = ""
    """A value's formatted text, or a doctest's transcript with the real outputs."""


@dataclass
class PageResult:
    """Every step's result, or the problems that stopped the page; and the files code read."""

    steps: list[StepResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    reads: dict[str, str] = field(default_factory=dict)
    """Files under the docs folder that the code read: path -> sha256 of the content read."""

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)
