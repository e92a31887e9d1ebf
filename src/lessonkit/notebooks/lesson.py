"""Which files are lessons, which page each is (a notebook is its ``.md`` name), reading one.

>>> page_path("a/embeddings.ipynb"), page_path("b.py"), page_path("c.md")
('a/embeddings.md', 'b.md', 'c.md')
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

from lessonkit.core.page import Page
from lessonkit.core.problems import Problem
from lessonkit.core.source import read_source

PERCENT_HEADER = re.compile(r"\A(?:#!.*\n)?# ---\n(?:#.*\n)*?#\s+format_name: percent\n")


def is_notebook(path: Path, head: str | None = None) -> bool:
    """Whether ``path`` is a notebook lesson: an ``.ipynb``, or a ``.py`` with a jupytext
    percent header (``head``: its start, if already read)."""
    if path.suffix == ".ipynb":
        return True
    if path.suffix != ".py":
        return False
    if head is None:
        try:
            with path.open(encoding="utf-8") as file:
                head = file.read(4096)
        except (OSError, UnicodeDecodeError):
            return False
    return bool(PERCENT_HEADER.match(head))


def lesson_files(folder: Path) -> list[Path]:
    """Every lesson source under ``folder``, sorted; none in a hidden folder (as MkDocs:
    ``.ipynb_checkpoints/``); a dangling symlink counts (reading it fails the build)."""
    found = [p for p in folder.rglob("*") if p.suffix in (".md", ".ipynb", ".py")]
    found = [p for p in found if p.is_file() or (p.is_symlink() and not p.exists())]
    shown = [p for p in found if not any(s.startswith(".") for s in p.relative_to(folder).parts)]
    return sorted(p for p in shown if p.suffix == ".md" or is_notebook(p))


def page_path(source: str) -> str:
    """The page (in the docs folder) a lesson's source is: a notebook is its ``.md``."""
    return posixpath.splitext(source)[0] + ".md"


def read_page(docs: Path, page: str) -> Page:
    """The lesson that is the page ``page`` of ``docs``: that Markdown file, or its notebook."""
    file = docs / page
    if not file.exists():
        for source in (file.with_suffix(".ipynb"), file.with_suffix(".py")):
            if source.is_file() and is_notebook(source):
                return read_lesson(source, page, str(source))
    return read_lesson(file, page, str(file))


def read_lesson(file: Path, path: str, where: str) -> Page:
    """The lesson in ``file`` (``path`` in the docs, ``where`` in messages); a notebook's
    Markdown; LessonError if unreadable."""
    if not is_notebook(file):
        return Page.read(file, path, where)
    path = page_path(path)
    text = read_source(file, where)
    from lessonkit.notebooks.convert import convert, parse, script_starts

    percent = file.suffix == ".py"
    nb = parse(text, where, percent=percent)
    made = convert(nb)
    if percent and (starts := script_starts(text, nb)):
        made = made.in_script(starts)  # a script's problems name its own lines
    return Page(made.text, path, where, file, origins=made.origins, notes=made.placed(where))


def lesson_pages(
    docs: Path,
    generated: Collection[str] = (),
    *,
    where: Callable[[str], str] = str,
    url: Callable[[str], str] = str,
) -> tuple[dict[str, str], list[Problem]]:
    """Every lesson in ``docs`` but the ``generated`` files: page -> source; and an error for
    each second source of one page."""
    found = [p.relative_to(docs).as_posix() for p in lesson_files(docs)]
    sources = [p for p in found if p not in generated]
    pages = {p: p for p in sources if p.endswith(".md")}
    problems = []
    for source in (p for p in sources if not p.endswith(".md")):
        page = page_path(source)
        if (other := pages.get(page)) is not None:
            problems.append(two_sources(source, other, url(page), where(source)))
        else:
            pages[page] = source
    return pages, problems


def two_sources(source: str, other: str, url: str, where: str) -> Problem:
    message = f"{source} and {other} would both be the page {url}"
    hint = "keep one of them in the docs (a jupytext pair: keep the .ipynb outside docs/)"
    return Problem(message, hint=hint, path=where)


def notebook_sources(pages: Mapping[str, str]) -> dict[str, str]:
    """The notebook lessons among ``pages``: source -> page."""
    return {source: page for page, source in pages.items() if source != page}


def nav_problems(nav: Iterable[str], pages: Mapping[str, str]) -> list[Problem]:
    """Under Zensical, which publishes it raw: an error for each ``nav`` entry naming a
    notebook lesson's source."""
    sources = notebook_sources(pages)
    problems = []
    for entry in nav:
        if (page := sources.get(entry.strip())) is not None:
            name = posixpath.splitext(entry.strip())[1]
            message = f"Zensical cannot list a notebook by its {name} name in nav ({entry}): it "
            message += f"would publish the raw file, not the lesson {page}"
            hint = f"name the page {page} in nav (a notebook lesson is the page it stands for)"
            problems.append(Problem(message, hint=hint, path="mkdocs.yml"))
    return problems
