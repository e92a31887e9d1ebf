"""What checking a page needs to know about the site it belongs to (:class:`Context`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lessonkit.checks.anchors import Anchors
from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.core.prepared import prepared_files
from lessonkit.core.settings import Settings
from lessonkit.execute.program import Program
from lessonkit.glossary.terms import Glossary
from lessonkit.notebooks.pages import lesson_pages, notebook_sources


@dataclass
class Context:
    """What checking a page needs to know about the site it belongs to."""

    docs_dir: Path | None = None
    glossary: Glossary | None = None
    virtual_pages: frozenset[str] = frozenset()
    """Pages that exist without a file (e.g. the generated glossary), relative to ``docs_dir``."""
    known_pages: list[Path] | None = None
    """Every page of the site, when the host knows them (else found under ``docs_dir``)."""
    ran: Callable[[Program], bool] = lambda program: False
    """Whether ``program`` already ran without an error in this build (its result is cached):
    then it compiled, and compiling it again would only cost a warm build time."""
    settings: Settings = field(default_factory=Settings)
    """The site's lessonkit options (``front_matter_keys``, the glossary page's name)."""
    markdown: MarkdownSetup = field(default_factory=MarkdownSetup)
    """What the site's Markdown extensions mean for the checks (its ``///`` blocks, ids)."""
    anchors: Anchors = field(default_factory=Anchors)
    """The ids each linked page has, read once per page (see :mod:`.anchors`)."""
    generated: frozenset[str] | None = None
    """The files lessonkit wrote into ``docs_dir`` (not lessons; default: what the manifest of
    ``lessonkit prepare`` lists there)."""
    _links: dict[Path, list[str]] = field(default_factory=dict, init=False, repr=False)
    _page_set: frozenset[str] | None = field(default=None, init=False, repr=False)
    _lessons: dict[str, str] | None = field(default=None, init=False, repr=False)

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


def docs_path(path: Path, docs: Path) -> str:
    """``path`` as the page it is in ``docs``: relative, with ``/``."""
    return os.path.relpath(path, docs).replace(os.sep, "/")
