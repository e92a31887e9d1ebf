"""Find what a page executes: ``python exec`` fences, ``pycon`` doctests and ``{{ values }}``.

A page's *program* is its steps in document order, with the file's line numbers. A fence that
looks executable in another spelling is an error naming the one lessonkit runs (:func:`near_miss`).

>>> text = '''Intro.
...
... ```python exec source="hide"
... x = 21 * 2
... ```
...
... The answer is {{ x:.1f }}.
... '''
>>> [(s.kind, s.line, s.source) for s in parse_program(text).steps]
[('exec', 4, 'x = 21 * 2'), ('value', 7, 'x')]
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, NamedTuple

from lessonkit.core.fences import fences, paragraph_spans
from lessonkit.core.problems import LessonError, Problem

_CHOICES = {
    "output": ("text", "markdown", "html", "none"),
    "source": ("show", "hide"),
    "ipython": ("yes", "no"),
    "raises": ("exception",),
}
EXEC_OPTIONS = {
    "source": "show the code (show, the default) or hide it (hide)",
    "output": "how printed output is shown: text (default), markdown, html or none",
    "alt": "alt text for a figure the block draws (required for every figure)",
    "timeout": "seconds this block may run before it is stopped (default from mkdocs.yml)",
    "title": "a caption shown above the code",
    "ipython": "yes: run the block as a notebook cell (magics, !shell, display(), rich values; "
    "the page's folder as working folder), as a notebook lesson's blocks run (no: not)",
    "raises": "exception: the block fails on purpose, its exception is shown (Jupyter Book's "
    "raises-exception tag); the build fails if it stops raising",
}

_VALUE = re.compile(r"(?<!\\)\{\{(?P<body>.+?)\}\}")
_FORMAT_SPEC = re.compile(r"^(.?[<>=^])?[+\- ]?z?#?0?\d*[,_]?(\.\d+)?[bcdeEfFgGnosxX%]?$")


class Step(NamedTuple):
    """One executable thing on a page."""

    kind: Literal["exec", "doctest", "value"]
    source: str
    line: int  # of the step's first source line (for a fence: the line after the opening)
    options: tuple[tuple[str, str], ...] = ()
    fmt: str = ""  # an inline value's format spec, e.g. ``.2f``

    @property
    def header_line(self) -> int:
        """The line to blame for the step as a whole: a fence's opening line, or the value's."""
        return self.line if self.kind == "value" else self.line - 1

    def option(self, name: str, default: str = "") -> str:
        return dict(self.options).get(name, default)


class Span(NamedTuple):
    """Where a step sits in the parsed text: lines ``[start, end)``; a value's column and length."""

    start: int
    end: int
    indent: str = ""
    column: int = 0
    length: int = 0


@dataclass(eq=False)
class Program:
    """A page's steps in document order, with where each one sits in the source text."""

    steps: list[Step] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    page: str = ""  # relative to the docs folder: in the key (code may read files there)

    def key(self, environment: str) -> str:
        """Cache key: the steps' kinds, sources and options, the page and ``environment``; no line
        numbers (a prose edit that moves a block re-runs nothing)."""
        steps = [(s.kind, s.source, s.options, s.fmt) for s in self.steps]
        return hashlib.sha256(json.dumps([self.page, environment, steps]).encode()).hexdigest()


def parse_program(text: str, line_offset: int = 0, page: str = "") -> Program:
    """Parse ``text`` into a :class:`Program`; raise :class:`LessonError` on bad block options
    and on fences that look executable but are not lessonkit's syntax (:func:`near_miss`)."""
    program = Program(page=page)
    problems: list[Problem] = []
    lines = text.split("\n")
    values = "{{" in text
    prose = 0
    for fence in fences(lines):
        if values:
            _parse_values(lines, prose, fence.start, line_offset, program, problems)
        if "ex" in fence.info.lower() and (miss := near_miss(fence.info)):
            problems.append(Problem(miss[0], fence.start + 1 + line_offset, miss[1]))
        prose = fence.end + 1
        words = fence.info.split(None, 1)
        language = words[0].lower() if words else ""
        rest = words[1] if len(words) > 1 else ""
        is_exec = language == "python" and (rest == "exec" or rest.startswith("exec "))
        if is_exec or language == "pycon":
            start, end = fence.start, fence.end
            options = _parse_options(rest[4:], start + 1 + line_offset, problems) if is_exec else ()
            body = "\n".join(_dedent(lines[start + 1 : end], fence.indent))
            kind = "exec" if is_exec else "doctest"
            program.steps.append(Step(kind, body, start + 2 + line_offset, options))
            program.spans.append(Span(start, end + 1, fence.indent))
    if values:
        _parse_values(lines, prose, len(lines), line_offset, program, problems)
    if ">" in text and "ex" in text:
        problems += _quoted_fences(lines, line_offset)
    if problems:
        raise LessonError(sorted(problems, key=lambda p: p.line or 0))
    return program


