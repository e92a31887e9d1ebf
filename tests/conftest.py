"""Session-wide fixtures: the site is built once and served once for the whole test run."""

from __future__ import annotations

import functools
import http.server
import json
import os
import queue
import re
import shutil
import socketserver
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests check laws, not speed: a loaded CI machine must not fail them on a deadline.
settings.register_profile("lessonkit", deadline=None)
settings.load_profile("lessonkit")

collect_ignore_glob = ["broken/**/*.py"]
"""The broken-lesson corpus holds lessons written as jupytext scripts: lessons to build, not
modules to import (their code fails on purpose)."""
ROOT = Path(__file__).resolve().parents[1]
SUBPATH = "lessonkit"
"""The site is served under a sub-path, as GitHub Pages serves a project site."""


@pytest.fixture(scope="session")
def mkdocs_build() -> Callable[[Path], subprocess.CompletedProcess[str]]:
    """Build a project folder (its ``mkdocs.yml`` and ``docs/``) strictly, in a new process."""

    def build(folder: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict"],
            cwd=folder,
            capture_output=True,
            text=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )

    return build


class BuildServers:
    """A few long-lived ``tests/build_server.py`` processes, one per core: ``build(folder)``
    runs ``mkdocs build --strict`` there in one that is free (safe from several threads)."""

    def __init__(self, count: int) -> None:
        self.free: queue.Queue[subprocess.Popen[str]] = queue.Queue()
        self.all = [self._start() for _ in range(count)]
        for server in self.all:
            self.free.put(server)

    @staticmethod
    def _start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("build_server.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )

    def build(self, folder: Path) -> subprocess.CompletedProcess[str]:
        server = self.free.get()
        try:
            assert server.stdin and server.stdout
            server.stdin.write(json.dumps(str(folder)) + "\n")
            server.stdin.flush()
            answer = server.stdout.readline()
            if not answer:  # it died: say so, and put a new one in its place
                server = self._start()
                self.all.append(server)
                raise RuntimeError(f"the build server died building {folder}")
            code, stderr = json.loads(answer)
        finally:
            self.free.put(server)
        return subprocess.CompletedProcess(["mkdocs", "build", "--strict"], code, "", stderr)

    def close(self) -> None:
        for server in self.all:
            if server.stdin:
                server.stdin.close()
        for server in self.all:
            server.wait(timeout=60)


@pytest.fixture(scope="session")
def mkdocs_build_shared() -> Iterator[Callable[[Path], subprocess.CompletedProcess[str]]]:
    """Build a project folder strictly in a long-lived build process (``tests/build_server.py``):
    what :func:`mkdocs_build` gives, without a new Python, MkDocs and fork server per build. For
    the many small sites of the broken corpus; a test of what a process imports, starts or
    leaves behind uses :func:`mkdocs_build`."""
    servers = BuildServers(os.cpu_count() or 2)
    yield servers.build
    servers.close()


def _lesson_features(html: str) -> dict[str, bool]:
    """Which of lessonkit's features a built lesson page carries."""
    return {
        "executed block": 'class="lk-figure"' in html,
        "inline value": bool(re.search(r"weights\s+0\.\d\d, 0\.\d\d and\s+0\.\d\d", html)),
        "doctest": 'class="gp">&gt;&gt;&gt; </span><span class="nb">round' in html,
        "glossary tooltip": 'role="tooltip"' in html and 'data-lk-term="token"' in html,
        "words box": "Words on this page" in html,
        "quiz": 'class="lk-quiz' in html and "/// quiz" not in html,
        "resources": 'class="lk-resources"' in html,
        "report link": 'class="lk-report__link"' in html,
    }


@pytest.fixture(scope="session")
def lesson_features() -> Callable[[str], dict[str, bool]]:
    """Which of lessonkit's features a built page of the ``lessonkit init`` first lesson has."""
    return _lesson_features


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the real site once, strictly, into a temporary folder and return that folder."""
    served_root = tmp_path_factory.mktemp("served")
    site_dir = served_root / SUBPATH
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    return site_dir


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Answer a miss with the site's own 404.html (status 404), as GitHub Pages does."""
        page = Path(self.directory) / SUBPATH / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """Serve the built site on localhost under ``/lessonkit/``; yield the site's base URL."""
    handler = functools.partial(_QuietHandler, directory=str(built_site.parent))
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_address[1]}/{SUBPATH}/"
        server.shutdown()


def _find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the session. Skips locally without Chromium; fails under CI."""
    executable = _find_chromium()
    if executable is None:
        message = "Chromium not found: install it (apt-get install chromium) to run browser tests."
        if os.environ.get("CI"):
            pytest.fail(message + " CI is set, so this is a failure, not a skip.")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, site_url: str):
    """A fresh browser page (desktop size) that records console errors and failed requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    yield page
    context.close()
