"""How lessonkit's problems reach MkDocs: errors stop the build, warnings are logged."""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lessonkit.core.page import Page as Lesson
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
    """Raise the errors among ``problems``, all at once; log the rest as warnings (or at INFO)."""
    problems = list(problems)
    if errors := [p for p in problems if p.severity == "error"]:
        raise PluginError(str(LessonError(errors)))
    for problem in problems:
        (log.info if level == "info" else log.warning)(problem.format())


def log_again(error: Exception) -> None:
    """Let MkDocs log ``error`` again in the next build of a preview: its ``DuplicateFilter``
    logs each message once a process, so a page still broken would fail with no reason given."""
    for host in ("mkdocs", "properdocs"):
        for found in logging.getLogger(f"{host}.commands.build").filters:
            if isinstance(logged := getattr(found, "msgs", None), set):
                logged.discard(str(error))


def reported_while_rendering(page: Page, lesson: Lesson) -> None:
    """Make ``page.render`` name a problem found inside Python-Markdown at the lesson's file and
    line; the lesson is held weakly (once let go, a problem names the file alone)."""
    render, where, held = page.render, lesson.where, weakref.ref(lesson)
    if getattr(render, "lessonkit", False):
        return

    def place(problem: Problem) -> Problem:
        if (known := held()) is None:
            return (
                problem._replace(path=where, line=None) if problem.path == "<markdown>" else problem
            )
        return known.place(problem) if problem.path == "<markdown>" else known.locate(problem)

    def placed(config: MkDocsConfig, files: Files) -> None:
        try:
            render(config, files)
        except LessonError as error:
            raise PluginError(str(LessonError(map(place, error.problems)))) from None

    placed.lessonkit = True  # type: ignore[attr-defined]
    page.render = placed  # type: ignore[method-assign]
