"""Under `mkdocs serve`, a broken block shows as an error and the server keeps serving."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CONFIG = "site_name: s\nplugins:\n  - lessonkit:\n      workers: 1\n"
PAGE = "# Live\n\n```python exec\nx = {value}\n```\n\nValue: {{{{ x }}}}.\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(predicate, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return False


def _page(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode()
    except OSError:
        return ""


@contextmanager
def _serving(site: Path, log: Path, **env: str) -> Iterator[tuple[subprocess.Popen, Path, str]]:
    """``mkdocs serve`` of a one-page site made in ``site`` (its output in ``log``): the server,
    the page's file and the page's URL; the server is stopped afterwards."""
    (site / "docs").mkdir(parents=True)
    page = site / "docs" / "index.md"
    page.write_text(PAGE.format(value="41 + 1"))
    (site / "mkdocs.yml").write_text(CONFIG)
    port = _free_port()
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
            cwd=site,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        )
    try:
        yield server, page, f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_serve_reports_errors_and_rebuilds_after_a_fix(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with _serving(tmp_path, log) as (server, page, url):
        assert _wait_for(lambda: "Value: 42." in _page(url)), log.read_text()
        page.write_text(PAGE.format(value="1 / 0"))
        assert _wait_for(lambda: "docs/index.md:4: error: ZeroDivisionError" in log.read_text())
        assert server.poll() is None, "the server stopped on a lesson error"
        page.write_text(PAGE.format(value="6 * 7 + 1"))
        assert _wait_for(lambda: "Value: 43." in _page(url)), log.read_text()
        assert (tmp_path / ".lessonkit" / "cache").is_dir()
