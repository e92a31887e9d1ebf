"""The preview's memory: ``mkdocs serve --dirty`` converts only what changed, yet every feature
sees the whole site (:class:`Preview`; not :attr:`~Preview.active`, each step is the plain one).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from jinja2 import Environment, FileSystemBytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import LessonError
from lessonkit.execute.digests import Stamp, stamp
from lessonkit.execute.engine import Engine, EngineClosed, Outcome
from lessonkit.execute.program import Program
from lessonkit.glossary.site import SiteGlossary, used_term_ids
from lessonkit.hosts.mkdocs.figures import Waiting

if TYPE_CHECKING:  # only MkDocs' serve imports it
    from mkdocs.livereload import LiveReloadServer


def _dirty_notice(record: logging.LogRecord) -> bool:
    """MkDocs' dirty-build warning (which alone fails ``--strict``), as information: lessonkit
    makes the dirty build right."""
    dirty = str(record.msg).startswith("A 'dirty' build is being performed")
    if record.levelno == logging.WARNING and dirty:
        record.levelno, record.levelname = logging.INFO, "INFO"
    return True


class _Converted(NamedTuple):
    """What a build made of one page, to stand in for it when it is not converted."""

    url: str
    title: str | None
    content: str
    figures: list[bytes]  # packed (Waiting.packed)
    dest: str


class TermIds:
    """:func:`used_term_ids` per page HTML, kept one build: an unconverted page is not parsed
    again (measured 5.6 s for 200 pages of 26 KB, at each save of a 200-page preview)."""

    def __init__(self) -> None:
        self._ids: dict[str, list[str]] = {}
        self._asked: dict[str, list[str]] = {}

    def __call__(self, html: str) -> list[str]:
        ids = self._asked[html] = self._ids[html] if html in self._ids else used_term_ids(html)
        return ids

    def next_build(self) -> None:
        self._ids, self._asked = self._asked, {}


class Preview:
    """What a dirty rebuild cannot see, remembered across rebuilds while :attr:`active`."""

    def __init__(self, *, active: bool) -> None:
        self.active = active
        self.terms: Callable[[str], list[str]] = TermIds() if active else used_term_ids
        self._lessons: dict[str, tuple[Stamp | None, Lesson]] = {}
        self._pages: dict[str, _Converted] = {}
        self._made: dict[str, _Converted] = {}  # generated pages as last written (settle)
        self._inputs: tuple[Stamp | None, ...] | None = None
        self._search: dict[str, list[dict]] = {}  # each page's search entries, by URL
        self._converted: list[str] = []  # URLs converted in this run
        self._urls: list[str] = []
        self._owed: dict[str, Outcome] = {}  # stale pages' runs, under way or done
        self._stale: dict[str, tuple[Program, Lesson]] = {}  # stale pages waiting to run
        self._engine: Engine | None = None
        self._running: Outcome | None = None
        self._lock = threading.RLock()  # the runs' callbacks come from the engine's threads
        self._bell: Path | None = None  # under serve: watched, touched when a stale page ran
        if active:  # the theme's compiled templates are kept here across rebuilds
            self._folder = tempfile.mkdtemp(prefix="lessonkit-preview-")
            atexit.register(shutil.rmtree, self._folder, True)
            self._templates = FileSystemBytecodeCache(self._folder)
            for host in ("mkdocs", "properdocs"):
                logging.getLogger(f"{host}.commands.build").addFilter(_dirty_notice)  # once

    def read(self, file: File, read: Callable[[], Lesson]) -> Lesson:
        """The lesson read before when its file did not change, else ``read()``."""
        if not self.active:
            return read()
        now = _stamp(file.abs_src_path)
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
        """Make MkDocs convert the skipped pages that must change: changed (even within their
        output's clock tick), ``mkdocs.yml`` or the glossary changed, or their result went stale
        (a lab edit); forget the pages gone."""
        if not self.active:
            return
        self._engine = engine
        pages = {f.src_uri: f for f in files.documentation_pages() if f.abs_src_path}
        self._forget_gone(pages)
        words = os.path.join(config.docs_dir, glossary.source) if glossary else None
        inputs = (_stamp(config.config_file_path), _stamp(words))
        every, self._inputs = inputs != self._inputs, inputs
        if every:
            self._made.clear()
        with self._lock:
            for src_uri, file in pages.items():
                if self._convert(src_uri, file, every):
                    _modified(file)

    def _convert(self, src_uri: str, file: File, every: bool) -> bool:
        """Whether this rebuild converts the page: changed, unknown, or its background run done.
        Under serve, a page whose result went stale is queued; its old content stands."""
        known = self._lessons.get(src_uri)
        changed = known and known[0] != _stamp(file.abs_src_path)
        if every or src_uri not in self._pages or changed:
            self._stale.pop(src_uri, None)
            self._owed.pop(src_uri, None)
            return True
        if src_uri in self._stale:
            return False  # waiting for its run: its old content stands
        if (owed := self._owed.get(src_uri)) is not None:
            if not owed.done():
                return False  # running
            del self._owed[src_uri]  # done: convert it now
            return True
        if not known or (stale := self._stale_program(known[1])) is None:
            return False  # its result holds
        if self._bell is None:  # not serving: it runs in this build
            return True
        self._stale[src_uri] = (stale, known[1])
        return False

    def _stale_program(self, lesson: Lesson) -> Program | None:
        """The page's program if its code result went stale (a lab edit)."""
        with suppress(LessonError):  # wrong block options: its checks report them when converted
            program = lesson.program
            if self._engine and program.steps and not self._engine.ran(program):
                return program
        return None

    def _forget_gone(self, pages: dict[str, File]) -> None:
        """Drop the pages deleted or renamed, and their old output."""
        for src_uri in set(self._pages) - set(pages):
            gone = self._pages.pop(src_uri).dest
            if not any(f.abs_dest_path == gone for f in pages.values()) and os.path.isfile(gone):
                os.remove(gone)
        for src_uri in set(self._lessons) - set(pages):
            del self._lessons[src_uri]

    def _run_stale(self, done: Outcome | None = None) -> None:
        """Run the stale pages one at a time after the build's own (a saved page waits for one
        at most); ring the bell as each is done. Cached results loop, never recurse."""
        with self._lock:
            if done is not None and self._bell is not None:
                self._bell.touch()  # the server watches it: a rebuild converts the page
            while self._stale and self._engine and not (self._running and not self._running.done()):
                src_uri, (program, lesson) = next(iter(self._stale.items()))
                try:
                    self._running = self._engine.submit(program, lesson.where, lesson.text)
                except EngineClosed:  # the serve is stopping: the page stays stale
                    return
                self._owed[src_uri] = self._running
                del self._stale[src_uri]
                if not self._running.done():
                    self._running.add_done_callback(self._run_stale)
                elif self._bell is not None:
                    self._bell.touch()

    def serving(self, server: LiveReloadServer, engine: Engine | None, modules: set[str]) -> None:
        """Every serve: rebuild when a module the pages imported is saved (only its pages run
        again); start the workers' imports now; stop on SIGTERM as on Ctrl-C (MkDocs and
        lessonkit then remove their temporary folders). Under ``--dirty``, also the bell."""
        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # another's handler stays
            signal.signal(signal.SIGTERM, _interrupt)
        for folder in sorted({os.path.dirname(path) for path in modules}):
            server.watch(folder, recursive=False)
        if engine is None:
            return
        from lessonkit.execute import worker  # here: a build that does not serve needs none

        worker.warm_up()
        if self.active:  # the bell: touched when a stale page ran, so that the server rebuilds
            self._bell = Path(self._folder) / "rebuild"
            self._bell.touch()
            server.watch(str(self._bell), recursive=False)

    def compile_with(self, env: Environment) -> None:
        """Give ``env`` the templates compiled in the last run (``on_env``): MkDocs makes a new
        Jinja environment each time, and compiling is a third of a small rebuild."""
        if self.active:
            env.bytecode_cache = self._templates

    def restore(self, files: Files, figures: Waiting) -> None:
        """Remember the pages converted; put back the others' content, title and figures."""
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
                found = figures.packed(file.src_uri)
                self._pages[file.src_uri] = _Converted(
                    page.url, page.title, page.content, found, file.abs_dest_path
                )
            elif known := self._pages.get(file.src_uri):
                page.content, page.title = known.content, known.title
                figures[file.src_uri] = known.figures
        self._run_stale()

    def settle(self, files: Files) -> None:
        """Keep a generated page (glossary, print page) unchanged since the last run from being
        written and indexed again (MkDocs takes every generated file for modified)."""
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
        """The build stopped: the next run converts this run's pages again."""
        for src_uri in [s for s, page in self._pages.items() if page.url in self._converted]:
            del self._pages[src_uri]
        self._made.clear()
        self._converted = []

    def finish(self, site_dir: str) -> None:
        """After the build: the search index made whole again."""
        if not self.active:
            return
        if isinstance(self.terms, TermIds):
            self.terms.next_build()
        converted, self._converted = self._converted, []
        rewrite(Path(site_dir), self._urls, converted, self._search)


def _stamp(path: str | None) -> Stamp | None:
    return stamp(path) if path else None


# The search index of a dirty rebuild, made whole: a search plugin indexes the pages built in its
# run (Material keeps the previous run's entries for one page only).
def rewrite(
    site_dir: Path, urls: list[str], converted: list[str], remembered: dict[str, list[dict]]
) -> None:
    """Rewrite ``search/search_index.json`` with every page of ``urls``: see :func:`merge`."""
    path = site_dir / "search" / "search_index.json"
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no search plugin, or not one whose index this knows
    if not (isinstance(index, dict) and isinstance(index.get("docs"), list)):
        return
    index["docs"] = merge(index["docs"], urls, converted, remembered)
    path.write_text(json.dumps(index, separators=(",", ":"), default=str), encoding="utf-8")


def merge(
    entries: list[dict], urls: list[str], converted: list[str], remembered: dict[str, list[dict]]
) -> list[dict]:
    """``entries`` made whole: per page of ``urls``, this run's entries if ``converted``, else the
    ``remembered`` ones (updated here); then other pages' entries; pages gone left out."""
    by_page: dict[str, list[dict]] = {}
    for entry in entries:
        by_page.setdefault(str(entry.get("location", "")).split("#", 1)[0], []).append(entry)
    for url in set(remembered) - set(urls):  # deleted or renamed
        by_page.pop(url, None)
        del remembered[url]
    for url in converted:
        remembered[url] = _last_run(by_page.get(url, []))
    tracked = [entry for url in urls for entry in remembered.get(url, [])]
    others = [_last_run(found) for url, found in by_page.items() if url not in remembered]
    return tracked + [entry for found in others for entry in found]


def _last_run(entries: list[dict]) -> list[dict]:
    """A page's entries from this run: from its last page-level entry on."""
    starts = [i for i, e in enumerate(entries) if "#" not in str(e.get("location", ""))]
    return entries[starts[-1] :] if starts else entries


def _modified(file: File) -> None:
    """Make MkDocs take ``file`` for modified: its output older than its source."""
    if os.path.isfile(file.abs_dest_path):
        os.utime(file.abs_dest_path, (0, 0))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
