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
    """Every step's result, or the problems that stopped the page; and what else it depends on:
    the files its code read, the modules it imported."""

    steps: list[StepResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    reads: dict[str, str] = field(default_factory=dict)
    """Files under the docs folder that the code read: path -> sha256 of the content read."""
    sources: dict[str, str] = field(default_factory=dict)
    """Source files of the lessonkit (or local) modules the code imported, and of what those
    import in turn: path -> sha256 (see :mod:`lessonkit.execute.imports`)."""
    packages: dict[str, str] = field(default_factory=dict)
    """Installed distributions the code imported, and those they require: name -> version."""

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)
