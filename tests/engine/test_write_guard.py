"""Lesson code cannot change the docs, mkdocs.yml, the site or the cache by any route.

Every file function the audit hook sees is refused at the lesson's line; what it cannot see (a
subprocess, C code through ctypes) is found by comparing the docs, mkdocs.yml and the site
before it starts and after the page, and fails it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from lessonkit.execute import filewatch
from lessonkit.execute.engine import Engine
from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site's folder: docs/ (a page, a folder), mkdocs.yml, site/, the cache; the page runs
    in a working folder of its own, as in a worker."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "empty").mkdir()
    (docs / "page.md").write_text("# Page\n")
    (docs / "sub" / "data.csv").write_text("1,2\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: s\n")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<p>built</p>")
    (tmp_path / ".lessonkit" / "cache").mkdir(parents=True)
    (tmp_path / ".lessonkit" / "cache" / "entry.json").write_text("{}")
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.txt").write_text("the page's own file\n")
    monkeypatch.chdir(work)
    return tmp_path


def _watch(project: Path) -> FileWatch:
    """The watch the engine sets up for a page of this site."""
    docs, config = project / "docs", project / "mkdocs.yml"
    private = [project / "site", project / ".lessonkit" / "cache"]
    return FileWatch([docs, config, project / "site"], [docs, config, *private], private)


def _state(project: Path) -> dict[str, tuple[int, int, bytes]]:
    found = {}
    for path in sorted(project.rglob("*")):
        if "work" not in path.relative_to(project).parts:
            info = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path)] = (info.st_mode, info.st_mtime_ns, data)
    return found


def _run(project: Path, code: str):
    text = f"# Page\n\n```python exec\n{code}\n```\n"
    program = parse_program(text, page="page.md")
    watch = _watch(project)
    return run_program(
        program, "docs/page.md", source_text=text, page_dir=project / "docs", watch=watch
    )


ROUTES = {
    "open for writing": 'open(here / "new.txt", "w")',
    "open for appending": 'open(here / "page.md", "a")',
    "Path.write_text": '(here / "page.md").write_text("replaced")',
    "os.open": 'import os\nos.open(here / "new.txt", os.O_WRONLY | os.O_CREAT)',
    "os.remove": 'import os\nos.remove(here / "page.md")',
    "os.unlink": 'import os\nos.unlink(here / "page.md")',
    "Path.unlink": '(here / "page.md").unlink()',
    "os.rename out": 'import os\nos.rename(here / "page.md", "moved.md")',
    "os.replace in": 'import os\nos.replace("mine.txt", here / "page.md")',
    "shutil.move": 'import shutil\nshutil.move(here / "page.md", "moved.md")',
    "os.rmdir": 'import os\nos.rmdir(here / "empty")',
    "in a subfolder": 'import os\nos.remove(here / "sub" / "data.csv")',
    "shutil.rmtree": 'import shutil\nshutil.rmtree(here / "sub")',
    "os.mkdir": 'import os\nos.mkdir(here / "new")',
    "os.makedirs": 'import os\nos.makedirs(here / "a" / "b")',
    "Path.mkdir": '(here / "new").mkdir()',
    "os.symlink": 'import os\nos.symlink("/etc/hostname", here / "link")',
    "os.link": 'import os\nos.link(here / "page.md", "second-name.md")',
    "os.truncate": 'import os\nos.truncate(here / "page.md", 0)',
    "os.chmod": 'import os\nos.chmod(here / "page.md", 0o600)',
    "os.utime": 'import os\nos.utime(here / "page.md", (0, 0))',
    "Path.touch": '(here / "page.md").touch()',
    "shutil.copy": 'import shutil\nshutil.copy("mine.txt", here)',
    "shutil.copytree": 'import shutil\nshutil.copytree(".", here / "copy")',
    "shutil.make_archive": 'import shutil\nshutil.make_archive(str(here / "all"), "zip", ".")',
    "relative to a folder descriptor": (
        'import os\nos.unlink("page.md", dir_fd=os.open(here, os.O_RDONLY))'
    ),
    "a descriptor opened to read": (
        'import os\nos.chmod(os.open(here / "page.md", os.O_RDONLY), 0o600)'
    ),
    "through a symlink of its own": (
        'import os\nos.symlink(here, "docs-link")\nopen("docs-link/new.txt", "w")'
    ),
    "sqlite3": 'import sqlite3\nsqlite3.connect(here / "db.sqlite")',
    "mkdocs.yml": 'open(here.parent / "mkdocs.yml", "a")',
    "the site": 'open(here.parent / "site" / "index.html", "w")',
    "the cache": 'open(here.parent / ".lessonkit" / "cache" / "forged.json", "w")',
}


@pytest.mark.parametrize("code", ROUTES.values(), ids=ROUTES.keys())
def test_every_route_into_the_sources_is_refused_at_its_line(project: Path, code: str) -> None:
    before = _state(project)
    result = _run(project, code)
    [problem] = result.problems
    assert problem.message.startswith("PermissionError: lesson code may not "), problem
    assert (problem.path, problem.line) == ("docs/page.md", 3 + code.count("\n") + 1)
    assert "hint:" in problem.format()
    assert _state(project) == before


@pytest.mark.parametrize(
    "code",
    [
        'open(here.parent / ".lessonkit" / "cache" / "entry.json").read()',
        'import os\nos.listdir(here.parent / ".lessonkit" / "cache")',
        'open(here.parent / "site" / "index.html").read()',
    ],
    ids=["a cache entry", "the cache's listing", "the site being built"],
)
def test_code_may_not_read_the_cache_or_the_site(project: Path, code: str) -> None:
    [problem] = _run(project, code).problems
    assert problem.message.startswith("PermissionError: lesson code may not read ")
    assert "the build writes it while pages run" in problem.message
    assert problem.hint.startswith("compute what the page needs in its code")


def test_the_message_names_the_protected_path_as_the_project_does(project: Path) -> None:
    [problem] = _run(project, 'import os\nos.remove(here / "page.md")').problems
    assert problem.message == (
        "PermissionError: lesson code may not delete from docs/: docs/page.md"
    )
    assert "working folder of its own (the current folder): write files there" in problem.hint
    [problem] = _run(project, 'open(here.parent / "mkdocs.yml", "w")').problems
    assert (
        problem.message == "PermissionError: lesson code may not write into mkdocs.yml: mkdocs.yml"
    )


def test_code_may_read_the_sources_and_write_its_own_folder(project: Path) -> None:
    code = (
        "import os, shutil\n"
        'text = (here / "page.md").read_text()\n'
        'shutil.copytree(here, "copy")\n'
        'os.rename("copy/page.md", "copy/moved.md")\n'
        'shutil.rmtree("copy")\n'
        'open("out.txt", "w").write(text)'
    )
    result = _run(project, code)
    assert result.ok, result.problems


def test_a_subprocess_writing_into_the_docs_fails_the_page_at_its_line(project: Path) -> None:
    before = _state(project)
    code = (
        "import subprocess, sys\n"
        "made, page = str(here / 'made.txt'), str(here / 'page.md')\n"
        "subprocess.run([sys.executable, '-c', f'open({made!r}, \"w\").write(\"x\")'])\n"
        "subprocess.run([sys.executable, '-c', f'import os; os.remove({page!r})'])"
    )
    [problem] = _run(project, code).problems
    assert (problem.path, problem.line) == ("docs/page.md", 6)
    assert problem.message == (
        "the sources changed while this page's code ran: created docs/made.txt, "
        "deleted docs/page.md"
    )
    assert "the process started here" in problem.hint
    after = _state(project)  # nothing is restored behind the author's back
    assert set(after) - set(before) == {str(project / "docs" / "made.txt")}


def test_a_subprocess_changing_mkdocs_yml_or_a_file_in_a_folder_is_found(project: Path) -> None:
    code = (
        "import subprocess\n"
        "subprocess.run(['sh', '-c', 'echo x >> ../mkdocs.yml; echo 3 >> ../docs/sub/data.csv'])"
    )
    [problem] = _run(project, code).problems
    assert problem.line == 5
    assert problem.message.endswith("changed docs/sub/data.csv, changed mkdocs.yml")


@pytest.mark.skipif(sys.platform != "linux", reason="calls the C library by its Linux name")
def test_c_code_deleting_a_page_through_ctypes_is_found(project: Path) -> None:
    code = "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.unlink(bytes(here / 'page.md'))"
    [problem] = _run(project, code).problems
    assert problem.message.endswith("deleted docs/page.md")
    assert problem.line == 5 and "C code (ctypes)" in problem.hint


def test_an_idle_watch_costs_little_and_sees_nothing(project: Path) -> None:
    watch = _watch(project)
    with watch.active():
        pass
    assert watch.problems() == [] and watch.reads() == {}
    start = time.perf_counter()
    for _ in range(100):
        open(os.devnull).close()  # the hook is installed: outside a watch it returns at once
    assert time.perf_counter() - start < 0.5


def test_a_page_that_starts_no_process_walks_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[str] = []
    real = filewatch._snapshot
    monkeypatch.setattr(filewatch, "_snapshot", lambda root: walks.append(root) or real(root))
    assert _run(project, "x = open(here / 'page.md').read()").ok
    assert walks == []
    [problem] = _run(
        project, "import subprocess\nsubprocess.run(['true'])\nopen(here / 'x', 'w')"
    ).problems
    assert problem.message.startswith("PermissionError")
    assert len(walks) == 6  # the docs, mkdocs.yml and the site: before the process, at the end


def _engine(project: Path, snapshot: bool = True) -> Engine:
    """An engine for ``project``'s docs, guarding mkdocs.yml and the site (a full build's)."""
    return Engine(
        project / ".lessonkit" / "cache",
        workers=1,
        timeout=30,
        docs_dir=project / "docs",
        sources=(project / "mkdocs.yml",),
        private=(project / "site",),
        snapshot=snapshot,
    )


@pytest.fixture
def engine(project: Path):
    engine = _engine(project)
    yield engine
    engine.close()


@pytest.mark.parametrize("shown", ["site/index.html", "docs/page.md"])
def test_a_subprocess_writing_into_the_site_or_the_docs_fails_the_page(
    engine: Engine, project: Path, shown: str
) -> None:
    """The site is published as it is: what a page's subprocess writes there (where the audit
    hook does not see it) fails the page, in a real worker as the build runs it."""
    target = project / shown
    code = f"import subprocess\nsubprocess.run(['sh', '-c', 'echo forged > {target}'])"
    text = f"# Page\n\n```python exec\n{code}\n```\n"
    result = engine.result(parse_program(text, page="page.md"), "docs/page.md", text)
    [problem] = result.problems
    assert problem.line == 5 and problem.message.endswith(f"changed {shown}"), problem
    assert "the process started here wrote there" in problem.hint


def _once_started(started: Path, path: Path, text: str) -> threading.Thread:
    """Another program (an author, a build) writing ``text`` to ``path`` once ``started``
    exists: the page's code made it, so the page is running."""

    def write() -> None:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        path.write_text(text)

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def test_an_edit_by_another_program_while_a_process_runs_says_to_build_again(
    engine: Engine, project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A snapshot cannot tell an author's save (or a preview's rebuild) from the page's process:
    the page fails, and the hint says what to do when it was not the page's code."""
    started = tmp_path_factory.mktemp("signal") / "started"
    code = f"import subprocess\nsubprocess.run(['sh', '-c', 'touch {started}; sleep 2'])"
    text = f"# Page\n\n```python exec\n{code}\n```\n"

    author = _once_started(started, project / "docs" / "page.md", "# Page, as saved\n")
    result = engine.result(parse_program(text, page="page.md"), "docs/page.md", text)
    author.join()
    [problem] = result.problems
    assert problem.message.endswith("changed docs/page.md"), problem
    assert "if another program did (an editor's save, say), build again" in problem.hint


