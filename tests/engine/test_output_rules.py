"""What a block shows: a trailing ``;`` hides its last value (as in Jupyter); a figure is shown
wherever in the block an expression gives it (as IPython's ``display`` would), in a Markdown
lesson and a notebook alike; descriptors 1 and 2 count against the output limit; a thread's
prints belong to the block that started it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessonkit.execute import worker
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program
from lessonkit.execute.worker import Job, WorkerPool
from lessonkit.notebooks.convert import convert
from lessonkit.notebooks.site import code, markdown, notebook


def run(text: str):
    return run_program(parse_program(text, page="page.md"), "docs/page.md", source_text=text)


@pytest.fixture(scope="module")
def pool():
    pool = WorkerPool(1, default_timeout=30, output_limit=64 * 2**10)
    yield pool
    pool.close()


@pytest.fixture
def logged(capfd):
    """``capfd``, for a fork server started within the test (it holds the build's output)."""
    worker.stop()
    yield capfd
    worker.stop()


def run_in_process(pool: WorkerPool, text: str):
    return pool.run(Job(parse_program(text, page="page.md"), "docs/page.md", text, Path("/tmp")))


def test_a_trailing_semicolon_hides_the_last_value_and_the_figure_still_shows() -> None:
    text = '```python exec alt="A line."\nimport matplotlib.pyplot as plt\nplt.plot([1, 2]);\n```\n'
    [step] = run(text).steps
    assert step.stdout == "", "the Line2D repr (with a memory address) was shown"
    assert len(step.figures) == 1


def test_a_semicolon_hides_a_value_only_at_the_end_of_its_statement() -> None:
    result = run("```python exec\nx = 6; x * 7  # a comment\n```\n\n```python exec\n6 * 7 ;\n```\n")
    assert [step.stdout for step in result.steps] == ["42\n", ""]


MID_BLOCK = """\
from matplotlib.figure import Figure


def chart():
    fig = Figure()
    fig.add_subplot().plot([1, 3, 2])
    return fig


chart()
rises = True
if rises:
    print("it rises")"""


def test_a_figure_an_expression_gives_mid_block_is_shown_in_a_markdown_lesson() -> None:
    text = f'```python exec alt="A line that rises."\n{MID_BLOCK}\n```\n'
    [step] = run(text).steps
    assert len(step.figures) == 1, "the figure was dropped for not being the last line"
    assert step.stdout == "it rises\n"


def test_a_figure_an_expression_gives_mid_cell_is_shown_in_a_notebook_lesson() -> None:
    made = convert(notebook([markdown("# Chart"), code(MID_BLOCK, alt="A line that rises.")]))
    [step] = run(made.text).steps
    assert len(step.figures) == 1, "the figure was dropped for not being the cell's last line"


def test_a_figure_given_twice_or_drawn_with_pyplot_is_shown_once() -> None:
    text = (
        '```python exec alt="One chart."\nimport matplotlib.pyplot as plt\n'
        "fig = plt.figure()\nfig\nplt.plot([1, 2])\nfig\n```\n"
    )
    [step] = run(text).steps
    assert len(step.figures) == 1


def test_os_write_to_descriptor_1_is_the_blocks_output_in_order(pool: WorkerPool) -> None:
    text = "```python exec\nimport os\nprint('a')\nos.write(1, b'b\\n')\nprint('c')\n```\n"
    result = run_in_process(pool, text)
    assert result.ok, result.problems
    assert result.steps[0].stdout == "a\nb\nc\n"


def test_os_write_cannot_get_around_the_output_limit(pool: WorkerPool, logged) -> None:
    text = "Intro\n\n```python exec\nimport os\nos.write(1, b'x' * 20_000_000)\n```\n"
    problem = run_in_process(pool, text).problems[0]
    assert problem.message.startswith("output too large"), problem
    assert problem.line == 3
    out, _ = logged.readouterr()
    assert len(out) < 1000, "the page wrote into the build's own output"


def test_descriptor_2_reaches_the_log_but_only_so_much(pool: WorkerPool, logged) -> None:
    text = "```python exec\nimport os\nfor _ in range(100):\n    os.write(2, b'w' * 10_000)\n```\n"
    assert run_in_process(pool, text).ok
    _, err = logged.readouterr()
    assert err.count("w") == 64 * 2**10
    assert "docs/page.md: more than 64 KiB on stderr; the rest is cut" in err


def test_a_subprocess_prints_into_its_block(pool: WorkerPool) -> None:
    text = "```python exec\nimport subprocess\nsubprocess.run(['echo', 'from echo']);\n```\n"
    assert run_in_process(pool, text).steps[0].stdout == "from echo\n"


LATE_THREAD = """\
```python exec
import threading
go = threading.Event()
def later():
    go.wait(10)
    print("late")
thread = threading.Thread(target=later)
thread.start()
```

```python exec
go.set()
thread.join()
print("second")
```
"""


def test_a_thread_that_prints_after_its_block_fails_the_page_at_that_block() -> None:
    result = run(LATE_THREAD)
    [problem] = result.problems
    assert problem.line == 1, "the block that started the thread is named"
    assert "printed after the block had ended" in problem.message
    assert "join" in problem.hint


def test_a_thread_joined_within_its_block_prints_into_it() -> None:
    text = (
        "```python exec\nimport threading\nt = threading.Thread(target=print, args=('t',))\n"
        "t.start()\nt.join()\n```\n\n```python exec\nprint('second')\n```\n"
    )
    result = run(text)
    assert [step.stdout for step in result.steps] == ["t\n", "second\n"]


def test_a_thread_that_gets_an_ended_threads_id_prints_into_its_own_block() -> None:
    text = (
        "```python exec\nimport threading, time\n"
        "first = threading.Thread(target=time.sleep, args=(0.2,))\nfirst.start()\n```\n\n"
        "```python exec\nfirst.join()\nlater = threading.Thread(target=print, args=('later',))\n"
        "later.start()\nlater.join()\n```\n"
    )
    result = run(text)
    assert result.ok, result.problems
    assert result.steps[1].stdout == "later\n"
