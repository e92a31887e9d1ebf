"""Nothing outlives the build: what a page starts ends with the page, and a build stopped with
SIGTERM or SIGINT during a runaway block leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from lessonkit.execute.program import parse_program
from lessonkit.execute.worker import Job, WorkerPool

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="finds processes through /proc (Linux)"
)

SPAWN = """\
import os, subprocess

children = [subprocess.Popen(["sleep", "1000"]).pid]
middle = os.fork()
if middle == 0:  # a daemon: fork, new session, fork again; the middle one exits at once
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "1001"])
    os._exit(0)
os.waitpid(middle, 0)
"""

RUNAWAY = """\
with open(os.environ["LESSONKIT_TEST_READY"], "w") as ready:
    ready.write("spawned")
while True:
    pass
"""


def _marked(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (set for the build, inherited by all
    it starts: fork server, workers, page processes, what lesson code starts)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ:
            found.append(int(name))
    return found


def _left(marker: str, seconds: float = 10) -> list[int]:
    """The marked processes still there after up to ``seconds`` (exits take a moment)."""
    deadline = time.monotonic() + seconds
    while (found := _marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _describe(pids: list[int]) -> list[str]:
    found = []
    for pid in pids:
        with contextlib.suppress(OSError):
            found.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_what_a_page_starts_ends_with_the_page(tmp_path: Path) -> None:
    marker = f"lessonkit-test-{uuid.uuid4()}"
    text = (
        f"```python exec\nimport os\nos.environ['LESSONKIT_TEST_MARK'] = {marker!r}\n"
        f"{SPAWN}print(*children)\n```\n\nLater {{{{ 1 + 1 }}}}.\n"
    )
    pool = WorkerPool(1, default_timeout=30)
    try:
        result = pool.run(Job(parse_program(text), "docs/spawn.md", text, tmp_path))
        assert result.ok, result.problems
        left = _marked(marker)  # at once: the page's end is when they must be gone
        assert not left, f"outlived their page: {_describe(left)}"
    finally:
        pool.close()


def test_a_block_that_times_out_takes_what_it_started_with_it(tmp_path: Path) -> None:
    marker = f"lessonkit-test-{uuid.uuid4()}"
    text = (
        "```python exec timeout=2\nimport os\n"
        f"os.environ['LESSONKIT_TEST_MARK'] = {marker!r}\n"
        f"os.environ['LESSONKIT_TEST_READY'] = {str(tmp_path / 'ready')!r}\n"
        f"{SPAWN}{RUNAWAY}```\n"
    )
    pool = WorkerPool(1, default_timeout=30)
    try:
        result = pool.run(Job(parse_program(text), "docs/runaway.md", text, tmp_path))
        assert result.problems[0].message.startswith("TimeoutError"), result.problems
        assert (tmp_path / "ready").exists()
        assert not _left(marker, seconds=2), "processes outlived the page that timed out"
    finally:
        pool.close()


SITE = "site_name: runaway\nplugins:\n  - lessonkit:\n      workers: 1\n"
PAGE = f"# Runaway\n\n```python exec timeout=600\n{SPAWN}{RUNAWAY}```\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_build_stopped_during_a_runaway_block_leaves_no_process(
    tmp_path: Path, signum: int
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(PAGE)
    (tmp_path / "mkdocs.yml").write_text(SITE)
    marker = f"lessonkit-test-{uuid.uuid4()}"
    ready = tmp_path / "ready"
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "LESSONKIT_TEST_MARK": marker,
        "LESSONKIT_TEST_READY": str(ready),
    }
    # A process started with SIGINT ignored (as a shell starts a command with `&`) ignores it
    # for good, and so do the processes it starts: a pytest run in the background would hand
    # that on to the build. The build starts as one started from a terminal does.
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        build = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the signal goes to the build alone, as `kill PID` sends it
        )
    finally:
        signal.signal(signal.SIGINT, saved)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and build.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), build.communicate()[0]
        build.send_signal(signum)
        build.wait(timeout=30)
        left = _left(marker)
        assert not left, f"left after {signal.Signals(signum).name}: {_describe(left)}"
    finally:
        if build.poll() is None:
            build.kill()
        for pid in _marked(marker):
            os.kill(pid, signal.SIGKILL)


def test_a_successful_build_leaves_no_process(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    page = f"# Spawns\n\n```python exec\n{SPAWN}print(len(children))\n```\n"
    (tmp_path / "docs" / "index.md").write_text(page)
    (tmp_path / "mkdocs.yml").write_text(SITE)
    marker = f"lessonkit-test-{uuid.uuid4()}"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "LESSONKIT_TEST_MARK": marker}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        left = _left(marker)
        assert not left, f"left after a successful build: {_describe(left)}"
    finally:
        for pid in _marked(marker):
            os.kill(pid, signal.SIGKILL)
