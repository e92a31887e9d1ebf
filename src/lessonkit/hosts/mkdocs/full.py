"""A full build: every page read and converted, nothing remembered for the next build.

What the plugin asks of a build across its steps, done the plain way: the preview of
``mkdocs serve`` (:class:`lessonkit.hosts.mkdocs.serve.Preview`) does each step again with
what it remembers from the rebuild before. ``mkdocs build`` never loads that module: a full
build, the reference, is this one (``mkdocs serve --clean`` rebuilds this way too, and loads
it only for what every serve does once it serves).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.glossary.site import SiteGlossary

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import File, Files

    from lessonkit.core.page import Page as Lesson
    from lessonkit.core.settings import Settings
    from lessonkit.execute.engine import Engine


class FullBuild:
    """Each step of a build, for a build that remembers nothing (see the module)."""

    active = False
    """Whether a rebuild converts only what changed (the dirty preview): never here."""

    @staticmethod
    def of(*, serving: bool, dirty: bool) -> FullBuild:
        """A command's steps: the preview for a serve or a dirty build, else a full build (a
        plugin MkDocs keeps for the process's next command starts that one afresh)."""
        if not (serving or dirty):
            return FullBuild()
        from lessonkit.hosts.mkdocs.serve import Preview  # here: a full build never needs it

        return Preview(active=dirty)

    def terms(self, html: str) -> list[str]:
        """The glossary terms a page's ``html`` uses (its "used on" entries)."""
        from lessonkit.glossary.page import used_term_ids

        return used_term_ids(html)

    def glossary(self, settings: Settings, docs: Path, root: Path) -> SiteGlossary | None:
        """The site's glossary (:meth:`SiteGlossary.of_site`)."""
        return SiteGlossary.of_site(settings, docs, root)

    def read(self, file: File, read: Callable[[], Lesson]) -> Lesson:
        """The page's lesson: ``read()``."""
        return read()

    def mark_stale(
        self,
        files: Files,
        config: MkDocsConfig,
        engine: Engine | None,
        glossary: SiteGlossary | None,
    ) -> None:
        """Which pages to convert beyond those MkDocs converts: none (it converts all)."""

    def compile_with(self, env: Environment) -> None:
        """Give the theme's templates compiled in the last run: there is none."""

    def restore(
        self, env: Environment, files: Files, figures: MutableMapping[str, list[str]]
    ) -> None:
        """Put back what pages not converted made last time: every page was converted."""

    def settle(self, files: Files) -> None:
        """Keep generated pages that did not change from being written: all are written."""

    def failed(self) -> None:
        """The build stopped: nothing was kept to forget."""

    def finish(self, site_dir: str) -> None:
        """After the build: MkDocs' search index is whole already."""

    def serving(self, server: LiveReloadServer, engine: Engine | None, modules: set[str]) -> None:
        """Served, each rebuild a full build (``mkdocs serve --clean``): what every serve does
        (:func:`lessonkit.hosts.mkdocs.serve.watch`) with the ``modules`` the pages imported."""
        from lessonkit.hosts.mkdocs.serve import watch

        watch(server, engine, modules)
