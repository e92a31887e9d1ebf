"""How lessonkit's problems reach MkDocs: errors stop the build, warnings are logged."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from mkdocs.exceptions import PluginError

from lessonkit.core.problems import LessonError, Problem

log = logging.getLogger("mkdocs.plugins.lessonkit")


@contextmanager
def reported() -> Iterator[None]:
    """Turn a ``LessonError`` into the error MkDocs reports, without a traceback."""
    try:
        yield
    except LessonError as error:
        raise PluginError(str(error)) from None


def report(problems: Iterable[Problem], level: str = "warn") -> None:
    """Raise the errors among ``problems``, every one at once; log the rest as warnings (which
    fail ``--strict``), or at INFO with ``level="info"``."""
    problems = list(problems)
    if errors := [p for p in problems if p.severity == "error"]:
        raise PluginError(str(LessonError(errors)))
    for problem in problems:
        (log.info if level == "info" else log.warning)(problem.format())
