"""Notebook lessons under MkDocs: ``x.ipynb`` (or a percent ``.py``) becomes the page ``x.md``.

Each notebook's ``File`` becomes a :class:`NotebookFile` before MkDocs makes its pages and nav;
the notebook itself is not published (its page offers what the build ran for download).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, file_sort_key

from lessonkit.core.problems import Problem
from lessonkit.notebooks.lesson import is_notebook, page_path, two_sources


class NotebookFile(File):
    """The page a notebook lesson is: ``x.md``, read from ``x.ipynb``."""

    @classmethod
    def of(cls, file: File) -> NotebookFile:
        page = cls(
            page_path(file.src_uri),
            file.src_dir,
            file.dest_dir,
            file.use_directory_urls,
            inclusion=file.inclusion,
        )
        page.abs_src_path = file.abs_src_path
        page.edit_uri = file.src_uri
        return page


def adopt_notebooks(
    files: Files, where: Callable[[File], str], config: MkDocsConfig
) -> list[Problem]:
    """Make each notebook lesson its page, in ``files`` and ``nav``; an error for each second
    source of one page."""
    pages = {f.src_uri: f for f in files.documentation_pages()}
    problems, adopted = [], {}
    for file in sorted(files, key=lambda f: f.src_uri):
        source = file.abs_src_path
        if not file.src_uri.endswith((".ipynb", ".py")) or file.generated_by or not source:
            continue
        if not is_notebook(Path(source)):
            continue
        page = NotebookFile.of(file)
        if other := pages.get(page.src_uri):
            first = other.edit_uri or other.src_uri
            problems.append(two_sources(file.src_uri, first, page.url, where(file)))
            continue
        pages[page.src_uri] = page
        adopted[file.src_uri] = page.src_uri
        files.remove(file)
        files.append(page)
    if adopted:  # in MkDocs' order, where the page's name puts it (the glossary's lists follow it)
        for file in sorted(files, key=file_sort_key):
            files.remove(file)
            files.append(file)
        config.nav = nav_to_pages(config.nav, adopted)
    return problems


def nav_to_pages(nav: Any, pages: Mapping[str, str]) -> Any:
    """``nav`` with each notebook lesson's source (``pages``: source -> page) its page."""
    if isinstance(nav, str):
        return pages.get(nav.strip(), nav)
    if isinstance(nav, list):
        return [nav_to_pages(item, pages) for item in nav]
    if isinstance(nav, dict):
        return {title: nav_to_pages(item, pages) for title, item in nav.items()}
    return nav


def lesson_files(files: Files) -> Iterator[File]:
    """The pages lessonkit reads as lessons: Markdown pages, and notebooks made pages."""
    for file in files.documentation_pages():
        if file.abs_src_path and (file.src_uri.endswith(".md") or isinstance(file, NotebookFile)):
            yield file
