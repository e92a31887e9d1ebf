"""A site build runs each page once and stores one cache entry for it, whatever its whitespace."""

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


def test_a_cold_build_runs_each_page_once(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(PAGE)
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    entries = list((tmp_path / ".cache" / "lessonkit").glob("*.json"))
    assert len(entries) == 1, "the page was keyed (and run) more than once"
    assert "the value is 42." in (tmp_path / "site" / "index.html").read_text()
