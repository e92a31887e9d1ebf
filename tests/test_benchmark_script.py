"""scripts/benchmark.py runs end to end on a tiny site and reports every scenario and target.

No timing is asserted here (timed tests are flaky); the benchmark itself checks its targets.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

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
    "the blocks alone, each page in its own process (forked)",  # the cold target's baseline
]
NUMBER = r"\d+\.\d\d"
ARGS = ["--pages", "1", "2", "--runs", "1", "--turns", "1", "--saves", "2", "--instructions", "1"]
"""Two sizes (the growth targets need two), valgrind at the smaller only: it runs a build tens of
times slower, and counting at one size tests the counting."""
OTHER_SECTIONS = "# How\n\n## Build speed by host\n\nthe hosts' table\n\n## Other\n\nkept\n"


@pytest.fixture(scope="module")
def docs_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("docs") / "how-this-site-is-built.md"
    page.write_text(OTHER_SECTIONS)
    return page


@pytest.fixture(scope="module")
def run(docs_page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *ARGS, "--check", "--write-docs", "--docs-page", docs_page],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def report(run: subprocess.CompletedProcess[str]) -> str:
    assert "targets met." in run.stdout, run.stderr
    return run.stdout


@pytest.mark.parametrize("pages", [1, 2])
def test_each_size_gets_a_row_per_scenario_with_seconds_and_ratio(report: str, pages: int) -> None:
    section = report.split(f"| {pages} pages, 1 runs of 1 turns |", 1)[1].split("\n\n", 1)[0]
    for scenario in SCENARIOS:
        each = rf"{NUMBER}(?: {NUMBER})*"
        row = rf"^\| {re.escape(scenario)} \| ({NUMBER}) \| ({NUMBER}) \| ({each}) \|$"
        match = re.search(row, section, re.MULTILINE)
        assert match, f"no row for {scenario!r} in:\n{section}"
        assert float(match[1]) > 0
        builds = {SCENARIOS[0]: 4}.get(scenario, 1)  # one turn: floor, warm, floor, prose, ...
        assert len(match[3].split()) == builds, "a floor build before and after each paired build"
    floor = re.search(rf"^\| {re.escape(SCENARIOS[0])} \| {NUMBER} \| ({NUMBER}) \|", section, re.M)
    assert floor and floor[1] == "1.00"  # the floor is its own unit


def test_instructions_of_a_floor_and_a_warm_build_are_counted_at_the_sizes_asked(
    report: str,
) -> None:
    header = "pages, one build each under valgrind | instructions (G) | x floor |"
    assert report.count(header) == 1 and f"| 1 {header}" in report  # not at 2 pages: not asked
    section = report.split(f"| 1 {header}", 1)[1].split("\n\n", 1)[0]
    count = r"(\d+\.\d{3})"
    floor = re.search(rf"^\| {re.escape(SCENARIOS[0])} \| {count} \| 1\.000 \|$", section, re.M)
    assert floor, section
    assert float(floor[1]) > 1  # billions: Python, MkDocs, Material
    for scenario in SCENARIOS[4:6]:  # warm, and one page's prose edited
        row = re.search(rf"^\| {re.escape(scenario)} \| {count} \| {count} \|$", section, re.M)
        assert row, (scenario, section)
        assert float(row[2]) == pytest.approx(float(row[1]) / float(floor[1]), abs=0.002)
    outputs = "the same pages, static: lessonkit's outputs pasted in, no lessonkit"
    row = re.search(rf"^\| {re.escape(outputs)} \| {count} \| {count} \|$", section, re.M)
    assert row and float(row[2]) > 1, section  # the tables cost more than the code they replace
    for scenario in SCENARIOS[4:6]:  # judged against the same pages, static; the floor: shown
        counted = re.search(rf"^\| {re.escape(scenario)} \| {count} \|", section, re.M)
        name = f"1 pages: {scenario[11:]}, instructions"
        target = re.search(
            rf"^\| {re.escape(name)} \| {count} x the same pages, static \| "
            r"1\.030 x the same pages, static \| (PASS|FAIL) \|",
            report,
            re.M,
        )
        assert target, (name, report)
        assert float(target[1]) == pytest.approx(float(counted[1]) / float(row[1]), abs=0.002)
        reference = re.search(
            rf"^\| \(reference\) {re.escape(name)} \| {count} x floor \|  \|"
            r"  \|",
            report,
            re.M,
        )
        assert reference, (name, report)  # no limit, no verdict
        assert float(reference[1]) == pytest.approx(float(counted[1]) / float(floor[1]), abs=0.002)


def test_every_target_gets_a_verdict(report: str) -> None:
    verdicts = re.findall(r"^\| (.+?) \| .+ \| .+ \| (PASS|FAIL) \| .*\|$", report, re.M)
    names = [name for name, _ in verdicts]
    for pages in (1, 2):
        for target, times in (
            ("warm rebuild", 1),
            ("one page's prose edited", 2 if pages == 1 else 1),  # by time (and instructions)
            ("cold build", 2),  # x (floor + isolated blocks alone / cores), x markdown-exec
            ("one page's code edited", 1),
            ("per-page inline CSS/JS", 1),
            ("6x6 heatmap SVG", 1),
            ("warm (nothing changed), instructions", 1 if pages == 1 else 0),
            ("serve, saved to served, prose edit", 1),
            ("serve, saved to served, code edit", 1),
        ):
            found = [n for n in names if n.startswith(f"{pages} pages: {target}")]
            assert len(found) == times, (target, names)
    assert any(n.startswith("2 vs 1 pages, cold") for n in names)
    assert any(n.startswith("2 vs 1 pages, warm") for n in names)
    assert not any("peak memory" in n for n in names)  # a target from 1,000 pages on only
    met = re.search(r"^(\d+) of (\d+) targets met\.$", report, re.MULTILINE)
    assert met and int(met[2]) == len(verdicts)
    assert int(met[1]) == sum(verdict == "PASS" for _, verdict in verdicts)


def test_check_fails_the_command_exactly_when_a_target_fails(
    run: subprocess.CompletedProcess[str], report: str
) -> None:
    failed = re.search(r"\| FAIL \|", report) is not None
    assert run.returncode == (1 if failed else 0), run.stderr


@pytest.mark.parametrize("option", ["--runs", "--turns", "--pages"])
def test_a_count_below_one_is_refused_before_anything_is_built(option: str) -> None:
    command = [sys.executable, str(SCRIPT), option, "0"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2
    assert f"argument {option}: '0' is not a whole number of at least 1" in done.stderr


@pytest.mark.parametrize("pages", [1, 2])
def test_peak_memory_counts_the_workers_of_a_cold_build(report: str, pages: int) -> None:
    header = f"| {pages} pages, one build each | peak memory, all its processes (MB of PSS) |"
    section = report.split(header, 1)[1].split("\n\n", 1)[0]
    isolated = f"{SCENARIOS[8]}, {os.cpu_count()} at once"
    rows = {
        scenario: re.search(
            rf"^\| {re.escape(scenario)} \| (\d+) \| ({NUMBER}) \| (\d+) \|$", section, re.M
        )
        for scenario in (SCENARIOS[0], SCENARIOS[2], isolated, SCENARIOS[3], SCENARIOS[4])
    }
    assert all(rows.values()), section
    floor, blocks, forked, cold, warm = rows.values()
    assert floor[2] == "1.00" and floor[3] == "1"  # MkDocs alone: one process
    assert blocks[3] == "1" and int(blocks[1]) > 10  # one Python process, numpy and matplotlib
    assert 2 <= int(forked[3]) <= 1 + min(pages, os.cpu_count() or 1)  # parent and its pages
    assert int(cold[3]) > 1  # the main process and its workers, sampled together
    assert int(cold[1]) > int(warm[1]) > 10  # workers hold memory of their own


@pytest.mark.parametrize("pages", [1, 2])
def test_the_cache_a_cold_build_leaves_is_measured_per_page(report: str, pages: int) -> None:
    section = report.split(f"| {pages} pages, one build each |", 1)[1]
    cache = re.search(r"`\.lessonkit/cache`\): (\d+) files, (\d+\.\d) KB per page", section)
    assert cache, section[:2000]
    assert int(cache[1]) >= pages and float(cache[2]) > 0


@pytest.mark.parametrize("pages", [1, 2])
def test_each_save_under_the_preview_is_timed_until_served(report: str, pages: int) -> None:
    header = f"| {pages} pages, `mkdocs serve --dirty`, 2 saves | median save to served (s) |"
    section = report.split(header, 1)[1].split("\n\n", 1)[0]
    for scenario in (
        "floor: one page's prose edited",
        "lessonkit: one page's prose edited",
        "lessonkit: one page's code edited",
    ):
        row = re.search(
            rf"^\| {re.escape(scenario)} \| ({NUMBER}) \| ({NUMBER} {NUMBER}) \|$", section, re.M
        )
        assert row, f"no timed saves for {scenario!r} in:\n{section}"
        assert float(row[1]) == pytest.approx(
            statistics.median(map(float, row[2].split())), abs=0.01
        )


def test_write_docs_replaces_its_own_section_only(
    run: subprocess.CompletedProcess[str], docs_page: Path
) -> None:
    page = docs_page.read_text()
    assert "## Build speed by host\n\nthe hosts' table\n\n## Other\n\nkept\n" in page
    section = page.split("## Build speed\n", 1)[1].split("\n## ", 1)[0]
    assert "a synthetic site of 1 and 2 pages" in section
    for table in (
        "| 2 pages, 1 runs of 1 turns |",
        "| 2 pages, `mkdocs serve --dirty`",
        "| target |",
    ):
        assert table in section
    assert re.search(r"\d+ of \d+ targets met\.", section)


@pytest.fixture
def benchmark(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script as a module (its helpers import from its folder)."""
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "benchmark", module)  # dataclasses look it up there
    spec.loader.exec_module(module)
    return module


