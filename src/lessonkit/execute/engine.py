"""The execution engine: cache first, then worker processes, pages in parallel.

``Engine.submit`` starts a page as soon as its source is known (the MkDocs plugin submits every
page before rendering any); ``Engine.result`` waits for it, or runs it on the spot when it was
never submitted (bare Python-Markdown, or text changed by another plugin).

A page's key is its program, its path, Python's version and lessonkit's execution machinery
(:func:`~lessonkit.execute.imports.machinery_digest`); what else it depends on (the files its code
read, the lessonkit modules and libraries it imported) is in its cache entry, checked at lookup.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.execute.cache import Cache
from lessonkit.execute.imports import machinery_digest
from lessonkit.execute.program import Program
from lessonkit.execute.results import PageResult

if TYPE_CHECKING:
    from lessonkit.execute.worker import WorkerPool


class Engine:
    """Runs page programs through the cache and a pool of worker processes."""

    def __init__(
        self,
        cache_dir: Path | None,
        *,
        workers: int = 2,
        timeout: float = 10.0,
        docs_dir: Path | None = None,
        protected: tuple[Path, ...] = (),
    ) -> None:
        self.cache = Cache(cache_dir) if cache_dir else None
        self._pool_args = (workers, timeout)
        self._pool: WorkerPool | None = None
        self.docs_dir = docs_dir
        self.protected = protected
        self._threads = ThreadPoolExecutor(max_workers=max(1, workers))
        self._futures: dict[str, Future[PageResult]] = {}
        self._lock = threading.Lock()
        self.executed = 0
        """How many pages actually ran (not served from cache) since the engine started."""

    @property
    def pool(self) -> WorkerPool:
        """The worker processes, set up when a page first needs to run (not on a warm build)."""
        with self._lock:
            if self._pool is None:
                from lessonkit.execute.worker import WorkerPool

                self._pool = WorkerPool(*self._pool_args)
            return self._pool

    def warm_up_if_cold(self) -> None:
        """On a first build (no cache folder yet) every page runs: start importing libraries now."""
        if self.cache is not None and not self.cache.folder.exists():
            from lessonkit.execute.worker import warm_up

            warm_up()

    def key(self, program: Program) -> str:
        return program.key(machinery_digest())

    def submit(self, program: Program, display_path: str, source_text: str) -> Future[PageResult]:
        """Start ``program`` unless it is cached or already under way; return its future."""
        key = self.key(program)
        with self._lock:
            if key in self._futures:
                return self._futures[key]
            cached = self.cache.get(key) if self.cache else None
            if cached is not None or not program.steps:
                future: Future[PageResult] = Future()
                future.set_result(cached or PageResult())
            else:
                future = self._threads.submit(self._run, key, program, display_path, source_text)
            self._futures[key] = future
            return future

    def ran(self, program: Program) -> bool:
        """Whether ``program`` already ran without an error in this build (or came from cache)."""
        with self._lock:
            future = self._futures.get(self.key(program))
        return bool(future and future.done() and future.result().ok)

    def result(self, program: Program, display_path: str, source_text: str = "") -> PageResult:
        return self.submit(program, display_path, source_text).result()

    def forget(self) -> None:
        """Drop in-memory results (between rebuilds under ``mkdocs serve``); keep the disk cache."""
        with self._lock:
            self._futures.clear()

    def _run(self, key: str, program: Program, display_path: str, source_text: str) -> PageResult:
        from lessonkit.execute.worker import Job

        docs = self.docs_dir or Path.cwd()
        page_dir = (docs / program.page).parent if program.page else docs
        job = Job(
            program,
            display_path,
            source_text,
            page_dir,
            watched=(docs,),
            protected=(docs, *self.protected),
        )
        result = self.pool.run(job)
        self.executed += 1
        if self.cache and result.ok:
            self.cache.put(key, result)
        return result

    def close(self) -> None:
        self._threads.shutdown(wait=True, cancel_futures=True)
        if self.cache is not None:  # even with nothing stored: the next build is not a first one
            self.cache.folder.mkdir(parents=True, exist_ok=True)
        if self._pool is not None:
            self._pool.close()
