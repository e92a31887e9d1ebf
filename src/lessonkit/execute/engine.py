"""The execution engine: pages in parallel, each looked up in the cache before it runs.

A page's key is its program, its path and :func:`~lessonkit.execute.imports.machinery_digest`;
what else it used (files, folders, modules) is in its cache entry, checked at lookup.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.core.settings import Settings
from lessonkit.execute.cache import Cache, still_current
from lessonkit.execute.imports import machinery_digest
from lessonkit.execute.program import Program
from lessonkit.execute.results import PageResult

if TYPE_CHECKING:
    from lessonkit.execute.worker import WorkerPool


Outcome = Future  # what Engine.submit hands back


def finished(result: PageResult) -> Future[PageResult]:
    """A future already done with ``result``."""
    future: Future[PageResult] = Future()
    future.set_result(result)
    return future


CLOCK_SLACK = 0.1  # seconds an entry's mtime may lag the clock and still be this build's


class EngineClosed(RuntimeError):
    """A page was submitted while the engine closes."""


class Engine:
    """Runs page programs through the cache and a pool of page processes. Lesson code may not
    change the docs, ``sources`` (mkdocs.yml), ``private`` (the site) or the cache, nor read the
    last two; ``snapshot``: watch the docs and site around a subprocess (a full build only)."""

    def __init__(
        self,
        cache_dir: Path | None,
        *,
        workers: int = 2,
        timeout: float = 10.0,
        docs_dir: Path | None = None,
        sources: tuple[Path, ...] = (),
        private: tuple[Path, ...] = (),
        limits: dict[str, int] | None = None,
        snapshot: bool = True,
    ) -> None:
        self.cache = Cache(cache_dir) if cache_dir else None
        self._pool_args = (workers, timeout)
        self._limits = limits or {}  # WorkerPool's keyword arguments
        self._pool: WorkerPool | None = None
        self._closed = False  # close began: nothing more is submitted or started
        self.docs_dir = docs_dir
        sources = (*([docs_dir] if docs_dir else []), *sources)
        unread = (*private, *([self.cache.folder] if self.cache else []))
        watched = (*sources, *private) if snapshot else ()
        self._paths = (watched, (*sources, *unread), unread)  # Job's watched, protected, private
        self._started = time.time()
        self._threads: ThreadPoolExecutor | None = None  # made when a page first has to run
        self._futures: dict[str, Outcome[PageResult]] = {}
        self._released: set[str] = set()  # keys of good results the host handed back
        self._released_sources: set[str] = set()  # the modules those imported
        self._keys: weakref.WeakKeyDictionary[Program, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self.ran_pages: list[str] = []  # pages that ran (not from cache), as they finished

    def _open_pool(self) -> WorkerPool | None:
        """The pool (made when a page first runs); None once :meth:`close` began."""
        with self._lock:
            if self._closed:
                return None
            if self._pool is None:
                from lessonkit.execute.worker import WorkerPool

                self._pool = WorkerPool(*self._pool_args, **self._limits)
            return self._pool

    def key(self, program: Program) -> str:
        """Remembered: a page asks 5 times (~25 ms a warm 200-page build, benchmark.py)."""
        if (key := self._keys.get(program)) is None:
            environment = machinery_digest() + repr(sorted(self._limits.items()))
            key = self._keys[program] = program.key(environment)
        return key

    def submit(self, program: Program, display_path: str, source_text: str) -> Future[PageResult]:
        """Start ``program`` unless cached or under way; its future (:class:`EngineClosed` late)."""
        key = self.key(program)
        with self._lock:
            if key in self._futures:
                return self._futures[key]
            self._released.discard(key)  # asked for again: looked up again
            cached = self.cache.get(key) if self.cache else None
            if cached is not None or not program.steps:
                future = finished(cached or PageResult())
            else:
                if self._closed:
                    raise EngineClosed(f"{display_path} was not run: lessonkit stopped")
                if self._threads is None:  # a warm build makes none
                    self._threads = ThreadPoolExecutor(max_workers=max(1, self._pool_args[0]))
                try:
                    future = self._threads.submit(
                        self._run, key, program, display_path, source_text
                    )
                except RuntimeError:  # the interpreter is shutting down
                    raise EngineClosed(f"{display_path} was not run: lessonkit stopped") from None
            self._futures[key] = future
            return future

    def start(self, program: Program, display_path: str, source_text: str) -> None:
        """Start ``program`` unless the cache holds it (read when submitted: bounds memory)."""
        if not self.held(program):
            self.submit(program, display_path, source_text)

    def held(self, program: Program) -> bool:
        """Whether the cache holds a run of ``program``: it ran well, so its code compiles."""
        return self.cache is not None and self.cache.holds(self.key(program))

    @property
    def executed(self) -> int:
        """How many pages ran (not from cache) since the engine started."""
        return len(self.ran_pages)

    def summary(self) -> str:
        """What ran, for the build's log: a warm build that ran a page says which.

        >>> engine = Engine(cache_dir=None)
        >>> engine.ran_pages += ["docs/b.md", "docs/a.md"]
        >>> engine.summary()
        '2 page(s) ran (docs/a.md, docs/b.md), the rest came from cache'
        """
        pages = sorted(self.ran_pages)
        shown = ", ".join(pages[:5]) + (", ..." if len(pages) > 5 else "")
        return f"{len(pages)} page(s) ran{f' ({shown})' if pages else ''}, the rest came from cache"

    def ran(self, program: Program) -> bool:
        """Whether ``program`` already ran without an error in this build (or came from cache)."""
        key = self.key(program)
        with self._lock:
            future = self._futures.get(key)
            released = key in self._released
        return released or bool(future and future.done() and future.result().ok)

    def release(self, program: Program) -> None:
        """Let go of a good result once its page is converted: a build holds no page's outputs
        to its end (bounds memory); :meth:`ran` and the prune still count it."""
        key = self.key(program)
        with self._lock:
            future = self._futures.get(key)
            if future is not None and future.done() and future.result().ok:
                del self._futures[key]
                self._released.add(key)
                self._released_sources.update(future.result().sources)

    def result(self, program: Program, display_path: str, source_text: str = "") -> PageResult:
        return self.submit(program, display_path, source_text).result()

    def forget(self, *, keep_current: bool = False) -> None:
        """Drop in-memory results (a new build starts); ``keep_current`` keeps runs under way
        and results whose files and modules did not change (:meth:`ran` then names stale ones)."""
        with self._lock:
            kept = {
                key: future
                for key, future in self._futures.items()
                if keep_current and (not future.done() or still_current(future.result()))
            }
            self._futures = kept
            self._released, self._released_sources = set(), set()
            self._started = time.time()

    def module_sources(self) -> set[str]:
        """The module files this build's results imported (a serve watches them)."""
        with self._lock:
            done = [f.result() for f in self._futures.values() if f.done()]
            released = set(self._released_sources)
        return released | {path for result in done for path in result.sources}

    def _run(self, key: str, program: Program, display_path: str, source_text: str) -> PageResult:
        from lessonkit.execute.worker import Job, lost_result

        docs = self.docs_dir or Path.cwd()
        page_dir = (docs / program.page).parent if program.page else docs
        job = Job(program, display_path, source_text, page_dir, *self._paths)
        pool = self._open_pool()
        if pool is None:
            return lost_result(job)
        result = pool.run(job)
        with self._lock:
            self.ran_pages.append(display_path)
        if self.cache and result.ok:
            self.cache.put(key, result)
        return result

    def close(self, *, prune: bool = False) -> None:
        """Stop the pages. ``prune`` (after a full build): remove entries this build did not use."""
        with self._lock:
            self._closed, threads, pool = True, self._threads, self._pool
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)
        if pool is not None:  # first: a thread waiting for a runaway block then returns
            pool.close()
        if threads is not None:
            threads.shutdown(wait=True)
        if self.cache is not None:  # made even empty: the next build is not a first one
            self.cache.mark()
            if prune:
                with self._lock:
                    used = set(self._futures) | self._released
                self.cache.prune(used, self._started - CLOCK_SLACK)


CONFIG_FILES = ("mkdocs.yml", "mkdocs.yaml")  # lesson code may not change or make them


def site_engine(
    settings: Settings, root: Path, docs_dir: Path, site_dir: Path, snapshot: bool = True
) -> Engine:
    """The engine a site's settings describe (``root``: the configuration's folder)."""
    return Engine(
        root / settings.cache_dir,
        workers=settings.workers or os.cpu_count() or 1,
        timeout=float(settings.timeout),
        docs_dir=docs_dir.resolve(),
        sources=tuple(root.resolve() / name for name in CONFIG_FILES),
        private=(site_dir.resolve(),),
        limits={
            "output_limit": settings.output_limit,
            "memory_limit": settings.memory_limit,
            "describe_figures": settings.generated_alt_text,
        },
        snapshot=snapshot,
    )


def warm_up_if_first_build(settings: Settings, root: Path) -> None:
    """On a first build (no cache folder), start the fork server: it overlaps the host's start."""
    if settings.execute and not (root / settings.cache_dir).exists():
        from lessonkit.execute import worker  # a warm build imports none

        worker.warm_up()
