"""The zygote that workers are forked from: a zygote that cannot start fails every page at once
with what to check, and the pipes and paths it hands on do not leak or break the build."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from lessonkit.execute import processes, worker, zygote
from lessonkit.execute.program import parse_program
from lessonkit.execute.worker import Job, WorkerPool

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the zygote needs fork")


def run(pool: WorkerPool, text: str):
    return pool.run(Job(parse_program(text), "page.md", text, Path.cwd()))


def run_killing_its_worker(code: str) -> None:
    """Run a page whose ``code`` ends by killing its own worker (``kill -9``); it fails."""
    pool = WorkerPool(1, default_timeout=30)
    try:
        text = f"```python exec\n{code}\nimport os\nos.kill(os.getppid(), 9)\n```\n"
        assert not run(pool, text).ok
    finally:
        pool.close()


@pytest.fixture
def fresh_zygote() -> Iterator[None]:
    """This test's zygote starts fresh, and the next test's too (the zygote is per process)."""
    zygote.stop()
    yield
    zygote.stop()


def site_customize(folder: Path, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run ``code`` at the start of every new Python process, but only in a zygote."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        f"import os\nif {zygote._SYS_PATH!r} in os.environ:\n    {code}\n"
    )
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)


def test_a_zygote_that_stops_while_it_starts_fails_every_page_with_what_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_zygote: None
) -> None:
    site_customize(tmp_path / "site", "raise SystemExit(3)", monkeypatch)
    pool = WorkerPool(2, default_timeout=30)
    try:
        results = [run(pool, "{{ 6 * 7 }}\n") for _ in range(3)]
    finally:
        pool.close()
    for result in results:
        [problem] = result.problems
        assert problem.path == "page.md"
        assert "could not start a worker" in problem.message
        assert "stopped while it started" in problem.message
        assert "import matplotlib.pyplot" in problem.hint


def test_a_zygote_that_hangs_is_stopped_and_no_page_waits_for_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_zygote: None
) -> None:
    site_customize(tmp_path / "site", "import time; time.sleep(60)", monkeypatch)
    monkeypatch.setattr(worker, "STARTUP_TIMEOUT", 1.0)
    pool = WorkerPool(1, default_timeout=30)
    started = time.monotonic()
    try:
        results = [run(pool, "{{ 6 * 7 }}\n") for _ in range(3)]
    finally:
        pool.close()
    assert time.monotonic() - started < 10, "one wait of 1 s, not one per page"
    for result in results:
        assert "did not start within 1 s" in result.problems[0].message
    hung = zygote._current
    assert hung is not None and hung.failed
    assert hung.reap(5), "the hung zygote was killed"


def test_a_zygote_waits_for_its_workers_not_for_processes_that_have_their_pids_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_zygote: None
) -> None:
    """Once a worker has exited its pid may name another process (pids wrap around, at 32768
    on many systems): here every pid does. The zygote still exits once its workers have (a
    killed zygote leaves its page folders, and what killed workers' pages left running)."""
    reused = "import lessonkit.execute.processes as p; p.alive = lambda pid: True"
    site_customize(tmp_path / "site", reused, monkeypatch)
    pool = WorkerPool(1, default_timeout=30)
    try:
        assert run(pool, "{{ 6 * 7 }}\n").ok
    finally:
        pool.close()
    started = zygote._current
    zygote.stop()
    assert started is not None and started.process.returncode == 0, "it was killed"


def test_the_builds_end_of_a_workers_pipe_is_never_inheritable(
    monkeypatch: pytest.MonkeyPatch, fresh_zygote: None
) -> None:
    """Not inheritable from the moment it is received where the platform can (Linux): marked
    afterwards, a process that another thread started in between would keep it (and a worker
    would outlive a killed build). Elsewhere it is marked at once."""
    if hasattr(socket, "MSG_CMSG_CLOEXEC"):
        monkeypatch.setattr(os, "set_inheritable", lambda fd, inheritable: None)  # no marking
    pool = WorkerPool(1, default_timeout=30)
    try:
        assert run(pool, "{{ 6 * 7 }}\n").ok
        [started] = pool._all
        assert not os.get_inheritable(started.conn.fileno())
    finally:
        pool.close()


def test_a_path_entry_that_is_not_a_string_does_not_stop_the_build(
    monkeypatch: pytest.MonkeyPatch, fresh_zygote: None
) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path, Path("/nowhere")])  # as a plugin might add one
    pool = WorkerPool(1, default_timeout=30)
    try:
        assert run(pool, "{{ 6 * 7 }}\n").steps[0].text == "42"
    finally:
        pool.close()


