"""Run a page's program in one fresh namespace and collect each step's outputs.

A function prints into the block that calls it (:mod:`lessonkit.execute.capture`):

>>> from lessonkit.execute.program import parse_program
>>> page = parse_program('''
... ```python exec
... def shout(word):
...     print(word.upper())
... ```
...
... ```python exec
... shout("hi")
... ```
... ''')
>>> [step.stdout for step in run_program(page, "page.md").steps]
['', 'HI\\n']

A block shows, as a notebook cell does, its printed output, its last value (unless a ``;`` ends
it) and its figures; :class:`~lessonkit.notebooks.cell.Cell` adds IPython's semantics.
"""

from __future__ import annotations

import ast
import doctest
import hashlib
import itertools
import linecache
import random
import re
import sys
import traceback
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from types import CodeType
from typing import Any

from lessonkit.core.problems import Problem
from lessonkit.execute.capture import PageOutput
from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.imports import ImportWatch
from lessonkit.execute.processes import format_size
from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import Figure, PageResult, StepResult

OUTPUT_LIMIT = 4 * 2**20  # characters of output a page may produce (the largest: about 75 000)
TRACEBACK_LINES = 12  # traceback lines shown under an error at most (repeats collapsed first)


class StepFailed(Exception):
    """A step failed with ``problem`` (or :class:`Problem`'s arguments). Later steps do not run."""

    def __init__(self, problem: Problem | str, *args: Any, **kwargs: Any) -> None:
        self.problem = (
            problem if isinstance(problem, Problem) else Problem(problem, *args, **kwargs)
        )
        super().__init__(self.problem.message)


class OutputLimitExceeded(BaseException):
    """A write past the output limit (no ``Exception``: lesson code might catch that)."""


class _Budget:
    """A page as it runs: its output limit and what it used, its settings, namespace and output."""

    namespace: dict[str, Any]
    path: str
    output: PageOutput

    def __init__(self, limit: int, memory: int | None, describe: bool, notebook: bool) -> None:
        self.limit, self.memory, self.describe, self.notebook = limit, memory, describe, notebook
        self.used = 0
        self.passed = False

    def spend(self, size: int) -> None:
        self.used += size
        if self.used > self.limit:
            self.passed = True
            raise OutputLimitExceeded(f"the page's output passed {format_size(self.limit)}")

    def problem(self, line: int, what: str = "this block", details: str = "") -> Problem:
        limit = format_size(self.limit)
        return Problem(
            f"output too large: the page's output passed its limit of {limit} in {what}",
            line,
            f"print a summary instead (the first rows: print(rows[:10]), or len(rows)); a page's "
            f"printed output, values and figures may take {limit} at most (the lessonkit option "
            "output_limit)",
            details=details,
        )


def run_program(
    program: Program,
    display_path: str,
    *,
    source_text: str = "",
    page_dir: Path | None = None,
    watch: FileWatch | None = None,
    imports: ImportWatch | None = None,
    on_step: Any = None,
    output_limit: int = OUTPUT_LIMIT,
    memory_limit: int | None = None,
    styled: bool = False,
    capture_fds: bool = False,
    describe_figures: bool = True,
) -> PageResult:
    """Run ``program``'s steps in order in a fresh namespace; ``on_step(i)`` as step ``i``
    starts. ``styled``: matplotlib's settings are the figure style already; ``capture_fds``:
    descriptors 1 and 2 too; ``describe_figures``: generated alt text for notebook cells."""
    if source_text:
        lines = source_text.splitlines(keepends=True)
        linecache.cache[display_path] = (len(source_text), None, lines, display_path)
    namespace: dict[str, Any] = {"__name__": "__lesson__", "here": page_dir or Path.cwd()}
    steps: list[StepResult] = []
    problems: list[Problem] = []
    watch = watch or FileWatch()
    notebook = display_path.endswith((".ipynb", ".py"))  # a Markdown lesson is a .md
    budget = _Budget(output_limit, memory_limit, describe_figures, notebook)
    with (
        watch.active(),
        nullcontext() if styled else _figure_style(),
        _seeded(program.page or display_path),
        imports.recording() if imports else nullcontext(),
        PageOutput(budget.spend, display_path, fds=capture_fds) as output,
    ):
        budget.namespace, budget.path, budget.output = namespace, display_path, output
        for index, step in enumerate(program.steps):
            if on_step:
                on_step(index)
            try:
                out = _RUNNERS[step.kind](step, index, budget)
                _check_output(program, output, budget, index)
            except StepFailed as failed:
                problems.append(failed.problem.at(display_path))
                break
            finally:
                _close_figures()
            steps.append(out)
    reads = watch.reads()
    problems += [p.at(display_path) for p in watch.problems()]
    sources = imports.dependencies() if imports else {}
    return PageResult(steps, problems, reads, sources)


