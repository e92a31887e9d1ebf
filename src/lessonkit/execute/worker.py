"""Worker processes that run pages, each page in a fresh process of its own.

A worker starts with what every page needs imported (numpy, matplotlib, lessonkit's runner) and
one throwaway figure drawn (:func:`prepare`), then forks a *page process* for each page: a copy
of the worker as it was before any page ran. The page runs there, in a fresh temporary working
folder, and the process exits. So nothing a page changes in its process (numpy's print options,
the random generators, ``os.environ``, ``sys.path``, a patched lab function, builtins, signal
handlers, the working folder, what it imported...) can reach another page, whatever the order
pages run in and whichever worker runs them. A fork of a worker
that holds numpy and matplotlib costs a few milliseconds.

The worker times every step of its page: a page process that overruns a block's timeout is
killed (C code included). Nothing a page starts outlives it: the page process leads a process
group of its own, and on Linux the worker is a child subreaper, so processes that lesson code
starts (a ``subprocess.Popen``, a double-forked daemon) become the worker's children once their
parent is gone, and the worker kills them all when the page ends, before it hands the page's
result to the build (:mod:`~lessonkit.execute.processes`).
A page process dies with its worker (``PR_SET_PDEATHSIG``). A worker whose build is gone (its
pipe to the build closed: the build was killed) kills its page and exits; a build interrupted
with Ctrl-C stops its workers before it waits for their threads. A page's memory is capped
(:data:`MEMORY_LIMIT`) and so is its output (:data:`~lessonkit.execute.runner.
OUTPUT_LIMIT`). A page process that dies is reported with what killed it.

A worker that holds a lessonkit module whose file has changed since it imported it (``mkdocs
serve``) refuses its next job and is replaced (see :mod:`lessonkit.execute.imports`).

Where the platform can fork (Linux, macOS), workers are forked from the zygote
(:mod:`lessonkit.execute.zygote`), which prepares once for all workers (and for replacements);
elsewhere each worker is a fresh ``spawn`` process that prepares itself and runs its pages in its
own process, one after another (no fork there: pages of one worker share its state).
"""

from __future__ import annotations

import atexit
import concurrent.futures.thread  # noqa: F401  (its exit hook must be registered before ours)
import contextlib
import gc
import importlib
import multiprocessing
import multiprocessing.connection
import os
import queue
import shutil
import signal
import sys
import tempfile
import threading
import traceback
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.execute import processes, zygote
from lessonkit.execute.processes import format_size
from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import PageResult
from lessonkit.execute.runner import OUTPUT_LIMIT
from lessonkit.execute.zygote import HASH_SEED

STARTUP_TIMEOUT = 120.0
"""Seconds a new worker may take to import its libraries."""

STALE_RETRIES = 3
"""Fresh workers a job may try when the one it got holds edited lessonkit files."""

MEMORY_LIMIT = 4 * 2**30
"""Bytes of memory a page's process may allocate (see :func:`~lessonkit.execute.processes.
limit_memory`); each process the page starts may too."""

GRACE = 10.0
"""Seconds past a block's timeout the build waits for a worker before it kills the worker
itself (the worker times its page; this is for a worker that stopped answering)."""

PRELOAD = (
    "numpy",
    "matplotlib.pyplot",
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_svg",
)
"""What :func:`prepare` imports first, before it records imports: a speed choice, never a result.

The runner itself imports matplotlib for every page (it draws each page under the figure style
and closes its figures), and matplotlib imports numpy, so every worker holds both whatever its
pages use (and the Agg backend it selects, and the SVG backend that draws every figure);
importing them in the zygote pays for that once instead of once per worker. What a page
imports, preloaded or not, is recorded as it runs, and its cache entry follows that.
"""

LESSON_LIBRARY = "lessonkit.lab"
"""The package lessons import from: :func:`prepare` reads what its modules import and digests
their files once, for every page process (a page's cache entry lists the files it used)."""

