"""Notebook lessons under MkDocs: an ``.ipynb`` (or jupytext percent ``.py``) in the docs is a
documentation page (``embeddings.ipynb`` -> ``embeddings/``, listed in ``nav`` by its file name).

MkDocs decides which files are pages by their suffix (``File.is_documentation_page``); each
notebook's ``File`` is replaced by a :class:`NotebookFile` that is one, before MkDocs makes its
pages and nav. Its edit link is the notebook. The plugin hands MkDocs the Markdown the notebook
stands for (:mod:`lessonkit.notebooks.lesson`) in ``on_page_read_source``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mkdocs.structure.files import File, Files

from lessonkit.core.problems import LessonError, Problem
from lessonkit.notebooks.lesson import is_notebook


class NotebookFile(File):
    """A notebook in the docs that is a page, not a file to copy."""

    def is_documentation_page(self) -> bool:
        return True


def adopt_notebooks(files: Files, where: Callable[[File], str]) -> None:
    """Make each notebook lesson of ``files`` a documentation page; LessonError (naming files
    as ``where`` does) when two sources would be one page (``a.md`` and ``a.ipynb``, or a
    jupytext pair both in the docs)."""
    pages = {f.dest_uri: f.src_uri for f in files.documentation_pages()}
    problems = []
    for file in list(files):
        source = file.abs_src_path
        if not file.src_uri.endswith((".ipynb", ".py")) or file.generated_by or not source:
            continue
        if not is_notebook(Path(source)):
            continue
        page = NotebookFile(
            file.src_uri,
            file.src_dir,
            file.dest_dir,
            file.use_directory_urls,
            inclusion=file.inclusion,
        )
        if other := pages.get(page.dest_uri):
            message = f"{file.src_uri} and {other} would both be the page {page.url}"
            hint = "keep one of them in the docs (a jupytext pair: keep the .ipynb outside docs/)"
            problems.append(Problem(message, hint=hint, path=where(file)))
            continue
        pages[page.dest_uri] = file.src_uri
        files.remove(file)
        files.append(page)
    if problems:
        raise LessonError(problems)


def download_uri(src_uri: str) -> str:
    """The name a notebook lesson's download goes by among MkDocs' files (its own name is the
    page's); it is written to the site at the notebook's path.

    >>> download_uri("a/embeddings.ipynb")
    'a/embeddings.ipynb (executed)'
    """
    return f"{src_uri} (executed)"
