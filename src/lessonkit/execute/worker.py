"""Run each page in a fresh process forked by multiprocessing's fork server.

The server imports numpy, matplotlib and the runner once (:func:`prepare`); each page is forked
from it, timed step by step, its memory and output capped, its process tree killed when it
overruns or dies (reported with the cause and the block's line). A server holding lessonkit
files edited since it started (``mkdocs serve``) is :func:`retire` d and the page re-run.
"""

from __future__ import annotations

import atexit
import concurrent.futures.thread  # noqa: F401  (its exit hook must be registered before ours)
import contextlib
import gc
import multiprocessing
import multiprocessing.forkserver as forkserver
import multiprocessing.util
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.execute import imports, processes
from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.processes import format_size
from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import PageResult
from lessonkit.execute.runner import OUTPUT_LIMIT, run_program
from lessonkit.notebooks.cell import link_folder

HASH_SEED = "0"  # PYTHONHASHSEED of pages: a set prints in the same order in every build
STARTUP_TIMEOUT = 120.0  # seconds a page process may take to start (the server's imports too)
STALE_RETRIES = 3  # fresh fork servers a page may try when its one holds edited files
MEMORY_LIMIT = 4 * 2**30  # bytes a page's process (and each process it starts) may allocate

STOPS = (signal.SIGTERM, signal.SIGHUP)  # stop the fork server and all below it

_CONTEXT = multiprocessing.get_context("forkserver")


@dataclass(frozen=True)
class Job:
    """One page to run: its program, where it lives, the paths its code may not change or read."""

    program: Program
    display_path: str
    source_text: str
    page_dir: Path
    watched: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    private: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Limits:
    """Seconds per block (unless it sets ``timeout=``), characters of output, bytes of memory;
    generated alt text for a notebook cell's figure."""

    timeout: float = 10.0
    output: int = OUTPUT_LIMIT
    memory: int = MEMORY_LIMIT
    describe_figures: bool = True

    def of(self, step: Step | None) -> float:
        """The seconds ``step`` may run (before the first step: the process's start)."""
        return STARTUP_TIMEOUT if step is None else float(step.option("timeout") or self.timeout)


_lock = threading.Lock()  # held while a process starts: _hidden_main changes globals
_retired: list[int] = []  # retired servers not yet reaped
_let_go: set[int] = set()  # every server retired: its pages' exit statuses are lost (255)
_failed: str | None = None  # why the fork server could not start: later pages say so at once


def warm_up() -> None:
    """Start the fork server now: it imports the libraries while the build goes on."""
    with _lock, _hidden_main():
        _ensure_server()


def _ensure_server() -> None:
    """Start the fork server unless it runs (under :data:`_lock`, :func:`_hidden_main`)."""
    forkserver.set_forkserver_preload(["lessonkit.execute.forked"])
    saved = sys.path[:]  # handed on as its repr: an entry that is no string would not read back
    sys.path[:] = [entry for entry in saved if isinstance(entry, str)]
    try:
        forkserver.ensure_running()
    finally:
        sys.path[:] = saved


@contextlib.contextmanager
def _hidden_main() -> Iterator[None]:
    """Start processes with :data:`HASH_SEED`, without re-running the build's ``__main__`` file
    (under ``mkdocs build``, MkDocs' imports: about 0.1 s a page; pages need only lessonkit's)."""
    main = sys.modules.get("__main__")
    saved = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    path = main.__dict__.pop("__file__", None) if main else None
    flags = multiprocessing.util._args_from_interpreter_flags  # type: ignore[attr-defined]
    multiprocessing.util._args_from_interpreter_flags = lambda: _flags(flags())  # type: ignore
    try:
        yield
    finally:
        multiprocessing.util._args_from_interpreter_flags = flags  # type: ignore[attr-defined]
        if path is not None:
            main.__file__ = path
        if saved is None:
            del os.environ["PYTHONHASHSEED"]
        else:
            os.environ["PYTHONHASHSEED"] = saved


def _flags(flags: list[str]) -> list[str]:
    """The build's interpreter flags without ``-E`` and ``-I``, which ignore ``PYTHONHASHSEED``.

    >>> _flags(["-E", "-I", "-O"])
    ['-O', '-s', '-P']
    """
    if "-I" in flags:  # isolated: -E, -s and -P
        flags = [flag for flag in flags if flag != "-I"] + ["-s", "-P"]
    return [flag for flag in flags if flag != "-E"]