def _check_output(program: Program, output: PageOutput, budget: _Budget, index: int) -> None:
    """Fail the page if output passed the limit, or a thread printed after its block ended."""
    if budget.passed:
        raise StepFailed(budget.problem(program.steps[index].header_line))
    if output.late:
        raise StepFailed(
            "a thread this block started printed after the block had ended",
            program.steps[min(output.late)].header_line,
            "wait for the thread before the block ends (thread.join()), or print its "
            "result from the block itself",
        )


def page_seed(page: str) -> int:
    """The seed of a page's random number generators: from its path, so stable across builds.

    >>> page_seed("building-blocks/attention-in-numbers.md")
    3913441082
    """
    return int.from_bytes(hashlib.sha256(page.encode()).digest()[:4], "big")


@contextmanager
def _seeded(page: str) -> Iterator[None]:
    """Seed ``random`` and numpy's global generator for the page; restore them afterwards."""
    numpy = sys.modules.get("numpy")
    if numpy:
        import numpy.random  # numpy loads it lazily; outside the page's record of its imports
    saved, saved_numpy = random.getstate(), numpy.random.get_state() if numpy else None
    random.seed(page_seed(page))
    if numpy:
        numpy.random.seed(page_seed(page))
    try:
        yield
    finally:
        random.setstate(saved)
        if numpy:
            numpy.random.set_state(saved_numpy)


def _figure_style() -> AbstractContextManager[None]:
    import matplotlib as mpl

    from lessonkit.lab.figure_style import STYLE

    return mpl.rc_context(STYLE)


def _run_exec(step: Step, index: int, budget: _Budget) -> StepResult:
    namespace, path, output = budget.namespace, budget.path, budget.output
    cell = None
    if step.option("ipython") == "yes" or (budget.notebook and step.option("ipython") != "no"):
        from lessonkit.notebooks.cell import Cell

        cell = Cell(step)
    chunks = _compile_block(step, path, cell.source if cell else step.source)
    figures: list[Any] = []  # the figures the block's expression statements gave
    with output.step(index) as buffer:
        try:
            with cell.running(namespace, buffer.tell) if cell else nullcontext():
                for code, kind in chunks:
                    if kind == "exec":
                        exec(code, namespace)
                        continue
                    value = eval(code, namespace)
                    if kind != "hidden" and _is_figure(value):
                        figures.append(value)
                    elif kind == "last" and cell:
                        cell.show(value)
                    elif kind == "last" and value is not None:
                        as_text = step.option("output") in ("markdown", "html")
                        buffer.write(
                            value if as_text and isinstance(value, str) else f"{value!r}\n"
                        )
        except BaseException as error:
            if budget.passed or not (cell and cell.raised(error, path)):
                problem = _exception_problem(error, step, path, budget.memory)
                if budget.passed:
                    problem = budget.problem(step.header_line, details=problem.details)
                raise StepFailed(problem) from None
        else:
            if step.option("raises"):
                from lessonkit.notebooks.expected import not_raised

                raise StepFailed(not_raised(step.header_line)) from None
    if budget.passed:  # through descriptor 1: the block ran on
        raise StepFailed(budget.problem(step.header_line))
    shown = cell.outputs() if cell else []
    figures += cell.figures if cell else []
    opened = [sys.modules["matplotlib.pyplot"].figure(n) for n in _figure_numbers()]
    opened += [f for n, f in enumerate(figures) if not any(f is o for o in [*opened, *figures[:n]])]
    describe = budget.describe if cell else None
    rendered = [_render_figure(f, step, path, index, n, describe) for n, f in enumerate(opened)]
    try:
        budget.spend(sum(len(figure.svg) for figure in rendered) + sum(len(s[2]) for s in shown))
    except OutputLimitExceeded:
        raise StepFailed(budget.problem(step.header_line, "this block's figures")) from None
    return StepResult(stdout=buffer.getvalue(), figures=rendered, shown=shown)