def test_the_zygote_keeps_the_hash_seed_under_python_dash_e(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        zygote.subprocess, "_args_from_interpreter_flags", lambda: ["-E", "-I", "-O"]
    )
    assert zygote._flags() == ["-O", "-s", "-P"]


def test_what_a_killed_workers_page_left_running_ends_with_the_zygote(
    tmp_path: Path, fresh_zygote: None
) -> None:
    pid_file = tmp_path / "orphan.pid"
    code = (
        "import os, subprocess\n"
        "child = subprocess.Popen(['sleep', '60'], start_new_session=True)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))"
    )
    run_killing_its_worker(code)
    orphan = int(pid_file.read_text())
    zygote.stop()
    deadline = time.monotonic() + 10
    while processes.alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not processes.alive(orphan), "the orphan was adopted by the zygote and killed"


def test_a_stale_zygote_stops_only_the_idle_workers_it_forked() -> None:
    # Under serve, a worker refusing a job (it holds an edited lessonkit file) retires its
    # zygote; idle workers already forked from the fresh one stay warm for the next pages.
    class Idle:
        def __init__(self, parent: object) -> None:
            self.zygote, self.stopped = parent, False

        def stop(self) -> None:
            self.stopped = True

    stale, fresh = object(), object()
    old, new, older = Idle(stale), Idle(fresh), Idle(stale)
    pool = WorkerPool(3, default_timeout=30)
    for idle in (older, new, old):
        pool._all.append(idle)
        pool._idle.put(idle)
    pool._drop_idle(stale)
    assert old.stopped and older.stopped and not new.stopped
    assert pool._all == [new] and pool._idle.get_nowait() is new
    assert pool._idle.empty()


def test_joining_a_forked_worker_waits_for_its_exit_and_no_longer() -> None:
    told, tell = os.pipe()
    pid = os.fork()
    if pid == 0:  # stands in for a worker: exits when told (or after a minute)
        os.close(tell)
        select.select([told], [], [], 60)
        os._exit(0)
    os.close(told)
    try:
        forked = zygote.Forked(pid)
        start = time.monotonic()
        forked.join(0.05)  # still running: back after the timeout, not when it exits
        assert forked.is_alive() and time.monotonic() - start < 30
        os.close(tell)  # the worker exits now
        start = time.monotonic()
        forked.join(60)  # back when it exits, not after the timeout
        assert not forked.is_alive() and time.monotonic() - start < 30
        forked.join()  # gone already: at once
    finally:
        os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="a pid is all there is without pidfd")
