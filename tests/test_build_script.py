"""scripts/build publishes atomically: a failed build leaves the previous site as it was."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _state(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*")}


def test_a_failed_build_leaves_the_previous_site_and_no_partial_folder(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "docs").mkdir(parents=True)
    page = "---\ntitle: Broken\ndescription: Fails.\n---\n# Broken\n\n```python exec\n1/0\n```\n"
    (broken / "docs" / "index.md").write_text(page)
    (broken / "mkdocs.yml").write_text("site_name: b\nplugins:\n  - lessonkit:\n      workers: 1\n")
    site = ROOT / "site"
    before = _state(site) if site.is_dir() else None
    done = subprocess.run(
        [str(ROOT / "scripts" / "build"), "-f", str(broken / "mkdocs.yml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode != 0
    assert "docs/index.md:8: error: ZeroDivisionError" in done.stderr, done.stderr
    assert "site/ still holds the previous build" in done.stderr
    assert (_state(site) if site.is_dir() else None) == before, "site/ changed"
    assert not list(ROOT.glob(".site-next.*")), "a partial build was left behind"
