"""Which page a notebook lesson is, on every host: ``embeddings.ipynb`` is ``embeddings.md``.

``nav`` and links name the page (Zensical's ``nav`` would copy an ``x.ipynb`` entry as a raw
file); naming the source is an error with that hint.

>>> page_path("a/embeddings.ipynb"), page_path("b.py"), page_path("c.md")
('a/embeddings.md', 'b.md', 'c.md')
>>> print(nav_problems(["index.md", "a.ipynb"], {"a.md": "a.ipynb"})[0].format())
mkdocs.yml: error: nav names a.ipynb, the source of the notebook lesson a.md
  hint: name the page a.md in nav (a notebook lesson is the page it stands for)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.notebooks.lesson import lesson_files, page_path


def lesson_pages(
    docs: Path,
    generated: Collection[str] = (),
    *,
    where: Callable[[str], str] = str,
    url: Callable[[str], str] = str,
) -> tuple[dict[str, str], list[Problem]]:
    """Every lesson in ``docs`` but the ``generated`` files: page -> source; and an error
    for each second source of one page (named by ``where``, the page by its ``url``)."""
    found = [p.relative_to(docs).as_posix() for p in lesson_files(docs)]
    sources = [p for p in found if p not in generated]
    markdown = [p for p in sources if p.endswith(".md")]
    pages = {p: p for p in markdown}
    problems = []
    for source in (p for p in sources if not p.endswith(".md")):
        page = page_path(source)
        if (other := pages.get(page)) is not None:
            problems.append(two_sources(source, other, url(page), where(source)))
            continue
        pages[page] = source
    return pages, problems


def two_sources(source: str, other: str, url: str, where: str) -> Problem:
    """The error for two sources of one page.

    >>> two_sources("a.ipynb", "a.md", "a/", "docs/a.ipynb").format().splitlines()[0]
    'docs/a.ipynb: error: a.ipynb and a.md would both be the page a/'
    """
    message = f"{source} and {other} would both be the page {url}"
    hint = "keep one of them in the docs (a jupytext pair: keep the .ipynb outside docs/)"
    return Problem(message, hint=hint, path=where)


def notebook_sources(pages: Mapping[str, str]) -> dict[str, str]:
    """The notebook lessons among ``pages``: source -> page."""
    return {source: page for page, source in pages.items() if source != page}


def nav_problems(nav: Iterable[str], pages: Mapping[str, str]) -> list[Problem]:
    """An error for each ``nav`` entry naming a notebook lesson's source instead of its page."""
    sources = notebook_sources(pages)
    problems = []
    for entry in nav:
        if (page := sources.get(entry.strip())) is not None:
            message = f"nav names {entry}, the source of the notebook lesson {page}"
            hint = f"name the page {page} in nav (a notebook lesson is the page it stands for)"
            problems.append(Problem(message, hint=hint, path="mkdocs.yml"))
    return problems
