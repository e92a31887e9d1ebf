"""scripts/benchmark.py runs end to end on a tiny site and reports every scenario and target.

No timing is asserted here (timed tests are flaky); the benchmark itself checks its targets.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "benchmark.py"

SCENARIOS = [
    "floor: Material, blocks shown as plain code",
    "markdown-exec, executing the blocks",
    "the blocks alone, one Python process",
    "lessonkit, cold (empty cache)",
    "lessonkit, warm (nothing changed)",
    "lessonkit, one page's prose edited",
    "lessonkit, one page's code edited",
    "that page's blocks alone, one Python process",
]
NUMBER = r"\d+\.\d\d"
ARGS = ["--pages", "1", "2", "--runs", "1", "--turns", "2", "--instructions", "--check"]


@pytest.fixture(scope="module")
def run() -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *ARGS],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def report(run: subprocess.CompletedProcess[str]) -> str:
    assert "targets met." in run.stdout, run.stderr
    return run.stdout


@pytest.mark.parametrize("pages", [1, 2])
def test_each_size_gets_a_row_per_scenario_with_seconds_and_ratio(report: str, pages: int) -> None:
    section = report.split(f"| {pages} pages, 1 runs |", 1)[1].split("\n\n", 1)[0]
    for scenario in SCENARIOS:
        each = rf"{NUMBER}(?: {NUMBER})*"
        row = rf"^\| {re.escape(scenario)} \| ({NUMBER}) \| ({NUMBER}) \| ({each}) \|$"
        match = re.search(row, section, re.MULTILINE)
        assert match, f"no row for {scenario!r} in:\n{section}"
        assert float(match[1]) > 0
        builds = {SCENARIOS[0]: 7}.get(scenario, 1 if scenario in SCENARIOS[1:4] else 2)
        assert len(match[3].split()) == builds, "a floor build before and after each paired build"
    floor = re.search(rf"^\| {re.escape(SCENARIOS[0])} \| {NUMBER} \| ({NUMBER}) \|", section, re.M)
    assert floor and floor[1] == "1.00"  # the floor is its own unit


@pytest.mark.parametrize("pages", [1, 2])
def test_instructions_of_a_floor_and_a_warm_build_are_counted(report: str, pages: int) -> None:
    header = f"| {pages} pages, one build each under valgrind | instructions (G) | x floor |"
    section = report.split(header, 1)[1].split("\n\n", 1)[0]
    count = r"(\d+\.\d{3})"
    floor = re.search(rf"^\| {re.escape(SCENARIOS[0])} \| {count} \| 1\.000 \|$", section, re.M)
    warm = re.search(rf"^\| {re.escape(SCENARIOS[4])} \| {count} \| {count} \|$", section, re.M)
    assert floor and warm, section
    assert float(floor[1]) > 1 and float(warm[1]) > 1  # billions: Python, MkDocs, Material
    assert float(warm[2]) == pytest.approx(float(warm[1]) / float(floor[1]), abs=0.002)


def test_every_target_gets_a_verdict(report: str) -> None:
    verdicts = re.findall(r"^\| (.+?) \| .+ \| .+ \| (PASS|FAIL) \|$", report, re.MULTILINE)
    names = [name for name, _ in verdicts]
    for pages in (1, 2):
        for target in (
            "warm rebuild",
            "one page's prose edited",
            "cold build",
            "one page's code edited",
            "per-page inline CSS/JS",
            "6x6 heatmap SVG",
        ):
            assert any(n.startswith(f"{pages} pages: {target}") for n in names), (target, names)
    assert any(n.startswith("2 vs 1 pages, cold") for n in names)
    assert any(n.startswith("2 vs 1 pages, warm") for n in names)
    met = re.search(r"^(\d+) of (\d+) targets met\.$", report, re.MULTILINE)
    assert met and int(met[2]) == len(verdicts)
    assert int(met[1]) == sum(verdict == "PASS" for _, verdict in verdicts)


def test_check_fails_the_command_exactly_when_a_target_fails(
    run: subprocess.CompletedProcess[str], report: str
) -> None:
    failed = re.search(r"\| FAIL \|$", report, re.MULTILINE) is not None
    assert run.returncode == (1 if failed else 0), run.stderr


@pytest.mark.parametrize("option", ["--runs", "--turns", "--pages"])
def test_a_count_below_one_is_refused_before_anything_is_built(option: str) -> None:
    command = [sys.executable, str(SCRIPT), option, "0"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2
    assert f"argument {option}: '0' is not a whole number of at least 1" in done.stderr


def test_each_paired_build_is_divided_by_the_mean_of_the_floor_builds_around_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("benchmark", SCRIPT)
    benchmark = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "benchmark", benchmark)  # dataclasses look it up there
    spec.loader.exec_module(benchmark)
    measured = benchmark.Measured(pages=2)
    # One run: the machine slowed down steadily; the floor took 1, 3, 5 and 7 s, one after the
    # other, with a warm build between each two of them.
    measured.times["floor"] = [[1.0, 3.0, 5.0, 7.0]]
    measured.times["warm"] = [[2.2, 4.4, 6.6]]
    measured.times["cold"] = [[3.0]]
    measured.around = {"warm": [[(1.0, 3.0), (3.0, 5.0), (5.0, 7.0)]]}
    assert measured.floor_at("warm", 0, 1) == 4.0
    assert measured.ratio("warm") == pytest.approx(1.1)  # the floor before alone: 1.47
    assert measured.ratio("cold") == pytest.approx(3.0 / 4.0)  # once a run: the run's median
    assert measured.ratio("floor") == 1.0


def test_hosts_gives_each_host_its_floor_and_lessonkit_cold_and_warm() -> None:
    """``--hosts``: MkDocs and Zensical side by side, each ratio to that host's own floor (the
    script fails when a cold build does not run every page or a warm one runs any)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--hosts", "--pages", "1", "--runs", "1", "--turns", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "| 1 pages, 1 runs | MkDocs (s) | x floor | Zensical (s) | x floor |" in done.stdout
    for scenario in ("floor: blocks shown as plain code", *SCENARIOS[3:5]):
        row = rf"^\| {re.escape(scenario)} \| {NUMBER} \| ({NUMBER}) \| {NUMBER} \| ({NUMBER}) \|$"
        match = re.search(row, done.stdout, re.MULTILINE)
        assert match, f"no row for {scenario!r} in:\n{done.stdout}"
        if scenario.startswith("floor"):
            assert match.groups() == ("1.00", "1.00")