def test_a_worker_that_has_exited_is_never_signalled_though_its_pid_lives_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the zygote has collected an exited worker, its pid may name another process (pids
    wrap around): here every pid does. Stopping the worker signals and waits for nothing."""
    pid = os.fork()
    if pid == 0:  # stands in for a worker: exits at once
        os._exit(0)
    forked = zygote.Forked(pid)
    os.waitpid(pid, 0)  # collected, as the zygote collects its workers: the pid is free
    signalled: list[tuple[int, int]] = []
    monkeypatch.setattr(processes, "alive", lambda pid: True)
    monkeypatch.setattr(os, "kill", lambda pid, signum: signalled.append((pid, signum)))
    assert not forked.is_alive()
    forked.terminate()
    forked.join()  # at once
    assert signalled == []


def test_a_killed_workers_page_folder_goes_with_the_zygote(
    tmp_path: Path, fresh_zygote: None
) -> None:
    where = tmp_path / "cwd"
    run_killing_its_worker(f"import os\nopen({str(where)!r}, 'w').write(os.getcwd())")
    folder = Path(where.read_text())
    assert folder.exists(), "a worker killed with -9 cannot remove its page's folder itself"
    zygote.stop()
    assert folder.parent.name.startswith("lessonkit-pages-"), folder
    assert not folder.parent.exists(), "the zygote's folder of page folders is left in /tmp"


@contextmanager
def disposition(signum: int, handler: signal.Handlers) -> Iterator[None]:
    """Start processes with ``signum`` set to ``handler`` (a zygote inherits it): the tests'
    own starter may ignore SIGHUP (``nohup``)."""
    before = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, before)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_zygote_stopped_by_a_signal_removes_its_folder_of_page_folders(
    fresh_zygote: None,
    signum: int,
    sleeping_page: Callable[[WorkerPool, Executor], tuple[Future, Path]],
) -> None:
    """A stop sent to the build's whole process group (``timeout``, a CI job cancelled, a
    supervisor, the benchmark stopping its server; SIGHUP: the terminal closed) reaches the
    zygote too, while a page runs: it stops its workers and removes its folder as it goes."""
    pool = WorkerPool(1, default_timeout=60)
    try:
        with disposition(signum, signal.SIG_DFL), ThreadPoolExecutor(1) as threads:
            running, page_folder = sleeping_page(pool, threads)
            folder, stopped = page_folder.parent, zygote._current
            assert stopped is not None and folder.name.startswith("lessonkit-pages-"), folder
            os.kill(stopped.process.pid, signum)
            assert not running.result(timeout=30).ok  # its worker was stopped
            assert stopped.reap(30), "the zygote did not exit"
    finally:
        pool.close()
    assert not folder.exists(), "the zygote's folder of page folders is left in /tmp"


def test_a_build_started_with_sighup_ignored_keeps_running_its_pages_on_sighup(
    fresh_zygote: None, sleeping_page: Callable[[WorkerPool, Executor], tuple[Future, Path]]
) -> None:
    """``nohup mkdocs build``: the terminal closing (SIGHUP to the process group) leaves the
    zygote and the page it runs alone, as it leaves the build."""
    pool = WorkerPool(1, default_timeout=60)
    try:
        with disposition(signal.SIGHUP, signal.SIG_IGN), ThreadPoolExecutor(1) as threads:
            running, _ = sleeping_page(pool, threads)
            started = zygote._current
            assert started is not None
            os.kill(started.process.pid, signal.SIGHUP)
            with pytest.raises(TimeoutError):
                running.result(timeout=1)  # the page sleeps on
            assert started.process.poll() is None, "the zygote stopped"
            pool.close()  # now the build stops it
            assert not running.result(timeout=30).ok
    finally:
        pool.close()


def test_a_sites_first_build_starts_the_zygote_as_mkdocs_hands_lessonkit_its_options(
    tmp_path: Path, fresh_zygote: None
) -> None:
    # At on_startup, before MkDocs reads the pages: the zygote's imports overlap the rest of
    # MkDocs' start. Only a first build (no cache folder) runs every page; a later one may run
    # none, and a site that runs no code needs no zygote.
    from mkdocs.config import load_config

    (tmp_path / "docs").mkdir()
    config_file = tmp_path / "mkdocs.yml"

    def started(options: str) -> bool:
        config_file.write_text(f"site_name: test\nplugins:\n  - lessonkit{options}\n")
        load_config(str(config_file)).plugins.on_startup(command="build", dirty=False)
        running = zygote._current is not None
        zygote.stop()
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


def test_dismissed_workers_and_their_zygote_exit_at_once_and_a_later_page_still_runs(
    fresh_zygote: None,
) -> None:
    """A full build lets its workers go once its last page has run: they and their zygote exit
    then, not when the build ends. A page that must still run gets a new worker (from a new
    zygote); a worker that is running a page is left to finish it."""
    pool = WorkerPool(1, default_timeout=30)
    try:
        assert run(pool, "{{ 6 * 7 }}\n").ok
        [dismissed], first = pool._all, zygote._current
        pool.dismiss()
        dismissed.process.join(20)
        assert not dismissed.alive()
        assert first is not None and first.reap(20), "the zygote waits for the build's end"
        assert run(pool, "{{ 6 * 7 }}\n").ok
        assert zygote._current not in (None, first)
    finally:
        pool.close()


def test_a_worker_whose_exit_only_its_pid_tells_is_not_dismissed(fresh_zygote: None) -> None:
    """Without a pidfd (macOS), the zygote collects a dismissed worker and its pid may name
    another process by the time the build stops its workers: such a worker stays, and serves."""
    pool = WorkerPool(1, default_timeout=30)
    try:
        assert run(pool, "{{ 6 * 7 }}\n").ok
        [kept] = pool._all
        kept.process._pidfd = None  # as where there is no pidfd (closed with the object)
        pool.dismiss()
        assert kept.alive()
        assert run(pool, "{{ 6 * 7 }}\n").ok and pool._all == [kept]
    finally:
        pool.close()


_EXITED_BY_POST_BUILD = """
from lessonkit.execute import zygote

