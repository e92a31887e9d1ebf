"""Whole-site builds: each page runs once, and every page whose code fails is reported."""

from __future__ import annotations

import json
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


def _write(site: Path, pages: dict[str, str]) -> Path:
    for name, text in pages.items():
        (site / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (site / "docs" / name).write_text(text)
    (site / "mkdocs.yml").write_text(CONFIG)
    return site


def test_a_cold_build_runs_each_page_once(tmp_path: Path, mkdocs_build) -> None:
    done = mkdocs_build(_write(tmp_path, {"index.md": PAGE}))
    assert done.returncode == 0, done.stderr
    entries = list((tmp_path / ".cache" / "lessonkit").glob("*.json"))
    assert len(entries) == 1, "the page was keyed (and run) more than once"
    assert "the value is 42." in (tmp_path / "site" / "index.html").read_text()


def test_every_page_whose_code_fails_is_reported_in_one_build(tmp_path: Path, mkdocs_build) -> None:
    fine = "# Fine\n\n```python exec\nprint(6 * 7)\n```\n"
    broken = "# {name}\n\nProse.\n\n```python exec\nraise ValueError('{name} is broken')\n```\n"
    pages = {"index.md": fine, "a.md": broken.format(name="a"), "b/c.md": broken.format(name="c")}
    done = mkdocs_build(_write(tmp_path, pages))
    assert done.returncode != 0
    assert "docs/a.md:6: error: ValueError: a is broken" in done.stderr, done.stderr
    assert "docs/b/c.md:6: error: ValueError: c is broken" in done.stderr, done.stderr
    assert "Traceback (most recent call last)" not in done.stderr
    assert not (tmp_path / "site" / "a" / "index.html").exists()


FIGURES = """\
# Figures

```python exec alt="Zebras against crossings." source="hide"
import matplotlib.pyplot as plt

fig, ax = plt.subplots()
label = ax.set_xlabel("zebras")
```

Between the figures.

```python exec alt="Crossings against zebras." source="hide"
fig, ax = plt.subplots()
label = ax.set_xlabel("crossings")
```
"""


def test_figures_reach_the_page_in_order_but_not_the_search_index(
    tmp_path: Path, mkdocs_build
) -> None:
    (tmp_path / "mkdocs.yml").write_text(CONFIG.replace("plugins:", "plugins:\n  - search"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(FIGURES)
    done = mkdocs_build(tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "index.html").read_text()
    assert page.count('<figure class="lk-figure"><svg') == 2
    assert page.index(">zebras<") < page.index("Between the figures") < page.index(">crossings<")
    assert "data-lk-figure" not in page
    index = (tmp_path / "site" / "search" / "search_index.json").read_text()
    assert "Between the figures" in index
    assert "zebras" not in index and "crossings" not in index, "tick labels are no search terms"


NOTEBOOK_PAGE = """\
---
title: Doubling
notebook: true
---

# Doubling

[Download this page as a notebook](lesson.ipynb)

```python exec
print(2 * 21)
```

Twice 21 is {{ 2 * 21 }}.
"""


def test_a_page_asking_for_a_notebook_gets_one_beside_it_from_its_single_run(
    tmp_path: Path, mkdocs_build
) -> None:
    done = mkdocs_build(_write(tmp_path, {"index.md": "# Home\n", "lesson.md": NOTEBOOK_PAGE}))
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "site" / "lesson" / "index.html").read_text()
    assert 'href="../lesson.ipynb"' in html  # MkDocs knows the file: the link resolves
    notebook = json.loads((tmp_path / "site" / "lesson.ipynb").read_text())
    cells = [(c["cell_type"], "".join(c["source"])) for c in notebook["cells"]]
    assert ("code", "print(2 * 21)") in cells
    assert ("markdown", "Twice 21 is 42.") in cells
    (code,) = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert "".join(code["outputs"][0]["text"]) == "42\n"
    entries = list((tmp_path / ".cache" / "lessonkit").glob("*.json"))
    assert len(entries) == 1, "the page ran once, for the page and its notebook alike"


def test_a_notebook_may_not_replace_a_file_in_the_docs(tmp_path: Path, mkdocs_build) -> None:
    pages = {"index.md": "# Home\n", "lesson.md": NOTEBOOK_PAGE, "lesson.ipynb": "{}"}
    done = mkdocs_build(_write(tmp_path, pages))
    assert done.returncode != 0
    assert "docs/lesson.md: error: its front matter asks for a notebook" in done.stderr
    assert "lesson.ipynb already exists in the docs folder" in done.stderr
