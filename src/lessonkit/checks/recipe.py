"""The one recipe of page checks: ``lessonkit check`` and every host's build run it.

Fast enough to run on every save, and nothing is executed.

What is checked, with the file's own line numbers: the front matter (valid YAML, a ``title``, a
``description``, well-formed ``resources``, a true or false ``notebook``, no key that nothing
reads); ``python exec`` block options, fences that look executable but are not lessonkit's
syntax, and that every block, doctest example and inline value *compiles* (nothing is
executed); ``///`` lines that open no block; quiz blocks and glossary marks (with the features'
own ``check`` functions); and that relative links to other ``.md`` pages point at pages (and
anchors) that exist. What only running the code can reveal (exceptions, doctest output, a format
spec that does not fit its value) is left to the build.

>>> text = "---\\ntitle: T\\ndescription: D\\n---\\n# T\\n\\n```python exec\\nx = (1,\\n```\\n"
>>> print("\\n".join(p.format() for p in check_text(text, "t.md")))
t.md:8: error: SyntaxError: '(' was never closed
  line 8: x = (1,
  hint: fix the Python syntax in this block
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit import quiz
from lessonkit.checks.blocks import block_problems
from lessonkit.checks.frontmatter import front_matter_problems
from lessonkit.checks.links import Anchors, link_problems
from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.core.page import Page
from lessonkit.core.prepared import prepared_files
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.execute.checks import compile_problems
from lessonkit.execute.program import Program
from lessonkit.notebooks.pages import lesson_pages, notebook_sources

if TYPE_CHECKING:  # loaded when the site has a glossary
    from lessonkit.glossary.terms import Glossary


class Context:
    """What checking a page needs to know about the site it belongs to.

    A plain class, not a dataclass: every build defines it, and Python 3.11 takes about 2.5
    million instructions to define a dataclass."""

    def __init__(
        self,
        docs_dir: Path | None = None,
        glossary: Glossary | None = None,
        virtual_pages: frozenset[str] = frozenset(),
        known_pages: list[Path] | None = None,
        ran: Callable[[Program], bool] | None = None,
        settings: Settings | None = None,
        markdown: MarkdownSetup | None = None,
        anchors: Anchors | None = None,
        generated: frozenset[str] | None = None,
    ) -> None:
        self.docs_dir = docs_dir
        self.glossary = glossary
        self.virtual_pages = virtual_pages
        """Pages that exist without a file (e.g. the generated glossary), relative to
        ``docs_dir``."""
        self.known_pages = known_pages
        """Every page of the site, when the host knows them (else found under ``docs_dir``)."""
        self.ran: Callable[[Program], bool] = ran or _never_ran
        """Whether ``program`` already ran without an error in this build (its result is
        cached): then it compiled, and compiling it again would only cost a warm build time."""
        self.settings = settings if settings is not None else Settings()
        """The site's lessonkit options (``front_matter_keys``, the glossary page's name)."""
        self.markdown = markdown if markdown is not None else MarkdownSetup()
        """What the site's Markdown extensions mean for the checks (its ``///`` blocks, ids)."""
        self.anchors = anchors if anchors is not None else Anchors()
        """The ids each linked page has, read once per page (see :mod:`.links`)."""
        self.generated = generated
        """The files lessonkit wrote into ``docs_dir`` (not lessons; default: what the manifest
        of ``lessonkit prepare`` lists there)."""
        self._links: dict[Path, list[str]] = {}
        self._page_set: frozenset[str] | None = None
        self._lessons: dict[str, str] | None = None

    def lessons(self) -> dict[str, str]:
        """Every lesson in ``docs_dir``: page -> its source (a notebook lesson ``a.ipynb`` is the
        page ``a.md``: :mod:`lessonkit.notebooks.pages`), in the docs folder, listed once."""
        if self._lessons is None:
            self._lessons = {}
            if self.docs_dir is not None:
                if self.generated is None:
                    self.generated = frozenset(prepared_files(self.docs_dir))
                self._lessons = lesson_pages(self.docs_dir, self.generated)[0]
        return self._lessons

    def notebook_page(self, path: Path) -> str | None:
        """The page the file at ``path`` is the source of, when it is a notebook lesson."""
        if self.docs_dir is None or path.suffix not in (".ipynb", ".py"):
            return None
        return notebook_sources(self.lessons()).get(docs_path(path, self.docs_dir))

    def notebook_of(self, path: Path) -> Path | None:
        """The notebook the page at ``path`` is read from (None: not a notebook lesson's)."""
        if self.docs_dir is None or path.suffix != ".md":
            return None
        source = self.lessons().get(docs_path(path, self.docs_dir))
        return self.docs_dir / source if source and not source.endswith(".md") else None

    def pages(self) -> list[Path]:
        """Every page of the site (for "did you mean" hints; a notebook lesson by the page it
        is), listed once."""
        if self.known_pages is None:
            found = [self.docs_dir / p for p in self.lessons()] if self.docs_dir else []
            virtual = [self.docs_dir / p for p in sorted(self.virtual_pages) if self.docs_dir]
            self.known_pages = sorted(found) + virtual
        return self.known_pages

    def has_page(self, path: Path) -> bool:
        """Whether the site has a page at ``path`` (a file, or a page the host generates)."""
        if self._page_set is None:
            self._page_set = frozenset(os.path.normpath(p) for p in self.pages())
        return os.path.normpath(path) in self._page_set

    def links_from(self, folder: Path) -> list[str]:
        """Every page as a relative link from a page in ``folder`` (computed once per folder)."""
        if folder not in self._links:
            self._links[folder] = [
                os.path.relpath(p, folder).replace(os.sep, "/") for p in self.pages()
            ]
        return self._links[folder]


