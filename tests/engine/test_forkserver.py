"""The fork server pages are forked from: one that cannot start fails every page at once with
what to check; it starts early on a first build, and nothing it or its pages started outlives
it."""

from __future__ import annotations

import multiprocessing.forkserver as forkserver
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from lessonkit.execute import worker
from lessonkit.execute.program import parse_program
from lessonkit.execute.worker import Job, WorkerPool

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork")


def run(pool: WorkerPool, text: str):
    return pool.run(Job(parse_program(text), "page.md", text, Path.cwd()))


def server_pid() -> int | None:
    return forkserver._forkserver._forkserver_pid


@pytest.fixture
def fresh_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This test's fork server starts fresh, and the next test's too (one per process)."""
    worker.stop()
    monkeypatch.setattr(worker, "_failed", None)
    yield
    worker.stop()


def site_customize(folder: Path, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run ``code`` at the start of every new Python process, but only in a fork server."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        f"import sys\nif 'multiprocessing.forkserver' in ' '.join(sys.orig_argv):\n    {code}\n"
    )
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)


def test_a_server_that_stops_while_it_starts_fails_every_page_with_what_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_server: None
) -> None:
    site_customize(tmp_path / "site", "raise SystemExit(3)", monkeypatch)
    pool = WorkerPool(2, default_timeout=30)
    started = time.monotonic()
    try:
        results = [run(pool, "{{ 6 * 7 }}\n") for _ in range(3)]
    finally:
        pool.close()
    assert time.monotonic() - started < 30
    for result in results:
        [problem] = result.problems
        assert problem.path == "page.md"
        assert "could not start a process" in problem.message
        assert "stopped while it started" in problem.message
        assert "import matplotlib.pyplot" in problem.hint


def test_a_path_entry_that_is_not_a_string_does_not_stop_the_build(
    monkeypatch: pytest.MonkeyPatch, fresh_server: None
) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path, Path("/nowhere")])  # as a plugin might add one
    pool = WorkerPool(1, default_timeout=30)
    try:
        assert run(pool, "{{ 6 * 7 }}\n").steps[0].text == "42"
    finally:
        pool.close()


def test_the_hash_seed_holds_under_python_dash_e(tmp_path: Path) -> None:
    src = str(Path(worker.__file__).parents[2])  # -E: no PYTHONPATH
    code = (
        f"import sys\nsys.path.insert(0, {src!r})\n"
        "from pathlib import Path\nfrom lessonkit.execute.program import parse_program\n"
        "from lessonkit.execute.worker import Job, WorkerPool\n"
        "text = '{{ hash(\"a\") }}'\n"
        "pool = WorkerPool(1, 30)\n"
        "print(pool.run(Job(parse_program(text), 'p.md', text, Path('.'))).steps[0].text)\n"
        "pool.close()\n"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-E", "-c", code],  # -E: PYTHONHASHSEED is ignored
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            cwd=tmp_path,
        ).stdout.strip()
        for seed in (1, 2)
    }
    with_seed_0 = subprocess.run(
        [sys.executable, "-c", "print(hash('a'))"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    ).stdout.strip()
    assert seen == {with_seed_0}


def test_what_a_page_left_running_ends_when_the_page_kills_the_server(tmp_path: Path) -> None:
    pid_file = tmp_path / "orphan.pid"
    code = (
        "import os, subprocess\n"
        "child = subprocess.Popen(['sleep', '60'], start_new_session=True)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "os.kill(os.getppid(), 9)\nimport time\ntime.sleep(30)"
    )
    pool = WorkerPool(1, default_timeout=60)
    try:
        assert not run(pool, f"```python exec\n{code}\n```\n").ok
    finally:
        pool.close()
    orphan = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(orphan), "what the page started outlived it"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@contextmanager
def disposition(signum: int, handler: signal.Handlers) -> Iterator[None]:
    """Start processes with ``signum`` set to ``handler`` (a fork server inherits it): the
    tests' own starter may ignore SIGHUP (``nohup``)."""
    before = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, before)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_server_stopped_by_a_signal_stops_its_pages_and_leaves_no_folder(
    fresh_server: None,
    signum: int,
    sleeping_page: Callable[[WorkerPool, Executor], tuple[Future, Path]],
) -> None:
    """A stop sent to the build's whole process group (``timeout``, a CI job cancelled; SIGHUP:
    the terminal closed) reaches the fork server too, while a page runs."""
    pool = WorkerPool(1, default_timeout=60)
    try:
        with disposition(signum, signal.SIG_DFL), ThreadPoolExecutor(1) as threads:
            running, folder = sleeping_page(pool, threads)
            stopped = server_pid()
            assert stopped is not None
            os.kill(stopped, signum)
            assert not running.result(timeout=30).ok
            assert worker._reaped(stopped, 30), "the fork server did not exit"
    finally:
        pool.close()
    assert not folder.exists(), "the page's folder is left in /tmp"


def test_a_build_started_with_sighup_ignored_keeps_running_its_pages_on_sighup(
    fresh_server: None, sleeping_page: Callable[[WorkerPool, Executor], tuple[Future, Path]]
) -> None:
    """``nohup mkdocs build``: the terminal closing leaves the fork server and its page alone."""
    pool = WorkerPool(1, default_timeout=60)
    try:
        with disposition(signal.SIGHUP, signal.SIG_IGN), ThreadPoolExecutor(1) as threads:
            running, _ = sleeping_page(pool, threads)
            started = server_pid()
            assert started is not None
            os.kill(started, signal.SIGHUP)
            with pytest.raises(TimeoutError):
                running.result(timeout=1)  # the page sleeps on
            assert not worker._reaped(started), "the fork server stopped"
            pool.close()  # now the build stops it
            assert not running.result(timeout=30).ok
    finally:
        pool.close()


