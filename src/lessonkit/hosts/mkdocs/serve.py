"""The fast preview: ``mkdocs serve --dirty``, where a rebuild converts only what changed.

MkDocs' dirty rebuild reads and converts a page only when its file is newer than its output
(``File.is_modified``); the pages it skips keep their old HTML on disk, but this run knows
nothing of them. What lessonkit computes from every page (the glossary's "used on" lists and
unused terms, the learner's path and its print page, notebooks) would then see one page.
:class:`Preview` remembers, per page, what the last build that converted it made, puts it back
for the pages this run skips, and decides which skipped pages must be converted after all:

- a page whose code result no longer holds (a lab module it imports changed, or a data file it
  reads): its Markdown did not change, its numbers did;
- a page whose file changed since it was read (MkDocs compares modification times, which a
  save in the same clock tick as the page's output does not change);
- every page, when ``mkdocs.yml`` or the glossary changed (each page's tooltips come from it);
- a page it has no memory of (the first build, a build that failed before the page was kept).

A page deleted or renamed drops out of the memory, and its old output out of the served site.
The search index is made whole again by :mod:`.search`. A generated page (the glossary, the
print page) whose content did not change is not written again (:meth:`Preview.settle`), and the
theme's templates stay compiled across rebuilds. A full build uses none of this
(:attr:`Preview.active` is False) and stays the reference.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import BytecodeCache, Environment
from jinja2.bccache import Bucket
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import LessonError
from lessonkit.core.records import Record
from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine, EngineClosed, Outcome
from lessonkit.execute.program import Program
from lessonkit.glossary.page import used_term_ids
from lessonkit.glossary.site import SiteGlossary
from lessonkit.hosts.mkdocs.full import FullBuild
from lessonkit.hosts.mkdocs.search import SearchEntries

if TYPE_CHECKING:  # only MkDocs' serve imports it (and the file watcher and HTTP server)
    from mkdocs.livereload import LiveReloadServer

Stamp = tuple[int, int] | None

DIRTY_WARNING = "A 'dirty' build is being performed"
"""The start of the warning MkDocs logs on every dirty build (which alone fails ``--strict``)."""


def stamp(path: str | Path | None) -> Stamp:
    """A file's modification time and size, or None when it is missing."""
    try:
        info = os.stat(path) if path else None
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size) if info else None


class _DirtyNotice(logging.Filter):
    """MkDocs' dirty-build warning, as information: lessonkit makes the dirty build right."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and str(record.msg).startswith(DIRTY_WARNING):
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


_NOTICE = _DirtyNotice()


class _Converted(Record):
    """What a build made of one page: enough to stand in for it when it is not converted."""

    url: str
    title: str | None
    content: str
    figures: list
    dest: str


class TermIds:
    """:func:`used_term_ids`, remembered per page HTML (a page that was not converted again
    hands back the same HTML, so its terms are not parsed again)."""

    def __init__(self) -> None:
        self._ids: dict[str, list[str]] = {}
        self._asked: dict[str, list[str]] = {}

    def __call__(self, html: str) -> list[str]:
        ids = self._ids.get(html)
        if ids is None:
            ids = used_term_ids(html)
        self._asked[html] = ids
        return ids

    def next_build(self) -> None:
        """Keep only the HTML asked for in the build that just ended."""
        self._ids, self._asked = self._asked, {}


class _Templates(BytecodeCache):
    """The theme's compiled templates, kept across rebuilds (MkDocs makes a new Jinja
    environment for each, which compiles every template again: a third of a rebuild). Jinja
    checks each entry against its template's source, so an edited template is compiled again."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if (code := self._code.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