def _compile_block(step: Step, path: str, code: str) -> list[tuple[CodeType, str]]:
    """The block compiled in runs: ``exec`` for statements, an ``eval`` per expression statement:
    ``last`` (value shown), ``hidden`` (``;`` after it) or ``expression`` (only a figure shown)."""
    source = "\n" * (step.line - 1) + code  # the code's line numbers are the page's
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        line = error.lineno or step.line
        details = f"line {line}: {(error.text or '').rstrip()}"
        hint = "fix the Python syntax in this block"
        raise StepFailed(f"SyntaxError: {error.msg}", line, hint, details=details) from None
    lines = source.split("\n")
    chunks: list[tuple[CodeType, str]] = []
    run: list[ast.stmt] = []
    for n, node in enumerate(tree.body):
        if not isinstance(node, ast.Expr):
            run.append(node)
            continue
        if run:
            chunks.append((compile(ast.Module(run, []), path, "exec"), "exec"))
            run = []
        after = lines[node.end_lineno - 1][node.end_col_offset :].lstrip()  # type: ignore[index]
        hidden = after.startswith(";") and after[1:].lstrip()[:1] in ("", "#")
        kind = "hidden" if hidden else "last" if n == len(tree.body) - 1 else ""
        chunks.append((compile(ast.Expression(node.value), path, "eval"), kind or "expression"))
    if run:
        chunks.append((compile(ast.Module(run, []), path, "exec"), "exec"))
    return chunks


def _exception_problem(
    error: BaseException, step: Step, path: str, memory: int | None = None
) -> Problem:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    line = frames[-1].lineno if frames else step.line
    details = "\n".join(_collapsed([f"line {f.lineno}: {(f.line or '').strip()}" for f in frames]))
    return Problem(_describe(error, memory), line, _hint_for(error), details=details)


def _describe(error: BaseException, memory: int | None = None) -> str:
    """What happened, in one line: the exception, or what an exit or an interrupt means."""
    name = type(error).__name__
    if isinstance(error, SystemExit):
        code = "" if error.code in (None, "") else repr(error.code)
        return f"SystemExit: the code asked to exit (sys.exit({code}))"
    if isinstance(error, KeyboardInterrupt):
        return "KeyboardInterrupt: the code raised KeyboardInterrupt (or was interrupted)"
    if isinstance(error, MemoryError) and memory:
        detail = f": {error}" if str(error) else ""
        return f"MemoryError: the page needed more than its {format_size(memory)} of memory{detail}"
    return f"{name}: {error}"


def _collapsed(lines: list[str], limit: int = TRACEBACK_LINES) -> list[str]:
    """Traceback lines with repeats collapsed as Python does, then cut to ``limit`` lines.

    >>> _collapsed(["a", "b", "b", "b", "b", "b", "c"])
    ['a', 'b', 'b', 'b', '[Previous line repeated 2 more times]', 'c']
    >>> len(_collapsed([str(n) for n in range(100)], limit=6))
    6
    """
    out: list[str] = []
    for text, group in itertools.groupby(lines):
        count = len(list(group))
        out += [text] * min(count, 3)
        if count > 3:
            out.append(f"[Previous line repeated {count - 3} more times]")
    if len(out) > limit:
        head = limit // 2
        tail = limit - head - 1
        out = [*out[:head], f"[... {len(out) - head - tail} more lines ...]", *out[-tail:]]
    return out