_FORKS = hasattr(os, "fork")


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


@dataclass(frozen=True)
class Limits:
    """What a page may take: seconds per block (unless it sets ``timeout=``), characters of
    output, bytes of memory."""

    timeout: float = 10.0
    output: int = OUTPUT_LIMIT
    memory: int = MEMORY_LIMIT

    def of(self, step: Step | None) -> float:
        """The seconds ``step`` may run."""
        return float(step.option("timeout") or self.timeout) if step else self.timeout


class Worker:
    """One worker process and the pipe to it (the build's side)."""

    def __init__(self) -> None:
        self.zygote: zygote.Zygote | None = None
        """The zygote this worker was forked from (None: a ``spawn`` worker)."""
        self._pipe_lock = threading.Lock()
        self._running = False
        self._stopped = False
        if _FORKS:
            pid, self.conn = self._fork()
            self.process: zygote.Forked | multiprocessing.process.BaseProcess = zygote.Forked(pid)
        else:
            context = multiprocessing.get_context("spawn")
            self.conn, child = context.Pipe()
            self.process = context.Process(target=serve, args=(child,), daemon=True)
            _start(self.process)
            child.close()
        if not self.conn.poll(STARTUP_TIMEOUT):
            self.stop()
            raise zygote.ZygoteFailed(
                f"a lessonkit worker did not start within {STARTUP_TIMEOUT:g} s"
            )
        self.conn.recv()  # "ready"

    def _fork(self) -> tuple[int, Connection]:
        """Fork from the current zygote; once more from the next if that one was retired (or
        died) meanwhile, never from one that could not start."""
        self.zygote = zygote.current(HASH_SEED)
        try:
            return self.zygote.fork(STARTUP_TIMEOUT)
        except zygote.ZygoteFailed:
            if self.zygote.failed:
                raise
        self.zygote = zygote.current(HASH_SEED)
        return self.zygote.fork(STARTUP_TIMEOUT)

    def run(self, job: Job, limits: Limits) -> PageResult:
        """Run ``job``; the worker times its blocks, this waits for it (with :data:`GRACE`)."""
        with self._pipe_lock:
            self._running = True
        try:
            return self._run(job, limits)
        finally:
            with self._pipe_lock:
                self._running = False
                if self._stopped:
                    self.conn.close()

    def _run(self, job: Job, limits: Limits) -> PageResult:
        step = None
        try:
            self.conn.send((job, limits))
            while True:
                if not self.conn.poll(limits.of(step) + GRACE):
                    self.stop()
                    return _timeout_result(job, step, limits.of(step))
                kind, payload = self.conn.recv()
                if kind == "done":
                    return payload
                if kind == "stale":
                    self.stop()
                    raise WorkerStale(payload)
                step = job.program.steps[payload]
        except (EOFError, OSError):  # the worker died, or the build is stopping it
            self.stop()
            return lost_result(job, step)

    def alive(self) -> bool:
        return self.process.is_alive()

    def stop(self) -> None:
        """Stop the worker: it kills its page and what that started, then exits (SIGTERM);
        one that does not answer is killed with everything below it.

        Any thread may stop a worker, while another runs a page on it (the build stopping):
        the pipe is closed once, by the thread running the page when it returns, never under
        it (its descriptor could be reused meanwhile by a file another thread opens)."""
        with contextlib.suppress(OSError, ValueError, AssertionError):
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(2)
            if self.process.is_alive() and self.process.pid:
                processes.kill_tree(self.process.pid)
            self.process.join()
        with self._pipe_lock:
            self._stopped = True
            if not self._running:
                self.conn.close()


_START_LOCK = threading.Lock()


@contextlib.contextmanager
def _hash_seed() -> Iterator[None]:
    """Start processes with :data:`HASH_SEED` (they inherit this process's environment)."""
    saved = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PYTHONHASHSEED"]
        else:
            os.environ["PYTHONHASHSEED"] = saved


