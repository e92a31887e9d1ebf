"""The runner, in this process: bounded stderr, short tracebacks, figures that belong to the step
that drew them, and generators seeded per page without touching the caller's."""

from __future__ import annotations

import random

import numpy as np

from lessonkit.execute import runner
from lessonkit.execute.capture import STDERR_LIMIT
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import TRACEBACK_LINES, run_program


def run(text: str, page: str = "page.md", **kwargs):
    return run_program(parse_program(text, page=page), f"docs/{page}", source_text=text, **kwargs)


def test_stderr_reaches_the_log_but_only_so_much(capsys) -> None:
    result = run(
        "```python exec\nimport sys\nfor _ in range(100):\n"
        "    sys.stderr.write('w' * 10_000)\n```\n"
    )
    assert result.ok
    logged = capsys.readouterr().err
    assert logged.count("w") == STDERR_LIMIT
    assert "docs/page.md: more than 64 KiB on stderr; the rest is cut" in logged


def test_a_runaway_recursion_is_told_in_a_few_lines() -> None:
    text = "```python exec\ndef down(n):\n    return down(n - 1)\n\n\ndown(3)\n```\n"
    problem = run(text).problems[0]
    assert problem.message == "RecursionError: maximum recursion depth exceeded"
    assert problem.line == 3
    lines = problem.details.splitlines()
    assert lines[:4] == ["line 6: down(3)", *["line 3: return down(n - 1)"] * 3]
    assert lines[4].startswith("[Previous line repeated ") and len(lines) == 5
    assert "base case" in problem.hint


def test_a_long_traceback_is_cut_to_its_ends() -> None:
    calls = "\n".join(f"def f{n}():\n    f{n + 1}()" for n in range(30))
    text = f"```python exec\n{calls}\ndef f30():\n    raise ValueError('deep')\nf0()\n```\n"
    problem = run(text).problems[0]
    lines = problem.details.splitlines()
    assert len(lines) == TRACEBACK_LINES
    assert lines[0].endswith("f0()") and lines[-1].endswith("raise ValueError('deep')")
    assert "more lines" in lines[TRACEBACK_LINES // 2]


def test_a_figure_a_doctest_closes_is_fine_and_the_next_block_shows_only_its_own() -> None:
    text = (
        "```pycon\n>>> import matplotlib.pyplot as plt\n>>> fig = plt.figure()\n"
        ">>> plt.close(fig)\n```\n\n"
        '```python exec alt="One line."\nline = plt.plot([0, 1])\n```\n'
    )
    result = run(text)
    assert result.ok, result.problems
    assert len(result.steps[1].figures) == 1


def test_the_first_example_that_left_a_figure_open_is_blamed() -> None:
    text = (
        "```pycon\n>>> import matplotlib.pyplot as plt\n>>> 1 + 1\n2\n"
        ">>> fig = plt.figure()\n>>> ax = fig.add_subplot()\n```\n"
    )
    problem = run(text).problems[0]
    assert problem.line == 5 and problem.message.endswith(">>> fig = plt.figure()")
    assert "python exec block" in problem.hint


def test_each_page_draws_its_own_numbers_the_same_in_every_run() -> None:
    text = "```python exec\nimport random\nimport numpy as np\n"
    text += "x = random.random(), np.random.rand()\n```\n\n{{ x }}\n"
    first, again, other = run(text, "a.md"), run(text, "a.md"), run(text, "b.md")
    assert first.steps[1].text == again.steps[1].text != other.steps[1].text
    assert runner.page_seed("a.md") != runner.page_seed("b.md")


def test_a_run_in_this_process_leaves_the_callers_generators_as_they_were() -> None:
    random.seed(7)
    np.random.seed(7)
    expected = (random.random(), np.random.rand())
    random.seed(7)
    np.random.seed(7)
    run("```python exec\nimport random\nrandom.seed(1)\nrandom.random()\n```\n")
    assert (random.random(), np.random.rand()) == expected


def test_system_exit_and_interrupts_in_values_are_told_as_such() -> None:
    problem = run("{{ exit(2) }}\n").problems[0]
    assert (
        problem.message
        == "SystemExit in inline value {{ exit(2) }}: the code asked to exit (sys.exit(2))"
    )
    problem = run(
        "```python exec\ndef stop():\n    raise KeyboardInterrupt\n```\n\n{{ stop() }}\n"
    ).problems[0]
    assert problem.message.startswith("KeyboardInterrupt in inline value {{ stop() }}")
