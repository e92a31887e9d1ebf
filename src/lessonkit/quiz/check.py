"""Validate quiz blocks in raw Markdown, with 1-based line numbers (no rendering involved).

Python-Markdown keeps no line numbers, so this pure function reads the source lines the way
Python-Markdown and pymdown-extensions will, and reports every rule of :mod:`.rules` it breaks.
It sees every quiz: at the top level, inside other ``///`` blocks, and inside the containers
Python-Markdown reads as Markdown of their own (an admonition, a details block, a content tab, a
list item, a block quote: :mod:`lessonkit.core.containers` gives their content dedented, with
the file's line numbers), and skips fenced code.
"""

from __future__ import annotations

import re
import textwrap

import yaml

from lessonkit.core.containers import regions_of
from lessonkit.core.patterns import lazy
from lessonkit.core.problems import Problem

from .rules import problem, quote

RE_QUIZ = lazy(r"^ {0,3}/{3,} *quiz(?![\w-])", re.I | re.M)
"""Any line that tries to open a quiz, well-formed or not."""
RE_ANY_QUIZ = lazy(r"^[ \t>]*/{3,} *quiz(?![\w-])", re.I | re.M)
"""The same at any depth: indented in a container (with spaces or tabs), or behind a block
quote's ``>``."""
RE_START = lazy(r"^ {0,3}(/{3,}) *([\w-]+) *(?:\| *(.*?) *)?$")
"""pymdown-extensions' block opening line (its ``RE_START``, applied to one line)."""
RE_END = lazy(r"^ {0,3}(/{3,}) *$")
RE_OPTIONS_LINE = lazy(r"^ {4,}\S")
"""pymdown reads lines indented 4+ spaces right after the opening line as YAML options."""
RE_BULLET = lazy(r"^ {0,3}[-*+] +(\S.*)$")
RE_NUMBERED = lazy(r"^ {0,3}\d+[.)] +(?=\S)")
TYPES = ("single", "multiple")


def check(markdown_text: str) -> list[Problem]:
    """Every quiz authoring problem in ``markdown_text``, sorted by line.

    >>> src = "/// quiz\\nWhat is 2 + 2?\\n\\n- [x] 4\\n- [ ] 5\\n///\\n"
    >>> print(check(src)[0].format())
    <markdown>:5: error: wrong option "5" has no feedback
      hint: after a blank line, indent a paragraph by 4 spaces under the option that starts 'Not quite.' and says why
    """  # noqa: E501
    if "///" not in markdown_text or not RE_ANY_QUIZ.search(markdown_text):
        return []  # most pages: no quiz, nothing to walk (build speed)
    # Here, not at the top: a page without a quiz (a warm build's every page) needs none of it.
    from .walk import check_lines

    problems: list[Problem] = []
    for region in regions_of(markdown_text, "//"):
        if not any(RE_QUIZ.match(line) for line in region.lines):
            continue
        numbers = region.numbers
        for found in check_lines(region.lines):
            line = found.line
            if line is not None and 0 < line <= len(numbers):
                found = found._replace(line=numbers[line - 1] + 1)  # the line in the file
            problems.append(found)
    return sorted(problems, key=lambda p: p.line or 0)


def header_problems(header: str, option_lines: list[str], line: int | None) -> list[Problem]:
    """Problems that make pymdown-extensions leave ``/// quiz`` unparsed, as literal text.

    ``header`` is the ``/// quiz`` line, ``option_lines`` the 4-space-indented lines right
    under it, ``line`` the header's line number (None when unknown).

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
        return [*found, problem("options", _at(line, 1), text=quote(option_lines[0]))]
    for key, value in options.items():
        at = _at(line, 1 + _key_index(option_lines, key))
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


def _key_index(option_lines: list[str], key: object) -> int:
    """Index of the option line that sets ``key`` (0 if it cannot be found)."""
    prefix = f"{key}:"
    return next((n for n, t in enumerate(option_lines) if t.strip().startswith(prefix)), 0)


def _at(line: int | None, offset: int) -> int | None:
    return None if line is None else line + offset