def article(site: Path, number: int) -> str:
    html = (site / f"page-{number:03d}" / "index.html").read_text()
    found = re.search(r"<article\b[^>]*>(.*?)</article>", html, re.DOTALL)
    assert found, html[:2000]
    return found[1]


def test_the_outputs_flavour_builds_exactly_the_articles_lessonkit_builds(
    benchmark: ModuleType, tmp_path: Path
) -> None:
    """The instructions targets' baseline: the same content as lessonkit's pages (shown code,
    tables, figure), rendered by lessonkit, built without it, the same articles and search
    index; the floor lacks the outputs."""
    sites = {
        "lessonkit": benchmark.Site(tmp_path / "lessonkit", "lessonkit", 2),
        "outputs": benchmark.OutputsSite(tmp_path / "outputs", "outputs", 2),
        "floor": benchmark.Site(tmp_path / "floor", "floor", 2),
    }
    for site in sites.values():
        site.write()
        site.build()
    assert "exec" not in (sites["outputs"].docs / "page-001.md").read_text()
    assert "lessonkit" not in benchmark.config("outputs", 2)  # plain MkDocs and Material
    for number in (1, 2):
        built = {name: article(site.site, number) for name, site in sites.items()}
        assert built["outputs"] == built["lessonkit"]
        assert built["outputs"].count('<figure class="lk-figure"><svg') == 1
        assert built["outputs"].count("<table>") == 2
        assert "<table>" not in built["floor"] and "<svg" not in built["floor"]
    index = {
        name: json.loads((sites[name].site / "search" / "search_index.json").read_text())["docs"]
        for name in ("outputs", "lessonkit")
    }
    assert index["outputs"] == index["lessonkit"]  # neither holds the figure
    sites["outputs"].write_page(1, seed=7, extra="Edited.\n")  # an edit is rendered too
    assert "exec" not in (sites["outputs"].docs / "page-001.md").read_text()