class Preview(FullBuild):
    """What a dirty rebuild cannot see, remembered across ``mkdocs serve`` rebuilds (each step
    as a full build does it while not :attr:`active`: ``mkdocs serve`` without ``--dirty``)."""

    def __init__(self, *, active: bool) -> None:
        self.active = active
        self.terms: Callable[[str], list[str]] = TermIds() if active else used_term_ids  # type: ignore[method-assign]
        self._lessons: dict[str, tuple[Stamp, Lesson]] = {}
        self._pages: dict[str, _Converted] = {}
        self._made: dict[str, _Converted] = {}
        """The generated pages as the last run wrote them (see :meth:`settle`)."""
        self._inputs: tuple[Stamp, ...] | None = None
        self._glossary: tuple[tuple, SiteGlossary | None] | None = None
        self._search = SearchEntries()
        self._converted: list[str] = []
        """The URLs of the pages converted in this run (set in :meth:`restore`)."""
        self._urls: list[str] = []
        self._templates = _Templates()
        self._owed: dict[str, Outcome] = {}
        self._stale: dict[str, tuple[Program, Lesson]] = {}
        """Pages whose code result went stale, waiting to run (see :meth:`_run_stale`)."""
        self._engine: Engine | None = None
        self._running: Outcome | None = None
        self._lock = threading.RLock()  # the runs' callbacks come from the engine's threads
        """Pages whose code result went stale, by source: their run, under way."""
        self._bell: Path | None = None
        """Under serve: the file the server watches, touched by :meth:`_run_stale`."""
        if active:
            for host in ("mkdocs", "properdocs"):
                logging.getLogger(f"{host}.commands.build").addFilter(_NOTICE)  # once

    def glossary(self, settings: Settings, docs: Path, root: Path) -> SiteGlossary | None:
        """The site's glossary (:meth:`SiteGlossary.of_site`), read again only when its file or
        the options changed."""
        if not self.active:
            return SiteGlossary.of_site(settings, docs, root)
        key = (repr(settings), docs, root, stamp(settings.glossary_file(docs)))
        if self._glossary is None or self._glossary[0] != key:
            self._glossary = (key, SiteGlossary.of_site(settings, docs, root))
        return self._glossary[1]

    def read(self, file: File, read: Callable[[], Lesson]) -> Lesson:
        """The page's lesson: the one read before when its file did not change, else ``read()``."""
        if not self.active:
            return read()
        now = stamp(file.abs_src_path)
        if (known := self._lessons.get(file.src_uri)) and known[0] == now:
            return known[1]
        lesson = read()
        self._lessons[file.src_uri] = (now, lesson)
        return lesson

    def mark_stale(
        self,
        files: Files,
        config: MkDocsConfig,
        engine: Engine | None,
        glossary: SiteGlossary | None,
    ) -> None:
        """Make MkDocs convert the pages a dirty rebuild would skip but must convert (see the
        module's docstring); drop the pages that are gone. Call before the pages are read."""
        if not self.active:
            return
        docs = Path(config.docs_dir)
        inputs = [config.config_file_path, docs / glossary.source if glossary else None]
        pages = {f.src_uri: f for f in files.documentation_pages() if f.abs_src_path}
        for src_uri in set(self._pages) - set(pages):  # deleted or renamed: gone from the site
            gone = self._pages.pop(src_uri).dest
            if not any(f.abs_dest_path == gone for f in pages.values()) and os.path.isfile(gone):
                os.remove(gone)
        for src_uri in set(self._lessons) - set(pages):
            del self._lessons[src_uri]
        now = tuple(stamp(path) for path in inputs)
        every, self._inputs = now != self._inputs, now
        if every:
            self._made.clear()
        for src_uri, file in pages.items():
            known = self._lessons.get(src_uri)
            edited = known is not None and known[0] != stamp(file.abs_src_path)
            program = _program(known[1]) if known and not edited else None
            ran = engine is None or not (program and program.steps) or engine.ran(program)
            with self._lock:
                owed = self._owed.pop(src_uri, None)
                if every or edited or src_uri not in self._pages:
                    self._stale.pop(src_uri, None)
                    _modified(file)  # edited: MkDocs' mtime misses a save in its output's tick
                elif src_uri in self._stale or (owed is not None and not owed.done()):
                    if owed is not None:  # waiting, or running: its old content stands
                        self._owed[src_uri] = owed
                elif owed is not None:
                    _modified(file)  # its run is done: convert it now
                elif not ran and engine and program and known and self._bell:
                    self._stale[src_uri] = (program, known[1])  # runs in the background
                elif not ran:
                    _modified(file)
        self._engine = engine

    def _run_stale(self, done: Outcome | None = None) -> None:
        """Run the stale pages kept out of the builds, one at a time, after the pages a build
        converts (so that a page you save never waits behind them); ring once each is done.
        A page whose result is there already (the cache holds it) rings at once, in a loop, not
        a callback each: hundreds of them are no deeper a call."""
        with self._lock:
            if done is not None and self._bell is not None:
                self._bell.touch()  # the server watches it: a rebuild converts the page
            if self._running is not None and not self._running.done():
                return
            while self._stale and self._engine is not None:
                src_uri = next(iter(self._stale))
                program, lesson = self._stale.pop(src_uri)
                try:
                    self._running = self._engine.submit(program, lesson.where, lesson.text)
                except EngineClosed:  # the serve is stopping: the page stays stale
                    self._stale[src_uri] = (program, lesson)
                    return
                self._owed[src_uri] = self._running
                if not self._running.done():
                    self._running.add_done_callback(self._run_stale)
                    return
                if self._bell is not None:
                    self._bell.touch()

    def serving(self, server: LiveReloadServer, engine: Engine | None, modules: set[str]) -> None:
        """What every serve does (:func:`watch`); under ``--dirty``, also: a page whose code
        result went stale (a lab edit) keeps its old content while it runs, and a file of the
        preview's own, watched, asks for the rebuild that shows it: the page you saved is not
        held up."""
        watch(server, engine, modules)
        if engine is None or not self.active:
            return
        folder = tempfile.mkdtemp(prefix="lessonkit-preview-")
        atexit.register(shutil.rmtree, folder, True)
        self._bell = Path(folder) / "rebuild"
        self._bell.touch()
        server.watch(str(self._bell), recursive=False)

    def compile_with(self, env: Environment) -> None:
        """The theme's templates (``env``) come compiled from the last run (``on_env``, before
        any template is compiled)."""
        if self.active:
            env.bytecode_cache = self._templates

    def restore(
        self, env: Environment, files: Files, figures: MutableMapping[str, list[str]]
    ) -> None:
        """Remember the pages converted in this run; put back what the others made last time
        (their content, title and figures), so that every feature sees the whole site."""
        if not self.active:
            return
        self._converted, self._urls = [], []
        for file in files.documentation_pages():
            page = file.page
            if page is None or not file.abs_src_path:  # generated: see settle()
                continue
            self._urls.append(page.url)
            if page.content is not None:
                self._converted.append(page.url)
                found = figures.get(file.src_uri, [])
                self._pages[file.src_uri] = _Converted(
                    page.url, page.title, page.content, found, file.abs_dest_path
                )
            elif known := self._pages.get(file.src_uri):
                page.content, page.title = known.content, known.title
                figures[file.src_uri] = known.figures
        self._run_stale()

    def settle(self, files: Files) -> None:
        """Once lessonkit's pages are finished: a generated page (the glossary, the print page)
        whose content and title are what the last run wrote is not written (nor indexed) again:
        MkDocs takes every generated file for modified, and those two grow with the site."""
        if not self.active:
            return
        for file in files.documentation_pages():
            page = file.page
            if file.abs_src_path or page is None or page.content is None:
                continue
            self._urls.append(page.url)
            made = _Converted(page.url, page.title, page.content, [], file.abs_dest_path)
            if self._made.get(file.src_uri) == made and os.path.isfile(file.abs_dest_path):
                file.is_modified = lambda: False  # type: ignore[method-assign]
            else:
                self._made[file.src_uri] = made
                self._converted.append(page.url)

    def failed(self) -> None:
        """The build stopped after :meth:`restore`: its pages' search entries were not kept,
        so the next run converts them again."""
        for src_uri in [s for s, page in self._pages.items() if page.url in self._converted]:
            del self._pages[src_uri]
        self._made.clear()
        self._converted = []

    def finish(self, site_dir: str) -> None:
        """After the build: the search index again whole (see the module's docstring)."""
        if not self.active:
            return
        if isinstance(self.terms, TermIds):
            self.terms.next_build()
        converted, self._converted = self._converted, []
        self._search.rewrite(Path(site_dir), self._urls, converted)


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
    from lessonkit.execute import worker  # here: a warm build imports no worker code

    worker.warm_up()


def _program(lesson: Lesson) -> Program | None:
    try:
        return lesson.program
    except LessonError:  # wrong block options: its checks report them when it is converted
        return None


def _modified(file: File) -> None:
    """Make MkDocs take ``file`` for modified: its output older than its source."""
    if os.path.isfile(file.abs_dest_path):
        os.utime(file.abs_dest_path, (0, 0))


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