def retire(pid: int | None = None) -> None:
    """Let the fork server (if given, only while it is ``pid``) go: it exits once its pages have
    (``ForkServer._stop`` would wait for them); the next page starts a fresh one."""
    server = forkserver._forkserver
    with _lock, server._lock:
        current, alive = server._forkserver_pid, server._forkserver_alive_fd
        if current is None or pid not in (None, current):
            return
        server._forkserver_pid = server._forkserver_alive_fd = server._forkserver_address = None
        os.close(alive)  # the server sees the build gone, waits for its pages, then exits
        _let_go.add(current)
        _retired.append(current)
        _retired[:] = [pid for pid in _retired if not _reaped(pid)]


def _reaped(pid: int, timeout: float = 0) -> bool:
    """Whether child ``pid`` has exited (waiting up to ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return True
        except ChildProcessError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def stop() -> None:
    """Stop the fork servers and multiprocessing's resource tracker (it would hold the build's
    output a moment longer)."""
    retire()
    with _lock:
        for pid in _retired:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
            if not _reaped(pid, 5):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                _reaped(pid, 5)
        _retired.clear()
    from multiprocessing import resource_tracker

    with contextlib.suppress(Exception):
        resource_tracker._resource_tracker._stop()


class WorkerPool:
    """Runs up to ``size`` pages at once, each in a fresh process; ``default_timeout`` seconds
    per block, ``output_limit`` characters and ``memory_limit`` bytes per page."""

    def __init__(
        self,
        size: int,
        default_timeout: float,
        *,
        output_limit: int = OUTPUT_LIMIT,
        memory_limit: int = MEMORY_LIMIT,
        describe_figures: bool = True,
    ) -> None:
        self.size = max(1, size)
        self.limits = Limits(float(default_timeout), output_limit, memory_limit, describe_figures)
        self._slots = threading.Semaphore(self.size)
        self._running: set[multiprocessing.process.BaseProcess] = set()
        self._closes = 0  # times the pool was closed: a page under way across a close is lost
        self._guard = threading.Lock()
        _POOLS.add(self)

    def run(self, job: Job) -> PageResult:
        with self._slots:
            closes = self._closes
            for _ in range(STALE_RETRIES):
                result = self._run_once(job, closes)
                if result is not None:
                    return result
            raise RuntimeError(f"lessonkit's files kept changing while {job.display_path} ran")

    def _run_once(self, job: Job, closes: int) -> PageResult | None:
        """Run ``job`` in a new page process; None if it found lessonkit's files edited."""
        global _failed
        if _failed:
            return _not_started_result(job, _failed)
        ours, theirs = _CONTEXT.Pipe()
        env = {**os.environ, "PYTHONHASHSEED": HASH_SEED}
        folder = Path(tempfile.mkdtemp(prefix="lessonkit-")).resolve()
        process = _CONTEXT.Process(target=_page, args=(theirs, job, self.limits, env, folder))
        try:
            try:
                with _lock, _hidden_main():
                    _ensure_server()
                    server = forkserver._forkserver._forkserver_pid
                    if self._closes == closes:
                        process.start()
            except (OSError, EOFError) as error:  # EOFError: the server stopped as it started
                _failed = f"lessonkit's fork server stopped while it started ({error}; see above)"
                return _not_started_result(job, _failed)
            finally:
                theirs.close()  # the page's end now: its death is an end of file here
            with self._guard:
                self._running.add(process)
            if self._closes != closes:  # the build stopped while the page started
                return lost_result(job)
            return self._watch(process, ours, job, closes, server)
        finally:
            if process.pid:  # a moment to exit after its result; else killed
                _exit_code(process, 0.1)
                _kill(process)
                _exit_code(process, None)
                process.join()
            ours.close()
            shutil.rmtree(folder, ignore_errors=True)
            with self._guard:
                self._running.discard(process)

    def _watch(
        self,
        process: multiprocessing.process.BaseProcess,
        conn: Connection,
        job: Job,
        closes: int,
        server: int | None,
    ) -> PageResult | None:
        """Time each step as the page reports it; its result, what stopped it, or None if it
        found lessonkit's files edited (``server`` is retired)."""
        step = None
        while True:
            if not conn.poll(self.limits.of(step)):
                if step is None:
                    return _not_started_result(job, "its process did not start in time")
                message = f"TimeoutError: the block ran longer than {self.limits.of(step):g} s "
                hint = "make it faster, or give this block more time with timeout=SECONDS"
                return _problem(job, step, message + "and was stopped", hint)
            try:
                kind, payload = conn.recv()
            except (EOFError, OSError):
                exit_code = _exit_code(process, 5)
                if self._closes != closes or exit_code is None:
                    return lost_result(job, step)
                if exit_code == 255:  # its server died: the next page needs a fresh one
                    retire(server)
                return _death_result(job, step, exit_code, self.limits)
            if kind == "done":
                if _exit_code(process, 5) == 255 and server not in _let_go:  # its server died
                    retire(server)  # (the page's code killed it, say: its result is not trusted)
                    return lost_result(job, step)
                return payload
            if kind == "stale":
                retire(server)
                return None
            step = job.program.steps[payload]

    def close(self) -> None:
        """Stop every page under way; the pool may be used again."""
        with self._guard:
            self._closes += 1
            running = list(self._running)
        for process in running:
            _kill(process)


