"""Check a page's program without running it: every block, doctest and value must compile."""

from __future__ import annotations

import re

from lessonkit.core.problems import Problem
from lessonkit.execute.program import Program, Step


def compile_problems(program: Program) -> list[Problem]:
    """A SyntaxError for each exec block, doctest example or inline value that does not compile.

    >>> from lessonkit.execute.program import parse_program
    >>> [p.message for p in compile_problems(parse_program("```pycon\\n>>> 1 +\\n```\\n"))]
    ['SyntaxError: invalid syntax']
    """
    problems = []
    for step in program.steps:
        if step.kind == "exec":
            problems += _compile_block(step)
        elif step.kind == "doctest":
            problems += _compile_doctest(step)
        else:
            found = _compile(step.source, step.line, "eval")
            problems += [
                Problem(
                    f"SyntaxError in inline value {{{{ {step.source} }}}}: "
                    + p.message.removeprefix("SyntaxError: "),
                    step.line,
                    "write a Python expression between {{ and }}, e.g. {{ total:.2f }}",
                )
                for p in found
            ]
    return problems


def _compile(source: str, first_line: int, mode: str) -> list[Problem]:
    try:
        compile(source, "<lesson>", mode, dont_inherit=True)
    except SyntaxError as error:
        line = first_line + (error.lineno or 1) - 1
        return [
            Problem(
                f"SyntaxError: {error.msg}",
                line,
                "fix the Python syntax in this block",
                details=f"line {line}: {(error.text or '').strip()}",
            )
        ]
    return []


def _compile_block(step: Step) -> list[Problem]:
    """A block's SyntaxError, if it has one even as IPython reads it (``%magic``, ``!shell``)."""
    if not (found := _compile(step.source, step.line, "exec")):
        return found
    from lessonkit.notebooks.ipython import prepare_cell  # imports IPython: only here

    return _compile(prepare_cell(step.source), step.line, "exec")


def _compile_doctest(step: Step) -> list[Problem]:
    import doctest  # it imports pdb and unittest: a warm build needs neither

    try:
        examples = doctest.DocTestParser().get_examples(step.source)
    except ValueError as error:
        message = re.sub(r"^line \d+ of the docstring for \S+ ", "", str(error))
        hint = "write each example as '>>> code', continuation lines as '... ', then its output"
        return [Problem(f"cannot read the doctest: {message}", step.header_line, hint)]
    problems = []
    for example in examples:
        problems += _compile(example.source, step.line + example.lineno, "single")
    return problems
