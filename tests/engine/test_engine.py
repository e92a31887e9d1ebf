"""The engine: cache keys, worker reuse, timeouts that really stop a block."""

import threading
import time
from pathlib import Path

import pytest

from lessonkit.execute import worker
from lessonkit.execute.engine import Engine
from lessonkit.execute.program import parse_program

SLOW_C = "```python exec timeout=1\nimport time\ntime.sleep(60)\n```\n"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    engine = Engine(tmp_path_factory.mktemp("cache"), workers=1, timeout=5)
    yield engine
    engine.close()


def test_prose_edits_keep_the_key_code_edits_change_it() -> None:
    base = parse_program("Intro.\n\n```python exec\nx = 1\n```\n", page="a.md")
    moved = parse_program(
        "Longer intro.\n\nMore prose.\n\n```python exec\nx = 1\n```\n", page="a.md"
    )
    edited = parse_program("Intro.\n\n```python exec\nx = 2\n```\n", page="a.md")
    other_page = parse_program("Intro.\n\n```python exec\nx = 1\n```\n", page="b.md")
    assert base.key("env") == moved.key("env")
    assert base.key("env") != edited.key("env")
    assert base.key("env") != other_page.key("env")
    assert base.key("env") != base.key("other numpy")


def test_cached_pages_do_not_run_again(engine: Engine) -> None:
    program = parse_program("```python exec\nprint('once')\n```\n", page="cached.md")
    first = engine.result(program, "docs/cached.md")
    before = engine.executed
    engine.forget()  # as between two builds: only the disk cache remains
    second = engine.result(program, "docs/cached.md")
    assert engine.executed == before
    assert second.steps[0].stdout == first.steps[0].stdout == "once\n"


def test_a_released_result_is_looked_up_again_not_run_again(engine: Engine) -> None:
    """A whole build lets go of each page's result once the page is converted: the page still
    counts as run (its checks do not compile it again), and asking again reads the cache."""
    program = parse_program("```python exec\nprint('kept')\n```\n", page="released.md")
    assert engine.result(program, "docs/released.md").ok
    before = engine.executed
    engine.release(program)
    assert engine.key(program) not in engine._futures  # the build no longer holds it
    assert engine.ran(program)
    assert engine.result(program, "docs/released.md").steps[0].stdout == "kept\n"
    assert engine.executed == before


def test_start_runs_a_page_without_an_entry_and_leaves_the_others_to_their_lookup(
    engine: Engine,
) -> None:
    """A build starts up front only the pages that must run; a page with a cache entry is looked
    up when it is converted, so the build does not hold every page's result at once."""
    stored = parse_program("```python exec\nprint('stored')\n```\n", page="stored.md")
    engine.result(stored, "docs/stored.md")
    engine.forget()
    engine.start(stored, "docs/stored.md", "")
    assert not engine.ran(stored), "not looked up yet"
    new = parse_program("```python exec\nprint('new')\n```\n", page="new.md")
    before = engine.executed
    engine.start(new, "docs/new.md", "")
    assert engine.result(new, "docs/new.md").steps[0].stdout == "new\n"
    assert engine.result(stored, "docs/stored.md").steps[0].stdout == "stored\n"
    assert engine.executed == before + 1


def test_a_rebuild_keeps_the_results_that_still_hold(engine: Engine, tmp_path: Path) -> None:
    """Under ``mkdocs serve --dirty``, a result kept from the last build is used without a
    lookup while what it read is unchanged; once that changes, ``ran`` says the page is stale
    (the preview converts it again although its Markdown did not change)."""
    data = tmp_path / "data.txt"
    data.write_text("one")
    code = f"```python exec\nprint(open({str(data)!r}).read())\n```\n"
    program = parse_program(code, page="reads.md")
    assert engine.result(program, "docs/reads.md").steps[0].stdout == "one\n"
    engine.forget(keep_current=True)
    assert engine.ran(program), "nothing it used changed: kept"
    data.write_text("two")
    engine.forget(keep_current=True)
    assert not engine.ran(program), "the file it read changed: dropped"
    assert engine.result(program, "docs/reads.md").steps[0].stdout == "two\n"


def test_one_worker_serves_many_pages_each_in_a_process_of_its_own(engine: Engine) -> None:
    workers, pages = set(), set()
    for n in range(3):
        program = parse_program(
            f"```python exec\nimport os\nids{n} = os.getppid(), os.getpid()\n```\n\n"
            f"{{{{ ids{n}[0] }}}} {{{{ ids{n}[1] }}}}\n"
        )
        worker, page = (s.text for s in engine.result(program, f"docs/p{n}.md").steps[-2:])
        workers.add(worker)
        pages.add(page)
    assert len(workers) == 1 and len(pages) == 3


def test_a_block_stuck_in_c_code_is_killed_and_reported(engine: Engine) -> None:
    result = engine.result(parse_program("Intro\n\n" + SLOW_C, page="slow.md"), "docs/slow.md")
    problem = result.problems[0]
    assert problem.message.startswith("TimeoutError")
    assert (problem.path, problem.line) == ("docs/slow.md", 3)
    # The pool replaces the killed worker: the next page still runs.
    after = engine.result(parse_program("{{ 1 + 1 }}\n", page="after.md"), "docs/after.md")
    assert after.steps[0].text == "2"


def test_blocks_run_in_a_temporary_folder(engine: Engine, tmp_path: Path) -> None:
    program = parse_program("```python exec\nimport os\ncwd = os.getcwd()\n```\n\n{{ cwd }}\n")
    cwd = engine.result(program, "docs/cwd.md").steps[-1].text
    assert "lessonkit-" in cwd and not Path(cwd).exists()


def test_a_page_about_to_start_when_the_engine_closes_does_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The build stopping (Ctrl-C) closed the pool if there was one; a thread that had picked up
    # the first page just before made the pool after that, and ran the page to its end (here
    # a minute) while the build waited to stop.
    engine = Engine(tmp_path / "cache", workers=1, timeout=60)
    picked, checked = threading.Event(), threading.Event()
    job = worker.Job

    def late_job(*args, **kwargs):  # the thread is in the page's run, before it takes the pool
        picked.set()
        checked.wait(30)
        worker.Job = job  # pickled by its name: the class itself again
        return job(*args, **kwargs)

    monkeypatch.setattr(worker, "Job", late_job)
    program = parse_program("```python exec\nimport time\ntime.sleep(60)\n```\n", page="p.md")
    running = engine.submit(program, "docs/p.md", "")
    assert picked.wait(30)
    assert engine._threads is not None  # made by the first page that has to run
    shutdown = engine._threads.shutdown

    def shutdown_seen(wait: bool = True, **kwargs) -> None:  # close() is past its pool by then
        if wait:
            checked.set()
        shutdown(wait=wait, **kwargs)

    monkeypatch.setattr(engine._threads, "shutdown", shutdown_seen)
    began = time.monotonic()
    engine.close()
    assert time.monotonic() - began < 20, "the build waited for the page to run"
    assert "the lessonkit process running this page stopped" in running.result().problems[0].message