def on_post_build(config):  # before lessonkit's own (priority -100), which stops the workers
    started = [*zygote._retired, *filter(None, [zygote._current])]
    assert started and all(z.reap(20) for z in started), "lessonkit's processes still run"
"""


@pytest.mark.parametrize("code", ["```python exec\nprint(6 * 7)\n```\n", "No code: 42.\n"])
def test_a_full_builds_workers_exit_while_mkdocs_writes_the_site(tmp_path: Path, code: str) -> None:
    """Once its last page has run, and so does the zygote a first build starts at once even
    when no page has code to run."""
    (tmp_path / "docs").mkdir()
    page = f"---\ntitle: Sum\n---\n\n# Sum\n\n{code}"
    (tmp_path / "docs" / "index.md").write_text(page)
    (tmp_path / "hook.py").write_text(_EXITED_BY_POST_BUILD)
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: test\nplugins:\n  - lessonkit\nhooks:\n  - hook.py\n"
    )
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=120,
    )
    assert build.returncode == 0, build.stderr
    assert "42" in (tmp_path / "site" / "index.html").read_text()


def test_a_first_build_with_no_code_to_run_leaves_no_zygote_running(tmp_path: Path) -> None:
    # The zygote started at on_startup and no page asked it for a worker: the build still
    # stops it before it exits (left alone, it went on importing, holding the build's output).
    code, held = _first_build(tmp_path, "# Prose only\n\nNo code here.\n", {})
    assert code == 0
    assert not held


def test_a_zygote_leaves_no_folder_in_tmp_though_matplotlib_made_one_there(
    tmp_path: Path,
) -> None:
    # matplotlib makes a temporary config folder when its own cannot be written, and removes it
    # at exit: the zygote skips the interpreter's teardown, not what libraries registered.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    (tmp_path / "file").write_text("")
    env = {"TMPDIR": str(temporary), "MPLCONFIGDIR": str(tmp_path / "file" / "mpl")}
    page = "# Code\n\n```python exec\nprint(6 * 7)\n```\n"
    code, _ = _first_build(tmp_path / "site", page, env)
    assert code == 0
    assert list(temporary.iterdir()) == []


def test_a_zygote_started_before_the_build_changed_its_environment_is_replaced(
    monkeypatch: pytest.MonkeyPatch, fresh_zygote: None
) -> None:
    # A first build starts it at on_startup; a plugin's on_config may then set a variable (or
    # add a folder of modules to sys.path) that the pages need.
    zygote.warm_up()
    early = zygote._current
    assert zygote.current(zygote.HASH_SEED) is early  # nothing changed: the same one
    monkeypatch.setenv("LESSONKIT_SET_AFTER_START", "42")
    pool = WorkerPool(1, default_timeout=30)
    try:
        page = "```python exec\nimport os\n\nprint(os.environ['LESSONKIT_SET_AFTER_START'])\n```\n"
        result = run(pool, page)
    finally:
        pool.close()
    assert result.ok, result.problems
    assert result.steps[0].stdout == "42\n"
    assert zygote._current is not early
