"""A page's cache entry follows every file its code read and every folder it listed, anywhere.

Left out, because something else covers them: Python's installation and site-packages (Python's
version and the installed distributions, in every key), the import system's reads (the imports), the
page's own working folder and the files it wrote itself.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lessonkit.execute.cache import Cache
from lessonkit.execute.engine import Engine
from lessonkit.execute.filewatch import LISTING, FileWatch
from lessonkit.execute.program import parse_program
from lessonkit.execute.results import PageResult, StepResult


def _reads(code: str, cwd: Path) -> dict[str, str]:
    watch = FileWatch(own_folder=cwd)
    namespace: dict[str, object] = {"__name__": "__lesson__"}
    with watch.active():
        exec(code, namespace)
    return watch.reads()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "x.txt").write_text("41\n")
    (folder / "y.txt").write_text("1\n")
    return folder


LISTINGS = {
    "os.listdir": "import os\nos.listdir(DATA)",
    "os.scandir": "import os\nlist(os.scandir(DATA))",
    "glob.glob": "import glob\nglob.glob(DATA + '/*.txt')",
    "Path.iterdir": "from pathlib import Path\nlist(Path(DATA).iterdir())",
    "Path.glob": "from pathlib import Path\nlist(Path(DATA).glob('*.txt'))",
    "os.walk": "import os\nlist(os.walk(DATA))",
}


@pytest.mark.parametrize("code", LISTINGS.values(), ids=LISTINGS.keys())
def test_a_listed_folder_is_recorded_with_a_digest_of_its_names(
    code: str, data: Path, tmp_path: Path
) -> None:
    reads = _reads(f"DATA = {str(data)!r}\n{code}", tmp_path / "elsewhere")
    assert str(data) + LISTING in reads


def test_files_read_anywhere_are_recorded_but_not_pythons_own(data: Path, tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.mkdir()
    (tmp_path / "on-sys-path").mkdir()
    code = f"""
import os, json, numpy
open({str(data / "x.txt")!r}).read()
open(json.__file__).read()  # the standard library: Python's version covers it
open(numpy.__file__).read()  # site-packages: numpy's version covers it
open({str(own / "scratch.txt")!r}, "w").write("mine")
open({str(own / "scratch.txt")!r}).read()  # the page's own working folder
open({str(tmp_path / "written.txt")!r}, "w").write("the page wrote it")
open({str(tmp_path / "written.txt")!r}).read()  # what the page wrote is its own output
open("/proc/self/status").read()
import lessonkit.lab.attention  # imports are followed as imports, not as reads
import sys, importlib.metadata
sys.path.insert(0, {str(tmp_path / "on-sys-path")!r})
try:
    importlib.metadata.version("numpy")  # lists every folder on sys.path: no dependency
finally:
    del sys.path[0]
"""
    reads = _reads(code, own)
    assert list(reads) == [str(data / "x.txt")]


def test_a_packages_data_read_through_pkgutil_is_recorded(tmp_path: Path) -> None:
    package = tmp_path / "lib" / "tables"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "table.txt").write_text("1 2 3")
    code = f"""
import pkgutil, sys
sys.path.insert(0, {str(package.parent)!r})
try:
    pkgutil.get_data("tables", "table.txt")
finally:
    del sys.path[0]
"""
    assert list(_reads(code, tmp_path / "own")) == [str(package / "table.txt")]


def test_what_lessonkits_machinery_reads_during_a_page_is_not_the_pages(data: Path) -> None:
    """The import watch reads a module's source to follow its imports, while the page runs."""
    code = f"""
from lessonkit.execute.digests import current_digest
current_digest({str(data / "x.txt")!r})
"""
    assert _reads(code, data.parent / "own") == {}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    engine = Engine(tmp_path_factory.mktemp("cache"), workers=1, timeout=30)
    yield engine
    engine.close()


def _runs(engine: Engine, text: str, page: str) -> tuple[bool, PageResult]:
    """Look the page up as a new build does: whether it ran, and its result."""
    engine.forget()
    before = engine.executed
    result = engine.result(parse_program(text, page=page), f"docs/{page}")
    assert result.ok, result.problems
    return engine.executed > before, result


def test_editing_a_file_outside_the_docs_reruns_the_page(engine: Engine, data: Path) -> None:
    text = (
        f"```python exec\nn = int(open({str(data / 'x.txt')!r}).read())\n```\n\n{{{{ n + 1 }}}}\n"
    )
    assert _runs(engine, text, "outside.md")[0]
    assert not _runs(engine, text, "outside.md")[0]
    (data / "x.txt").write_text("99\n")
    ran, result = _runs(engine, text, "outside.md")
    assert ran and result.steps[-1].text == "100"


def test_adding_a_file_to_a_listed_folder_reruns_the_page(engine: Engine, data: Path) -> None:
    code = f"import os\nnames = sorted(os.listdir({str(data)!r}))"
    text = f"```python exec\n{code}\n```\n\n{{{{ names }}}}\n"
    assert _runs(engine, text, "listing.md")[0]
    (data / "y.txt").write_text("a new content, the same names\n")
    assert not _runs(engine, text, "listing.md")[0]  # the page read names, not contents
    (data / "z.txt").write_text("new\n")
    ran, result = _runs(engine, text, "listing.md")
    assert ran and result.steps[-1].text == "['x.txt', 'y.txt', 'z.txt']"


def test_a_librarys_data_file_read_at_call_time_is_followed(engine: Engine, tmp_path: Path) -> None:
    """A module outside any fixed list (here: a folder put on sys.path) reads its own data."""
    library = tmp_path / "library"
    library.mkdir()
    (library / "tables.py").write_text(
        "from pathlib import Path\n\ndef load():\n"
        "    return (Path(__file__).parent / 'table.txt').read_text().strip()\n"
    )
    (library / "table.txt").write_text("first")
    text = (
        f"```python exec\nimport sys\nsys.path.insert(0, {str(library)!r})\nimport tables\n"
        "value = tables.load()\n```\n\n{{ value }}\n"
    )
    assert _runs(engine, text, "library.md")[1].steps[-1].text == "first"
    (library / "table.txt").write_text("second")
    ran, result = _runs(engine, text, "library.md")
    assert ran and result.steps[-1].text == "second"


def test_a_touched_file_with_the_same_bytes_is_no_miss(tmp_path: Path) -> None:
    data = tmp_path / "x.txt"
    data.write_text("41\n")
    old = time.time() - 60
    os.utime(data, (old, old))
    cache = Cache(tmp_path / "cache")
    from lessonkit.execute.digests import file_digest

    cache.put("k", PageResult(steps=[StepResult()], reads={str(data): file_digest(data)}))
    os.utime(data, (old + 1, old + 1))  # a checkout: a new mtime, the same bytes
    assert cache.get("k") is not None
    data.write_text("42\n")
    assert cache.get("k") is None
