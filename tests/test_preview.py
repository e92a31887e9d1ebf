"""The fast preview, ``mkdocs serve --dirty`` (and ProperDocs') with ``strict``, on a small
site: a saved edit is served updated, a broken one shows its ``file:line`` and the server stays
up, the glossary and the search index stay whole although only the edited page is converted,
and a lab edit re-runs (and converts again) only the page whose code imports the module."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PAGE = """\
---
title: Page {name}
description: A page that uses a term.
---

# Page {name}

{word} Text becomes tokens.
{code}"""
CODE = """
```python exec
import sys
sys.path.insert(0, str(here.parent / "lib"))
from helper import value
print("value", value())
```
"""
SITE = """\
site_name: preview
site_url: http://example.org/
strict: true
theme: material
nav: [index.md, a.md, b.md, glossary.md]
plugins:
  - search
  - lessonkit:
      glossary: glossary.yml
      workers: 1
"""


class Server:
    """``mkdocs serve --dirty`` (or ``mode``) on a free port, its output collected line by
    line."""

    def __init__(
        self, root: Path, host: str, temporary: Path | None = None, mode: str = "--dirty"
    ) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/"
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        if temporary:
            env["TMPDIR"] = str(temporary)
        command = [sys.executable, "-m", host, "serve", mode, "-f", "mkdocs.yml"]
        command += ["-a", f"127.0.0.1:{port}"]
        self.process = subprocess.Popen(
            command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for(self, found: Callable[[], bool], what: str, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while not found():
            assert self.process.poll() is None, f"the server stopped:\n{self.output}"
            assert time.monotonic() < end, f"no {what} after {timeout} s:\n{self.output}"
            time.sleep(0.05)

    def get(self, path: str) -> str:
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as response:
                return response.read().decode()
        except OSError:
            return ""

    def serves(self, path: str, text: str) -> None:
        self.wait_for(lambda: text in self.get(path), f"{text!r} on {path}")

    def search(self) -> list[dict]:
        """The entries of the search index the site serves."""
        return json.loads(self.get("search/search_index.json"))["docs"]

    def runs(self) -> int:
        """How many pages ran since the server started (the plugin logs it after each build)."""
        counts = re.findall(r"lessonkit: (\d+) page\(s\) ran", self.output)
        return int(counts[-1]) if counts else -1


@pytest.fixture
def site(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helper.py").write_text("def value():\n    return 41\n")
    (tmp_path / "mkdocs.yml").write_text(SITE)
    (docs / "index.md").write_text("---\ntitle: Home\ndescription: Home.\n---\n\n# Home\n")
    (docs / "a.md").write_text(PAGE.format(name="A", word="first", code=CODE))
    other = '\n```python exec\nprint("value", 6 * 7)\n```\n'  # imports nothing of lib/
    (docs / "b.md").write_text(PAGE.format(name="B", word="other", code=other))
    (docs / "c.md").write_text(PAGE.format(name="C", word="third", code=""))  # not in nav
    (docs / "glossary.yml").write_text("- term: token\n  definition: A piece of text.\n")
    return tmp_path


@pytest.fixture(params=["mkdocs", "properdocs"])
def server(site: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    running = Server(site, request.param)
    try:
        running.wait_for(lambda: "Serving on" in running.output, "server", timeout=60)
        yield running
    finally:
        running.process.terminate()
        running.process.wait(timeout=10)


@pytest.mark.parametrize("host", ["mkdocs", "properdocs"])
def test_a_serve_stopped_with_sigterm_leaves_nothing_in_the_temporary_folder(
    site: Path, tmp_path_factory: pytest.TempPathFactory, host: str
) -> None:
    temporary = tmp_path_factory.mktemp("temporary")
    running = Server(site, host, temporary)
    try:
        running.wait_for(lambda: "Serving on" in running.output, "server", timeout=60)
        running.serves("a/", "first Text")
        made = {path.name.split("_")[0].rsplit("-", 1)[0] for path in temporary.iterdir()}
        assert made == {host, "pymp", "lessonkit-preview"}, (
            made
        )  # the site's copy; the fork server's socket
    finally:
        running.process.terminate()  # kill, timeout, a supervisor's or an editor's stop
        running.process.wait(timeout=30)
    assert running.process.returncode == 0, running.output
    assert list(temporary.iterdir()) == []


def test_a_serve_stopped_while_stale_pages_wait_for_their_run_stops_cleanly(site: Path) -> None:
    # A lab edit leaves two pages stale; they run one after the other. Stopping the serve
    # while the first runs cancelled it, and its callback asked the closed engine for the next.
    started = site / "started"
    slow = CODE.replace(
        'print("value", value())',
        f'print("value", value())\nif value() == 43:\n    open({str(started)!r}, "w").close()\n'
        "    import time\n    time.sleep(60)",
    )
    for name in ("A", "B"):
        (site / "docs" / f"{name.lower()}.md").write_text(
            PAGE.format(name=name, word="x", code=slow)
        )
    running = Server(site, "mkdocs")
    try:
        running.wait_for(lambda: "Serving on" in running.output, "server", timeout=60)
        (site / "lib" / "helper.py").write_text("def value():\n    return 43\n")  # a lab edit
        running.wait_for(started.exists, "the first stale page running")
    finally:
        running.process.terminate()
        running.process.wait(timeout=30)
    assert running.process.returncode == 0, running.output
    assert "Traceback" not in running.output, running.output


def test_the_preview_serves_edits_and_survives_broken_ones(site: Path, server: Server) -> None:
    docs = site / "docs"
    server.serves("a/", "first Text")
    assert "value 41" in server.get("a/") and "value 42" in server.get("b/")
    ran = server.runs()

    (docs / "a.md").write_text(PAGE.format(name="A", word="second", code=CODE))
    server.serves("a/", "second Text")
    server.wait_for(lambda: "Reloading browsers" in server.output, "reload")
    glossary = server.get("glossary/")  # only a.md was converted: b.md's use is remembered
    assert re.search(
        r"Used on: <a [^>]*>Page A</a>, <a [^>]*>Page B</a>, <a [^>]*>Page C", glossary
    )
    index = server.search()
    locations = [doc["location"] for doc in index]
    assert "b/" in locations and locations.count("a/") == 1, locations
    assert any("second" in doc["text"] for doc in index if doc["location"] == "a/")
    assert server.runs() == ran, "a prose edit runs nothing"

    (docs / "c.md").unlink()  # a page deleted drops out of the glossary, search and the site
    server.wait_for(
        lambda: "Page C" not in server.get("glossary/"), "Page C gone from the glossary"
    )
    assert "Page A" in server.get("glossary/") and "Page B" in server.get("glossary/")
    assert "c/" not in [doc["location"] for doc in server.search()]
    assert server.get("c/") == "", "its old page is not served"

    (docs / "glossary.yml").write_text("- term: token\n  definition: A small piece of text.\n")
    server.serves("b/", "A small piece of text.")  # every page's tooltips come from it

    (site / "lib" / "helper.py").write_text("def value():\n    return 43\n")  # a lab edit
    server.serves("a/", "value 43")  # a.md did not change: the plugin converts it again
    server.wait_for(lambda: server.runs() == ran + 1, "one page run (b.md imports nothing)")
    assert "value 42" in server.get("b/")

    broken = PAGE.format(name="A", word="third", code="\n```python exec\n1 / 0\n```\n")
    (docs / "a.md").write_text(broken)
    server.wait_for(lambda: "docs/a.md:11:" in server.output, "the error's file and line")
    server.wait_for(lambda: "ZeroDivisionError" in server.output, "the error")
    assert server.process.poll() is None, "the server stays up"

    (docs / "a.md").write_text(PAGE.format(name="A", word="fourth", code=""))
    server.serves("a/", "fourth Text")


def test_serve_clean_serves_full_rebuilds(site: Path) -> None:
    """``mkdocs serve --clean`` rebuilds every page each time, with no preview (MkDocs starts
    the plugin for a build): it serves, an edit is served, and so is a lab edit (the modules
    the pages imported are watched though each build closes the engine)."""
    running = Server(site, "mkdocs", mode="--clean")
    try:
        running.wait_for(lambda: "Serving on" in running.output, "server", timeout=60)
        running.serves("a/", "first Text")
        page = PAGE.format(name="A", word="second", code=CODE)
        (site / "docs" / "a.md").write_text(page)
        running.serves("a/", "second Text")
        (site / "lib" / "helper.py").write_text("def value():\n    return 43\n")  # a lab edit
        running.serves("a/", "value 43")
    finally:
        running.process.terminate()
        running.process.wait(timeout=10)


def test_a_plugin_kept_for_the_next_command_builds_in_full_after_a_dirty_one(tmp_path) -> None:
    """MkDocs keeps a plugin that defines ``on_startup`` for the process's next command: a
    ``mkdocs build`` after a ``serve --dirty`` in one process is a full build again."""
    from lessonkit.hosts.mkdocs.plugin import LessonkitPlugin

    plugin = LessonkitPlugin()
    plugin.load_config({"execute": False}, str(tmp_path / "mkdocs.yml"))  # starts no workers
    kinds = []
    for command, dirty in [("serve", True), ("build", False), ("build", True)]:
        plugin.on_startup(command=command, dirty=dirty)
        kinds.append((type(plugin.preview).__name__, plugin.preview.active))
    assert kinds == [("Preview", True), ("Preview", False), ("Preview", True)]


def test_stale_pages_whose_results_are_cached_are_owed_at_once_without_recursing(
    tmp_path: Path,
) -> None:
    """A lab edit undone leaves every stale page's result in the cache: each comes back done,
    and thousands of them are handed over in one loop (a callback each would recurse)."""
    from types import SimpleNamespace

    from lessonkit.execute.engine import finished
    from lessonkit.execute.results import PageResult
    from lessonkit.hosts.mkdocs.serve import Preview

    class CachedEngine:
        def submit(self, program: object, where: str, text: str) -> object:
            return finished(PageResult())

    preview = Preview(active=True)
    preview._engine = CachedEngine()  # type: ignore[assignment]
    preview._bell = tmp_path / "rebuild"
    lesson = SimpleNamespace(where="a.md", text="")
    preview._stale = {f"p{n}.md": (None, lesson) for n in range(5000)}  # type: ignore[misc]
    preview._run_stale()
    assert not preview._stale and len(preview._owed) == 5000
    assert preview._bell.exists(), "a page whose result came back rang for its rebuild"


COMPILES = """
from pathlib import Path

