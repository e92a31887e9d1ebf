"""Every broken lesson fails a strict build with its file, its line and a clear message."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from subprocess import CompletedProcess

import pytest

BROKEN = Path(__file__).parent / "broken"
CASES = sorted(p for p in BROKEN.glob("*.md") if p.name != "README.md")
EXPECT = re.compile(r"<!-- expect: (\d+): (.+?) -->")

SITE_CONFIG = """\
site_name: broken
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [pymdownx.superfences]
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, mkdocs_build) -> dict[str, CompletedProcess]:
    root = tmp_path_factory.mktemp("broken")

    def build(case: Path) -> CompletedProcess:
        site = root / case.stem
        (site / "docs").mkdir(parents=True)
        (site / "docs" / case.name).write_text(case.read_text())
        (site / "mkdocs.yml").write_text(SITE_CONFIG)
        return mkdocs_build(site)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(CASES, pool.map(build, CASES), strict=True))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_broken_lesson_fails_with_file_line_and_message(case: Path, builds) -> None:
    line, text = EXPECT.search(case.read_text()).groups()
    result = builds[case]
    assert result.returncode != 0, f"{case.name} built although it is broken"
    expected = f"docs/{case.name}:{line}: error: {text}"
    assert expected in result.stderr, result.stderr
    assert "hint:" in result.stderr
    assert "Traceback (most recent call last)" not in result.stderr, "a lessonkit crash"
