"""Run a page's program in one fresh namespace and collect each step's outputs.

This is the in-process core shared by the worker processes (site builds) and pytest (lesson
doctests). Output capture is per step: ``sys.stdout`` is swapped at every step, so a function
defined in one block that prints when called from a later block prints into the later block.

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
"""

from __future__ import annotations

import ast
import doctest
import io
import linecache
import re
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from types import CodeType
from typing import Any

from lessonkit.core.problems import Problem
from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.imports import ImportWatch
from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import Figure, PageResult, StepResult


class StepFailed(Exception):
    """A step failed; carries the problem to report. Later steps do not run."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def run_program(
    program: Program,
    display_path: str,
    *,
    source_text: str = "",
    page_dir: Path | None = None,
    watch: FileWatch | None = None,
    imports: ImportWatch | None = None,
    on_step: Any = None,
) -> PageResult:
    """Run ``program``'s steps in order in a fresh namespace.

    ``display_path`` names the page in errors and tracebacks; ``source_text`` (the whole file)
    lets tracebacks quote the block's lines. ``on_step(i)`` is called as step ``i`` starts (the
    worker uses it to time each step). With ``imports``, what the steps import becomes the
    result's ``sources`` and ``packages`` (the worker asks, for the cache; a bare run need not).
    """
    if source_text:
        lines = source_text.splitlines(keepends=True)
        linecache.cache[display_path] = (len(source_text), None, lines, display_path)
    namespace: dict[str, Any] = {"__name__": "__lesson__", "here": page_dir or Path.cwd()}
    result = PageResult()
    watch = watch or FileWatch()
    with watch.active(), imports.active() if imports else nullcontext(), _figure_style():
        with imports.recording() if imports else nullcontext():
            for index, step in enumerate(program.steps):
                if on_step:
                    on_step(index)
                try:
                    result.steps.append(_RUNNERS[step.kind](step, namespace, display_path, index))
                except StepFailed as failed:
                    result.problems.append(failed.problem.at(display_path))
                    break
        _close_figures()
    result.reads = watch.reads()
    result.problems += [p.at(display_path) for p in watch.problems(program)]
    if imports:
        result.sources, result.packages = imports.dependencies()
    return result


@contextmanager
def _figure_style() -> Iterator[None]:
    """Run a page with the lesson figure style as matplotlib's settings, restored afterwards.

    A figure drawn with plain pyplot then follows the site's light and dark palettes like the
    lab's figures, and settings one page changes never reach the next page a worker runs. The
    style's module is a dependency of the pages that use matplotlib (``imports.FIGURE_STYLE``).
    """
    import matplotlib as mpl

    from lessonkit.lab.figures import STYLE

    with mpl.rc_context(STYLE):
        yield


def _run_exec(step: Step, namespace: dict[str, Any], path: str, index: int) -> StepResult:
    body, last = _compile_block(step, path)
    out = StepResult()
    with _capture_stdout() as buffer:
        try:
            exec(body, namespace)
            value = eval(last, namespace) if last else None
        except Exception as error:
            raise StepFailed(_exception_problem(error, step, path)) from None
    out.stdout = buffer.getvalue()
    figures = _open_figures()
    if value is not None:
        if _is_figure(value):
            if value not in figures:
                figures.append(value)
        elif isinstance(value, str) and step.option("output") in ("markdown", "html"):
            out.stdout += value
        else:
            out.stdout += repr(value) + "\n"
    out.figures = [_render_figure(fig, step, path, index, n) for n, fig in enumerate(figures)]
    _close_figures()
    return out


def _compile_block(step: Step, path: str) -> tuple[CodeType, CodeType | None]:
    try:
        tree = ast.parse(step.source, filename=path)
    except SyntaxError as error:
        line = step.line + (error.lineno or 1) - 1
        problem = Problem(
            f"SyntaxError: {error.msg}",
            line,
            "fix the Python syntax in this block",
            details=f"line {line}: {(error.text or '').rstrip()}",
        )
        raise StepFailed(problem) from None
    ast.increment_lineno(tree, step.line - 1)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), path, "eval")
    return compile(tree, path, "exec"), last


def _exception_problem(error: BaseException, step: Step, path: str) -> Problem:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    line = frames[-1].lineno if frames else step.line
    details = "\n".join(f"line {f.lineno}: {(f.line or '').strip()}" for f in frames)
    return Problem(f"{type(error).__name__}: {error}", line, _hint_for(error), details=details)


def _hint_for(error: BaseException) -> str:
    if isinstance(error, NameError):
        return (
            "define it in this block or an earlier one: blocks run top to bottom, "
            "and pages never share state"
        )
    if isinstance(error, ModuleNotFoundError):
        return "install the package and add it to pyproject.toml, or import it by its right name"
    if isinstance(error, PermissionError):
        return "lesson code runs in a temporary folder; write files there, not into docs/ or site/"
    return "fix the code in this block (run it in a Python shell to explore)"


def _run_value(step: Step, namespace: dict[str, Any], path: str, index: int) -> StepResult:
    spelled = "{{ " + step.source + (f":{step.fmt}" if step.fmt else "") + " }}"
    try:
        value = eval(compile(step.source, path, "eval"), namespace)
    except Exception as error:
        hint = "inline values read names defined by python exec blocks above them on the page"
        raise StepFailed(
            Problem(f"{type(error).__name__} in inline value {spelled}: {error}", step.line, hint)
        ) from None
    try:
        text = format(value, step.fmt)
    except (ValueError, TypeError) as error:
        hint = "use a format spec that suits the value, e.g. .2f for a float or , for an int"
        raise StepFailed(
            Problem(f"cannot format inline value {spelled}: {error}", step.line, hint)
        ) from None
    return StepResult(text=text)


class _RecordingRunner(doctest.DocTestRunner):
    """A DocTestRunner that records each example's real output and the first failure."""

    def __init__(self) -> None:
        super().__init__(optionflags=doctest.ELLIPSIS, verbose=False)
        self.outputs: list[str] = []
        self.failure: tuple[doctest.Example, str] | None = None

    def report_start(self, out, test, example) -> None:
        pass

    def report_success(self, out, test, example, got) -> None:
        self.outputs.append(got)

    def report_failure(self, out, test, example, got) -> None:
        self.outputs.append(got)
        if self.failure is None:
            self.failure = (example, f"expected:\n{example.want}got:\n{got or '(nothing)'}\n")

    def report_unexpected_exception(self, out, test, example, exc_info) -> None:
        message = "".join(traceback.format_exception_only(exc_info[0], exc_info[1]))
        self.outputs.append(message)
        if self.failure is None:
            self.failure = (example, f"expected:\n{example.want or '(nothing)'}\ngot: {message}")