def _start(process: multiprocessing.process.BaseProcess) -> None:
    """Start a ``spawn`` ``process`` without having it re-run the parent's main script.

    multiprocessing re-runs the parent's ``__main__`` file in each new process so that objects
    defined there can be unpickled; under ``mkdocs build`` that file is MkDocs' command line,
    whose imports cost a worker about a tenth of a second. A worker only ever receives
    lessonkit's own objects, so the file is hidden while the process starts.
    """
    main = sys.modules.get("__main__")
    with _START_LOCK, _hash_seed():
        path = main.__dict__.pop("__file__", None) if main else None
        try:
            process.start()
        finally:
            if path is not None:
                main.__file__ = path


def _problem(job: Job, step: Step | None, message: str, hint: str) -> PageResult:
    line = step.header_line if step else None
    return PageResult(problems=[Problem(message, line, hint).at(job.display_path)])


def _timeout_result(job: Job, step: Step | None, timeout: float) -> PageResult:
    return _problem(
        job,
        step,
        f"TimeoutError: the block ran longer than {timeout:g} s and was stopped",
        "make it faster, or give this block more time with timeout=SECONDS",
    )


def _not_started_result(job: Job, why: str) -> PageResult:
    return _problem(
        job,
        None,
        f"lessonkit could not start a worker to run this page: {why}",
        "workers import numpy and matplotlib with the build's Python: check that "
        "`python -c 'import matplotlib.pyplot'` works there (an error it printed is above)",
    )


def lost_result(job: Job, step: Step | None = None) -> PageResult:
    """What a page that the build stopped (or that lost its worker) says."""
    return _problem(
        job,
        step,
        "the lessonkit worker running this page stopped: the build is stopping, it was "
        "killed from outside, or the page's code ended it",
        "build again; if it happens again, look for code that signals its parent process "
        "(os.kill(os.getppid(), ...)), or run the page's code in a plain Python process",
    )


def _death_result(job: Job, step: Step | None, status: int, limits: Limits) -> PageResult:
    """What to say when a page's process ended without a result."""
    how = processes.describe_exit(status)
    if processes.crashed(status):
        hint = (
            "compiled code (numpy, a C extension, ctypes) crashed: run the block in a plain "
            "Python process to find the call"
        )
    elif os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        how += f", perhaps out of memory (a page may use {format_size(limits.memory)})"
        hint = "use less memory, or run the block in a plain Python process to see what kills it"
    else:
        hint = "lesson code may not end its process (os._exit, os.kill, os.abort): remove that"
    what = "this block" if step and step.kind == "exec" else "this step" if step else "the page"
    return _problem(job, step, f"the page's process {how} while {what} ran", hint)


def _pid_only(worker: Worker) -> bool:
    """Whether only ``worker``'s pid tells the build it has exited (a forked worker without a
    pidfd): :meth:`WorkerPool.dismiss` leaves such a worker to :meth:`WorkerPool.close`."""
    return isinstance(worker.process, zygote.Forked) and not worker.process.tracked


