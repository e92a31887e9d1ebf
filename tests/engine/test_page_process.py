"""A page's process: its limits (output, memory) are the pool's to set, its death is told as
what it was, with the line of the block that ran, and the next page runs."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from lessonkit.execute import worker as worker_module
from lessonkit.execute.program import parse_program
from lessonkit.execute.worker import Job, WorkerPool

GiB = 2**30


@pytest.fixture(scope="module")
def pool():
    pool = WorkerPool(1, default_timeout=30, output_limit=8 * 2**10, memory_limit=2 * GiB)
    yield pool
    pool.close()


def run(pool: WorkerPool, text: str, page: str = "page.md"):
    return pool.run(Job(parse_program(text, page=page), f"docs/{page}", text, Path("/tmp")))


def test_the_output_limit_is_the_pools(pool: WorkerPool) -> None:
    assert run(pool, "```python exec\nprint('x' * 7_000)\n```\n").ok
    problem = run(pool, "Intro\n\n```python exec\nprint('x' * 9_000)\n```\n").problems[0]
    assert (problem.line, problem.path) == (3, "docs/page.md")
    assert "passed its limit of 8 KiB in this block" in problem.message
    assert problem.details == "line 4: print('x' * 9_000)"


def test_output_counts_across_the_page_and_a_figure_counts_too(pool: WorkerPool) -> None:
    text = "```python exec\nprint('x' * 5_000)\n```\n\n```pycon\n>>> print('y' * 5_000)\n```\n"
    assert "in this doctest" in run(pool, text).problems[0].message
    figure = (
        '```python exec alt="Many points."\nimport matplotlib.pyplot as plt\n'
        "plt.plot([i % 7 for i in range(3000)])\n```\n"
    )
    assert "in this block's figures" in run(pool, figure).problems[0].message


def test_an_except_in_the_lesson_does_not_hide_the_limit(pool: WorkerPool) -> None:
    text = "```python exec\ntry:\n    print('x' * 20_000)\nexcept BaseException:\n    pass\n```\n"
    assert run(pool, text).problems[0].message.startswith("output too large")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS")
def test_the_memory_limit_is_the_pools(pool: WorkerPool) -> None:
    assert run(pool, "```python exec\nx = bytearray(GiB // 2)\n```\n".replace("GiB", str(GiB))).ok
    problem = run(pool, f"```python exec\nx = bytearray({3 * GiB})\n```\n").problems[0]
    assert problem.message == "MemoryError: the page needed more than its 2 GiB of memory"
    assert problem.line == 2 and problem.hint.startswith("use less memory")


def test_a_crash_is_told_as_one_and_the_next_page_runs(pool: WorkerPool) -> None:
    crash = (
        "```python exec\nprint(1)\n```\n\n```python exec\nimport ctypes\nctypes.string_at(0)\n```\n"
    )
    problem = run(pool, crash).problems[0]
    assert problem.line == 5
    assert "killed by signal SIGSEGV (a segmentation fault) while this block ran" in problem.message
    assert "compiled code" in problem.hint
    assert run(pool, "{{ 6 * 7 }}\n").steps[0].text == "42"


def test_a_fork_in_lesson_code_does_not_speak_for_the_page(pool: WorkerPool) -> None:
    text = (
        "```python exec\nimport os\nchild = os.fork()\nprint('parent' if child else 'child')\n"
        "if child:\n    os.waitpid(child, 0)\n```\n\nDone: {{ 1 }}.\n"
    )
    result = run(pool, text)
    assert result.ok, result.problems
    assert [s.stdout or s.text for s in result.steps] == ["parent\n", "1"]


def test_a_server_killed_from_outside_fails_its_page_at_the_block_and_the_next_page_runs(
    tmp_path: Path,
) -> None:
    pool = WorkerPool(1, default_timeout=60)
    started = tmp_path / "started"
    code = f"import time\nopen({str(started)!r}, 'w').close()\ntime.sleep(60)"
    text = f"Intro\n\n```python exec\n{code}\n```\n"
    try:
        with ThreadPoolExecutor(1) as threads:
            running = threads.submit(run, pool, text)
            deadline = time.monotonic() + 60
            while not started.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(worker_module.forkserver._forkserver._forkserver_pid, signal.SIGKILL)
            problem = running.result(timeout=30).problems[0]
        assert "the lessonkit process running this page stopped" in problem.message
        assert problem.line == 3, "the block that ran is named"
        assert run(pool, "{{ 6 * 7 }}\n").steps[0].text == "42", "a fresh server runs the next"
    finally:
        pool.close()


def test_a_page_that_kills_its_server_fails_with_that_cause_named_and_the_next_page_runs() -> None:
    pool = WorkerPool(1, default_timeout=60)
    text = "```python exec\nimport os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n```\n"
    try:
        problem = run(pool, text).problems[0]
        assert "the lessonkit process running this page stopped" in problem.message
        assert "the page's code ended it" in problem.message
        assert "os.getppid()" in problem.hint
        assert problem.line == 1
        assert run(pool, "{{ 6 * 7 }}\n").steps[0].text == "42", "a fresh server runs the next"
    finally:
        pool.close()


def test_a_page_stopped_by_the_build_leaves_no_working_folder(
    sleeping_page: Callable[[WorkerPool, Executor], tuple[Future, Path]],
) -> None:
    pool = WorkerPool(1, default_timeout=60)
    try:
        with ThreadPoolExecutor(1) as threads:
            running, folder = sleeping_page(pool, threads)
            pool.close()  # the build stops (Ctrl-C, or strict mode failing on another page)
            assert not running.result(timeout=30).ok
        assert folder.name.startswith("lessonkit-"), folder
        assert not folder.exists(), "the page's working folder is left behind"
    finally:
        pool.close()


def test_a_pool_closed_while_a_page_starts_runs_no_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C during a cold build's first seconds: the page's process was not the pool's yet
    # when the pool stopped its pages, then ran its page to the end (a runaway block held the
    # build).
    starting, closed = threading.Event(), threading.Event()
    ensure = worker_module._ensure_server

    def slow_start() -> None:
        starting.set()
        closed.wait(30)  # the fork server still imports while the build stops
        ensure()

    monkeypatch.setattr(worker_module, "_ensure_server", slow_start)
    pool = WorkerPool(1, default_timeout=60)
    ran = tmp_path / "ran"
    try:
        with ThreadPoolExecutor(1) as threads:
            running = threads.submit(run, pool, f"```python exec\nopen({str(ran)!r}, 'w')\n```\n")
            assert starting.wait(30)
            pool.close()
            closed.set()
            result = running.result(timeout=60)
    finally:
        pool.close()
    assert not ran.exists(), "the page ran after the build stopped"
    assert "the lessonkit process running this page stopped" in result.problems[0].message
