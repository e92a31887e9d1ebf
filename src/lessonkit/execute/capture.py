"""Where a page's printed output goes: into the block that is running, bounded, in order.

A thread prints into the block that started it, and fails the page if it prints after that
block ended. In a page process (``fds=True``) descriptors 1 and 2 are pipes too, so C code and
subprocesses stay within the output limit: 1 goes into the running block, 2 to the build's log.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import io
import os
import select
import sys
import threading
from collections.abc import Callable, Iterator

from lessonkit.execute.processes import format_size

STDERR_LIMIT = 64 * 2**10  # characters of stderr passed on to the log; the rest is cut


class PageOutput(io.TextIOBase):
    """``sys.stdout`` while a page runs; ``spend(n)`` draws on the output limit (raises past it)."""

    def __init__(self, spend: Callable[[int], None], where: str, fds: bool = False) -> None:
        super().__init__()
        self._spend = spend
        self._where = where
        self._lock = threading.Lock()
        self._buffer: io.StringIO | None = None
        self._step = -1
        self._main = threading.get_ident()
        # each thread's block (None: there before the page); by thread, as ids are reused
        self._owners: dict[threading.Thread, int | None] = dict.fromkeys(threading.enumerate())
        self.late: set[int] = set()  # blocks whose thread printed after the block ended
        self._fds = fds
        self._pipes: dict[int, tuple[int, codecs.IncrementalDecoder]] = {}
        self._stderr_left = STDERR_LIMIT
        self._pipe: int | None = None  # descriptor 1's pipe, in a page process

    encoding = "utf-8"  # type: ignore[assignment]

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if threading.get_ident() != self._main:
            return self._from_thread(text)
        # What descriptor 1 got comes first (print's own "\n" follows its text at once).
        if self._pipe is not None and text != "\n" and select.select([self._pipe], [], [], 0)[0]:
            with self._lock:
                self._drain()
        buffer = self._buffer  # no lock for the page's own thread
        if buffer is not None:
            if not isinstance(text, str):
                raise TypeError(f"write() argument must be str, not {type(text).__name__}")
            self._spend(len(text))
            buffer.write(text)
        return len(text)

    def _from_thread(self, text: str) -> int:
        """Into the block that started the thread, while that runs."""
        with self._lock:
            owner = self._owners.get(threading.current_thread(), self._step)
            if owner is None:  # not the page's thread
                self._saved.write(text)
            elif owner != self._step or self._buffer is None:
                self.late.add(owner)
            else:
                self._spend(len(text))
                self._buffer.write(text)
        return len(text)

    def __enter__(self) -> PageOutput:
        self._saved, sys.stdout = sys.stdout, self
        self._saved_stderr, sys.stderr = sys.stderr, _Stderr(self)
        if self._fds:
            self._redirect()
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout, sys.stderr = self._saved, self._saved_stderr
        if self._fds:
            self._restore()

    @contextlib.contextmanager
    def step(self, index: int) -> Iterator[io.StringIO]:
        """The buffer of step ``index``'s output, while it runs."""
        buffer = io.StringIO()
        with self._lock:
            self._step, self._buffer = index, buffer
        try:
            yield buffer
        finally:
            self._settle()
            with self._lock:
                for thread in threading.enumerate():
                    self._owners.setdefault(thread, index)
                self._step, self._buffer = -1, None

    def _redirect(self) -> None:
        self._saved_fds = {fd: os.dup(fd) for fd in (1, 2)}
        for fd in (1, 2):
            read, write = os.pipe()
            os.dup2(write, fd)
            os.close(write)
            os.set_blocking(read, False)
            self._pipes[fd] = (read, codecs.getincrementaldecoder("utf-8")("replace"))
        self._pipe = self._pipes[1][0]
        self._pumping = True
        pump = threading.Thread(target=self._pump, name="lessonkit-output", daemon=True)
        pump.start()
        self._owners[pump] = None

    def _pump(self) -> None:
        """Keep the pipes drained while a block runs (a full pipe would block the writer)."""
        reads = [read for read, _ in self._pipes.values()]
        while self._pumping:
            try:
                if select.select(reads, [], [], 0.1)[0]:
                    with self._lock:
                        self._drain()
            except OSError:
                return
            except BaseException:  # past the output limit: the step fails at its end
                pass

    def _drain(self) -> None:
        """Take in the pipes (under the lock): 1 into the running block, 2 to the log."""
        for fd, (read, decoder) in self._pipes.items():
            with contextlib.suppress(OSError):  # BlockingIOError: nothing more
                while data := os.read(read, 65536):
                    text = decoder.decode(data)
                    if fd == 2:
                        self._forward(text)
                    elif self._buffer is not None and text:
                        self._spend(len(text))
                        self._buffer.write(text)

    def _forward(self, text: str) -> None:
        """Pass ``text`` on to the log while :data:`STDERR_LIMIT` allows."""
        if self._stderr_left <= 0:
            return
        shown = text[: self._stderr_left]
        self._stderr_left -= len(text)
        if self._stderr_left <= 0:
            cut = f"more than {format_size(STDERR_LIMIT)} on stderr; the rest is cut"
            shown += f"\n[{self._where}: {cut}]\n"
        if self._fds:
            os.write(self._saved_fds[2], shown.encode(errors="replace"))
        else:
            self._saved_stderr.write(shown)

    def _settle(self) -> None:
        """Flush Python's and C's buffers, then take in the pipes."""
        if not self._fds:
            return
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.flush()  # type: ignore[union-attr]
        with contextlib.suppress(AttributeError, OSError, TypeError):
            ctypes.CDLL(None).fflush(None)
        with self._lock, contextlib.suppress(BaseException):  # past the limit: the step fails
            self._drain()

    def _restore(self) -> None:
        self._settle()
        self._pumping = False
        for fd, saved in self._saved_fds.items():
            os.dup2(saved, fd)
            os.close(saved)


class _Stderr(io.TextIOBase):
    """``sys.stderr`` while a page runs: on to the build's log, bounded."""

    def __init__(self, output: PageOutput) -> None:
        super().__init__()
        self._output = output

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._output._lock:
            self._output._forward(text)
        return len(text)