def test_large_adds_1000_pages_with_fewer_runs_and_no_instructions_unless_named(
    benchmark: ModuleType,
) -> None:
    plans = benchmark.parse(["--large", "--instructions"]).plans
    assert [(p.pages, p.runs, p.turns, p.saves, p.count) for p in plans] == [
        (20, 5, 5, 5, True),
        (200, 5, 5, 5, True),
        (1000, 2, 2, 3, False),  # a build takes about a minute there
    ]
    named = benchmark.parse(["--pages", "20", "1000", "--instructions", "1000"]).plans
    assert [p.count for p in named] == [False, True]
    assert [p.count for p in benchmark.parse(["--large"]).plans] == [False] * 3


def test_instructions_at_a_size_not_measured_is_refused() -> None:
    command = [sys.executable, str(SCRIPT), "--pages", "20", "--instructions", "200"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2
    assert "--instructions [200]: not among the sizes measured, [20]" in done.stderr


def measured_sizes(
    benchmark: ModuleType, floor: float, lessonkit: float, blocks: float = 0.0
) -> list[object]:
    """200 and 1,000 pages where the floor grows ``floor`` times and lessonkit ``lessonkit``;
    the blocks alone take ``blocks`` seconds at 200 pages and five times that at 1,000."""
    sizes = []
    for pages, factor in ((200, 1.0), (1000, None)):
        m = benchmark.Measured(pages=pages)
        m.times["floor"] = [[10.0 * (factor or floor)]]
        m.times["isolated"] = [[blocks * (factor or 5.0)]]
        m.times["cold"] = m.times["warm"] = [[10.0 * (factor or lessonkit)]]
        sizes.append(m)
    return sizes


@pytest.mark.parametrize(
    ("floor", "lessonkit", "whose", "own"),
    [
        (5.0, 5.2, "", "PASS"),
        (5.9, 6.0, "the floor grows so", "PASS"),
        (9.8, 6.2, "the floor grows so", "PASS"),
        (5.0, 5.6, "lessonkit grows faster than the floor", "FAIL"),
    ],
)
def test_a_scaling_target_judges_lessonkits_growth_against_its_baselines(
    benchmark: ModuleType, floor: float, lessonkit: float, whose: str, own: str
) -> None:
    """The target is lessonkit's growth over the floor's; its growth alone is shown, and a step
    above linear says whose it is (MkDocs' own build grows faster than its page count)."""
    checks = benchmark.scaling_targets(*measured_sizes(benchmark, floor, lessonkit))
    reference, cold, cold_own, warm, warm_own = checks
    assert reference.verdict == "" and reference.value == pytest.approx(floor)
    for check in (cold, warm):
        assert check.limit is None and check.verdict == "" and check.name.startswith("(ref")
        assert check.value == pytest.approx(lessonkit)
        assert check.note.startswith(f"{lessonkit / floor:.2f} x the growth of ")
        above = "above 1.05 x linear (5.25 x)" in check.note
        assert above == (lessonkit > 5.25)
    assert warm.note.endswith(whose)
    for check in (cold_own, warm_own):  # lessonkit's part: no faster than the floor's growth
        assert check.value == pytest.approx(lessonkit / floor) and check.limit == 1.05
        assert check.verdict == own


def test_a_cold_builds_growth_is_judged_against_the_floor_and_the_blocks_it_must_run(
    benchmark: ModuleType,
) -> None:
    # The floor grows 3x (its start-up is fixed), the blocks alone 5x (linear), cold 4.5x.
    small, big = measured_sizes(benchmark, 3.0, 4.5, blocks=10.0 * benchmark.CORES)
    _reference, cold, cold_own, _warm, warm_own = benchmark.scaling_targets(small, big)
    assert warm_own.value == pytest.approx(1.5) and warm_own.verdict == "FAIL"
    assert cold_own.value == pytest.approx(4.5 / 4.0)  # (30 + 50) / (10 + 10) = 4x
    assert cold_own.verdict == "FAIL" and "blocks alone (own processes)" in cold_own.name
    assert cold.note.startswith("1.12 x the growth of floor + blocks alone (own processes)")


def test_each_paired_build_is_divided_by_the_mean_of_the_floor_builds_around_it(
    benchmark: ModuleType,
) -> None:
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


def test_hosts_gives_each_host_its_floor_and_lessonkit_cold_and_warm(tmp_path: Path) -> None:
    """``--hosts``: MkDocs and Zensical side by side, each ratio to that host's own floor (the
    script fails when a cold build does not run every page or a warm one runs any); with
    ``--write-docs`` the table goes into its own section, beside the build speed's."""
    page = tmp_path / "page.md"
    page.write_text("# How\n\n## Build speed\n\nthe build speed's tables\n")
    options = ["--pages", "1", "--runs", "1", "--turns", "1", "--write-docs", "--docs-page", page]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--hosts", *options],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    written = page.read_text()
    assert written.startswith("# How\n\n## Build speed\n\nthe build speed's tables\n\n")
    hosts = written.split("## Build speed by host\n", 1)[1]
    assert "| 1 pages, 1 runs | MkDocs (s) | x floor | Zensical (s) | x floor |" in hosts
    assert "| 1 pages, 1 runs | MkDocs (s) | x floor | Zensical (s) | x floor |" in done.stdout
    for scenario in ("floor: blocks shown as plain code", *SCENARIOS[3:5]):
        row = rf"^\| {re.escape(scenario)} \| {NUMBER} \| ({NUMBER}) \| {NUMBER} \| ({NUMBER}) \|$"
        match = re.search(row, done.stdout, re.MULTILINE)
        assert match, f"no row for {scenario!r} in:\n{done.stdout}"
        if scenario.startswith("floor"):
            assert match.groups() == ("1.00", "1.00")


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's helper modules importable by name."""
    monkeypatch.syspath_prepend(str(SCRIPT.parent))


HOLD = """\
import subprocess, sys
child = "block = bytearray(150_000_000); import time; time.sleep(1.5)"
subprocess.run([sys.executable, "-c", child], check=True)
"""


def test_the_peak_memory_of_a_process_tree_counts_its_children(helpers: None) -> None:
    import peak_memory

    peak, _ = peak_memory.run_sampled([sys.executable, "-c", HOLD], {}, "holding memory")
    assert peak.processes == 2
    assert peak.pss > 150_000_000  # the child's block, though the parent holds little


def test_a_failed_command_stops_the_memory_measurement_with_its_stderr(helpers: None) -> None:
    import peak_memory

    command = [sys.executable, "-c", "import sys; sys.exit('no such page')"]
    with pytest.raises(SystemExit, match="the build failed:\nno such page"):
        peak_memory.run_sampled(command, {}, "the build")


@pytest.fixture
def static_server(helpers: None, tmp_path: Path) -> Iterator[tuple[object, str, Path]]:
    """A server of ``tmp_path`` (a stand-in for a preview server), its page's URL, the page."""
    import serve_timing

    (tmp_path / "index.html").write_text("first")
    port = serve_timing.free_port()
    command = [sys.executable, "-m", "http.server", str(port), "-b", "127.0.0.1", "-d", tmp_path]
    with serve_timing.serving(command, {}, tmp_path.parent / "log", "Traceback") as server:
        url = f"http://127.0.0.1:{port}/index.html"
        serve_timing.wait_for(server, url, "first", timeout=20)
        yield server, url, tmp_path / "index.html"
    assert server.process.returncode is not None  # stopped on the way out


def test_each_save_is_timed_until_its_word_is_served(static_server: tuple) -> None:
    import serve_timing

    server, url, page = static_server
    served = serve_timing.time_saves(server, url, page.write_text, saves=3, timeout=10)
    assert served.failure == "" and len(served.seconds) == 3
    assert served.median == statistics.median(served.seconds)


def test_an_edit_never_served_fails_after_the_timeout_not_for_ever(
    static_server: tuple, tmp_path: Path
) -> None:
    import serve_timing

    server, url, _ = static_server
    served = serve_timing.time_saves(server, url, (tmp_path / "other.html").write_text, 2, 0.5)
    assert served.seconds == [] and served.median == float("inf")
    assert served.failure.startswith(f"{url} did not serve 'fresh")
    assert served.failure.splitlines()[0].endswith("within 0.5 s:")


def test_a_server_that_exits_is_reported_with_its_output(helpers: None, tmp_path: Path) -> None:
    import serve_timing

    command = [sys.executable, "-c", "print('Aborted with 1 warnings'); raise SystemExit(1)"]
    failure = pytest.raises(serve_timing.ServeFailure, match=r"exited \(1\):\nAborted with 1")
    with serve_timing.serving(command, {}, tmp_path / "log") as server, failure:
        serve_timing.wait_for(server, "http://127.0.0.1:9/", "word", timeout=20)


def test_the_cold_target_is_judged_against_the_blocks_each_in_its_own_process(
    benchmark: ModuleType,
) -> None:
    """Pages may not share state, so the cold build's baseline runs each page in its own
    process; the blocks in one process stay beside it, as a reference without a verdict."""
    cores = benchmark.CORES
    m = benchmark.Measured(pages=2)
    m.times |= {
        "floor": [[1.0, 1.0]],
        "blocks": [[2.0 * cores]],
        "isolated": [[4.0 * cores]],
        "cold": [[6.0]],
        "markdown-exec": [[10.0]],
        "warm": [[1.0]],
        "prose": [[1.0]],
        "code": [[2.0]],
        "page": [[1.0]],
    }
    m.around = {scenario: [[(1.0, 1.0)]] for scenario in ("warm", "prose", "code")}
    m.weight = {"inline": 0, "svg": 1000}
    cold = [c for c in benchmark.timing_targets(m) if "cold build" in c.name]
    judged, reference, against_markdown_exec = cold
    assert judged.value == pytest.approx(6.0 / (1.0 + 4.0)) and judged.verdict == "FAIL"
    assert "each page in its own process" in judged.unit
    assert reference.value == pytest.approx(6.0 / (1.0 + 2.0)) and reference.verdict == ""
    assert reference.name.startswith("(reference)") and "one process" in reference.unit
    assert against_markdown_exec.value == pytest.approx(0.6) and against_markdown_exec.ok


def run_blocks(
    benchmark: ModuleType, pages: dict[int, list[str]], *, isolated: bool, at_once: int = 1
) -> subprocess.CompletedProcess[str]:
    """The blocks-alone script for ``pages`` (seed -> its blocks' sources), run."""
    benchmark.blocks = lambda seed: pages[seed]
    script = benchmark.blocks_script(list(pages), isolated=isolated, at_once=at_once)
    command = [sys.executable, "-c", script]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("isolated", "printed"), [(True, "[0.123456]"), (False, "[0.1]")])