_RUNS = "lessonkit runs ```python exec blocks (and ```pycon doctests)"
_QUOTED_FENCE = re.compile(r" {0,3}>[ >]*(?:`{3,}|~{3,})(?P<info>[^`]*)")  # behind a quote's >


@lru_cache(maxsize=1024)
def near_miss(info: str) -> tuple[str, str] | None:
    """The message and hint when a fence's ``info`` asks to execute in a spelling lessonkit does
    not run (else None): its words close to ``exec``, its language close to Python's names.

    >>> near_miss('python exec source="hide"') is None, near_miss("python") is None
    (True, True)
    >>> print(*near_miss('{.python exec="1" title="a.py"}'), sep="\\n")
    ```{.python exec="1" title="a.py"} does not run: lessonkit runs ```python exec blocks (and \
```pycon doctests)
    did you mean ```python exec title="a.py"?
    """
    words = _info_words(info)
    if not words:
        return None
    own = not info.lstrip().startswith("{") and words[0].lower() == "python"
    if glued := _GLUED.fullmatch(words[0].lower()):  # python-exec, python,exec, pythonexec
        words[:1] = [glued["language"], glued["exec"]]
        own = False
    language = words[0].lower().lstrip(".")
    wanted = [n for n, w in enumerate(words[1:], 1) if _is_exec(w)]
    if not wanted:
        return None
    if own and wanted == [1] and words[1] == "exec":
        return None  # lessonkit's own syntax
    others = [w for n, w in enumerate(words[1:], 1) if n not in wanted and not w.startswith(".")]
    written = "```" + info.strip()
    message = f"{written} does not run: {_RUNS}"
    if language == "pycon":
        hint = "a ```pycon block is a doctest and runs as it is: write ```pycon (or ```python exec)"
        return message, hint
    suggestion = " ".join(["```python exec", *others])
    if difflib.get_close_matches(language, _PYTHONS, n=1):
        return message, f"did you mean {suggestion}?"
    hint = f"only Python runs: write {suggestion} for Python code, or drop exec to show the code"
    return message, hint


_GLUED = re.compile(r"\.?(?P<language>py(?:thon)?3?|pycon)[,;:_.-]?(?P<exec>exec\w*)")
_PYTHONS = ("python", "py", "python3", "py3", "python2", "ipython", "ipython3", "pyodide")


def _info_words(info: str) -> list[str]:
    """A fence's info string (``{.python .exec title="x"}``: braces dropped) as words."""
    text = info.strip()
    if text.startswith("{"):
        text = text.strip("{} ")
    return _WORD.findall(text)


_WORD = re.compile(r"""(?:[^\s"']+|"[^"]*"?|'[^']*'?)+""")  # quoted values kept as written


def _is_exec(word: str) -> bool:
    """Whether an info string's word asks to execute: ``.exec``, ``exec="1"``, ``exe``..."""
    name = word.lower().lstrip(".").split("=", 1)[0].strip("\"':,;")
    return bool(difflib.get_close_matches(name, ("exec", "execute"), cutoff=0.8))


def _quoted_fences(lines: list[str], line_offset: int) -> list[Problem]:
    """A problem for each fence in a block quote that asks to execute: nothing runs there."""
    problems = []
    for index, line in enumerate(lines):
        m = _QUOTED_FENCE.fullmatch(line)
        if m is None or "ex" not in m["info"].lower():
            continue
        info = m["info"].strip()
        words = _info_words(info)
        miss = near_miss(info)
        if miss is None and not (words[1:2] == ["exec"] and words[0].lower() == "python"):
            continue
        message = f"```{info} in a block quote does not run: nothing executes inside a quote"
        hint = "take the block out of the quote (a block before it can compute what the quote says)"
        problems.append(Problem(message, index + 1 + line_offset, hint))
    return problems