def _exit_code(process: multiprocessing.process.BaseProcess, timeout: float | None) -> int | None:
    """``process``'s exit code, waiting up to ``timeout`` s; None while it runs. Read under
    :data:`_lock`: ``Process.start`` polls every child, and of two threads reading one exit
    status at once, one gets end of file and takes the page for lost (255)."""
    wait([process.sentinel], timeout)
    with _lock:
        return process.exitcode


def _kill(process: multiprocessing.process.BaseProcess) -> None:
    if process.pid and _exit_code(process, 0) is None:
        processes.kill_tree(process.pid)


_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


def _stop_all() -> None:
    """At exit (Ctrl-C), stop every page before the threads waiting for them are joined."""
    for pool in list(_POOLS):
        pool.close()
    stop()


# threading's exit hooks run before threads are joined (atexit: too late), after
# concurrent.futures' own, registered earlier (see its import above).
getattr(threading, "_register_atexit", atexit.register)(_stop_all)


def _problem(job: Job, step: Step | None, message: str, hint: str) -> PageResult:
    line = step.header_line if step else None
    return PageResult(problems=[Problem(message, line, hint).at(job.display_path)])


def _not_started_result(job: Job, why: str) -> PageResult:
    message = f"lessonkit could not start a process to run this page: {why}"
    hint = "pages import numpy and matplotlib with the build's Python: check that "
    hint += "`python -c 'import matplotlib.pyplot'` works there (an error it printed is above)"
    return _problem(job, None, message, hint)


def lost_result(job: Job, step: Step | None = None) -> PageResult:
    """What a page the build stopped (or whose process was lost) says."""
    message = "the lessonkit process running this page stopped: the build is stopping, it was "
    message += "killed from outside, or the page's code ended it"
    hint = "build again; if it happens again, look for code that signals its parent process "
    hint += "(os.kill(os.getppid(), ...)), or run the page's code in a plain Python process"
    return _problem(job, step, message, hint)


def _death_result(job: Job, step: Step | None, exitcode: int, limits: Limits) -> PageResult:
    """What to say when a page's process ended without a result (``exitcode`` < 0: a signal)."""
    if exitcode == 255:  # the fork server was gone before it could tell (os.getppid() killed)
        return lost_result(job, step)
    how = processes.describe_exit(exitcode)
    if -exitcode in processes.CRASHES:
        hint = "compiled code (numpy, a C extension, ctypes) crashed: run the block in a plain "
        hint += "Python process to find the call"
    elif exitcode == -signal.SIGKILL:
        how += f", perhaps out of memory (a page may use {format_size(limits.memory)})"
        hint = "use less memory, or run the block in a plain Python process to see what kills it"
    else:
        hint = "lesson code may not end its process (os._exit, os.kill, os.abort): remove that"
    what = "this block" if step and step.kind == "exec" else "this step" if step else "the page"
    return _problem(job, step, f"the page's process {how} while {what} ran", hint)