def test_the_isolated_blocks_share_no_state_between_pages(
    benchmark: ModuleType, isolated: bool, printed: str
) -> None:
    """Page 1 changes NumPy's print options: page 2 sees that only when they share a process."""
    pages = {
        1: ["import numpy as np\nnp.set_printoptions(precision=1)"],
        2: ["import numpy as np\nprint(np.array([0.123456]))"],
    }
    done = run_blocks(benchmark, pages, isolated=isolated)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed


def test_a_failing_page_stops_the_isolated_blocks(benchmark: ModuleType) -> None:
    done = run_blocks(
        benchmark, {1: ["raise ValueError('broken')"], 2: ["print(2)"]}, isolated=True
    )
    assert done.returncode != 0 and "a page failed" in done.stderr
    assert "2" not in done.stdout  # the run stops at the failed page


def test_a_failing_page_stops_the_pages_running_beside_it(
    benchmark: ModuleType, tmp_path: Path
) -> None:
    flag = tmp_path / "page-2-finished"
    pages = {
        1: ["raise ValueError('broken')"],
        2: [f"import time\ntime.sleep(120)\nopen({str(flag)!r}, 'w')"],
    }
    done = run_blocks(benchmark, pages, isolated=True, at_once=2)  # unstopped: a timeout
    assert done.returncode != 0 and "a page failed" in done.stderr
    assert not flag.exists()  # page 2 was stopped, not left to finish (or to hold the pipes)