class WorkerPool:
    """Up to ``size`` workers, started on first use and reused across jobs (and rebuilds).

    ``output_limit`` and ``memory_limit`` bound what each page may produce and use.
    """

    def __init__(
        self,
        size: int,
        default_timeout: float,
        *,
        output_limit: int = OUTPUT_LIMIT,
        memory_limit: int = MEMORY_LIMIT,
    ) -> None:
        self.size = max(1, size)
        self.limits = Limits(float(default_timeout), output_limit, memory_limit)
        self._idle: queue.LifoQueue[Worker] = queue.LifoQueue()
        self._slots = threading.Semaphore(self.size)
        self._all: list[Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self._closes = 0
        """How many times the pool was closed: a run under way across a close stops there."""
        _POOLS.add(self)

    @property
    def default_timeout(self) -> float:
        return self.limits.timeout

    def run(self, job: Job) -> PageResult:
        with self._slots:
            closes = self._closes
            for _ in range(STALE_RETRIES):
                if self._closed:
                    return lost_result(job, None)
                try:
                    worker = self._take(closes)
                except zygote.ZygoteFailed as error:  # every page says so, none waits again
                    return _not_started_result(job, str(error))
                if worker is None:  # the pool was closed meanwhile (the build is stopping)
                    return lost_result(job, None)
                try:
                    return worker.run(job, self.limits)
                except WorkerStale:  # so are its zygote and the idle workers it forked
                    if worker.zygote:
                        zygote.retire(worker.zygote)
                    with self._lock, contextlib.suppress(ValueError):  # closed meanwhile
                        self._all.remove(worker)
                    self._drop_idle(worker.zygote)
                finally:
                    if worker.alive() and not self._closed and self._closes == closes:
                        self._idle.put(worker)
            raise RuntimeError(
                f"lessonkit's source files kept changing while {job.display_path} ran"
            )

    def _take(self, closes: int) -> Worker | None:
        """An idle worker, or a new one; None if the pool was closed since the run began
        (``closes``): a worker still starting when the pool stopped its workers is stopped
        here, before it runs a page."""
        try:
            worker = self._idle.get_nowait()
        except queue.Empty:
            worker = Worker()
            with self._lock:
                if self._closes == closes:
                    self._all.append(worker)
                    return worker
            worker.stop()
            return None
        with self._lock:
            if self._closes == closes:
                return worker
            if worker in self._all:  # idle since the pool was used again: the next run's
                self._idle.put(worker)
        return None  # else it was the closed pool's, which stopped it

    def _take_idle(self, keep: Callable[[Worker], bool]) -> list[Worker]:
        """Take the idle workers ``keep`` does not keep out of the pool's idle ones."""
        taken: list[Worker] = []
        kept: list[Worker] = []
        while True:
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                break
            (kept if keep(worker) else taken).append(worker)
        for worker in reversed(kept):  # back in the order they were taken from
            self._idle.put(worker)
        return taken

    def _drop_idle(self, stale: zygote.Zygote | None) -> None:
        """Stop the idle workers forked from ``stale`` (all a ``spawn`` pool's: None); keep
        those from a fresher zygote."""
        for worker in self._take_idle(lambda w: stale is not None and w.zygote is not stale):
            with self._lock, contextlib.suppress(ValueError):  # closed meanwhile
                self._all.remove(worker)
            worker.stop()

    def dismiss(self) -> None:
        """Tell the idle workers and their zygote to exit, without waiting for them: a build
        whose pages have all run needs them no more, and they exit while it goes on (it waits
        for them in :meth:`close`). A worker running a page is left to it, and serves a page
        that runs after this; else that page gets a new worker, from a new zygote.

        Only a worker whose exit the build can tell without its pid is told now: once the
        zygote has collected one, its pid may soon name another process, which :meth:`close`
        must not signal (a forked worker without a pidfd, as on macOS, stays until then)."""
        for worker in self._take_idle(_pid_only):
            with contextlib.suppress(OSError, ValueError, AssertionError):
                worker.process.terminate()  # it stays in _all: close() collects it
        zygote.retire()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._closes += 1
            workers, self._all = self._all, []
        for worker in workers:  # every worker is told first, then each is waited for
            with contextlib.suppress(OSError, ValueError, AssertionError):
                if worker.alive():
                    worker.process.terminate()
        for worker in workers:
            worker.stop()
        self._idle = queue.LifoQueue()
        self._closed = False  # a pool may be used again (a rebuild under mkdocs serve)


_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


def _stop_all_pools() -> None:
    """At interpreter exit (a build interrupted with Ctrl-C, say), stop every worker first:
    the threads that wait for them are joined next, and would wait out a runaway block."""
    for pool in list(_POOLS):
        pool.close()
    zygote.stop()


# threading's exit hooks run before non-daemon threads are joined (concurrent.futures joins its
# threads in one, registered earlier, so this runs first); atexit would run too late.
getattr(threading, "_register_atexit", atexit.register)(_stop_all_pools)


# --- In the worker process ------------------------------------------------------------------


_prepared = False


def prepare() -> None:
    """Import what every page needs and warm matplotlib up, once per process (the zygote does it
    for every worker it forks); freeze what is held (``gc.freeze``): the collector never touches
    it again, so workers and page processes share its memory instead of copying it. Where pages
    run in forked processes, matplotlib's settings become the figure style here, once: each page
    process starts with them instead of applying (and copying) them itself."""
    global _prepared
    if _prepared:
        return
    for name in PRELOAD:
        importlib.import_module(name)
    from lessonkit.execute import imports

    imports.install()  # before what pages use is imported: see imports._later
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot
    import numpy.random  # noqa: F401  (seeded before every page: see runner._seeded)

    from lessonkit.execute import filewatch, runner, svg  # noqa: F401  (every page needs them)

    importlib.import_module(imports.FIGURE_STYLE)
    warmed = ["numpy", "matplotlib.pyplot", imports.FIGURE_STYLE, svg.__name__]  # a page's too
    imports.dependencies(warmed)  # warm caches
    imports.remember_loaded()
    imports.warm(LESSON_LIBRARY)
    if _FORKS:  # every page process starts with the figure style (see runner.run_program)
        from lessonkit.lab.figure_style import STYLE

        matplotlib.rcParams.update(STYLE)
    _draw_once()
    _prepared = True
    gc.freeze()


def serve(conn: Connection) -> None:
    """The worker's main loop (runs in the worker process)."""
    processes.become_subreaper()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build decides when its workers stop
    signal.signal(signal.SIGTERM, _stop_now)
    processes.die_with_parent(signal.SIGTERM)
    prepare()
    from lessonkit.execute import imports
    from lessonkit.execute.filewatch import FileWatch
    from lessonkit.execute.runner import run_program

    conn.send("ready")
    while True:
        try:
            job, limits = conn.recv()
        except EOFError:
            return
        if stale := imports.stale_sources():
            conn.send(("stale", stale))
            return
        global _folder
        folder = _folder = Path(tempfile.mkdtemp(prefix="lessonkit-")).resolve()
        run = (run_program, FileWatch, imports)
        try:
            if _FORKS:
                result = _run_page(job, limits, folder, conn, run)
            else:
                result = _run_here(job, limits, folder, conn, run)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            _folder = None
            if not _FORKS:  # its next pages run in this process: note what this one loaded
                imports.remember_loaded()
                imports.forget_folder(folder)
        conn.send(("done", result))  # nothing of the page is left by now


def _draw_once() -> None:
    """Draw and serialise a small figure, with text, an image and ticks, and throw it away.

    matplotlib fills caches the first time a process draws (the font files it opens, the
    glyphs' metrics, text layouts, the SVG backend's set-up); a page process is a fresh fork of
    its worker, so without this every page would pay for them again (about 30 ms a page that
    draws, a third of a small page's time). The figure is no pyplot figure (no figure number is
    used) and is drawn under the page style, as a page's are; only caches are left behind.
    """
    import matplotlib as mpl
    from matplotlib.figure import Figure

    from lessonkit.execute.svg import to_svg
    from lessonkit.lab.figure_style import STYLE

    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(2, 2))
        ax = fig.add_subplot()
        ax.imshow([[0.0, 1.0], [1.0, 0.0]])
        ax.plot([0, 1], [1, 0])
        ax.set_xticks([0, 1], ["a", "b"])
        ax.set(title="warm", xlabel="x", ylabel="y")
        fig.tight_layout()
        to_svg(fig, alt="warm-up", id_prefix="warm")


