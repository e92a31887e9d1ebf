"""Whole-site builds: each page runs once, and every page whose code fails is reported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Python-Markdown empties whitespace-only lines and expands tabs before lessonkit's extension
# sees the page; the plugin must key the page by that same text, or the page runs twice.
PAGE = """\
---
title: Whitespace
---

# Whitespace

```python exec source="hide"
def double(x):
    y = 2 * x
    \n    return y
```

After\ta tab, the value is {{ double(21) }}.
"""

CONFIG = """\
site_name: whitespace
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [pymdownx.superfences]
"""


def _build(site: Path, pages: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in pages.items():
        (site / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (site / "docs" / name).write_text(text)
    (site / "mkdocs.yml").write_text(CONFIG)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=site,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_a_cold_build_runs_each_page_once(tmp_path: Path) -> None:
    done = _build(tmp_path, {"index.md": PAGE})
    assert done.returncode == 0, done.stderr
    entries = list((tmp_path / ".cache" / "lessonkit").glob("*.json"))
    assert len(entries) == 1, "the page was keyed (and run) more than once"
    assert "the value is 42." in (tmp_path / "site" / "index.html").read_text()


def test_every_page_whose_code_fails_is_reported_in_one_build(tmp_path: Path) -> None:
    fine = "# Fine\n\n```python exec\nprint(6 * 7)\n```\n"
    broken = "# {name}\n\nProse.\n\n```python exec\nraise ValueError('{name} is broken')\n```\n"
    done = _build(
        tmp_path,
        {
            "index.md": fine,
            "a.md": broken.format(name="a"),
            "b/c.md": broken.format(name="c"),
        },
    )
    assert done.returncode != 0
    assert "docs/a.md:6: error: ValueError: a is broken" in done.stderr, done.stderr
    assert "docs/b/c.md:6: error: ValueError: c is broken" in done.stderr, done.stderr
    assert "Traceback (most recent call last)" not in done.stderr
    assert not (tmp_path / "site" / "a" / "index.html").exists()
