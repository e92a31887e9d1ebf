"""Save-to-served seconds under a live preview server (``mkdocs serve`` or any other).

The server runs in its own process group on a free port. Each save writes a page with a fresh
word in it; the time runs until the page's URL serves that word. A server that exits, logs a
failed rebuild or never serves the edit ends the saves with a failure that says which, instead
of waiting for ever.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import statistics
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

POLL = 0.02
"""Seconds between two requests for the page."""


class ServeFailure(Exception):
    """The server did not serve what was asked in time, failed a rebuild, or exited."""


@dataclass
class Served:
    """Each save's seconds until it was served, and why the saves stopped early, if they did."""

    seconds: list[float] = field(default_factory=list)
    failure: str = ""

    @property
    def median(self) -> float:
        """Median seconds; infinite when a save failed (a failed preview meets no target)."""
        return float("inf") if self.failure or not self.seconds else statistics.median(self.seconds)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (as the system hands them out)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fresh_word() -> str:
    """A word no page has yet: letters and digits, unchanged by Markdown."""
    return f"fresh{secrets.token_hex(6)}"


@dataclass
class Server:
    """A running preview server and the file its output goes to."""

    process: subprocess.Popen[bytes]
    log: Path
    failed_rebuild: str
    """A line the server logs when a rebuild fails (it keeps serving the old page)."""
    since: int = 0
    """Where in the log the current wait began: a failure logged before it is another save's."""

    def mark(self) -> None:
        """Look for failed rebuilds only in what the server logs from now on."""
        self.since = self.log.stat().st_size

    def check(self) -> None:
        """Raise :class:`ServeFailure` if the server has exited or logged a failed rebuild."""
        if self.process.poll() is not None:
            raise ServeFailure(f"the server exited ({self.process.returncode}):\n{self.tail()}")
        with open(self.log, "rb") as log:
            log.seek(self.since)
            recent = log.read().decode(errors="replace")
        if self.failed_rebuild and self.failed_rebuild in recent:
            raise ServeFailure(f"a rebuild failed:\n{self.tail()}")

    def tail(self, lines: int = 25) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


@contextmanager
def serving(
    command: list[str], env: dict[str, str], log: Path, failed_rebuild: str = ""
) -> Iterator[Server]:
    """Start ``command`` in a new process group; stop that group (only) on the way out."""
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield Server(process, log, failed_rebuild)
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server and what it started (its workers): SIGTERM, then SIGKILL after 10 s."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue


def fetch(url: str, timeout: float) -> str | None:
    """The page at ``url``, or None when it is not served (yet) or the request timed out."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read().decode("utf-8", errors="replace")
    except (OSError, urllib.error.URLError):
        return None


def wait_for(server: Server, url: str, word: str, timeout: float) -> float:
    """Seconds until ``url`` serves a page containing ``word``; :class:`ServeFailure` after
    ``timeout`` seconds, or as soon as the server exits or fails a rebuild."""
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < timeout:
        server.check()
        # A request made during a rebuild may wait for its end: never past the deadline.
        page = fetch(url, timeout=max(0.1, timeout - elapsed))
        if page is not None and word in page:
            return time.perf_counter() - start
        time.sleep(POLL)
    server.check()
    raise ServeFailure(f"{url} did not serve {word!r} within {timeout:g} s:\n{server.tail()}")


def time_saves(
    server: Server, url: str, save: Callable[[str], None], saves: int, timeout: float
) -> Served:
    """Save ``saves`` times (``save(word)`` writes the page with a fresh word); time each."""
    served = Served()
    for _ in range(saves):
        word = fresh_word()
        server.mark()
        save(word)
        try:
            served.seconds.append(wait_for(server, url, word, timeout))
        except ServeFailure as failure:
            served.failure = str(failure)
            break
    return served
