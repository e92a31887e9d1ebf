"""Check quizzes in raw Markdown with line numbers (which Python-Markdown does not keep),
reading the lines as Python-Markdown and pymdown will: in containers too, fenced code skipped.
The one judge of the quiz rules: ``lessonkit check``, every build and the extension run it.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import yaml

from lessonkit.core.containers import regions_of
from lessonkit.core.fences import fences
from lessonkit.core.problems import Problem

from .rules import (
    CODE,
    NO_QUESTION,
    RE_MARK,
    RE_PLACEHOLDER,
    contradiction,
    problem,
    quote,
    unsafe_link,
)

RE_QUIZ = re.compile(r"^ {0,3}/{3,} *quiz(?![\w-])", re.I | re.M)
"""Any line that tries to open a quiz, well-formed or not."""
RE_ANY_QUIZ = re.compile(r"^[ \t>]*/{3,} *quiz(?![\w-])", re.I | re.M)
"""The same at any depth: indented in a container, or behind a block quote's ``>``."""
RE_MAYBE_QUIZ = re.compile(r"/{3,} *quiz", re.I)  # in any quiz text: a list item's too
RE_START = re.compile(r"^ {0,3}(/{3,}) *([\w-]+) *(?:\| *(.*?) *)?$")
"""pymdown-extensions' block opening line (its ``RE_START``, applied to one line)."""
RE_END = re.compile(r"^ {0,3}(/{3,}) *$")
RE_OPTIONS_LINE = re.compile(r"^ {4,}\S")
"""pymdown reads lines indented 4+ spaces right after the opening line as YAML options."""
RE_BULLET = re.compile(r"^ {0,3}[-*+] +(\S.*)$")
RE_NUMBERED = re.compile(r"^ {0,3}\d+[.)] +(?=\S)")
TYPES = ("single", "multiple")


def check(markdown_text: str) -> list[Problem]:
    """Every quiz authoring problem in ``markdown_text``, sorted by line.

    >>> src = "/// quiz\\nWhat is 2 + 2?\\n\\n- [x] 4\\n- [ ] 5\\n///\\n"
    >>> print(check(src)[0].format())
    <markdown>:5: error: wrong option "5" has no feedback
      hint: after a blank line, indent a paragraph by 4 spaces under the option that starts 'Not quite.' and says why
    """  # noqa: E501
    if not RE_ANY_QUIZ.search(markdown_text):
        return []
    problems: list[Problem] = []
    for region in regions_of(markdown_text, "//"):
        for found in check_lines(region.lines):
            if found.line is not None and 0 < found.line <= len(region.numbers):
                found = found._replace(line=region.numbers[found.line - 1] + 1)  # in the file
            problems.append(found)
    return sorted(problems, key=lambda p: p.line or 0)


def header_problems(header: str, option_lines: list[str], line: int | None) -> list[Problem]:
    """Problems that make pymdown leave ``/// quiz`` as literal text, from the header line, the
    4-space-indented option lines under it and the header's line number (None when unknown).

    >>> [p.message for p in header_problems("/// quiz", ["    type: many"], 3)]
    ['quiz option `type` must be single or multiple, not "many"']
    """
    m = RE_START.match(header)
    if m is None:
        return [problem("header", line, text=quote(header.strip()))]
    found = [problem("argument", line, text=quote(m[3]))] if m[3] else []
    if not option_lines:
        return found
    options = _read_options(option_lines)
    if options is None:
        at = None if line is None else line + 1
        return [*found, problem("options", at, text=quote(option_lines[0]))]
    for key, value in options.items():
        n = next((n for n, t in enumerate(option_lines) if t.strip().startswith(f"{key}:")), 0)
        at = None if line is None else line + 1 + n
        if key != "type":
            found.append(problem("unknown-option", at, text=quote(str(key))))
        elif value not in TYPES:
            found.append(problem("bad-type", at, text=quote(str(value))))
    return found


def _read_options(option_lines: list[str]) -> dict | None:
    """The block's YAML options as pymdown reads them; None when they are not a mapping."""
    if not option_lines:
        return {}
    try:
        options = yaml.safe_load(textwrap.dedent("\n".join(option_lines)))
    except yaml.YAMLError:
        return None
    return options if isinstance(options, dict) else None


RE_LINK_TARGET = re.compile(r"\]\(\s*<?((?:[^\s()<>]|\([^\s()]*\))+)|^\s*\[[^\]]+\]:\s*<?([^\s>]+)")
"""An inline link's target (one level of parentheses inside), or a reference definition's."""


@dataclass
class _Option:
    line: int
    body: str
    feedback_line: int | None = None
    feedback: str = ""


def check_lines(lines: list[str]) -> list[Problem]:
    """The problems of the quizzes in ``lines`` (one region), with lines counted in it."""
    problems: list[Problem] = []
    # index of each fenced line: whether it opens the fence
    code = {
        i: i == f.start for f in fences(lines) for i in range(f.start, min(f.end + 1, len(lines)))
    }
    i = 0
    while i < len(lines):
        if i not in code and RE_QUIZ.match(lines[i]):
            i, found = _check_quiz(lines, i, code)
            problems += found
        i += 1
    return problems