def test_a_sites_first_build_starts_the_server_as_mkdocs_hands_lessonkit_its_options(
    tmp_path: Path, fresh_server: None
) -> None:
    # At on_startup, before MkDocs reads the pages: the server's imports overlap the rest of
    # MkDocs' start. Only a first build (no cache folder) runs every page.
    from mkdocs.config import load_config

    (tmp_path / "docs").mkdir()
    config_file = tmp_path / "mkdocs.yml"

    def started(options: str) -> bool:
        config_file.write_text(f"site_name: test\nplugins:\n  - lessonkit{options}\n")
        load_config(str(config_file)).plugins.on_startup(command="build", dirty=False)
        running = server_pid() is not None
        worker.stop()
        return running

    assert started("")
    assert not started(":\n      execute: false")
    (tmp_path / "cache").mkdir()
    assert started(":\n      cache_dir: elsewhere")
    assert not started(":\n      cache_dir: cache")


def _first_build(site: Path, page: str, env: dict[str, str]) -> tuple[int, bool]:
    """Build ``site`` (a first build: no cache) with one page; its exit code, and whether any
    process it started still held its output once it had exited."""
    (site / "docs").mkdir(parents=True)
    (site / "docs" / "index.md").write_text(page)
    (site / "mkdocs.yml").write_text("site_name: test\nplugins:\n  - lessonkit\n")
    build = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"],
        cwd=site,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
    )
    assert build.stderr is not None
    with build.stderr:
        output = build.stderr.fileno()
        os.set_blocking(output, False)
        code, held = build.wait(timeout=120), True
        while select.select([output], [], [], 0)[0]:
            if not os.read(output, 65536):
                held = False  # end of file: no process holds the pipe now
                break
    return code, held


def test_a_first_build_with_no_code_to_run_leaves_no_process_running(tmp_path: Path) -> None:
    code, held = _first_build(tmp_path, "# Prose only\n\nNo code here.\n", {})
    assert code == 0
    assert not held


def test_a_build_leaves_no_folder_in_tmp_though_matplotlib_made_one_there(
    tmp_path: Path,
) -> None:
    # matplotlib makes a temporary config folder when its own cannot be written, and removes it
    # at exit; the build's page folders and multiprocessing's own go too.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    (tmp_path / "file").write_text("")
    env = {"TMPDIR": str(temporary), "MPLCONFIGDIR": str(tmp_path / "file" / "mpl")}
    page = "# Code\n\n```python exec\nprint(6 * 7)\n```\n"
    code, _ = _first_build(tmp_path / "site", page, env)
    assert code == 0
    assert list(temporary.iterdir()) == []


def test_a_page_sees_the_environment_as_the_build_has_it_now(
    monkeypatch: pytest.MonkeyPatch, fresh_server: None
) -> None:
    # A first build starts the server at on_startup; a plugin's on_config may then set a
    # variable (or add a folder of modules to sys.path) that the pages need.
    worker.warm_up()
    monkeypatch.setenv("LESSONKIT_SET_AFTER_START", "42")
    pool = WorkerPool(1, default_timeout=30)
    try:
        page = "```python exec\nimport os\n\nprint(os.environ['LESSONKIT_SET_AFTER_START'])\n```\n"
        result = run(pool, page)
    finally:
        pool.close()
    assert result.ok, result.problems
    assert result.steps[0].stdout == "42\n"


def test_a_page_under_way_when_its_server_is_retired_keeps_its_result(
    fresh_server: None,
) -> None:
    # A preview retires the server when a lessonkit file changes; the retired server reaps its
    # pages itself, so their exit status is lost (255): a page that sent its result is not lost,
    # and the fresh server that later pages use is not retired in turn.
    pool = WorkerPool(2, default_timeout=30)
    try:
        slow = "```python exec\nimport time\n\ntime.sleep(1.5)\nprint('done')\n```\n"
        with ThreadPoolExecutor(1) as threads:
            under_way = threads.submit(run, pool, slow)
            time.sleep(1.0)  # the page is running
            first = server_pid()
            worker.retire()
            assert run(pool, "```python exec\nprint(1)\n```\n").ok  # from a fresh server
            fresh = server_pid()
            result = under_way.result()
        assert result.ok, result.problems
        assert result.steps[0].stdout == "done\n"
        assert fresh not in (None, first) and server_pid() == fresh
    finally:
        pool.close()


def test_pages_finishing_while_others_start_are_never_taken_for_lost() -> None:
    """``Process.start`` polls every running child for its exit status, under the start lock;
    a page's own read of its status must not race it (the loser read end of file: "stopped")."""
    import multiprocessing.process
    import threading

    stop = threading.Event()

    def start_many() -> None:  # what each page's start does to the others, as often as can be
        while not stop.is_set():
            with worker._lock:
                multiprocessing.process._cleanup()  # type: ignore[attr-defined]

    starter = threading.Thread(target=start_many, daemon=True)
    starter.start()
    try:
        with ThreadPoolExecutor(4) as pages:
            pool = WorkerPool(4, default_timeout=30)
            results = list(pages.map(lambda n: run(pool, f"```python exec\n{n}\n```\n"), range(60)))
    finally:
        stop.set()
        starter.join()
    assert [r.problems for r in results if r.problems] == []