def test_without_snapshots_an_edit_by_another_program_passes_and_the_hook_still_refuses(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A serve (``snapshot=False``): an author's save while a page's process runs is no fault
    of the page; what the audit hook sees is still refused."""
    engine = _engine(project, snapshot=False)
    started = tmp_path_factory.mktemp("signal") / "started"
    code = f"import subprocess\nsubprocess.run(['sh', '-c', 'touch {started}; sleep 1'])"
    text = f"# Page\n\n```python exec\n{code}\nprint('done')\n```\n"

    author = _once_started(started, project / "docs" / "page.md", "# Page, as saved\n")
    try:
        result = engine.result(parse_program(text, page="page.md"), "docs/page.md", text)
        author.join()
        assert result.ok and result.steps[0].stdout == "done\n", result.problems
        write = "```python exec\nopen(here / 'page.md', 'w')\n```\n"
        [problem] = engine.result(parse_program(write, page="page.md"), "docs/page.md").problems
        assert problem.message.startswith("PermissionError") and problem.line == 2
    finally:
        engine.close()


def test_a_page_that_starts_no_process_is_not_failed_by_another_programs_edit(
    engine: Engine, project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A worker flushes C's stdout through ctypes after each block: that is lessonkit's, not
    the page's C code, so the site the build (or a preview's rebuild) writes meanwhile does not
    fail a page that started nothing (it ran again at the next rebuild under ``serve``)."""
    started = tmp_path_factory.mktemp("signal") / "started"
    code = f"print('one')\n```\n\n```python exec\nopen({str(started)!r}, 'w').close()\n"
    code += "import time\ntime.sleep(1)"
    text = f"# Page\n\n```python exec\n{code}\n```\n"

    builder = _once_started(started, project / "site" / "404.html", "<p>not found</p>")
    result = engine.result(parse_program(text, page="page.md"), "docs/page.md", text)
    builder.join()
    assert result.ok, result.problems
    assert result.steps[0].stdout == "one\n"
