"""A page's cache entry follows the lessonkit (and local) modules its code imports, by their
source; installed libraries are in every page's key: an upgrade re-runs every page once."""

from __future__ import annotations

import importlib
import multiprocessing.forkserver as forkserver
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lessonkit.execute import cache, digests, imports
from lessonkit.execute.engine import Engine
from lessonkit.execute.imports import ImportWatch
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program

LAB = Path(imports.__file__).resolve().parents[1] / "lab"
REPORT = LAB.parent / "report"

PAGES = {
    # lessonkit.lab.figures imports lessonkit.lab.tokens (lessonkit/lab/__init__.py imports none).
    "figures.md": "```python exec\nfrom lessonkit.lab.figures import cost_curve\n```\n",
    "cost.md": "```python exec\nfrom lessonkit.lab.cost import comparisons\n```\n",
    # A lab module reached through its package: this page depends on trace.py only.
    "trace.md": "```python exec\nfrom lessonkit.lab import trace\n\ntrace.softmax_trace([1], [2])\n```\n",  # noqa: E501
    # Outside the lab, and outside the execution machinery that every key holds.
    "report.md": "```python exec\nfrom lessonkit.report.links import page_report\n```\n",
    "numbers.md": "```python exec\nimport numpy as np\n\nprint(np.arange(4).sum())\n```\n",
    # matplotlib alone: it runs under the lab's figure style, and depends on that, not the lab.
    "plot.md": "```python exec\nimport matplotlib.pyplot as plt\n\nprint(plt.get_fignums())\n```\n",
    "contours.md": "```python exec\nimport contourpy\n\nprint(contourpy.__name__)\n```\n",
    "plain.md": "```python exec\nimport json\n\nprint(json.dumps(6 * 7))\n```\n",
}


@pytest.fixture
def engine(tmp_path: Path):
    engine = Engine(tmp_path / "cache", workers=1, timeout=30)
    yield engine
    engine.close()


def _ran(engine: Engine, pages: dict[str, str]) -> set[str]:
    """Look every page up (as a new build does) and return those that actually ran."""
    engine.forget()
    ran = set()
    for name, text in pages.items():
        before = engine.executed
        result = engine.result(parse_program(text, page=name), f"docs/{name}")
        assert result.ok, result.problems
        if engine.executed > before:
            ran.add(name)
    return ran


def _seen_as_edited(monkeypatch: pytest.MonkeyPatch, edited: Path) -> None:
    """From now on the parent's cache sees ``edited`` with other content, as after a comment
    edit."""
    real = cache.current_digest

    def digest(path: str) -> str | None:
        return "edited" if Path(path) == edited else real(path)

    monkeypatch.setattr(cache, "current_digest", digest)