def serve_forks() -> None:
    """Set up the fork server: it adopts what killed pages leave running and kills it as it
    exits, a retired one after its pages."""
    build = os.getppid()
    processes.become_subreaper()
    warnings.filterwarnings("ignore", "forkserver: waitpid returned unexpected pid")
    stopped = []

    def end() -> None:
        while not stopped and os.getppid() == build and processes.has_children():
            time.sleep(0.05)
        processes.kill_descendants()

    def on_signal(*_: object) -> None:
        stopped.append(True)
        sys.exit(0)

    atexit.register(end)
    _on_stops(on_signal)
    prepare()


def _on_stops(handler: object) -> None:
    """Handle :data:`STOPS` with ``handler``, leaving an ignored one ignored."""
    for signum in STOPS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, handler)  # type: ignore[arg-type]


_prepared = False


def prepare() -> None:
    """Import what every page needs and set the figure style, once per process (the fork
    server's, for every page); ``gc.freeze`` so forks share that memory, not copy it."""
    global _prepared
    if _prepared:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.backends.backend_svg  # for every page's figures
    import matplotlib.pyplot
    import numpy.random  # noqa: F401  (seeded before every page: see runner._seeded)

    imports.install()  # after the libraries: a page's imports are recorded as it runs
    from lessonkit.execute import svg  # noqa: F401
    from lessonkit.lab.figure_style import STYLE

    imports.remember_loaded()
    matplotlib.rcParams.update(STYLE)
    _draw_once()
    _prepared = True
    gc.freeze()


def _draw_once() -> None:
    """Draw a figure and throw it away, so matplotlib's first-draw caches (fonts, glyphs, the SVG
    backend) are the fork server's: a page's first heatmap takes 103 ms, not 115 ms, about 1.2 s
    of a 16 s cold 200-page build (``scripts/benchmark.py --pages 200 --kinds synthetic``)."""
    from matplotlib.figure import Figure

    from lessonkit.execute.svg import to_svg

    fig = Figure(figsize=(2, 2))
    ax = fig.add_subplot()
    ax.imshow([[0.0, 1.0], [1.0, 0.0]])
    ax.plot([0, 1], [1, 0])
    ax.set(title="warm", xlabel="x", ylabel="y")
    to_svg(fig, alt="warm-up", id_prefix="warm")


def _page(conn: Connection, job: Job, limits: Limits, env: dict[str, str], folder: Path) -> None:
    """A page process: run ``job`` in ``folder``, report each step and the result on ``conn``."""
    with contextlib.suppress(OSError, TypeError):  # the server exits with the build, not us
        os.close(forkserver._forkserver._forkserver_alive_fd)
    _on_stops(signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(AttributeError, OSError):
        os.setpgid(0, 0)
    processes.become_subreaper()
    signal.signal(signal.SIGUSR1, _orphaned)
    processes.die_with_parent(signal.SIGUSR1)
    processes.limit_memory(limits.memory)
    os.environ.clear()
    os.environ.update(env)
    sys.path[:] = [entry for entry in sys.path if isinstance(entry, str)]  # (imports skip others)
    prepare()  # done already where the fork server did it
    me = os.getpid()

    def send(message: object) -> None:
        if os.getpid() != me:  # a fork the lesson made must not speak for the page
            os._exit(0)
        conn.send(message)

    if stale := imports.stale_sources():
        send(("stale", stale))
        return
    link_folder(job.display_path, job.program, job.page_dir, folder)
    os.chdir(folder)
    tempfile.tempdir = str(folder)
    try:
        result = run_program(
            job.program,
            job.display_path,
            source_text=job.source_text,
            page_dir=job.page_dir,
            watch=FileWatch(list(job.watched), list(job.protected), list(job.private)),
            imports=imports.ImportWatch(own_folder=folder),
            on_step=lambda index: send(("start", index)),
            output_limit=limits.output,
            memory_limit=limits.memory,
            describe_figures=limits.describe_figures,
            styled=True,
            capture_fds=True,
        )
    except Exception:
        message = "lessonkit failed while running this page (a bug in lessonkit, not the lesson)"
        hint = "please report it with the traceback above"
        problem = Problem(message, None, hint, details=traceback.format_exc())
        result = PageResult(problems=[problem.at(job.display_path)])
    finally:
        processes.kill_descendants()
    send(("done", result))
    os._exit(0)  # not multiprocessing's end: it would wait for threads the page left running


def _orphaned(*_: object) -> None:
    """The fork server died (killed by the page's code, say): end the page and what it started."""
    processes.kill_descendants()
    os._exit(1)
