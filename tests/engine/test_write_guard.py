"""Lesson code cannot change the docs, mkdocs.yml, the site or the cache by any route.

Every file function the audit hook sees is refused at the lesson's line; what it cannot see (a
subprocess, C code) is found by comparing the sources before and after the page, and fails it.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lessonkit.execute import filewatch, inotify
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
    (tmp_path / ".lessonkit" / "cache" / "secret").write_text("0" * 64)
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.txt").write_text("the page's own file\n")
    monkeypatch.chdir(work)
    return tmp_path


def _watch(project: Path) -> FileWatch:
    """The watch the engine sets up for a page of this site."""
    docs, config = project / "docs", project / "mkdocs.yml"
    private = [project / "site", project / ".lessonkit" / "cache"]
    return FileWatch([docs, config], [docs, config, *private], private)


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
        'open(here.parent / ".lessonkit" / "cache" / "secret").read()',
        'import os\nos.listdir(here.parent / ".lessonkit" / "cache")',
        'open(here.parent / "site" / "index.html").read()',
    ],
    ids=["the cache's secret", "the cache's listing", "the site being built"],
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


def _run_while_another_program_edits(project: Path, code: str = "", edit: str = ""):
    """The problems of a page running ``code`` while another program runs ``edit`` (a shell
    command; by default it appends to a page): once ``code`` ran, the page says so and waits
    until the edit is made, so the edit falls inside the page's run however loaded the
    machine is."""
    work = project / "work"  # the page's working folder
    edit = edit or f"echo edited >> {project / 'docs' / 'page.md'}"
    later = subprocess.Popen(
        [
            "sh",
            "-c",
            f"until [ -e {work / 'started'} ]; do sleep 0.01; done; {edit}; "
            f"touch {work / 'edited'}",
        ]
    )
    wait = (
        "import os, time\nopen('started', 'w').close()\ndeadline = time.monotonic() + 60\n"
        "while not os.path.exists('edited') and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)"
    )
    try:
        return _run(project, f"{code}\n{wait}" if code else wait).problems
    finally:
        later.kill()  # done by now, unless the page failed before it started waiting
        later.wait()


def test_a_change_nothing_in_the_page_started_is_blamed_on_its_first_block(
    project: Path,
) -> None:
    """Another program (an editor, another page's subprocess) changed the docs meanwhile: the
    page still fails (its output may have read half an edit), with a hint saying so."""
    [problem] = _run_while_another_program_edits(project)
    assert problem.line == 3 and problem.message.endswith("changed docs/page.md")
    assert "another program" in problem.hint


def test_an_idle_watch_costs_little_and_sees_nothing(project: Path) -> None:
    watch = _watch(project)
    with watch.active():
        pass
    assert watch.problems() == [] and watch.reads() == {}
    start = time.perf_counter()
    for _ in range(100):
        open(os.devnull).close()  # the hook is installed: outside a watch it returns at once
    assert time.perf_counter() - start < 0.5


def _need_inotify() -> None:
    probe = filewatch.Inotify.start()
    if probe is None:
        pytest.skip("no inotify here: every page walks the sources")
    probe.close()


@pytest.fixture
def kept(project: Path):
    """The worker's kept snapshots of the project's sources (Linux: inotify tells when they
    are out of date); dropped after the test."""
    _need_inotify()
    sources = [project / "docs", project / "mkdocs.yml"]
    filewatch.keep_snapshots(sources)
    yield sources
    if filewatch._kept is not None:
        filewatch._kept.inotify.close()
        filewatch._kept = None


def test_a_page_starts_from_the_kept_snapshots_and_walks_only_after_a_change(
    project: Path, kept: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = []
    real_snapshot = filewatch._snapshot
    monkeypatch.setattr(
        filewatch, "_snapshot", lambda root: walks.append(root) or real_snapshot(root)
    )
    assert _run(project, "x = 1").ok and walks == []
    [problem] = _run_while_another_program_edits(project)
    assert problem.line == 3 and problem.message.endswith("changed docs/page.md")
    assert len(walks) == 2  # the docs and mkdocs.yml, once, at the page's end


def test_a_change_between_pages_is_no_later_page_s_and_new_folders_are_watched(
    project: Path, kept: list[Path]
) -> None:
    (project / "docs" / "new").mkdir()  # an editor, between two pages
    (project / "docs" / "page.md").write_text("# Edited\n")
    filewatch.keep_snapshots(kept)  # the worker, before the next page
    assert _run(project, "x = 1").ok
    filewatch.keep_snapshots(kept)
    code = (
        "import subprocess\n"
        "subprocess.run(['sh', '-c', 'echo x > ../docs/new/made.md'], check=True)"
    )
    [problem] = _run(project, code).problems
    assert problem.line == 5 and problem.message.endswith("created docs/new/made.md")
    filewatch.keep_snapshots(kept)
    edit = f"echo x > {project / 'docs' / 'new' / 'b.md'}"
    [problem] = _run_while_another_program_edits(project, edit=edit)
    assert problem.message.endswith("created docs/new/b.md")  # found in a folder made later


def test_c_code_writing_with_kept_snapshots_is_found(project: Path, kept: list[Path]) -> None:
    if sys.platform != "linux":
        pytest.skip("calls the C library by its Linux name")
    code = "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.unlink(bytes(here / 'page.md'))"
    [problem] = _run(project, code).problems
    assert problem.message.endswith("deleted docs/page.md")


def test_when_the_system_refuses_a_watch_every_page_walks(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_inotify()

    def refuse(self, folders):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(filewatch.Inotify, "add", refuse)
    monkeypatch.setattr(filewatch, "_kept", None)
    monkeypatch.setattr(filewatch, "_refused_watch", False)
    filewatch.keep_snapshots([project / "docs", project / "mkdocs.yml"])
    assert filewatch._kept is None and filewatch._refused_watch  # no more tries
    [problem] = _run_while_another_program_edits(project)
    assert problem.message.endswith("changed docs/page.md")


def test_a_page_that_puts_a_pipe_at_the_watch_s_descriptor_walks(
    project: Path, kept: list[Path]
) -> None:
    fd = filewatch._kept.inotify.fd
    code = f"import os\nread, write = os.pipe()\nos.dup2(read, {fd})"
    [problem] = _run_while_another_program_edits(project, code)
    assert problem.message.endswith("changed docs/page.md")


def test_folders_that_keep_appearing_do_not_hold_the_worker(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_inotify()
    made = []
    real_snapshot = filewatch._snapshot

    def busy(root: str):  # another program makes a folder in the docs during every walk
        if root.endswith("docs"):
            made.append(project / "docs" / f"tmp{len(made)}")
            made[-1].mkdir()
        return real_snapshot(root)

    monkeypatch.setattr(filewatch, "_snapshot", busy)
    monkeypatch.setattr(filewatch, "_kept", None)
    try:
        filewatch.keep_snapshots([project / "docs", project / "mkdocs.yml"])
        assert 1 < len(made) < 10 and filewatch._kept.snapshots is None  # the page walks
    finally:
        if filewatch._kept is not None:
            filewatch._kept.inotify.close()
            filewatch._kept = None


def test_on_a_filesystem_another_machine_changes_every_page_walks(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit made on the other side of NFS, 9p (WSL's Windows drives) or FUSE comes with no
    event: a kept snapshot would be out of date, and the edit blamed on a later page."""
    _need_inotify()
    monkeypatch.setattr(filewatch, "_kept", None)
    monkeypatch.setattr(filewatch, "_refused_watch", False)
    monkeypatch.setattr(inotify, "_LOCAL", frozenset(), raising=False)  # no filesystem is local
    sources = [project / "docs", project / "mkdocs.yml"]
    try:
        filewatch.keep_snapshots(sources)
        (project / "docs" / "page.md").write_text("# Edited on the host\n")  # between pages
        if filewatch._kept is not None:
            filewatch._kept.inotify.drain()  # what the other machine's edit gives: no event
        filewatch.keep_snapshots(sources)
        assert _run(project, "import subprocess\nsubprocess.run(['true'], check=True)").ok
    finally:
        if filewatch._kept is not None:
            filewatch._kept.inotify.close()
            filewatch._kept = None
