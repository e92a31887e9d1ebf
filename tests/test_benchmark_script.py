"""scripts/benchmark.py runs end to end on a tiny site of both kinds and reports every row.

No timing is asserted here (timed tests are flaky); the benchmark itself checks its targets.
"""

from __future__ import annotations

import importlib.util
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
NUMBER = r"\d+\.\d\d"
ROWS = {
    "synthetic": [
        ("floor: no execution, no lessonkit", "floor"),
        ("markdown-exec, executing the blocks", "floor"),
        ("lessonkit, cold (empty cache)", "markdown-exec"),
        ("lessonkit, warm (nothing changed)", "floor"),
        ("lessonkit at `HEAD`, cold", "markdown-exec"),
        ("lessonkit at `HEAD`, warm", "floor"),
    ],
    "real": [
        ("floor: no execution, no lessonkit", "floor"),
        ("lessonkit, cold (empty cache)", "floor"),
        ("lessonkit, warm (nothing changed)", "floor"),
        ("lessonkit at `HEAD`, cold", "floor"),
        ("lessonkit at `HEAD`, warm", "floor"),
    ],
}
KINDS = {
    "synthetic": "synthetic pages (600 words, 4 blocks each)",
    "real": "this site's lesson, copied",
}
ARGS = ["--pages", "1", "--runs", "1", "--saves", "1", "--against", "HEAD"]
OTHER_SECTIONS = "# Benchmarks\n\n## Build speed\n\nold\n\n## Quality budget\n\nkept\n"


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bench")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("out") / "BENCHMARKS.md"
    page.write_text(OTHER_SECTIONS)
    return page


@pytest.fixture(scope="module")
def run(kept: Path, out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *ARGS, "--check", "--write", "--out", str(out)]
    return subprocess.run(
        [*command, "--keep", str(kept)], capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def report(run: subprocess.CompletedProcess[str]) -> str:
    assert "targets met." in run.stdout, run.stderr
    return run.stdout


def table(report: str, header: str) -> str:
    assert header in report, report
    return report.split(header, 1)[1].split("\n\n", 1)[0]


@pytest.mark.parametrize("kind", list(ROWS))
def test_each_kind_gets_a_row_per_build_with_seconds_and_its_ratio(report: str, kind: str) -> None:
    section = table(report, f"| 1 pages, {KINDS[kind]}, 1 runs |")
    found = {}
    for row, unit in ROWS[kind]:
        line = rf"^\| {re.escape(row)} \| ({NUMBER}) \| ({NUMBER}) x {unit} \| ([\d. ]+) \|$"
        match = re.search(line, section, re.M)
        assert match, f"no row {row!r} in:\n{section}"
        found[row] = match
    floor = found[ROWS[kind][0][0]]
    assert floor[2] == "1.00" and len(floor[3].split()) == 2  # a floor before and after
    mean = statistics.mean(float(s) for s in floor[3].split())
    for row, unit in ROWS[kind][1:]:
        match = found[row]
        # Cold is divided by its run's markdown-exec; every other row by the floors around it.
        base = float(found[ROWS[kind][1][0]][1]) if unit == "markdown-exec" else mean
        assert float(match[2]) == pytest.approx(float(match[1]) / base, rel=0.03), row


@pytest.mark.parametrize("kind", list(ROWS))
def test_peak_memory_counts_every_process_of_a_build(report: str, kind: str) -> None:
    section = table(report, f"| 1 pages, {KINDS[kind]}, one build (warm: median of 3) |")
    rows = re.findall(r"^\| (.+?) \| (\d+) \| [\d.]+ \| (\d+) \|$", section, re.M)
    assert len(rows) == len(ROWS[kind]), section
    cold = re.search(
        r"^\| lessonkit, cold \(empty cache\) \| (\d+) \| [\d.]+ \| (\d+) \|$", section, re.M
    )
    assert cold and int(cold[2]) > 1, section  # the build and the workers it starts
    assert int(cold[1]) > 0


@pytest.mark.parametrize("kind", list(ROWS))
def test_a_prose_save_under_the_preview_is_timed_for_the_floor_and_lessonkit(
    report: str, kind: str
) -> None:
    section = table(report, f"| 1 pages, {KINDS[kind]}, `mkdocs serve --dirty`, 1 prose saves |")
    for row in ("floor", "lessonkit", "lessonkit at `HEAD`"):
        assert re.search(rf"^\| {re.escape(row)} \| {NUMBER} \| {NUMBER} \|$", section, re.M), (
            section
        )


def test_the_real_kind_builds_the_lesson_with_its_values_computed(kept: Path, run: object) -> None:
    """The copies are the lesson itself: lessonkit computes its inline values, the floor shows
    them as written."""
    page = "transformers-and-attention"  # the first copy keeps the lesson's name
    built = (kept / "real-1" / "lessonkit" / "site" / page / "index.html").read_text()
    floor = (kept / "real-1" / "floor" / "site" / page / "index.html").read_text()
    assert "{{" not in built and "{{" in floor
    assert 'class="lk-figure"' in built


def test_every_target_gets_a_verdict_and_check_fails_exactly_when_one_fails(
    run: subprocess.CompletedProcess[str], report: str
) -> None:
    verdicts = re.findall(r"^\| (.+?) \| .+ \| .+ \| (PASS|FAIL) \|$", report, re.M)
    names = [name for name, _ in verdicts]
    assert "1 pages, synthetic: cold build" in names
    assert "1 pages, synthetic: warm build" in names
    assert "1 pages, real: prose save to served" in names
    assert "1 pages, real: peak memory, cold" in names
    assert not any("instructions" in name for name in names)  # retired: not a target
    met = re.search(r"^(\d+) of (\d+) targets met\.$", report, re.M)
    assert met and int(met[2]) == len(verdicts)
    assert int(met[1]) == sum(verdict == "PASS" for _, verdict in verdicts)
    assert run.returncode == (0 if int(met[1]) == len(verdicts) else 1), run.stderr


def test_write_replaces_its_own_section_only(out: Path, report: str) -> None:
    text = out.read_text()
    assert text.startswith("# Benchmarks\n\n## Build speed\n\n`scripts/benchmark.py`")
    assert "\n\nold\n" not in text and text.endswith("## Quality budget\n\nkept\n")
    assert "| 1 pages, this site's lesson, copied, 1 runs |" in text


@pytest.mark.parametrize("option", ["--runs", "--saves", "--pages"])
def test_a_count_below_one_is_refused_before_anything_is_built(option: str) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), option, "0"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert f"argument {option}: '0' is not a whole number of at least 1" in done.stderr


