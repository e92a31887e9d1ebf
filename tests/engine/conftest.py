"""Fixtures of the engine's tests."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from lessonkit.execute.program import parse_program
from lessonkit.execute.results import PageResult
from lessonkit.execute.worker import Job, WorkerPool


@contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        message = "running as root without chattr +i: cannot make a folder read-only"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI is set: a failure, not a skip)")
        pytest.skip(message)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.fixture
def read_only() -> Callable[[Path], AbstractContextManager[None]]:
    """``with read_only(folder):`` nothing can be written in ``folder`` (not even by root: it
    is made immutable with ``chattr +i`` then, or the test skips)."""
    return _read_only


@pytest.fixture
def sleeping_page(
    tmp_path: Path,
) -> Callable[[WorkerPool, Executor], tuple[Future[PageResult], Path]]:
    """``start(pool, threads)`` runs a page on ``pool`` (in one of ``threads``) that sleeps for a
    minute once it runs; it returns the page's run and the page's working folder, as soon as
    the page has said where that is."""

    def start(pool: WorkerPool, threads: Executor) -> tuple[Future[PageResult], Path]:
        where, written = tmp_path / "cwd", tmp_path / "cwd.tmp"
        code = (  # renamed into place once written: never read half-written
            f"import os, time\nopen({str(written)!r}, 'w').write(os.getcwd())\n"
            f"os.replace({str(written)!r}, {str(where)!r})\ntime.sleep(60)"
        )
        text = f"```python exec\n{code}\n```\n"
        job = Job(parse_program(text, page="page.md"), "docs/page.md", text, Path("/tmp"))
        running = threads.submit(pool.run, job)
        deadline = time.monotonic() + 60
        while not where.exists() and time.monotonic() < deadline:
            assert not running.done(), running.result()
            time.sleep(0.02)
        return running, Path(where.read_text())

    return start
