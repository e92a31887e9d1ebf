"""A cell that fails on purpose: Jupyter Book's ``raises-exception`` tag.

The page shows the exception as Jupyter does (:func:`shown`); the build fails when a tagged cell
stops raising (:func:`not_raised`); a page's limits (timeout, memory) are never the expected
exception (:func:`expected`).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

from lessonkit.core.problems import Problem

TAG = "raises-exception"
RULE = "-" * 75  # above a traceback in Jupyter
Place = tuple[str, int]  # a line as a reader knows it: ("Cell, line 2", 2)


def expected(error: BaseException) -> bool:
    """Whether ``error`` may be a tagged cell's expected exception (not an exit, interrupt or
    running out of memory)."""
    return isinstance(error, Exception) and not isinstance(error, MemoryError)


def shown(
    error: BaseException, path: str, place: Callable[[int], Place] = lambda n: (f"line {n}", n)
) -> str:
    """``error`` as Jupyter shows it, cut to the frames of the page's own code (file ``path``);
    ``place(line)`` names a line as the reader knows it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    lines = [RULE, f"{type(error).__name__:<42}Traceback (most recent call last)"]
    for frame in frames:
        inside = "" if frame.name == "<module>" else f", in {frame.name}"
        heading, number = place(frame.lineno or 0)
        lines += [f"{heading}{inside}", f"----> {number} {frame.line}", ""]
    lines += traceback.format_exception_only(type(error), error)
    return "\n".join(lines).rstrip("\n")


def not_raised(line: int) -> Problem:
    """The error when a tagged cell raised nothing (tests/broken/notebooks/raises-exception)."""
    return Problem(
        f"the cell is tagged {TAG} but raised no exception",
        line,
        "the page would show an error that no longer happens: remove the tag (or make the cell "
        "fail as the text around it says)",
    )