@pytest.fixture
def benchmark(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script as a module (its helpers import from its folder)."""
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("benchmark", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "benchmark", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_a_real_page_links_home_and_its_floor_runs_nothing(benchmark: ModuleType) -> None:
    lesson = benchmark.real_page("lessonkit")
    assert "```python exec" in lesson and "{{" in lesson
    assert not re.search(r"\]\((?!https?:|#|index\.md\))[^)]*\.md", lesson)  # no other page
    assert "```python exec" not in benchmark.real_page("floor")


def test_the_targets_are_the_issues(benchmark: ModuleType) -> None:
    """Cold <= 0.80x markdown-exec and warm <= 1.10x the floor (synthetic), a save within 1 s
    below 1,000 pages, and with --against, peak memory no higher than before."""
    Peak, Served = benchmark.Peak, benchmark.Served
    found = []
    for kind, pages in (("synthetic", 20), ("real", 1000)):
        m = benchmark.Measured(kind, pages)
        m.ratios = {"cold": [0.79], "warm": [1.11]}
        m.saves = {"lessonkit": Served([0.9])}
        m.memory = {k: Peak(100, 1) for k in ("cold", "warm", "before-warm")}
        m.memory["before-cold"] = Peak(90, 1)
        found.append(m)
    checks = {c.name: c.ok for c in benchmark.targets(found, "main")}
    assert checks == {
        "20 pages, synthetic: cold build": True,
        "20 pages, synthetic: warm build": False,
        "20 pages, synthetic: prose save to served": True,
        "20 pages, synthetic: peak memory, cold": False,
        "20 pages, synthetic: peak memory, warm": True,
        "1000 pages, real: peak memory, cold": False,
        "1000 pages, real: peak memory, warm": True,
    }


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


# --- notebooks side by side (no peer is built here) -------------------------------------------


def test_each_tool_builds_the_corpus_unedited_with_its_own_configuration(
    benchmark: ModuleType,
) -> None:
    import yaml

    notebooks = ["magics", "display", "figures", "errors", "sub/reading"]
    peer = yaml.safe_load(benchmark.nb_config("mkdocs-jupyter")["mkdocs.yml"])
    assert peer["nav"] == ["index.md", *(f"{name}.ipynb" for name in notebooks)]
    assert peer["plugins"] == ["search", {"mkdocs-jupyter": {"execute": True}}]
    ours = yaml.safe_load(benchmark.nb_config("lessonkit")["mkdocs.yml"])
    assert ours["nav"] == ["index.md", *(f"{name}.md" for name in notebooks)]
    assert ours["plugins"] == ["search", "lessonkit"] and ours["theme"] == peer["theme"]
    book = {k: yaml.safe_load(v) for k, v in benchmark.nb_config("jupyter-book").items()}
    assert [c["file"] for c in book["docs/_toc.yml"]["chapters"]] == notebooks
    assert book["docs/_config.yml"]["execute"]["execute_notebooks"] == "cache"  # warm reuses


def test_a_peer_not_installed_is_said_in_one_line_and_gets_no_column(
    benchmark: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bare = tmp_path / "python"  # a Python with neither peer: importlib.metadata finds nothing
    bare.write_text("#!/bin/sh\nexit 1\n")
    bare.chmod(0o755)
    assert benchmark.find_peers(["/no/such/python", str(bare)]) == []
    said = capsys.readouterr().err.splitlines()
    assert [line.split()[0] for line in said] == ["mkdocs-jupyter", "jupyter-book"]
    assert all(
        line.endswith("is not installed (jupyter-book: 1.x) for any of --peers: no column")
        for line in said
    )


def test_the_side_by_side_table_has_a_row_per_measure_and_a_column_per_tool(
    benchmark: ModuleType,
) -> None:
    columns = {
        "lessonkit": {"cold build (s)": "5.00 (5.00)", "links": "6 of 6"},
        "mkdocs-jupyter 0.26.3": {"cold build (s)": "20.00 (20.00)", "links": "2 of 6"},
    }
    assert benchmark.nb_table(columns) == (
        "| the corpus | lessonkit | mkdocs-jupyter 0.26.3 |\n| --- | --- | --- |\n"
        "| cold build (s) | 5.00 (5.00) | 20.00 (20.00) |\n| links | 6 of 6 | 2 of 6 |"
    )


def test_a_link_counts_only_when_it_reaches_a_built_page_and_the_heading_it_names(
    helpers: None, tmp_path: Path
) -> None:
    import notebook_probe

    for page in ("magics/index.html", "errors/index.html", "flat/errors.html"):
        (tmp_path / page).parent.mkdir(exist_ok=True)
        (tmp_path / page).write_text('<h2 id="a-broadcasting-error">A broadcasting error</h2>')
    magics, flat = tmp_path / "magics" / "index.html", tmp_path / "flat" / "magics.html"
    reaches = notebook_probe.reaches
    assert reaches(magics, "../errors/#a-broadcasting-error") == (True, True)
    assert reaches(magics, "../errors/#A-broadcasting-error") == (True, False)  # Jupyter's id
    assert reaches(magics, "errors.ipynb#A-broadcasting-error") == (False, False)  # a 404
    assert reaches(magics, "../errors/") == (True, True)
    assert reaches(flat, "errors.html#a-broadcasting-error") == (True, True)
    assert reaches(magics, "https://example.org/errors/") == (False, False)
    assert reaches(magics, "") == (False, False)


@pytest.mark.parametrize(
    ("figure", "described"),
    [
        ('<svg role="img" aria-label="Generated description: a bar chart">', True),
        ('<img src="data:image/png;base64,..." alt="A scatter plot of 5,000 points">', True),
        ('<img alt="No description has been provided for this image" src="data:...">', False),
        ('<img alt="_images/3bd27df5.png" src="_images/3bd27df5.png">', False),
        ('<img src="x.png">', False),
    ],
)
def test_a_figure_is_described_only_by_an_alt_text_that_says_something(
    helpers: None, figure: str, described: bool
) -> None:
    import notebook_probe

    assert notebook_probe.FIGURE.fullmatch(figure)
    assert bool(notebook_probe.DESCRIBED.search(figure)) is described


def test_without_peers_the_notebooks_section_has_lessonkit_alone_and_no_target(
    tmp_path: Path,
) -> None:
    """The one notebooks run here: lessonkit's builds of the corpus (about 20 s), no peer."""
    out = tmp_path / "BENCHMARKS.md"
    out.write_text(OTHER_SECTIONS)
    command = [sys.executable, str(SCRIPT), "--kinds", "notebooks", "--runs", "1"]
    command += ["--peers", "/no/such/python", "--write", "--out", str(out), "--check"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "mkdocs-jupyter is not installed (jupyter-book: 1.x) for any of --peers" in done.stderr
    text = out.read_text()
    assert "\n\nold\n" in text and "## Quality budget\n\nkept\n" in text  # other sections kept
    section = text.split("## Notebooks side by side\n", 1)[1]
    assert "| the corpus | lessonkit |\n| --- | --- |\n" in section
    rows = dict(re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.M))
    assert re.fullmatch(rf"{NUMBER} \({NUMBER}\)", rows["cold build (s)"])
    assert rows["`name_never_defined` in 2 notebooks"].startswith("fails, names 2")
    assert "0 of 0 targets met." in section
