"""Every broken lesson fails a strict build with its file, its line and a clear message."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from lessonkit.cli import main

BROKEN = Path(__file__).parent / "broken"
CASES = sorted(p for p in BROKEN.glob("*.md") if p.name != "README.md")
EXPECT = re.compile(r"<!-- expect: (\d+): (.+?) -->")

QUIZ_CASES = sorted((Path(__file__).parent / "quiz" / "broken").glob("*.md"))
SITE_CONFIG = """\
site_name: broken
plugins:
  - lessonkit:
      workers: 1
markdown_extensions:
  [admonition, footnotes, pymdownx.details, pymdownx.tabbed, pymdownx.superfences,
   pymdownx.tasklist, lessonkit.quiz]
"""
"""Containers (admonitions, details, tabs, footnotes) are there: errors inside them have lines."""
PROBLEM = re.compile(r"^(?:ERROR|WARNING) +- +(docs/\S+?:\d+: (?:error|warning): .*)$", re.M)
"""A problem's first line as a build logs it."""
PROBLEM_LINE = re.compile(r"^(docs/\S+?:\d+: (?:error|warning): .*)$", re.M)
"""A problem's first line as `lessonkit check` prints it."""


@pytest.fixture(scope="module")
def builds(
    tmp_path_factory: pytest.TempPathFactory, mkdocs_build_shared
) -> dict[Path, tuple[Path, CompletedProcess]]:
    """Every broken lesson (and broken quiz) built strictly as a one-page site of its own."""
    root = tmp_path_factory.mktemp("broken")

    def build(case: Path) -> tuple[Path, CompletedProcess]:
        site = root / f"{case.parent.parent.name}-{case.stem}"
        (site / "docs").mkdir(parents=True)
        (site / "docs" / case.name).write_text(case.read_text())
        (site / "mkdocs.yml").write_text(SITE_CONFIG)
        return site, mkdocs_build_shared(site)

    cases = CASES + QUIZ_CASES
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(cases, pool.map(build, cases), strict=True))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_broken_lesson_fails_with_file_line_and_message(case: Path, builds) -> None:
    line, text = EXPECT.search(case.read_text()).groups()
    _, result = builds[case]
    assert result.returncode != 0, f"{case.name} built although it is broken"
    expected = f"docs/{case.name}:{line}: error: {text}"
    assert expected in result.stderr, result.stderr
    assert "hint:" in result.stderr
    assert "Traceback (most recent call last)" not in result.stderr, "a lessonkit crash"


@pytest.mark.parametrize(
    "case", CASES + QUIZ_CASES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}"
)
def test_lessonkit_check_and_the_build_agree(case: Path, builds, monkeypatch, capsys) -> None:
    """Both run the one check recipe on the same site: every error `lessonkit check` finds is
    what the build reports, exactly; a page it passes fails the build only for what running the
    page's code reveals."""
    site, build = builds[case]
    monkeypatch.chdir(site)  # as a contributor runs it
    code = main(["check"])
    checked = PROBLEM_LINE.findall(capsys.readouterr().out)
    check_errors = sorted(line for line in checked if ": error: " in line)
    build_errors = sorted(line for line in PROBLEM.findall(build.stderr) if ": error: " in line)
    assert build.returncode != 0
    if check_errors:
        assert code == 1
        assert build_errors == check_errors, build.stderr
    else:
        assert code == 0 and build_errors, build.stderr
        assert case in CASES, f"{case.name}: a broken quiz that lessonkit check does not find"
