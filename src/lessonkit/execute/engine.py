"""The execution engine: cache first, then worker processes, pages in parallel.

``Engine.submit`` starts a page as soon as its source is known (the MkDocs plugin submits every
page before rendering any); ``Engine.result`` waits for it, or runs it on the spot when it was
never submitted (bare Python-Markdown, or text changed by another plugin).

A page's key is its program, its path, Python's version and lessonkit's execution machinery
(:func:`~lessonkit.execute.imports.machinery_digest`); what else it depends on (the files and
folders its code read, the lessonkit modules and libraries it imported) is in its cache entry,
checked at lookup.

Lesson code may not change the docs, the ``sources`` beside them (``mkdocs.yml``), the
``private`` paths (the site) or the cache, and may not read the last two (see
:mod:`lessonkit.execute.filewatch`). After a full build, :meth:`Engine.close` with ``prune``
removes the cache entries that build did not use.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.execute.cache import Cache, still_current
from lessonkit.execute.imports import machinery_digest
from lessonkit.execute.program import Program
from lessonkit.execute.results import PageResult

if TYPE_CHECKING:
    from lessonkit.execute.worker import WorkerPool


Outcome = Future
"""What :meth:`Engine.submit` hands back: a page's run, under way or done."""


def finished(result: PageResult) -> Future[PageResult]:
    """A future already done with ``result`` (a cached page's, or a page without code)."""
    future: Future[PageResult] = Future()
    future.set_result(result)
    return future


CLOCK_SLACK = 0.1
"""Seconds: a file's mtime may lag the clock by a timer tick; an entry written this long before
the build started still counts as the build's."""


class EngineClosed(RuntimeError):
    """A page was submitted to an engine already closed (the build or the serve is stopping)."""