def test_editing_a_lab_module_reruns_only_the_pages_that_import_it(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _ran(engine, PAGES) == set(PAGES)
    assert _ran(engine, PAGES) == set()
    _seen_as_edited(monkeypatch, LAB / "tokens.py")  # figures.md reaches it through figures.py
    assert _ran(engine, PAGES) == {"figures.md"}
    monkeypatch.undo()  # entries hold the digests the worker saw: one edit at a time
    _seen_as_edited(monkeypatch, LAB / "cost.py")  # figures.py imports cost.py too
    assert _ran(engine, PAGES) == {"figures.md", "cost.md"}
    monkeypatch.undo()
    _seen_as_edited(monkeypatch, LAB / "trace.py")
    assert _ran(engine, PAGES) == {"figures.md", "trace.md"}
    monkeypatch.undo()
    _seen_as_edited(monkeypatch, LAB / "figure_style.py")  # every page drawing with matplotlib
    assert _ran(engine, PAGES) == {"figures.md", "plot.md"}


def test_editing_a_module_outside_the_lab_reruns_only_its_pages(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _ran(engine, PAGES) == set(PAGES)
    _seen_as_edited(monkeypatch, REPORT / "links.py")
    assert _ran(engine, PAGES) == {"report.md"}


def test_upgrading_a_library_reruns_every_page_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed distributions' metadata is part of every key (one digest a build): after
    an upgrade (here: numpy's version seen changed) every page runs once, then none."""

    def build() -> set[str]:
        engine = Engine(tmp_path / "cache", workers=1, timeout=30)
        try:
            return _ran(engine, PAGES)
        finally:
            engine.close()

    assert build() == set(PAGES)
    assert build() == set()
    real = digests.metadata.distributions

    def upgraded():
        for dist in real():
            text = dist.read_text("METADATA") or ""
            if dist.name == "numpy":  # the same distribution, another version
                dist.read_text = lambda name, text=text: text.replace("Version: ", "Version: 99")
            yield dist

    monkeypatch.setattr(digests.metadata, "distributions", upgraded)
    digests.environment_digest.cache_clear()
    imports.machinery_digest.cache_clear()
    try:
        assert build() == set(PAGES)
        assert build() == set()
    finally:
        monkeypatch.undo()
        digests.environment_digest.cache_clear()
        imports.machinery_digest.cache_clear()


def test_the_entry_records_lessonkit_sources_not_libraries(engine: Engine) -> None:
    result = engine.result(parse_program(PAGES["figures.md"], page="f.md"), "docs/f.md")
    sources = {Path(p).relative_to(LAB.parent).as_posix() for p in result.sources}
    assert {"lab/figures.py", "lab/tokens.py", "lab/attention.py", "__init__.py"} <= sources
    assert not any(s.startswith("execute/") for s in sources - {"execute/__init__.py"})
    assert not any("-packages" in path for path in result.sources)  # the key covers those
    plain = engine.result(parse_program(PAGES["plain.md"], page="p.md"), "docs/p.md")
    assert plain.sources == {}


def test_a_page_using_matplotlib_depends_on_the_figure_style_it_runs_under(
    engine: Engine,
) -> None:
    text = "```python exec\nimport matplotlib as mpl\n\nprint(mpl.rcParams['font.size'])\n```\n"
    result = engine.result(parse_program(text, page="mpl.md"), "docs/mpl.md")
    assert str(LAB / "figure_style.py") in result.sources
    assert str(LAB / "figures.py") not in result.sources  # nor what the lab's figures use


def test_editing_a_local_module_reruns_its_pages_with_the_new_code(
    engine: Engine, tmp_path: Path
) -> None:
    """A real edit on disk, of a package no distribution provides: followed like lessonkit."""
    package = tmp_path / "lib" / "lk_local_helpers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "numbers.py").write_text("VALUE = 1\n")
    (package / "user.py").write_text("from lk_local_helpers.numbers import VALUE\n")
    (package / "other.py").write_text("OTHER = 'x'\n")
    head = f"```python exec\nimport sys\n\nsys.path.insert(0, {str(package.parent)!r})\n"
    pages = {
        "user.md": head + "from lk_local_helpers.user import VALUE\n\nprint(VALUE)\n```\n",
        "other.md": head + "from lk_local_helpers.other import OTHER\n\nprint(OTHER)\n```\n",
    }
    assert _ran(engine, pages) == set(pages)
    (package / "numbers.py").write_text("VALUE = 2  # the worker holds VALUE = 1\n")
    assert _ran(engine, pages) == {"user.md"}
    # The worker that had imported the old file was replaced: the page saw the new one.
    result = engine.result(parse_program(pages["user.md"], page="user.md"), "docs/user.md")
    assert result.steps[0].stdout == "2\n"


def test_a_module_the_page_writes_itself_is_part_of_the_page(engine: Engine) -> None:
    text = (
        "```python exec\nimport os, sys\n\n"
        "open('lk_scratch.py', 'w').write('X = 5')\nsys.path.insert(0, os.getcwd())\n"
        "import lk_scratch\n\nprint(lk_scratch.X)\n```\n"
    )
    assert _ran(engine, {"scratch.md": text}) == {"scratch.md"}
    assert _ran(engine, {"scratch.md": text}) == set(), "its temporary folder is gone: no miss"
    server = forkserver._forkserver._forkserver_pid
    assert _ran(engine, {"after.md": PAGES["plain.md"]}) == {"after.md"}
    assert forkserver._forkserver._forkserver_pid == server, "the server was taken for stale"


def test_imports_of_already_loaded_modules_are_recorded() -> None:
    import numpy  # noqa: F401  (loaded before the page runs, as in a worker)

    watch = ImportWatch()
    program = parse_program("```python exec\nimport numpy\nfrom lessonkit.lab import cost\n```\n")
    result = run_program(program, "docs/page.md", imports=watch)
    assert {"numpy", "lessonkit.lab", "lessonkit.lab.cost"} <= watch.modules
    assert str(LAB / "cost.py") in result.sources


def test_the_standard_library_is_not_recorded_import_module_is() -> None:
    watch = ImportWatch()
    with watch.recording():
        import json.decoder  # noqa: F401  (Python's version covers it)

        importlib.import_module("yaml")
    assert "yaml" in watch.modules
    assert not any(name.startswith("json") for name in watch.modules)


def test_the_key_holds_the_execution_machinery_not_the_lab() -> None:
    files = {Path(p).relative_to(LAB.parent).as_posix() for p in imports.machinery_files()}
    assert {"execute/runner.py", "execute/svg.py", "core/problems.py"} <= files
    assert not any(f.startswith(("lab/", "widgets/", "report/")) for f in files)


EDITED_UNDER_A_RUNNING_SERVER = """\
import multiprocessing.forkserver as forkserver
import sys
from pathlib import Path

from lessonkit.execute import worker
from lessonkit.execute.program import parse_program

style_file = Path(sys.argv[1])
pool = worker.WorkerPool(1, 30)
code = "from lessonkit.lab import figure_style\\nprint(getattr(figure_style, 'MARK', 0))"
page = "```python exec\\n" + code + "\\n```\\n"


def mark(n):
    job = worker.Job(parse_program(page + "<!-- %d -->" % n), "page.md", "", style_file.parent)
    result = pool.run(job)
    assert result.ok, result.problems
    return result.steps[0].stdout.strip()


print(mark(1))
first = forkserver._forkserver._forkserver_pid
style_file.write_text(style_file.read_text() + "\\nMARK = 2\\n")
print(mark(2))
print(forkserver._forkserver._forkserver_pid not in (None, first), worker._reaped(first, 30))
pool.close()
"""


def test_a_lessonkit_file_edited_while_the_fork_server_runs_reaches_the_next_page(
    tmp_path: Path,
) -> None:
    # The fork server holds lessonkit's runner and figure style (mkdocs serve keeps it): a page
    # forked from it after an edit holds the old file, so the server is replaced.
    copy = tmp_path / "src" / "lessonkit"
    shutil.copytree(LAB.parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    script = tmp_path / "edit.py"
    script.write_text(EDITED_UNDER_A_RUNNING_SERVER)
    style_file = copy / "lab" / "figure_style.py"
    done = subprocess.run(
        [sys.executable, str(script), str(style_file)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "2", "True", "True"], done.stderr


def test_a_module_s_imports_rewritten_within_its_mtime_s_tick_are_read_again(
    tmp_path: Path,
) -> None:
    """What a local module imports (which files a page depends on) is read again while the
    file's mtime is recent, as its digest is: a second save of the same size within one tick
    of the file system's clock keeps the mtime, and the first save's list would stay."""
    module = tmp_path / "helper.py"
    module.write_text("import one1\n")
    assert imports._imports_in(str(module), "helper") == ("one1",)
    before = module.stat()
    module.write_text("import two2\n")  # the same size, and then the same mtime
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert imports._imports_in(str(module), "helper") == ("two2",)