_HINTS = {
    NameError: "define it in this block or an earlier one: blocks run top to bottom, and pages "
    "never share state",
    ModuleNotFoundError: "install the package and add it to pyproject.toml, or import it by its "
    "right name",
    PermissionError: "lesson code runs in a temporary folder: write there",
    SystemExit: "a lesson's code may not end its process: raise an exception to fail, or remove it",
    KeyboardInterrupt: "remove the raise; a block that runs too long is stopped by its timeout=",
    RecursionError: "a function calls itself without end: check its base case (or write a loop)",
    MemoryError: "use less memory: smaller arrays, fewer copies (del what you no longer need), or "
    "raise the lessonkit option memory_limit",
    Exception: "fix the code in this block (run it in a Python shell to explore)",
}


def _hint_for(error: BaseException) -> str:
    if isinstance(error, PermissionError) and getattr(error, "hint", ""):  # the write guard's
        return error.hint  # type: ignore[attr-defined]
    kind = next((k for k in _HINTS if isinstance(error, k)), Exception)
    return _HINTS[kind]


def _run_value(step: Step, index: int, budget: _Budget) -> StepResult:
    namespace, path, output = budget.namespace, budget.path, budget.output
    spelled = "{{ " + step.source + (f":{step.fmt}" if step.fmt else "") + " }}"
    with output.step(index):
        try:
            value = eval(compile(step.source, path, "eval"), namespace)
        except BaseException as error:
            if budget.passed:
                raise StepFailed(budget.problem(step.line, "this inline value")) from None
            name, _, what = _describe(error, budget.memory).partition(": ")
            hint = "inline values read names defined by python exec blocks above them on the page"
            if not isinstance(error, Exception):
                hint = _hint_for(error)
            raise StepFailed(f"{name} in inline value {spelled}: {what}", step.line, hint) from None
    try:
        text = format(value, step.fmt)
    except (ValueError, TypeError) as error:
        hint = "use a format spec that suits the value, e.g. .2f for a float or , for an int"
        raise StepFailed(
            f"cannot format inline value {spelled}: {error}", step.line, hint
        ) from None
    if _figure_numbers():
        raise StepFailed(
            f"the inline value {spelled} drew a figure",
            step.line,
            'an inline value shows text: draw figures in a python exec block with alt="..."',
        )
    try:
        budget.spend(len(text))
    except OutputLimitExceeded:
        raise StepFailed(budget.problem(step.line, "this inline value")) from None
    return StepResult(text=text)


class _RecordingRunner(doctest.DocTestRunner):
    """Records each example's output, the first failure, and which example opened each figure;
    what the examples print draws on the page's output budget."""

    def __init__(self, budget: _Budget) -> None:
        super().__init__(optionflags=doctest.ELLIPSIS, verbose=False)
        self._fakeout = _BoundedSpoofOut(budget)  # what doctest swaps in for sys.stdout
        self.outputs: list[str] = []
        self.failure: tuple[doctest.Example, str] | None = None
        self.current: doctest.Example | None = None
        self.figures: dict[int, doctest.Example] = {}

    def report_start(self, out, test, example) -> None:
        self.current = example

    def report_success(self, out, test, example, got) -> None:
        self._done(example, got)

    def report_failure(self, out, test, example, got) -> None:
        self._done(example, got, f"expected:\n{example.want}got:\n{got or '(nothing)'}\n")

    def report_unexpected_exception(self, out, test, example, exc_info) -> None:
        got = "".join(traceback.format_exception_only(*exc_info[:2]))
        self._done(example, got, f"expected:\n{example.want or '(nothing)'}\ngot: {got}")

    def _done(self, example: doctest.Example, got: str, failure: str = "") -> None:
        self.outputs.append(got)
        if failure and self.failure is None:
            self.failure = (example, failure)
        for number in _figure_numbers():
            self.figures.setdefault(number, example)


