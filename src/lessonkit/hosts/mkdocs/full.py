"""A full build: every page read and converted, nothing remembered for the next build.

What the plugin asks of a build across its steps, done the plain way: the preview of
``mkdocs serve`` (:class:`lessonkit.hosts.mkdocs.serve.Preview`) does each step again with
what it remembers from the rebuild before. A full build, the reference, is this one
(``mkdocs serve --clean`` rebuilds this way too, and :func:`watch` is what every serve does).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.glossary.page import used_term_ids
from lessonkit.glossary.site import SiteGlossary

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import File, Files

    from lessonkit.core.page import Page as Lesson
    from lessonkit.core.settings import Settings
    from lessonkit.execute.engine import Engine
    from lessonkit.hosts.mkdocs.figures import Waiting


class FullBuild:
    """Each step of a build, for a build that remembers nothing (see the module)."""

    active = False
    """Whether a rebuild converts only what changed (the dirty preview): never here."""

    def terms(self, html: str) -> list[str]:
        """The glossary terms a page's ``html`` uses (its "used on" entries)."""
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

    def restore(self, env: Environment, files: Files, figures: Waiting) -> None:
        """Put back what pages not converted made last time: every page was converted."""

    def settle(self, files: Files) -> None:
        """Keep generated pages that did not change from being written: all are written."""

    def failed(self) -> None:
        """The build stopped: nothing was kept to forget."""

    def finish(self, site_dir: str) -> None:
        """After the build: MkDocs' search index is whole already."""

    def serving(self, server: LiveReloadServer, engine: Engine | None, modules: set[str]) -> None:
        """Served, each rebuild a full build (``mkdocs serve --clean``): what every serve does
        (:func:`watch`) with the ``modules`` the pages imported."""
        watch(server, engine, modules)


def watch(server: LiveReloadServer, engine: Engine | None, modules: set[str]) -> None:
    """Once a serve's first build is served (with or without ``--dirty``, or ``--clean``):
    watch the folder of each of the ``modules`` the pages' code imported (the lab, a site's own
    modules), so that saving one rebuilds and the pages that import it (only those) run again;
    while the ``engine`` is kept (not under ``--clean``), start the workers' libraries importing
    now, so that the first code edit does not wait for them. SIGTERM stops the server as Ctrl-C
    does (:func:`_stop_on_sigterm`)."""
    _stop_on_sigterm()
    for folder in sorted({os.path.dirname(path) for path in modules}):
        server.watch(folder, recursive=False)
    if engine is None:
        return
    from lessonkit.execute import worker  # here: a build that does not serve needs none

    worker.warm_up()


def _stop_on_sigterm() -> None:
    """Under serve, SIGTERM (``kill``, ``timeout``, a supervisor's or an editor's stop) stops the
    server as Ctrl-C does: MkDocs removes its temporary copy of the site and lessonkit its
    folders and workers. By default the process died at once and left them all in the temporary
    folder. A handler set by someone else stays."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
