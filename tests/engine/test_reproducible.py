"""Unseeded random numbers are the same in every clean build: each page's generators are seeded
from its path before it runs (and string hashing is fixed), so builds are reproducible and pages
independent of each other and of the order they run in."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program
from lessonkit.execute.worker import Job, WorkerPool

PAGE = """\
# Chance

```python exec
import random

import numpy as np

print(random.random(), float(np.random.rand()), np.random.randint(1000, size=3))
print(sorted({"query", "key", "value"}) == list({"query", "key", "value"}), {"query", "key"})
```
"""

CONFIG = "site_name: chance\nplugins:\n  - lessonkit:\n      workers: {workers}\n"


def _site(root: Path, workers: int) -> Path:
    (root / "docs").mkdir(parents=True)
    for name in ("index.md", "other.md", "third.md"):
        (root / "docs" / name).write_text(PAGE)
    (root / "mkdocs.yml").write_text(CONFIG.format(workers=workers))
    return root


def _page(path: Path) -> str:
    """A built page without the theme's build date (the one thing MkDocs itself varies)."""
    return re.sub(r"Build Date UTC : [^\n]*", "", path.read_text())


def _printed(html: str) -> str:
    return re.search(r'<pre class="lk-output"><code>(.*?)</code>', html, re.S)[1]


def test_two_clean_builds_give_the_same_bytes(tmp_path: Path, mkdocs_build) -> None:
    sites = [_site(tmp_path / "one", workers=1), _site(tmp_path / "two", workers=2)]
    with ThreadPoolExecutor(2) as pool:
        builds = list(pool.map(mkdocs_build, sites))
    for done in builds:
        assert done.returncode == 0, done.stderr
    one, two = ([_page(s / "site" / p) for p in ("index.html", "other/index.html")] for s in sites)
    assert one == two, "a page's numbers changed between two clean builds"
    index, other = (_printed(page) for page in one)
    assert index != other, "two pages drew the same numbers: seeds must differ per page"
    program = parse_program(PAGE, page="index.md")
    alone = run_program(program, "docs/index.md").steps[0].stdout
    # The random numbers, not the set: this process hashes strings with its own random seed.
    assert alone.split("\n")[0] == index.split("\n")[0], "the build and a bare run disagree"


FIGURE_PAGE = """\
```python exec alt="A 3 by 3 heatmap with labelled ticks."
import matplotlib.pyplot as plt
import numpy as np

fig, ax = plt.subplots(figsize=(3, 3))
ax.imshow(np.arange(9).reshape(3, 3) / 8, vmin=0, vmax=1)
ax.set_xticks(range(3), ["k1", "k2", "k3"])
ax.set(title="weights", ylabel="query")
fig.tight_layout()
```
"""

FIRST_DRAW = """\
import sys
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program
program = parse_program(sys.stdin.read(), page="figure.md")
sys.stdout.write(run_program(program, "docs/figure.md").steps[0].figures[0].svg)
"""


def test_a_figure_from_a_worker_is_the_one_a_fresh_process_draws() -> None:
    """Workers draw once before they fork pages (matplotlib's caches then come warm): what a
    page draws must not show it, so the SVG equals that of a process drawing for the first time,
    for the first page a worker runs and for a later one."""
    first = subprocess.run(
        [sys.executable, "-c", FIRST_DRAW], input=FIGURE_PAGE, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    program = parse_program(FIGURE_PAGE, page="figure.md")
    pool = WorkerPool(1, default_timeout=30)
    try:
        runs = [pool.run(Job(program, "docs/figure.md", FIGURE_PAGE, Path("/"))) for _ in "ab"]
    finally:
        pool.close()
    for result in runs:
        assert result.ok, result.problems
        assert result.steps[0].figures[0].svg == first.stdout
