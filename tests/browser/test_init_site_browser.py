"""Every script feature works on a site made by ``lessonkit init``, built with MkDocs (no theme
override: lessonkit.js runs at the end of <body>, before the page's path data) and with
Zensical: the reader marks a lesson done and the home page counts it."""

from __future__ import annotations

import functools
import http.server
import os
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessonkit.cli import main

pytestmark = pytest.mark.browser

BUILDS = {
    "mkdocs": [sys.executable, "-m", "mkdocs", "build", "--strict"],
    "zensical": "lessonkit prepare --strict && zensical build --strict",
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module", params=list(BUILDS))
def init_url(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An init site built by one host, served on localhost; its base URL."""
    site = tmp_path_factory.mktemp(request.param) / "my-lessons"
    assert main(["init", str(site), "--repo-url", "https://github.com/me/lessons"]) == 0
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    command = BUILDS[request.param]
    built = subprocess.run(
        command,
        shell=isinstance(command, str),
        cwd=site,
        capture_output=True,
        text=True,
        env=env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    handler = functools.partial(_Quiet, directory=str(site / "site"))
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{server.server_address[1]}/"
        server.shutdown()


@pytest.fixture
def tab(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


def test_mark_as_done_works_on_an_init_site(tab, init_url: str) -> None:
    tab.goto(init_url + "first-lesson/")
    button = tab.locator(".lk-progress__mark")
    button.wait_for()
    button.click()
    assert tab.locator(".lk-progress__status").inner_text() == "This lesson: done."
    tab.goto(init_url)
    status = tab.locator(".lk-progress--home .lk-progress__status")
    status.wait_for()
    assert status.inner_text() == "1 of 1 lessons done."
    assert tab.errors == []


def test_every_script_feature_runs_on_an_init_site(tab, init_url: str) -> None:
    """The quiz answers, glossary terms open on a tap, sections get their report links."""
    tab.goto(init_url + "first-lesson/")
    quiz = tab.locator(".lk-quiz").first
    quiz.locator(".lk-quiz__option input").first.check()
    assert quiz.locator(".lk-quiz__feedback").inner_text().strip() != ""
    assert tab.locator(".lk-quiz-result").is_visible()
    assert tab.locator(".lk-term[data-lk-ready]").count() == tab.locator(".lk-term").count() > 0
    assert tab.locator("h2 .lk-report__section").count() >= 2
    assert tab.errors == []


@pytest.mark.parametrize(
    "stored",
    [
        "null",
        "[]",
        "{",
        '{"lessons": null}',
        '{"lessons": []}',
        '{"lessons": {"first-lesson/": 5}}',
        '{"lessons": {"first-lesson/": {"quizzes": ["x"], "done": "yes"}}, "last": 7}',
    ],
)
def test_progress_written_by_another_script_starts_afresh(tab, init_url: str, stored) -> None:
    """Any script of the origin can write the progress entry: whatever it holds, no page
    throws and "Mark as done" works again (it did nothing, for good, after an array)."""
    tab.goto(init_url)
    tab.evaluate("(s) => localStorage.setItem('lessonkit:progress:/', s)", stored)
    tab.goto(init_url + "first-lesson/")
    status = tab.locator(".lk-progress__status")
    status.wait_for()
    assert status.inner_text() == "This lesson: not started."
    tab.locator(".lk-progress__mark").click()
    assert status.inner_text() == "This lesson: done."
    tab.goto(init_url)
    assert tab.locator(".lk-progress--home .lk-progress__status").inner_text() == (
        "1 of 1 lessons done."
    )
    assert tab.errors == []