class _BoundedSpoofOut(doctest._SpoofOut):
    def __init__(self, budget: _Budget) -> None:
        super().__init__()
        self.budget = budget

    def write(self, text: str) -> int:
        self.budget.spend(len(text))
        return super().write(text)


def _run_doctest(step: Step, index: int, budget: _Budget) -> StepResult:
    namespace, path, output = budget.namespace, budget.path, budget.output
    parser = doctest.DocTestParser()
    test = parser.get_doctest(step.source, namespace, f"{path}:{step.line}", path, step.line - 1)
    test.globs = namespace  # DocTest copies its globals; a lesson's examples share the page's
    runner = _RecordingRunner(budget)

    def line(example: doctest.Example | None) -> int:
        return step.line + example.lineno if example else step.header_line

    with output.step(index):
        try:
            runner.run(test, clear_globs=False)
        except BaseException as error:  # doctest lets KeyboardInterrupt through
            message, hint = _describe(error, budget.memory), _hint_for(error)
            details = _source(runner.current)
            raise StepFailed(message, line(runner.current), hint, details=details) from None
    if budget.passed:
        example = runner.failure[0] if runner.failure else runner.current
        raise StepFailed(budget.problem(line(example), "this doctest"))
    if runner.failure:
        example, details = runner.failure
        hint = "make the written output match what the code prints (or fix the code)"
        message = f"doctest failed: {_source(example)}"
        raise StepFailed(message, line(example), hint, details=details.rstrip())
    if still_open := [runner.figures[n] for n in _figure_numbers() if n in runner.figures]:
        example = min(still_open, key=lambda e: e.lineno)
        raise StepFailed(
            f"a doctest drew a figure: {_source(example)}",
            line(example),
            'a doctest shows text: draw figures in a python exec block with alt="..."',
        )
    transcript = []
    for example, got in zip(test.examples, runner.outputs, strict=True):
        first, *rest = example.source.rstrip("\n").split("\n")
        transcript += [">>> " + first, *("... " + more for more in rest)]
        if got:
            transcript.append(got.rstrip("\n"))
    return StepResult(text="\n".join(transcript))


def _source(example: doctest.Example | None) -> str:
    return f">>> {example.source.strip()}" if example else ""


_RUNNERS = {"exec": _run_exec, "value": _run_value, "doctest": _run_doctest}


def _is_figure(value: object) -> bool:
    return type(value).__module__.startswith("matplotlib.figure")


def _figure_numbers() -> list[int]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    return pyplot.get_fignums() if pyplot else []


def _close_figures() -> None:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot:
        pyplot.close("all")


def _render_figure(
    fig: Any, step: Step, path: str, index: int, number: int, describe: bool | None = None
) -> Figure:
    """``fig`` as SVG with its alt text: the block's, ``fig.alt_text``, or generated when
    ``describe`` (None: not a notebook cell)."""
    alt = step.option("alt") or getattr(fig, "alt_text", "")
    if not alt.strip() and describe:
        from lessonkit.notebooks.alt_text import describe as described

        alt = described(fig)
    if not alt.strip():
        hint = 'describe what the figure shows: add alt="..." to the block, or set fig.alt_text'
        if describe is False:
            hint += " (this site's lessonkit option generated_alt_text is off)"
        raise StepFailed("figure without alt text", step.header_line, hint)
    from lessonkit.execute.svg import to_svg

    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", f"lk-{Path(path).stem}-{index}-{number}")
    return Figure(svg=to_svg(fig, alt=alt, id_prefix=prefix), alt=alt)
