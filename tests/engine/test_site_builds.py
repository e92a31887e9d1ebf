"""Whole-site builds: each page runs once, and every page whose code fails is reported."""

from __future__ import annotations

import json
from pathlib import Path

# Python-Markdown empties whitespace-only lines and expands tabs before lessonkit's extension
# sees the page; the plugin must key the page by that same text, or the page runs twice.
PAGE = """\
---
title: Whitespace
description: Tabs and blank lines in a block.
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
    entries = list((tmp_path / ".lessonkit" / "cache").glob("*.json"))
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
description: Doubling a number.
---

# Doubling

[Download this page as a notebook](lesson.ipynb)

```python exec
import random

print(random.random())
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
    assert ("markdown", "Twice 21 is 42.") in cells
    assert not any("lesson.ipynb" in source for _, source in cells), "no link to itself"
    (code,) = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert "".join(code["source"]) == "import random\n\nprint(random.random())"
    printed = "".join(code["outputs"][0]["text"]).strip()
    assert f"<code>{printed}</code>" in html, "the notebook shows the page's own run"


def _notebook_failure(site: Path, mkdocs_build) -> str:
    done = mkdocs_build(site)
    assert done.returncode != 0
    assert not (site / "site" / "lesson.ipynb").exists()
    return done.stderr


def test_a_notebook_may_not_replace_a_file_in_the_docs(tmp_path: Path, mkdocs_build) -> None:
    """A notebook in the docs is a lesson of its own (CONTRIBUTING: lessons as notebooks): with
    a Markdown lesson of the same name, the two would be one page."""
    pages = {"index.md": "# Home\n", "lesson.md": NOTEBOOK_PAGE, "lesson.ipynb": "{}"}
    stderr = _notebook_failure(_write(tmp_path, pages), mkdocs_build)
    expected = "docs/lesson.ipynb: error: lesson.ipynb and lesson.md would both be the page lesson/"
    assert expected in stderr, stderr
    assert "hint: keep one of them in the docs" in stderr


def test_a_notebook_page_may_not_read_data_files(tmp_path: Path, mkdocs_build) -> None:
    reading = NOTEBOOK_PAGE.replace("random.random()", '(here / "data.csv").read_text()')
    pages = {"index.md": "# Home\n", "lesson.md": reading, "data.csv": "1,2\n"}
    stderr = _notebook_failure(_write(tmp_path, pages), mkdocs_build)
    expected = "docs/lesson.md:3: error: the page's code reads files a notebook cannot carry"
    assert f"{expected}: docs/data.csv" in stderr, stderr


def test_without_execution_wrong_block_options_still_fail_a_notebook_page(
    tmp_path: Path, mkdocs_build
) -> None:
    wrong = NOTEBOOK_PAGE.replace("```python exec", "```python exec colour=red")
    site = _write(tmp_path, {"index.md": "# Home\n", "lesson.md": wrong})
    config = site / "mkdocs.yml"
    config.write_text(config.read_text().replace("workers: 1", "execute: false"))
    stderr = _notebook_failure(site, mkdocs_build)
    assert "docs/lesson.md:11: error: unknown option 'colour' on a python exec block" in stderr
