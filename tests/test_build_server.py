"""A build in the shared build process says what a build in a process of its own says.

The broken-lesson corpus is built in `tests/build_server.py` (``mkdocs_build_shared``); these
tests build the same sites both ways and compare exit codes and every line of the log, so the
corpus's verdicts are those of ``mkdocs build --strict`` itself.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

BROKEN = Path(__file__).parent / "broken"
CONFIG = """\
site_name: twice
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [admonition, pymdownx.superfences, lessonkit.quiz]
"""
LESSON = """\
# Fine

```python exec
total = sum(range(4))
print(total)
```

It is {{ total }}.
"""
TIMED = re.compile(r"^INFO +- +Documentation built in [\d.]+ seconds$", re.M)


def _site(root: Path, text: str) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "page.md").write_text(text)
    (root / "mkdocs.yml").write_text(CONFIG)
    return root


def _untimed(stderr: str) -> str:
    return TIMED.sub("INFO    -  Documentation built in (seconds)", stderr)


@pytest.mark.parametrize(
    "text",
    [
        LESSON,
        (BROKEN / "bad-format.md").read_text(),
        (BROKEN / "bad-front-matter.md").read_text(),
        "# Raises\n\n```python exec\n1 / 0\n```\n",
    ],
    ids=["builds", "bad-format", "bad-front-matter", "raises"],
)
def test_a_shared_build_says_what_a_build_of_its_own_says(
    tmp_path: Path, text: str, mkdocs_build, mkdocs_build_shared
) -> None:
    site = _site(tmp_path, text)
    alone = mkdocs_build(site)
    shutil.rmtree(site / ".lessonkit", ignore_errors=True)  # cold again, as the first was
    shutil.rmtree(site / "site", ignore_errors=True)
    shared = mkdocs_build_shared(site)
    assert (shared.returncode, _untimed(shared.stderr)) == (
        alone.returncode,
        _untimed(alone.stderr),
    )
    assert "INFO" in shared.stderr  # the log was captured, not lost


def test_a_shared_build_leaves_no_state_for_the_next(tmp_path: Path, mkdocs_build_shared) -> None:
    """A broken site, then a good one, then the broken one again: each build is its own."""
    broken = _site(tmp_path / "broken", (BROKEN / "bad-format.md").read_text())
    good = _site(tmp_path / "good", LESSON)
    first = mkdocs_build_shared(broken)
    assert mkdocs_build_shared(good).returncode == 0
    again = mkdocs_build_shared(broken)
    assert first.returncode == again.returncode == 1
    assert again.stderr.count("error: cannot format inline value") == 1
    assert "It is 6." in (good / "site" / "page" / "index.html").read_text()
