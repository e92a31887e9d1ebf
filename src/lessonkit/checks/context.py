"""What checking a page needs to know about the site it belongs to (:class:`Context`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.checks.anchors import Anchors
from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.core.prepared import prepared_files
from lessonkit.core.settings import Settings
from lessonkit.glossary.terms import Glossary
from lessonkit.notebooks.lesson import lesson_pages, notebook_sources

if TYPE_CHECKING:
    from lessonkit.execute.program import Program


@dataclass
class Context:
    docs_dir: Path | None = None
    glossary: Glossary | None = None
    virtual_pages: frozenset[str] = frozenset()  # pages without a file (the glossary)
    known_pages: list[Path] | None = None  # every page, when the host knows them
    settings: Settings = field(default_factory=Settings)
    markdown: MarkdownSetup = field(default_factory=MarkdownSetup)
    anchors: Anchors = field(default_factory=Anchors)
    generated: frozenset[str] | None = None
    """The files lessonkit wrote into ``docs_dir`` (default: those prepare marked)."""
    ran: Callable[[Program], bool] = lambda program: False
    """Whether a program ran well before (its cache entry): its code need not compile again
    (~70 ms of a warm 200-page build, `scripts/benchmark.py --pages 200`)."""
    _lessons: dict[str, str] | None = field(default=None, init=False, repr=False)

    def lessons(self) -> dict[str, str]:
        """Every lesson in ``docs_dir``: page -> its source (``a.md`` -> ``a.ipynb``)."""
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
        """Every page of the site (a notebook lesson by its page)."""
        if self.known_pages is None:
            found = [self.docs_dir / p for p in self.lessons()] if self.docs_dir else []
            virtual = [self.docs_dir / p for p in sorted(self.virtual_pages) if self.docs_dir]
            self.known_pages = sorted(found) + virtual
        return self.known_pages

    def has_page(self, path: Path) -> bool:
        """Whether the site has a page at ``path`` (a file, or a page the host generates)."""
        return os.path.normpath(path) in {os.path.normpath(p) for p in self.pages()}


def docs_path(path: Path, docs: Path) -> str:
    """``path`` relative to ``docs``, with ``/``."""
    return os.path.relpath(path, docs).replace(os.sep, "/")