_page: int | None = None
"""The page process running now, in a worker."""
_folder: Path | None = None
"""The working folder of the page running now, in a worker."""


def _stop_now(*_: object) -> None:
    """Kill the page process and everything the page started, and exit (SIGTERM, or the build
    is gone)."""
    if _page is not None:
        processes.kill_group(_page)
    processes.kill_descendants()
    if _folder is not None:  # a page stopped (its timeout, the build's end) leaves no folder
        shutil.rmtree(_folder, ignore_errors=True)
    os._exit(0)


def _run_page(job: Job, limits: Limits, folder: Path, conn: Connection, run) -> PageResult:
    """Run ``job`` in a page process forked from this worker; end it and all it started."""
    reader, writer = multiprocessing.Pipe(duplex=False)
    try:
        pid = os.fork()
    except OSError as error:
        reader.close()
        writer.close()
        return _problem(job, None, f"could not start a process for the page: {error}", "retry")
    if pid == 0:  # the page process: never returns
        _page_process(job, limits, folder, writer, (reader, conn), run)
    global _page
    _page = pid
    writer.close()
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # also done by the child: whichever runs first
    try:
        return _watch(pid, job, limits, reader, conn)
    finally:
        reader.close()
        _end_page(pid)


def _end_page(pid: int) -> None:
    """Kill the page process ``pid``, its group and whatever else the page left running."""
    global _page
    processes.kill_group(pid)
    processes.wait_exit(pid)
    _page = None
    processes.kill_descendants()


