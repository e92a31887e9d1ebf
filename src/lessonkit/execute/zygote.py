"""The zygote: one process that imports and warms up what pages need, then forks the workers.

Where the platform can fork, the build starts one zygote (``python -c``, with :data:`HASH_SEED`).
It imports numpy and matplotlib, lessonkit's runner, and draws a throwaway figure
(:func:`lessonkit.execute.worker.prepare`), freezes what it holds (``gc.freeze``), and then forks a
worker whenever the build asks for one, handing the build its end of the worker's pipe over the
zygote's socket (``SCM_RIGHTS``). A worker starts as a copy of a process that already paid for all
that set-up, and every worker shares its memory instead of holding a copy of its own. The zygote
needs no resource tracker (multiprocessing's fork server starts one): it passes only pipes.

The zygote holds lessonkit's modules as they were when it started. A worker holding a file
edited since (``mkdocs serve``) refuses its job (:mod:`lessonkit.execute.imports`), and the
build then :func:`retire` s the zygote: the next worker comes from a fresh one. A zygote whose
build closed its socket (the build ended, was killed or retired it) exits once its workers have,
and so does one that receives SIGTERM or SIGHUP (:data:`STOPS`), stopping its workers first;
either way its folder of page folders goes with it.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from multiprocessing.connection import Connection
from typing import NoReturn

from lessonkit.execute import processes

HASH_SEED = "0"
"""``PYTHONHASHSEED`` of the zygote and workers: ``print({"a", "b"})`` prints the same in
every build (string hashing is otherwise randomised per process, and so is a set's order)."""


class ZygoteFailed(RuntimeError):
    """The zygote did not start, or stopped (its error is in the build's log above)."""


class Zygote:
    """The build's side of one zygote process."""

    def __init__(self, hash_seed: str) -> None:
        ours, theirs = socket.socketpair()
        code = f"from lessonkit.execute.zygote import main; main({theirs.fileno()})"
        self.started_with = _surroundings()
        """The build's ``sys.path`` and environment, which the zygote and its pages get."""
        path, environ = self.started_with
        env = {**environ, "PYTHONHASHSEED": hash_seed, _SYS_PATH: json.dumps(path)}
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, *_flags(), "-c", code],
                pass_fds=[theirs.fileno()],
                env=env,
                stdin=subprocess.DEVNULL,
            )
        self._socket = ours
        self._ready = False
        self.failed: str | None = None
        """Why this zygote cannot fork (it did not start): every later fork says so at once."""
        self._lock = threading.Lock()

    def fork(self, timeout: float) -> tuple[int, Connection]:
        """A new worker: its process id and the build's end of its pipe."""
        with self._lock:
            if self.failed:
                raise ZygoteFailed(self.failed)
            if not self._ready:
                self._wait_ready(timeout)
            try:
                self._socket.sendall(b"f")
                message, fds = _receive_fd(self._socket)
            except (OSError, ValueError) as error:  # ValueError: closed (retired) meanwhile
                raise ZygoteFailed(f"lessonkit's zygote stopped: {error}") from None
        if not fds:
            raise ZygoteFailed("lessonkit's zygote stopped")
        os.set_inheritable(fds[0], False)  # where _CLOEXEC is not: received inheritable
        return int(message), Connection(fds[0])

    def _wait_ready(self, timeout: float) -> None:
        """Wait for the zygote's set-up; one that fails or hangs is stopped, and stays failed."""
        if not select.select([self._socket], [], [], timeout)[0]:
            self.failed = f"lessonkit's zygote did not start within {timeout:g} s"
        elif self._socket.recv(1) != b"r":
            self.failed = "lessonkit's zygote stopped while it started (its error is above)"
        if self.failed:
            with contextlib.suppress(OSError):
                self.process.kill()
            raise ZygoteFailed(self.failed)
        self._ready = True

    def close(self) -> None:
        """Tell the zygote to exit once its workers have (it forks no more)."""
        with self._lock, contextlib.suppress(OSError):
            self._socket.close()

    def reap(self, timeout: float = 0) -> bool:
        """Whether the zygote has exited (waiting up to ``timeout`` seconds); collect it."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True


def _flags() -> list[str]:
    """The build's interpreter flags for the zygote, without ``-E`` and ``-I``: those would make
    it ignore ``PYTHONHASHSEED`` (and the build's path), and pages' output would vary by build
    (``-I``'s ``-s`` and ``-P`` are kept)."""
    flags = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
    if "-I" in flags:  # isolated: -E, -s and -P
        flags = [flag for flag in flags if flag != "-I"] + ["-s", "-P"]
    return [flag for flag in flags if flag != "-E"]


_CLOEXEC = getattr(socket, "MSG_CMSG_CLOEXEC", 0)
"""Receive a worker's pipe non-inheritable (as a Pipe()'s), on Linux at once: received
inheritable, a process another thread of the build started meanwhile (``os.system``, a plugin's
spawn) would hold the build's end, and a worker would not see the build go until it ended."""


def _receive_fd(sock: socket.socket) -> tuple[bytes, list[int]]:
    """:func:`socket.recv_fds` for one descriptor, with :data:`_CLOEXEC` (``recv_fds`` does not
    pass its ``flags`` on to ``recvmsg``: Python 3.11 here)."""
    size = array.array("i").itemsize
    message, ancillary, _, _ = sock.recvmsg(32, socket.CMSG_LEN(size), _CLOEXEC)
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % size])
    return message, list(fds)


