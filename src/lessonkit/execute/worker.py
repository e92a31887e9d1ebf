"""Worker processes that run page programs, with a timeout per block.

A worker imports the runner once, then runs job after job; each job gets a fresh namespace and a
fresh temporary working folder. The parent times every step: a worker that overruns a block's
timeout is killed (C code included) and replaced on next use. A worker that holds a lessonkit
module whose file has changed since it imported it (``mkdocs serve``) refuses its next job and is
replaced too (see :mod:`lessonkit.execute.imports`).

Where the platform has it (Linux, macOS), workers are forked from multiprocessing's fork
server, which imports :data:`PRELOAD` once for all workers (and for replacements); elsewhere each
worker is a fresh ``spawn`` process that imports what it needs itself.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import PageResult

STARTUP_TIMEOUT = 120.0
"""Seconds a new worker may take to import its libraries."""

STALE_RETRIES = 3
"""Fresh workers a job may try when the one it got holds edited lessonkit files."""

PRELOAD = ("numpy", "matplotlib.pyplot")
"""What the fork server imports once, before it forks workers: a speed choice, never a result.

The runner itself imports matplotlib for every page (it draws each page under the figure style
and closes its figures), and matplotlib imports numpy, so every worker holds both whatever its
pages use; importing them in the fork server pays for that once instead of once per worker. What
a page imports, preloaded or not, is recorded as it runs, and its cache entry follows that.
No lessonkit module is preloaded: the fork server lives as long as ``mkdocs serve`` does, and a
worker must import lessonkit's files as they are when it starts.
"""


class WorkerStale(Exception):
    """The worker holds a lessonkit file that has changed since it imported it: replace it."""


@dataclass(frozen=True)
class Job:
    """One page to run: its program and where it lives."""

    program: Program
    display_path: str
    source_text: str
    page_dir: Path
    watched: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    private: tuple[Path, ...] = ()


class Worker:
    """One worker process and the pipe to it."""

    def __init__(self) -> None:
        context = _context()
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        _start(self.process)
        child.close()
        if not self.conn.poll(STARTUP_TIMEOUT):
            self.stop()
            raise RuntimeError("a lessonkit worker did not start within 120 s")
        self.conn.recv()  # "ready"

    def run(self, job: Job, default_timeout: float) -> PageResult:
        """Run ``job``; on a block's timeout, kill this worker and report the block."""
        self.conn.send(job)
        timeout = default_timeout
        step = None
        while True:
            if not self.conn.poll(timeout):
                self.stop()
                return _timeout_result(job, step, timeout)
            try:
                kind, payload = self.conn.recv()
            except EOFError:
                self.stop()
                return _crash_result(job, step)
            if kind == "done":
                return payload
            if kind == "stale":
                self.stop()
                raise WorkerStale(payload)
            step = job.program.steps[payload]
            timeout = float(step.option("timeout") or default_timeout)

    def alive(self) -> bool:
        return self.process.is_alive()

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _context() -> multiprocessing.context.BaseContext:
    """The fork server where there is one (imports paid once for all workers), else ``spawn``."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))  # read when the server starts, once
    return context


def warm_up() -> None:
    """Start the fork server now: it imports the libraries while the site build goes on."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


_START_LOCK = threading.Lock()


def _start(process: multiprocessing.process.BaseProcess) -> None:
    """Start ``process`` without having it re-run the parent's main script.

    multiprocessing re-runs the parent's ``__main__`` file in each new process so that objects
    defined there can be unpickled; under ``mkdocs build`` that file is MkDocs' command line,
    whose imports cost a worker about a tenth of a second. A worker only ever receives
    lessonkit's own objects, so the file is hidden while the process starts.
    """
    main = sys.modules.get("__main__")
    with _START_LOCK:
        path = main.__dict__.pop("__file__", None) if main else None
        try:
            process.start()
        finally:
            if path is not None:
                main.__file__ = path


def _timeout_result(job: Job, step: Step | None, timeout: float) -> PageResult:
    line = step.header_line if step else None
    problem = Problem(
        f"TimeoutError: the block ran longer than {timeout:g} s and was stopped",
        line,
        "make it faster, or give this block more time with timeout=SECONDS",
    )
    return PageResult(problems=[problem.at(job.display_path)])


def _crash_result(job: Job, step: Step | None) -> PageResult:
    line = step.header_line if step else None
    problem = Problem(
        "the worker running this block died (out of memory, or a crash in compiled code)",
        line,
        "run the block in a plain Python process to see what kills it",
    )
    return PageResult(problems=[problem.at(job.display_path)])


class WorkerPool:
    """Up to ``size`` workers, started on first use and reused across jobs (and rebuilds)."""

    def __init__(self, size: int, default_timeout: float) -> None:
        self.size = max(1, size)
        self.default_timeout = default_timeout
        self._idle: queue.LifoQueue[Worker] = queue.LifoQueue()
        self._slots = threading.Semaphore(self.size)
        self._all: list[Worker] = []
        self._lock = threading.Lock()

    def run(self, job: Job) -> PageResult:
        with self._slots:
            for _ in range(STALE_RETRIES):
                worker = self._take()
                try:
                    return worker.run(job, self.default_timeout)
                except WorkerStale:
                    with self._lock:
                        self._all.remove(worker)
                finally:
                    if worker.alive():
                        self._idle.put(worker)
            raise RuntimeError(
                f"lessonkit's source files kept changing while {job.display_path} ran"
            )

    def _take(self) -> Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            worker = Worker()
            with self._lock:
                self._all.append(worker)
            return worker

    def close(self) -> None:
        with self._lock:
            for worker in self._all:
                worker.stop()
            self._all.clear()
        self._idle = queue.LifoQueue()


def _serve(conn: Connection) -> None:
    """The worker's main loop (runs in the child process)."""
    from lessonkit.execute import imports

    imports.install()  # before what pages use is imported: see imports._later
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    from lessonkit.execute.filewatch import FileWatch
    from lessonkit.execute.runner import run_program

    imports.remember_loaded()
    conn.send("ready")
    while True:
        try:
            job: Job = conn.recv()
        except EOFError:
            return
        if stale := imports.stale_sources():
            conn.send(("stale", stale))
            return
        with tempfile.TemporaryDirectory(prefix="lessonkit-") as folder:
            os.chdir(folder)
            here = Path(folder).resolve()
            try:
                result = run_program(
                    job.program,
                    job.display_path,
                    source_text=job.source_text,
                    page_dir=job.page_dir,
                    watch=FileWatch(list(job.watched), list(job.protected), list(job.private)),
                    imports=imports.ImportWatch(own_folder=here),
                    on_step=lambda index: conn.send(("start", index)),
                )
            except Exception:  # a bug in lessonkit itself: report it, keep serving
                problem = Problem(
                    "lessonkit failed while running this page (a bug in lessonkit, not the lesson)",
                    None,
                    "please report it with the traceback above",
                    details=traceback.format_exc(),
                )
                result = PageResult(problems=[problem.at(job.display_path)])
            os.chdir("/")
            imports.forget_folder(here)
        conn.send(("done", result))