def _watch(pid: int, job: Job, limits: Limits, reader: Connection, conn: Connection) -> PageResult:
    """Relay the page process's progress to the build, and time each step."""
    step = None
    while True:
        ready = multiprocessing.connection.wait([reader, conn], limits.of(step))
        if not ready:
            processes.kill_group(pid)
            return _timeout_result(job, step, limits.of(step))
        if conn in ready:  # the build is gone (it never speaks while a page runs)
            _stop_now()
        try:
            kind, payload = reader.recv()
        except (EOFError, OSError):
            return _death_result(job, step, processes.wait_exit(pid), limits)
        if kind == "done":
            return payload
        step = job.program.steps[payload]
        conn.send(("start", payload))


def _page_process(job, limits, folder, writer, unused, run) -> None:
    """The page process: run the page, send the result, exit. Never returns."""
    code = 1
    try:
        for connection in unused:  # lesson code cannot reach the build's pipe
            connection.close()
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        processes.die_with_parent(signal.SIGKILL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        processes.limit_memory(limits.memory)
        me = os.getpid()

        def send(message: object) -> None:
            if os.getpid() != me:  # a fork the lesson made must not speak for the page
                os._exit(0)
            writer.send(message)

        result = _run_here(job, limits, folder, send, run)
        send(("done", result))
        code = 0
    finally:
        os._exit(code)


def _run_here(job: Job, limits: Limits, folder: Path, conn, run) -> PageResult:
    """Run ``job`` in this process, in ``folder``; report progress through ``conn``."""
    run_program, FileWatch, imports = run
    send = conn.send if isinstance(conn, Connection) else conn
    os.chdir(folder)
    tempfile.tempdir = str(folder)
    try:
        return run_program(
            job.program,
            job.display_path,
            source_text=job.source_text,
            page_dir=job.page_dir,
            watch=FileWatch(list(job.watched), list(job.protected), list(job.private)),
            imports=imports.ImportWatch(own_folder=folder),
            on_step=lambda index: send(("start", index)),
            output_limit=limits.output,
            memory_limit=limits.memory if _FORKS else None,
            styled=_FORKS,
        )
    except Exception:  # a bug in lessonkit itself: report it
        problem = Problem(
            "lessonkit failed while running this page (a bug in lessonkit, not the lesson)",
            None,
            "please report it with the traceback above",
            details=traceback.format_exc(),
        )
        return PageResult(problems=[problem.at(job.display_path)])
    finally:
        os.chdir("/")
        tempfile.tempdir = None