_SYS_PATH = "LESSONKIT_ZYGOTE_SYS_PATH"
"""The build's ``sys.path``, passed to the zygote (and so to workers and pages), which finds
lessonkit (and what lessons import) where the build does."""

_lock = threading.Lock()
_current: Zygote | None = None
_retired: list[Zygote] = []
_stops_at_exit = False


def _surroundings() -> tuple[list[str], dict[str, str]]:
    """This process's ``sys.path`` (what imports read) and environment, as a zygote gets them."""
    return [entry for entry in sys.path if isinstance(entry, str)], dict(os.environ)


def current(hash_seed: str) -> Zygote:
    """The zygote new workers come from, started now if there is none.

    One started before the build changed its ``sys.path`` or environment (a first build starts
    it at ``on_startup``, and a plugin's ``on_config`` may add a folder of modules) is replaced,
    and so is one that died (its error is in the log): pages see the build as it is when they
    run. Whichever zygotes a build started are stopped when it exits (:func:`stop`).
    """
    global _current, _stops_at_exit
    with _lock:
        _retired[:] = [old for old in _retired if not old.reap()]
        if _current and not _current.failed:
            died = _current.process.poll() is not None
            if died or _current.started_with != _surroundings():
                _current.close()  # it exits once the workers it forked have
                _retired.append(_current)
                _current = None
        if _current is None:
            _current = Zygote(hash_seed)
            if not _stops_at_exit:  # also when no worker is ever made (no page needs to run)
                atexit.register(stop)
                _stops_at_exit = True
        return _current


def warm_up() -> None:
    """Start the zygote now, where the platform forks: it imports the libraries while the build
    goes on (this module imports nothing of the workers' for it)."""
    if hasattr(os, "fork"):
        current(HASH_SEED)


def retire(stale: Zygote | None = None) -> None:
    """Start the next worker from a fresh zygote: ``stale`` (by default the current one) holds
    edited lessonkit files. A zygote already replaced is left as it is."""
    global _current
    with _lock:
        if _current is not None and stale in (None, _current):
            _current.close()
            _retired.append(_current)
            _current = None


def stop(timeout: float = 5.0) -> None:
    """Close every zygote and wait for it (at the build's exit, once its workers are stopped)."""
    retire()
    with _lock:
        for old in _retired:
            if not old.reap(timeout):
                with contextlib.suppress(OSError):
                    old.process.kill()
                old.reap(timeout)
        _retired.clear()


# --- In the zygote process -------------------------------------------------------------------