class Engine:
    """Runs page programs through the cache and a pool of worker processes."""

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
    ) -> None:
        self.cache = Cache(cache_dir) if cache_dir else None
        self._pool_args = (workers, timeout)
        self._limits = limits or {}
        """``output_limit`` and ``memory_limit`` of each page (the pool's defaults otherwise)."""
        self._pool: WorkerPool | None = None
        self._closed = False
        self.docs_dir = docs_dir
        self.sources = sources
        """Files beside the docs that code may read but not change (``mkdocs.yml``)."""
        self.private = private
        """Paths code may neither change nor read (the site the build is writing)."""
        self._started = time.time()
        self._threads: ThreadPoolExecutor | None = None
        """The threads that wait for pages' runs: made when a page first has to run."""
        self._stopping = False
        """Set when :meth:`close` begins: no page is submitted to the threads after it."""
        self._futures: dict[str, Outcome[PageResult]] = {}
        self._released: set[str] = set()
        """Keys of pages that ran without an error (or came from cache) whose results the host
        has used and handed back (:meth:`release`)."""
        self._released_sources: set[str] = set()
        """The module files those results imported (:meth:`module_sources`)."""
        self._lock = threading.Lock()
        self._machinery: str | None = None
        self.ran_pages: list[str] = []
        """The pages that actually ran (not served from cache) since the engine started, as
        messages name them, in the order they finished."""

    def _open_pool(self) -> WorkerPool | None:
        """The pool of page processes, made when a page first has to run (not on a warm build);
        None once :meth:`close` has begun: a page that a thread was about to start then does
        not start (it would run to its end while the build waits to stop)."""
        with self._lock:
            if self._closed:
                return None
            if self._pool is None:
                from lessonkit.execute.worker import WorkerPool

                self._pool = WorkerPool(*self._pool_args, **self._limits)
            return self._pool

    def key(self, program: Program) -> str:
        if self._machinery is None:  # once per engine: a serve's rebuilds keep it too
            self._machinery = machinery_digest() + repr(sorted(self._limits.items()))
        return program.key(self._machinery)

    def submit(self, program: Program, display_path: str, source_text: str) -> Future[PageResult]:
        """Start ``program`` unless it is cached or already under way; return its future (done
        already for a cached result or a page without code).
        :class:`EngineClosed` once :meth:`close` has run."""
        key = self.key(program)
        with self._lock:
            if key in self._futures:
                return self._futures[key]
            self._released.discard(key)  # asked for again: looked up again
            cached = self.cache.get(key) if self.cache else None
            if cached is not None or not program.steps:
                future = finished(cached or PageResult())
            else:
                if self._stopping:  # the build (or serve) is stopping
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
        """Start ``program`` now if it has to run (its cache holds no entry for it); one with an
        entry is looked up when it is submitted, so that a build does not hold every page's
        result at once (a stale entry is found then, and the page runs from there)."""
        if self.cache is None or not self.cache.holds(self.key(program)):
            self.submit(program, display_path, source_text)

    @property
    def executed(self) -> int:
        """How many pages actually ran (not served from cache) since the engine started."""
        return len(self.ran_pages)

    def summary(self, *, named: int = 5) -> str:
        """What ran, for the build's log: a warm build that ran a page says which.

        >>> engine = Engine(cache_dir=None)
        >>> engine.summary()
        '0 page(s) ran, the rest came from cache'
        >>> engine.ran_pages += ["docs/b.md", "docs/a.md"]
        >>> engine.summary()
        '2 page(s) ran (docs/a.md, docs/b.md), the rest came from cache'
        """
        pages = sorted(self.ran_pages)
        shown = ", ".join(pages[:named]) + (", ..." if len(pages) > named else "")
        return f"{len(pages)} page(s) ran{f' ({shown})' if pages else ''}, the rest came from cache"

    def ran(self, program: Program) -> bool:
        """Whether ``program`` already ran without an error in this build (or came from cache)."""
        key = self.key(program)
        with self._lock:
            future = self._futures.get(key)
            released = key in self._released
        return released or bool(future and future.done() and future.result().ok)

    def release(self, program: Program) -> None:
        """Let go of ``program``'s result once the host has converted its page: a whole build
        then holds no page's outputs to its end.

        What stays is that it ran (:meth:`ran`) and that this build used its cache entry (a
        prune keeps it); a later :meth:`result` looks the page up again. Only a finished result
        without an error is let go (a failed one is what the build reports).

        >>> from lessonkit.execute.program import parse_program
        >>> engine = Engine(cache_dir=None)
        >>> prose = parse_program("No code here.\\n")
        >>> engine.result(prose, "a.md").ok
        True
        >>> engine.release(prose)
        >>> engine.ran(prose), len(engine._futures)
        (True, 0)
        """
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
        """Drop in-memory results (a new build starts: under ``mkdocs serve``, between rebuilds);
        keep the disk cache. ``keep_current`` keeps each result whose files, modules and
        libraries are still as it used them (a ``stat`` each), so a page that did not change is
        not looked up again, and :meth:`ran` tells which results a lab edit made stale; and each
        run still under way, so that it is not started twice."""
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
        """The source files of the modules the results of this build imported, those let go
        of included (a host watches them while it serves, so that a lab edit rebuilds the pages
        that use it)."""
        with self._lock:
            done = [f.result() for f in self._futures.values() if f.done()]
            released = set(self._released_sources)
        return released | {path for result in done for path in result.sources}

    def _run(self, key: str, program: Program, display_path: str, source_text: str) -> PageResult:
        from lessonkit.execute.worker import Job, lost_result

        docs = self.docs_dir or Path.cwd()
        page_dir = (docs / program.page).parent if program.page else docs
        private = (*self.private, *([self.cache.folder] if self.cache else []))
        sources = (*([self.docs_dir] if self.docs_dir else []), *self.sources)
        job = Job(
            program,
            display_path,
            source_text,
            page_dir,
            watched=(*sources, *self.private),
            protected=(*sources, *private),
            private=private,
        )
        pool = self._open_pool()
        if pool is None:  # the build is stopping
            return lost_result(job)
        result = pool.run(job)
        with self._lock:
            self.ran_pages.append(display_path)
        if self.cache and result.ok:
            self.cache.put(key, result)
        return result

    def close(self, *, prune: bool = False) -> None:
        """Stop the workers. ``prune`` (after a full build, every page submitted): remove the
        cache entries this build did not use, older than the build."""
        with self._lock:
            self._stopping, threads = True, self._threads
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._closed, pool = True, self._pool
        if pool is not None:  # first: a thread waiting for a runaway block (the build was
            pool.close()  # interrupted) returns once the block's worker is stopped
        if threads is not None:
            threads.shutdown(wait=True)
        if self.cache is not None:  # even with nothing stored: the next build is not a first one
            self.cache.mark()
            if prune:
                with self._lock:
                    used = set(self._futures) | self._released
                self.cache.prune(used, self._started - CLOCK_SLACK)