def _dedent(lines: list[str], indent: str) -> list[str]:
    return [line[len(indent) :] if line.startswith(indent) else line.lstrip() for line in lines]


@lru_cache(maxsize=1024)
def _words(options: str) -> tuple[str, ...]:
    """``shlex.split``, once per options text: pages repeat them (~15 ms of a warm 200-page
    build, `scripts/benchmark.py --pages 200`)."""
    return tuple(shlex.split(options))


def _parse_options(text: str, line: int, problems: list[Problem]) -> tuple[tuple[str, str], ...]:
    try:
        words = _words(text)
    except ValueError as error:
        problems.append(
            Problem(f"cannot read the block's options: {error}", line, 'quote values: alt="..."')
        )
        return ()
    options: dict[str, str] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if name not in EXEC_OPTIONS:
            close = difflib.get_close_matches(name, EXEC_OPTIONS, n=1)
            hint = f"did you mean {close[0]}?" if close else "options: " + ", ".join(EXEC_OPTIONS)
            problems.append(Problem(f"unknown option {name!r} on a python exec block", line, hint))
            continue
        if not sep:
            problems.append(Problem(f"option {name!r} needs a value", line, f'write {name}="..."'))
            continue
        allowed = _CHOICES.get(name)
        if allowed and value not in allowed:
            choices = ", ".join(allowed)
            hint = f"write {name}=VALUE with one of: {choices}"
            problems.append(Problem(f"{name}={value!r} is not one of {choices}", line, hint))
        if name == "timeout" and not _is_positive_number(value):
            hint = "give the seconds the block may run, e.g. timeout=30"
            problems.append(Problem(f"timeout={value!r} is not a positive number", line, hint))
        options[name] = value
    return tuple(sorted(options.items()))


def _is_positive_number(value: str) -> bool:
    try:
        return float(value) > 0
    except ValueError:
        return False


def _parse_values(
    lines: list[str], start: int, stop: int, offset: int, program: Program, problems: list[Problem]
) -> None:
    """The inline values of ``lines[start:stop]``, prose between fences, outside code spans."""
    in_code: dict[int, list[tuple[int, int]]] = {}
    for index in range(start, stop):
        line_text = lines[index]
        if "{{" not in line_text:
            continue
        if index not in in_code:  # the paragraph's code spans
            in_code = paragraph_spans(lines, index, start, stop)
        code_spans = in_code[index]
        for match in _VALUE.finditer(line_text):
            if any(begin <= match.start() < end for begin, end in code_spans):
                continue
            line = index + 1 + offset
            expression, fmt = split_format(match["body"].strip())
            if not expression:
                problems.append(Problem("empty inline value {{ }}", line, "write {{ name:.2f }}"))
                continue
            program.steps.append(Step("value", expression, line, fmt=fmt))
            span = Span(index, index + 1, column=match.start(), length=len(match[0]))
            program.spans.append(span)


def split_format(body: str) -> tuple[str, str]:
    """Split ``expr:spec`` into expression and format spec, as an f-string would.

    >>> split_format("exps[0]:.1f")
    ('exps[0]', '.1f')
    >>> split_format("x[1:3]")
    ('x[1:3]', '')
    >>> split_format("{'a': 1}['a']")
    ("{'a': 1}['a']", '')
    """
    if not _compile(body, 1, "eval"):
        return body, ""
    expression, sep, spec = body.rpartition(":")
    if sep and _FORMAT_SPEC.match(spec.strip()) and not _compile(expression.strip(), 1, "eval"):
        return expression.strip(), spec.strip()
    return body, ""


def compile_problems(program: Program) -> list[Problem]:
    """A SyntaxError for each exec block, doctest example or inline value that does not compile.

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
            hint = "write a Python expression between {{ and }}, e.g. {{ total:.2f }}"
            for found in _compile(step.source, step.line, "eval"):
                what = found.message.removeprefix("SyntaxError: ")
                message = f"SyntaxError in inline value {{{{ {step.source} }}}}: {what}"
                problems.append(Problem(message, step.line, hint))
    return problems


def _compile(source: str, first_line: int, mode: str) -> list[Problem]:
    try:
        compile(source, "<lesson>", mode, dont_inherit=True)
    except SyntaxError as error:
        line = first_line + (error.lineno or 1) - 1
        details = f"line {line}: {(error.text or '').strip()}"
        hint = "fix the Python syntax in this block"
        return [Problem(f"SyntaxError: {error.msg}", line, hint, details=details)]
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
