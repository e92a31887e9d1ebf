"""``lessonkit check``'s many files: every lesson under some paths, checked against one site."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from lessonkit.checks.context import Context, docs_path
from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.checks.recipe import check_page
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.glossary.site import read_glossary
from lessonkit.notebooks.lesson import lesson_files, lesson_pages, nav_problems, read_lesson


@dataclass
class Report:
    files: int
    problems: list[Problem]

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == "warning" for p in self.problems)


def markdown_files(paths: Iterable[Path]) -> list[Path]:
    """The lessons among ``paths`` (folders searched), each once, in order."""
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
    """Check every lesson in ``paths`` against one site, but not the ``generated`` files; the
    glossary's problems come first."""
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


def site_problems(
    docs_dir: Path,
    nav: Iterable[str],
    prepared: Collection[str],
    virtual: Collection[str],
    where: Callable[[str], str],
    url: Callable[[str], str],
    *,
    nav_sources: bool = False,
) -> tuple[dict[str, str], list[Problem]]:
    """The site's pages, and the problems of its files as a whole: two sources of one page, a
    missing file in ``nav`` (in MkDocs' words), or (unless the host's ``nav_sources``, as MkDocs')
    ``nav`` naming a notebook's source."""
    pages, problems = lesson_pages(docs_dir, prepared, where=where, url=url)
    nav = list(nav)
    if not nav_sources:
        problems += nav_problems(nav, pages)
    for entry in nav:
        if entry.startswith("/") or entry in pages or entry in virtual:
            continue
        if not os.path.lexists(docs_dir / entry):
            message = f"A reference to '{entry}' is included in the 'nav' configuration, which "
            message += "is not found in the documentation files."
            hint = "add the page to the docs folder, or take it out of nav in mkdocs.yml"
            problems.append(Problem(message, hint=hint, path="mkdocs.yml", severity="warning"))
    return pages, problems


def page_url(path: str, directory_urls: bool = True) -> str:
    """The URL of the page at ``path``, as MkDocs and Zensical make it.

    >>> page_url("index.md"), page_url("a/index.md"), page_url("a/b.md"), page_url("b.md", False)
    ('', 'a/', 'a/b/', 'b.html')
    """
    stem, name = path.removesuffix(".md"), posixpath.basename(path)
    if name in ("index.md", "README.md"):
        folder = posixpath.dirname(path)
        return f"{folder}/" if folder else ""
    return f"{stem}/" if directory_urls else f"{stem}.html"
