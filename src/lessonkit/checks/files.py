"""``lessonkit check``'s many files: every lesson under some paths, checked against one site.

Each page is checked by the one recipe (:func:`lessonkit.checks.recipe.check_page`) that every
host's build runs; this module only finds the files and gathers the problems. Builds never load
it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.checks.recipe import Context, check_page, docs_path
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.glossary.site import read_glossary
from lessonkit.notebooks.lesson import lesson_files, read_lesson


@dataclass
class Report:
    """The outcome of checking some files."""

    files: int
    problems: list[Problem]

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == "warning" for p in self.problems)


def markdown_files(paths: Iterable[Path]) -> list[Path]:
    """The lessons among ``paths`` (``.md`` files and notebooks), folders searched recursively,
    each once, in order."""
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            found.update(dict.fromkeys(lesson_files(path)))
        else:
            found[path] = None
    return list(found)


def check_files(
    paths: Iterable[Path],
    docs_dir: Path | None = None,
    glossary: Path | None = None,
    virtual_pages: Iterable[str] = (),
    display: Callable[[Path], str] = str,
    settings: Settings | None = None,
    markdown: MarkdownSetup | None = None,
    generated: Iterable[Path] = (),
) -> Report:
    """Check every lesson in ``paths`` (files or folders) against one site's context:
    its options (``settings``) and what its Markdown extensions mean (``markdown``) as the
    build knows them. Folders are searched without the ``generated`` files (what ``lessonkit
    prepare`` wrote, e.g. a page's notebook download: not a lesson).

    The glossary file is validated once; its problems come first.
    """
    problems: list[Problem] = []
    loaded = None
    if glossary is not None:
        try:
            loaded = read_glossary(glossary, display(glossary))
        except LessonError as error:
            problems += error.problems
    generated = list(generated)
    context = Context(
        docs_dir,
        loaded,
        frozenset(virtual_pages),
        settings=settings or Settings(),
        markdown=markdown or MarkdownSetup(),
        generated=frozenset(docs_path(f, docs_dir) for f in generated) if docs_dir else None,
    )
    made = {file.resolve() for file in generated}
    files = [file for file in markdown_files(paths) if file.resolve() not in made]
    for file in files:
        path = os.path.relpath(file, docs_dir).replace(os.sep, "/") if docs_dir else file.name
        try:
            page = read_lesson(file, path, display(file))
        except LessonError as error:
            problems += error.problems
            continue
        problems += check_page(page, context)
    return Report(len(files), problems)