import jinja2

_compile, counted = jinja2.Environment.compile, []


def _counting(self, *args, **kwargs):
    if counted:
        counted[0] += 1
    return _compile(self, *args, **kwargs)


jinja2.Environment.compile = _counting


def on_env(env, config, files):
    counted[:] = [0]  # what the theme's templates cost from here on (not Material's config)


def on_post_build(config):
    with Path(config.config_file_path).with_name("compiles.txt").open("a") as out:
        out.write(f"{counted[0]}\\n")
    counted[:] = []
"""


def test_a_rebuild_renders_with_the_templates_the_first_build_compiled(site: Path) -> None:
    """The preview keeps the theme's compiled templates for the next rebuild, which then
    compiles none (a third of a small rebuild)."""
    (site / "hooks.py").write_text(COMPILES)
    (site / "mkdocs.yml").write_text(SITE + "hooks: [hooks.py]\n")
    server = Server(site, "mkdocs")
    try:
        server.wait_for(lambda: "Serving on" in server.output, "server", timeout=60)
        (site / "docs" / "a.md").write_text(PAGE.format(name="A", word="second", code=CODE))
        server.serves("a/", "second Text")
        compiles = (site / "compiles.txt").read_text().split()
        assert len(compiles) == 2 and compiles[1] == "0", compiles
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


def test_an_edit_saved_while_a_page_s_process_runs_does_not_fail_the_page(site: Path) -> None:
    """Under serve only the audit hook guards the docs: a snapshot cannot tell the author's
    save (or the preview's own rebuild) from what a page's subprocess wrote."""
    started = site / "started"
    code = f"import subprocess\nsubprocess.run(['sh', '-c', 'touch {started}; sleep 2'])"
    code += "\nprint('slept')"
    (site / "docs" / "b.md").write_text(
        PAGE.format(name="B", word="other", code=f"\n```python exec\n{code}\n```\n")
    )
    running = Server(site, "mkdocs")
    try:
        running.wait_for(started.exists, "the page's process running", timeout=60)
        (site / "docs" / "c.md").write_text(PAGE.format(name="C", word="saved", code=""))
        running.wait_for(lambda: "Serving on" in running.output, "server", timeout=60)
        running.serves("b/", "slept")
        assert "changed while this page's code ran" not in running.output, running.output
    finally:
        running.process.terminate()
        running.process.wait(timeout=30)