@pytest.mark.parametrize(("at_once", "ok"), [(1, False), (2, True)])
def test_the_isolated_blocks_run_as_many_pages_at_once_as_asked(
    benchmark: ModuleType, tmp_path: Path, at_once: int, ok: bool
) -> None:
    """The memory target's baseline runs as many pages at once as lessonkit's workers: page 1
    waits for a file page 2 writes, which it can see only if page 2 runs beside it."""
    flag = tmp_path / "page-2-ran"
    wait = (
        "import pathlib, time\n"
        f"deadline = time.monotonic() + 3\nflag = pathlib.Path({str(flag)!r})\n"
        "while not flag.exists():\n"
        "    assert time.monotonic() < deadline, 'page 2 did not run beside page 1'\n"
        "    time.sleep(0.01)\n"
    )
    pages = {1: [wait], 2: [f"open({str(flag)!r}, 'w')"]}
    done = run_blocks(benchmark, pages, isolated=True, at_once=at_once)
    assert (done.returncode == 0) is ok, done.stderr
    assert flag.exists() is ok  # one at a time: page 1 failed, and the run stopped before page 2


def test_the_cold_memory_target_is_judged_against_the_blocks_each_in_its_own_process(
    benchmark: ModuleType,
) -> None:
    """As the cold time target: the baseline's pages run in their own processes, as many at
    once as lessonkit's; the blocks in one process stay beside it, as a reference."""
    peak = benchmark.Peak
    m = benchmark.Measured(pages=benchmark.LARGE)
    m.footprint = {
        "floor": peak(100, 1),
        "blocks": peak(80, 1),
        "isolated": peak(110, 3),
        "cold": peak(250, 6),
        "warm": peak(110, 1),
    }
    judged, reference, warm = benchmark.footprint_targets(m)
    assert judged.value == pytest.approx(250 / 210) and judged.ok and judged.limit == 1.2
    assert f"{benchmark.CORES} at once" in judged.unit
    assert reference.value == pytest.approx(250 / 180) and reference.limit is None
    assert reference.name.startswith("(reference)") and reference.verdict == ""
    assert warm.value == pytest.approx(1.1) and warm.ok


