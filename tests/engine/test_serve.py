"""Under `mkdocs serve`, a broken block shows as an error and the server keeps serving."""

from __future__ import annotations

import os
import shutil
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


def test_serve_warns_when_lessonkit_s_own_source_is_edited_under_it(tmp_path: Path) -> None:
    """The serve's process keeps the lessonkit it loaded (and would load, say, a quiz's reader
    edited beside the older check it fits): a rebuild after an edit says to restart, naming the
    file. A rebuild after a page's edit alone says nothing of it."""
    source = tmp_path / "src"
    shutil.copytree(
        Path(__file__).resolve().parents[2] / "src" / "lessonkit",
        source / "lessonkit",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    log = tmp_path / "serve.log"
    warning = "lessonkit's own source changed since this serve loaded it (check.py)"
    with _serving(tmp_path / "site", log, PYTHONPATH=str(source)) as (_, page, url):
        assert _wait_for(lambda: "Value: 42." in _page(url)), log.read_text()
        page.write_text(PAGE.format(value="6 * 7 + 1"))
        assert _wait_for(lambda: "Value: 43." in _page(url)), log.read_text()
        assert "lessonkit's own source changed" not in log.read_text()
        checked = source / "lessonkit" / "quiz" / "check.py"
        checked.write_text(checked.read_text() + "\n# edited\n")
        page.write_text(PAGE.format(value="6 * 7 + 2"))
        assert _wait_for(lambda: "Value: 44." in _page(url)), log.read_text()
        assert warning in log.read_text()
        assert "restart `mkdocs serve`" in log.read_text()