def main(fd: int) -> NoReturn:
    """The zygote's life: set up what pages need, then fork a worker per request until the build
    closes the socket; then wait for the workers and exit (an error on the way is raised, for
    its traceback)."""
    control = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build decides when its workers stop
    processes.become_subreaper()  # what a killed worker's pages started is reaped here
    sys.path[:] = json.loads(os.environ.pop(_SYS_PATH, "[]")) or sys.path
    from lessonkit.execute import worker

    worker.prepare()
    workers: list[int] = []
    # Workers are never zombies; once reaped, a worker's pid may name another process soon.
    exited: set[int] = set()
    _stop_on_signals(control, workers, exited)
    # Every page's working folder is made in this one (worker.serve), which goes with the
    # zygote: a worker killed while its page ran (kill -9) leaves nothing behind in /tmp.
    tempfile.tempdir = pages = tempfile.mkdtemp(prefix="lessonkit-pages-")
    signal.signal(signal.SIGCHLD, lambda *_: exited.update(processes.reap()))
    with contextlib.suppress(OSError):  # the build is gone: stop forking
        control.sendall(b"r")
        while control.recv(1):
            ours, theirs = socket.socketpair()
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])  # its exit comes after
            try:
                pid = os.fork()
                if pid == 0:  # the worker: never returns
                    _worker(control, ours, theirs)
                exited.discard(pid)  # a pid an exited worker had: this one's now
                workers.append(pid)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            theirs.close()
            with ours:
                socket.send_fds(control, [str(pid).encode()], [ours.fileno()])
    while not exited.issuperset(workers):  # the build stops them
        time.sleep(0.01)
    processes.kill_descendants()  # what a killed worker's pages left running, adopted here
    shutil.rmtree(pages, ignore_errors=True)
    atexit._run_exitfuncs()  # what the libraries registered (matplotlib's temporary config folder)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):  # (None, or closed)
            stream.flush()
    os._exit(0)  # and no interpreter teardown: finalising numpy and matplotlib cost the build 25 ms


STOPS = (signal.SIGTERM, signal.SIGHUP)
"""What stops a zygote as if its build closed the socket: a stop sent to the build's whole
process group (``timeout``, a cancelled CI job, a supervisor; SIGHUP: the terminal closed)
reaches the zygote too, which then stops its workers and removes its folder of page folders
(by default it died at once, and the folder was left in /tmp). A signal the build's starter
ignores (``nohup``) stays ignored."""


def _stop_on_signals(control: socket.socket, workers: list[int], exited: set[int]) -> None:
    """Handle :data:`STOPS`: the zygote forks no more and stops ``workers`` (each kills its page
    and removes its folder), but not those ``exited`` (their pids may name other processes now);
    :func:`main` then waits for them and removes the rest."""
    zygote = os.getpid()

    def stop(signum: int, _: object) -> None:
        if os.getpid() != zygote:  # a worker forked a moment ago, before its own handler
            os._exit(1)
        with contextlib.suppress(OSError):
            control.shutdown(socket.SHUT_RDWR)  # its recv() returns: the loop ends
        for pid in workers:
            if pid not in exited:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)

    for signum in STOPS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, stop)


def _worker(control: socket.socket, ours: socket.socket, theirs: socket.socket) -> None:
    """A freshly forked worker: serve the build on ``theirs``, then exit. Never returns."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # it waits for its own page processes
        for signum in STOPS:  # the zygote's handler: not the worker's, nor its pages'
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])  # blocked while it forked
        control.close()  # lesson code cannot ask for workers, nor keep the zygote alive
        ours.close()
        from lessonkit.execute import worker

        worker.serve(Connection(theirs.detach()))
        code = 0
    finally:
        os._exit(code)


class Forked:
    """A worker forked by the zygote, as the build sees it (it is not the build's child).

    On Linux the build holds a pidfd of it from the start: once it has exited and the zygote
    has collected it, its pid may soon name another process (pids wrap around), which a stop
    must neither signal nor wait for. The pidfd is closed with this object, never while another
    thread may be waiting on it. Elsewhere the pid is all there is."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._pidfd: int | None = None
        self._gone = False
        try:
            self._pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            self._gone = True  # exited and collected already
        except (AttributeError, OSError):  # no pidfd here (macOS, Linux before 5.3)
            pass
        else:
            weakref.finalize(self, os.close, self._pidfd)

    @property
    def tracked(self) -> bool:
        """Whether the build can tell this worker has exited without its pid (a pidfd)."""
        return self._pidfd is not None or self._gone

    def is_alive(self) -> bool:
        return not self._exited(0)

    def terminate(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGTERM)
            elif not self._gone:
                os.kill(self.pid, signal.SIGTERM)

    def join(self, timeout: float | None = None) -> None:
        """Wait until the worker has exited (up to ``timeout`` seconds)."""
        self._exited(timeout)

    def _exited(self, timeout: float | None) -> bool:
        """Whether the worker has exited, waiting up to ``timeout`` seconds (None: until it
        has): for its pidfd to become readable, elsewhere by polling its pid."""
        if self._gone:
            return True
        if self._pidfd is None:
            deadline = None if timeout is None else time.monotonic() + timeout
            while processes.alive(self.pid):
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                time.sleep(0.005)
            return True
        poll = select.poll()  # not select(): any descriptor number
        poll.register(self._pidfd, select.POLLIN)
        return bool(poll.poll(None if timeout is None else timeout * 1000))