def _run_doctest(step: Step, namespace: dict[str, Any], path: str, index: int) -> StepResult:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(step.source, namespace, f"{path}:{step.line}", path, step.line - 1)
    test.globs = namespace  # DocTest copies its globals; a lesson's examples share the page's
    runner = _RecordingRunner()
    with _capture_stdout():
        runner.run(test, clear_globs=False)
    if runner.failure:
        example, details = runner.failure
        line = step.line + example.lineno
        hint = "make the written output match what the code prints (or fix the code)"
        raise StepFailed(
            Problem(
                f"doctest failed: >>> {example.source.strip()}",
                line,
                hint,
                details=details.rstrip(),
            )
        )
    transcript = []
    for example, got in zip(test.examples, runner.outputs, strict=True):
        source_lines = example.source.rstrip("\n").split("\n")
        transcript.append(">>> " + source_lines[0])
        transcript += ["... " + line for line in source_lines[1:]]
        if got:
            transcript.append(got.rstrip("\n"))
    return StepResult(text="\n".join(transcript))


_RUNNERS = {"exec": _run_exec, "value": _run_value, "doctest": _run_doctest}


class _capture_stdout:
    """Swap ``sys.stdout`` for a fresh buffer for the duration of one step."""

    def __enter__(self) -> io.StringIO:
        self.saved = sys.stdout
        sys.stdout = io.StringIO()
        return sys.stdout

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self.saved


def _is_figure(value: object) -> bool:
    return type(value).__module__.startswith("matplotlib.figure")


def _open_figures() -> list[Any]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    return [pyplot.figure(n) for n in pyplot.get_fignums()] if pyplot else []


def _close_figures() -> None:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot:
        pyplot.close("all")


def _render_figure(fig: Any, step: Step, path: str, index: int, number: int) -> Figure:
    alt = step.option("alt") or getattr(fig, "alt_text", "")
    if not alt.strip():
        raise StepFailed(
            Problem(
                "figure without alt text",
                step.header_line,
                'describe what the figure shows: add alt="..." to the block, or set fig.alt_text',
            )
        )
    from lessonkit.execute.svg import to_svg

    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", f"lk-{Path(path).stem}-{index}-{number}")
    return Figure(svg=to_svg(fig, alt=alt, id_prefix=prefix), alt=alt)
