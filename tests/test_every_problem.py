"""Every problem at once: one strict build names every static problem of every page, as
``lessonkit check`` does, on MkDocs and through ``lessonkit prepare`` (Zensical's step)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from lessonkit.notebooks.site import code, markdown, notebook, notebook_bytes, raw
from tests.test_preview import Server

FRONT = "---\ntitle: {0}\ndescription: {0}.\n---\n"
QUIZ = """
/// quiz | Attention
What does attention let a token do?

- [x] Weigh earlier tokens by relevance.

    Right.

- [ ] Remember the training data.

    Not quite.
///
"""
CONFIG = """\
site_name: broken
watch: [docs]
extra_css: [assets/lessonkit/lessonkit.css]
extra_javascript: [assets/lessonkit/lessonkit.js]
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [admonition, pymdownx.superfences, lessonkit.quiz, lessonkit.hosts.zensical]
"""
EXPECTED = [
    "docs/a.md:8: error: link to a page that does not exist: missing.md",
    "docs/b.md:8: error: `/// quiz` takes no title after `|`",
    "docs/c.ipynb:cell 3:2: error: SyntaxError: '[' was never closed",
]
ERROR = re.compile(r"(docs/[^\s:]+(?::cell \d+)?:\d+: error: [^\n]*)")


def _site(folder: Path) -> Path:
    """Three pages broken three ways: a link, a quiz, a notebook cell's syntax."""
    docs = folder / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text(FRONT.format("Home") + "\n# Home\n\nFine.\n")
    (docs / "a.md").write_text(FRONT.format("A") + "\n# A\n\nSee [it](missing.md).\n")
    (docs / "b.md").write_text(FRONT.format("B") + "\n# B\n" + QUIZ)
    cells = [raw(FRONT.format("C").strip()), markdown("# C"), code("x = 1\ny = [1, 2\n")]
    (docs / "c.ipynb").write_bytes(notebook_bytes(notebook(cells)))
    (folder / "mkdocs.yml").write_text(CONFIG)
    return folder


def _errors(done: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(ERROR.findall(done.stdout + done.stderr))


def _matches(found: list[str]) -> bool:
    return len(found) == len(EXPECTED) and all(
        line.startswith(expected) for line, expected in zip(found, EXPECTED, strict=True)
    )


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=folder, capture_output=True, text=True, env=env
    )


def test_one_build_reports_every_page_s_problems(tmp_path: Path, mkdocs_build_shared) -> None:
    """A strict MkDocs build fails once, naming all three pages with their lines; each problem
    once; ``lessonkit check`` and ``lessonkit prepare`` name the same three."""
    site = _site(tmp_path / "site")
    built = mkdocs_build_shared(site)
    assert built.returncode != 0
    assert _matches(_errors(built)), built.stderr
    for problem in EXPECTED:
        assert (built.stdout + built.stderr).count(problem) == 1, problem
    for command in (("lessonkit.cli", "check"), ("lessonkit.cli", "prepare")):
        done = _run(site, *command)
        assert done.returncode == 1
        assert _matches(_errors(done)), command


def test_a_preview_names_a_page_s_problem_at_every_build_it_stops(tmp_path: Path) -> None:
    """Under ``mkdocs serve --dirty`` a page still broken stops each rebuild, an edit elsewhere
    too, and each says why (MkDocs logs a message once a process); fixed, the edits are served."""
    site = tmp_path
    (site / "docs").mkdir()
    for name in ("a", "b"):
        (site / "docs" / f"{name}.md").write_text(FRONT.format(name) + f"\n# {name}\n\nFine.\n")
    (site / "mkdocs.yml").write_text("site_name: s\nplugins:\n  - lessonkit:\n      workers: 1\n")
    server = Server(site, "mkdocs")
    message = "docs/a.md:8: error: link to a page that does not exist: nope.md"
    try:
        server.wait_for(lambda: "Serving on" in server.output, "server", timeout=60)
        (site / "docs" / "a.md").write_text(FRONT.format("a") + "\n# a\n\nSee [x](nope.md).\n")
        server.wait_for(lambda: server.output.count(message) == 1, "the error")
        (site / "docs" / "b.md").write_text(FRONT.format("b") + "\n# b\n\nEdited.\n")
        server.wait_for(lambda: server.output.count(message) == 2, "the error again")
        (site / "docs" / "a.md").write_text(FRONT.format("a") + "\n# a\n\nFixed.\n")
        server.serves("b/", "Edited.")
        server.serves("a/", "Fixed.")
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


def test_a_warm_build_names_code_broken_since_the_cache_held_it(
    tmp_path: Path, mkdocs_build_shared
) -> None:
    """The checks trust a cached run to compile: an edit that breaks a page's code, beside a
    page still cached and another broken elsewhere, is named with the rest in one error."""
    docs = tmp_path / "docs"
    docs.mkdir()
    block = "\n# {0}\n\n```python exec\nx = [1, 2]\nprint(len(x))\n```\n"
    for name in ("a", "b", "c"):
        (docs / f"{name}.md").write_text(FRONT.format(name) + block.format(name))
    (tmp_path / "mkdocs.yml").write_text("site_name: s\nplugins:\n  - lessonkit\n")
    assert mkdocs_build_shared(tmp_path).returncode == 0
    (docs / "a.md").write_text((docs / "a.md").read_text().replace("[1, 2]", "[1, 2"))
    (docs / "b.md").write_text((docs / "b.md").read_text() + "\nSee [it](missing.md).\n")
    found = _errors(mkdocs_build_shared(tmp_path))
    assert [line.split(" error: ")[0] for line in found] == ["docs/a.md:9:", "docs/b.md:13:"]
    assert "SyntaxError: '[' was never closed" in found[0]