def _never_ran(program: Program) -> bool:
    return False


def docs_path(path: Path, docs: Path) -> str:
    """``path`` as the page it is in ``docs``: relative, with ``/``."""
    return os.path.relpath(path, docs).replace(os.sep, "/")


def check_page(page: Page, context: Context) -> list[Problem]:
    """Every problem in one page, placed in its file and sorted by line.

    In order: the front matter (valid YAML, title, description, each feature's keys, no
    unknown key), the program (block options, near misses of ``python exec``, and that
    everything compiles), ``///`` block lines, quizzes, glossary marks, and links to other pages
    and their anchors (when the page has a file).
    """
    notes = list(page.notes)  # what reading its source found (a notebook's cells)
    try:
        meta = page.meta
    except LessonError as error:
        return notes + error.problems
    extra = context.settings.front_matter_keys
    found = front_matter_problems(meta, page.text, page.body, extra)
    problems = notes + page.place_all(found, body=False)
    try:
        if not context.ran(page.program):
            problems += page.place_all(compile_problems(page.program), body=False)
    except LessonError as error:
        problems += error.problems
    problems += page.place_all(block_problems(page.body, context.markdown.blocks))
    problems += page.place_all(quiz.check(page.body))
    if context.glossary is not None:
        from lessonkit.glossary.checks import check as glossary_check

        problems += page.place_all(glossary_check(page.body, context.glossary))
    if page.file is not None:
        found = link_problems(page.body, page.offset, page.file, context, page.text)
        problems += page.place_all(found, body=False)
    return sorted(problems, key=_order)


def _order(problem: Problem) -> tuple[int, int, str]:
    """By cell (a notebook's: ``docs/a.ipynb:cell 4``), then line, then message."""
    _, _, cell = problem.path.rpartition(":cell ")
    return int(cell) if cell.isdigit() else 0, problem.line or 0, problem.message


def check_text(
    text: str, path: str = "<markdown>", file: Path | None = None, context: Context | None = None
) -> list[Problem]:
    """:func:`check_page` for a page's ``text``, named ``path``; ``file`` is where it lives."""
    context = context or Context()
    page_path = path
    if file is not None and context.docs_dir is not None:
        page_path = os.path.relpath(file, context.docs_dir).replace(os.sep, "/")
    return check_page(Page.from_text(text, page_path, path, file), context)
