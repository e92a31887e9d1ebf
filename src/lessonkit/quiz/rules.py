"""The quiz rules: one message and hint each, judged by :mod:`.check`; the block's few guards
and the page's end say theirs in the same words."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree

from lessonkit.core.problems import Problem
from lessonkit.core.urls import HINT, unsafe_scheme

OPTION_HINT = "the only option is `type: single` or `type: multiple`"

RULES: dict[str, tuple[str, str]] = {
    "header": (
        "`/// quiz` must stand alone on its line, found {text}",
        "did you mean `/// quiz`? Write it alone on its line, and the question on the line below",
    ),
    "argument": (
        "`/// quiz` takes no title after `|`, found {text}",
        "write the question as the first paragraph inside the block",
    ),
    "options": (
        "lines indented 4 spaces right after `/// quiz` are read as block options, "
        "and {text} is not a `key: value` option",
        "leave a blank line after `/// quiz` and write the question unindented",
    ),
    "unknown-option": ("unknown quiz option {text}", OPTION_HINT),
    "bad-type": ("quiz option `type` must be single or multiple, not {text}", OPTION_HINT),
    "unclosed": (
        "quiz {text} is never closed",
        "end the block with a line holding only `///` (as many slashes as the opening line)",
    ),
    "nested": (
        "quiz {text} contains another quiz",
        "close the first quiz with `///` before starting the next",
    ),
    "empty-question": (
        "quiz has no question",
        "write the question as a paragraph between `/// quiz` and the first option",
    ),
    "question-start": (
        "quiz question must start with a sentence, found {text}",
        "begin the block with the question as a plain paragraph; code or lists may follow it",
    ),
    "no-options": (
        "quiz {text} has no option list",
        "after a blank line, list the options as a task list: `- [x] right` and `- [ ] wrong`",
    ),
    "needs-blank": (
        "option {text} follows the line above without a blank line, "
        "so Markdown reads it as part of that paragraph",
        "leave a blank line before this option",
    ),
    "ordered": (
        "quiz options must be a bulleted list, found the numbered item {text}",
        "write each option as `- [ ] ...` or `- [x] ...`",
    ),
    "not-task": (
        "option {text} does not start with `[ ]` or `[x]`",
        "write `- [x] ...` for a right answer and `- [ ] ...` for a wrong one",
    ),
    "empty-option": (
        "option {text} has no text after its mark",
        "write the answer after `[ ]` or `[x]`",
    ),
    "too-few": ("quiz {text} has only one option", "give at least two options"),
    "no-correct": ("quiz {text} has no correct option", "mark each right answer with `- [x]`"),
    "single-many": (
        "quiz {text} is `type: single` but marks several options correct",
        "mark only one option `[x]`, or use `type: multiple`",
    ),
    "no-feedback": (
        "wrong option {text} has no feedback",
        "after a blank line, indent a paragraph by 4 spaces under the option that starts "
        "'Not quite.' and says why",
    ),
    "contradiction": (
        "option {text} is marked {mark} but its feedback starts {start}",
        "fix the mark (`[x]` right, `[ ]` wrong) or the feedback",
    ),
    "stray": (
        "{text} after the options belongs to no option",
        "indent it by 4 spaces under an option to make it that option's feedback, "
        "or move it above the options into the question",
    ),
    "leftover": (
        "`/// quiz` was left as literal text: {text}",
        "pymdown-extensions could not read the block; run lessonkit's check for the line",
    ),
}

RE_PLACEHOLDER = re.compile("\x02wzxhzdk:\\d+\x03")
"""Where Python-Markdown stashed HTML (a fenced block, raw HTML) in a block's text."""
NO_QUESTION = "(without a question)"
CODE = "a code block"
SEAL_TAG = "lk-sealed"
"""Wraps an option's feedback until the postprocessor seals it."""
PENDING = "data-lk-pending"
"""On a quiz until ``on_end`` ran: left after parsing, the block never closed."""
RE_MARK = re.compile(r"^\[(?P<mark>[ xX])\](?:[ \t]+(?P<text>.*)|[ \t]*$)", re.S)
RE_VERDICT = re.compile(r"^\W*(?P<start>right\b|not quite\b)", re.I)


def quote(text: str, limit: int = 60) -> str:
    """``text`` on one line, shortened and in double quotes, for a message.

    >>> quote("What does attention\\n  let a token do?")
    '"What does attention let a token do?"'
    >>> quote("x" * 70)[-3:]
    'x…"'
    """
    flat = " ".join(text.split())
    return '"' + (flat if len(flat) <= limit else flat[: limit - 1] + "…") + '"'


def problem(rule: str, line: int | None = None, near: str = "", **fields: str) -> Problem:
    """The Problem for ``rule``; ``near``: text on its line when the line is unknown."""
    message, hint = RULES[rule]
    return Problem(message.format(**fields), line, hint, near=near)


def text_of(el: etree.Element) -> str:
    """The element's text on one line, without Python-Markdown's stash placeholders."""
    return " ".join(RE_PLACEHOLDER.sub("", "".join(el.itertext())).split())


def first_line(text: str) -> str:
    """The first line of a block's raw Markdown, without stash placeholders (to find it by).

    >>> first_line("\\x02wzxhzdk:3\\x03Why  *scale*\\n the scores?")
    'Why  *scale*'
    """
    return RE_PLACEHOLDER.sub("", text).strip().split("\n")[0].strip()


def opening(quiz: etree.Element) -> tuple[str, str]:
    """A quiz's name in messages (its first paragraph, quoted) and that paragraph's first line."""
    first = next(quiz.iter("p"), None)
    if first is None:
        return NO_QUESTION, ""
    return quote(text_of(first)), first_line(first.text or "")


def contradiction(correct: bool, feedback: str) -> dict[str, str] | None:
    """Fields of a 'contradiction' problem if ``feedback`` opens against the option's mark.

    >>> contradiction(True, "Not quite. Try again.")
    {'mark': 'right ([x])', 'start': '"Not quite"'}
    >>> contradiction(False, "Not quite. Try again.") is None
    True
    """
    m = RE_VERDICT.match(feedback)
    if m is None or (m["start"].lower() == "right") == correct:
        return None
    mark = "right ([x])" if correct else "wrong ([ ])"
    return {"mark": mark, "start": quote(m["start"])}


def unsafe_link(url: str, line: int | None = None) -> Problem | None:
    """The error for a quiz link a browser would run (``url`` as written, entities and all).

    >>> print(unsafe_link("JavaScript&#58;x").message)
    a quiz links to 'JavaScript&#58;x', a javascript: URL a browser would run
    >>> unsafe_link("https://example.org") is None
    True
    """
    found = unsafe_scheme(html.unescape(url))
    if found is None:
        return None
    return Problem(
        f"a quiz links to {url!r}, a {found}: URL a browser would run", line, HINT, near=url
    )