def _check_quiz(lines: list[str], start: int, code: dict[int, bool]) -> tuple[int, list[Problem]]:
    """Check the quiz opened at index ``start``; return the index of its last line and problems."""
    header, number = lines[start], start + 1
    m = RE_START.match(header)
    if m is None or m[2].lower() != "quiz":
        return start, [problem("header", number, text=quote(header.strip()))]
    j = start + 1
    while j < len(lines) and RE_OPTIONS_LINE.match(lines[j]):
        j += 1
    problems = header_problems(header, lines[start + 1 : j], number)
    options_read = _read_options(lines[start + 1 : j])
    body, end, nested = _body(lines, j, len(m[1]), code)
    last = end if end is not None else len(lines) - 1
    if options_read is None:  # the "options" are likely the question: judge the body once fixed
        return last, problems
    question, options, found = _read_body(body, code)
    problems += [
        bad
        for number, text in body
        if number - 1 not in code
        for m in RE_LINK_TARGET.finditer(text)
        if (bad := unsafe_link(m[1] or m[2], number))
    ]
    first = next((text for _, text in question if text.strip()), None)
    name = quote(first) if first else NO_QUESTION
    problems += found
    problems += [problem("nested", n, text=name) for n in nested]
    if end is None:
        problems.append(problem("unclosed", number, text=name))
    if first is None:
        problems.append(problem("empty-question", number))
    elif first.startswith(("    ", "```", "~~~")) or RE_PLACEHOLDER.fullmatch(first.strip()):
        problems.append(problem("question-start", question[0][0], text=CODE))
    elif first.startswith("#"):
        problems.append(problem("question-start", question[0][0], text=quote(first)))
    if options is None:
        return last, problems
    if not options:
        problems.append(problem("no-options", number, text=name))
    problems += _option_problems(options, name, options_read.get("type"), number)
    return last, problems


def _body(
    lines: list[str], j: int, length: int, code: dict[int, bool]
) -> tuple[list[tuple[int, str]], int | None, list]:
    """The quiz's content lines (number, text), the index of its closing line, nested quizzes."""
    stack = [length]
    body: list[tuple[int, str]] = []
    nested: list[int] = []
    for k in range(j, len(lines)):
        line = lines[k]
        in_code = k in code
        if not in_code and (e := RE_END.match(line)) and len(e[1]) == stack[-1]:
            stack.pop()
            if not stack:
                return body, k, nested
        elif not in_code and (s := RE_START.match(line)):
            stack.append(len(s[1]))
            if RE_QUIZ.match(line):
                nested.append(k + 1)
        elif not in_code and RE_ANY_QUIZ.match(line):  # in an option's feedback, say
            nested.append(k + 1)
        body.append((k + 1, line))
    return body, None, nested


def _read_body(
    body: list[tuple[int, str]], code: dict[int, bool]
) -> tuple[list[tuple[int, str]], list[_Option] | None, list[Problem]]:
    """Question lines and options, as Python-Markdown will parse them (options None when the
    list is numbered: reported here, nothing more to check)."""
    question: list[tuple[int, str]] = []
    options: list[_Option] = []
    problems: list[Problem] = []
    prev = "blank"
    for number, text in body:
        if code.get(number - 1) is False:
            continue  # inside a fenced block; its opening line is read (a question may start so)
        bullet = RE_BULLET.match(text)
        indented = text.startswith("    ")
        if not text.strip():
            prev = "blank"
        elif not options and not bullet:
            if RE_NUMBERED.match(text) and prev == "blank":
                item = RE_NUMBERED.sub("", text).strip()
                return question, None, [problem("ordered", number, text=quote(item))]
            question.append((number, text))
            prev = "question"
        elif bullet or (prev == "item" and RE_NUMBERED.match(text)):
            if prev in ("question", "feedback"):
                problems.append(problem("needs-blank", number, text=quote(text.strip())))
            options.append(_Option(number, bullet[1] if bullet else text.strip()))
            prev = "item"
        elif prev == "item":
            options[-1].body += " " + text.strip()
        elif (prev == "blank" and indented) or prev == "feedback":
            option = options[-1]
            if option.feedback_line is None:
                option.feedback_line, option.feedback = number, text.strip()
            prev = "feedback"
        else:
            problems.append(problem("stray", number, text=quote(text.strip())))
            break
    return question, options, problems


def _option_problems(
    options: list[_Option], name: str, quiz_type: object, number: int
) -> list[Problem]:
    problems: list[Problem] = []
    marked = right = 0
    for option in options:
        m = RE_MARK.match(option.body)
        if m is None:
            problems.append(problem("not-task", option.line, text=quote(option.body)))
            continue
        marked += 1
        text, correct = (m["text"] or "").strip(), m["mark"] != " "
        right += correct
        if not text:
            problems.append(problem("empty-option", option.line, text=quote(option.body)))
        if not correct and option.feedback_line is None:
            problems.append(problem("no-feedback", option.line, text=quote(text)))
        fields = contradiction(correct, option.feedback) if option.feedback_line else None
        if fields:
            problems.append(
                problem("contradiction", option.feedback_line, text=quote(text), **fields)
            )
    if len(options) == 1:
        problems.append(problem("too-few", options[0].line, text=name))
    if marked and not right:
        problems.append(problem("no-correct", options[0].line, text=name))
    if quiz_type == "single" and right > 1:
        problems.append(problem("single-many", number, text=name))
    return problems