def test_a_code_edit_is_judged_against_the_warm_rebuild_plus_that_pages_blocks(
    benchmark: ModuleType,
) -> None:
    """A code edit does a warm rebuild's work and runs one page: its target adds that page's
    blocks to the warm rebuild of the same turn (each over its own floor builds); over the
    floor alone, which leaves the warm rebuild's overhead no room, it is a reference."""
    m = benchmark.Measured(pages=2)
    m.times |= {"floor": [[1.0] * 6], "warm": [[1.2]], "prose": [[1.2]], "code": [[2.5]]}
    m.times |= {"page": [[1.0]], "blocks": [[1.0]], "isolated": [[1.0]], "cold": [[1.0]]}
    m.times |= {"markdown-exec": [[2.0]]}
    m.around = {"warm": [[(1.0, 1.0)]], "prose": [[(1.0, 1.0)]], "code": [[(2.0, 2.0)]]}
    m.weight = {"inline": 0, "svg": 1000}
    judged, reference = [c for c in benchmark.timing_targets(m) if "code edited" in c.name]
    # the code edit's floor is 2.0 s: warm at 1.2 x floor is 2.4 s, plus 1.2 x 1.0 s
    assert judged.value == pytest.approx(2.5 / (2.4 + 1.2)) and judged.ok
    assert "warm rebuild" in judged.unit
    assert reference.value == pytest.approx(2.5 / (2.0 + 1.2)) and reference.verdict == ""
    assert reference.name.startswith("(reference)")
