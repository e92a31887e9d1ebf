"""The ``/// quiz`` block: read its parsed content (the page's quizzes passed :mod:`.check`
first, while the extension read the page), build the HTML.

It runs at the block stage, so the text it places is parsed afterwards like the rest of the page.
"""

from __future__ import annotations

import copy
import hashlib
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from pymdownx.blocks.block import Block, type_string

from lessonkit.core.problems import LessonError

from .rules import (
    PENDING,
    RE_MARK,
    SEAL_TAG,
    opening,
    problem,
    quote,
    text_of,
)

FOUND = "lessonkit_quiz_found"
"""The Markdown's attribute holding what :func:`~.check.check` found in the page's quizzes."""


class QuizBlock(Block):
    """``/// quiz`` with one optional option, ``type: single|multiple``."""

    NAME = "quiz"
    ARGUMENT = False
    OPTIONS = {"type": ("", type_string)}  # noqa: RUF012 (pymdown's class-level spec)

    def on_validate(self, parent: etree.Element) -> bool:
        if found := getattr(self.md, FOUND, None):
            raise LessonError(found)
        problems = []
        if self.options["type"] not in ("", "single", "multiple"):
            near = f"type: {self.options['type']}"
            problems.append(problem("bad-type", near=near, text=quote(self.options["type"])))
        if self.options["attrs"]:
            problems.append(problem("unknown-option", near="attrs:", text=quote("attrs")))
        if problems:
            raise LessonError(problems)
        return True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "lk-quiz", PENDING: ""})

    def on_end(self, block: etree.Element) -> None:
        try:
            quiz = read_quiz(block, self.options["type"])
        except LessonError as error:  # placed by the question's text: its line is unknown here
            near = opening(block)[1]
            raise LessonError(p._replace(near=p.near or near) for p in error.problems) from None
        taken = self.tracker.setdefault("ids", set())
        quiz_id = unique_id(block, taken)
        taken.add(quiz_id)
        block[:] = []
        del block.attrib[PENDING]
        build(block, quiz, quiz_id)


def unique_id(block: etree.Element, taken: set[str]) -> str:
    """``quiz-`` and 8 hex digits of the quiz's text (saved answers are keyed by it); a repeat
    hashes its text with its repeat number (a suffix could collide with an input's id)."""
    text, n = text_of(block), 1
    while (quiz_id := "quiz-" + hashlib.sha256(text.encode()).hexdigest()[:8]) in taken:
        n += 1
        text = f"{text_of(block)}\x00{n}"
    return quiz_id


@dataclass
class Option:
    text: str
    correct: bool
    feedback: list[etree.Element]


@dataclass
class Quiz:
    question: list[etree.Element]
    """The first is a paragraph."""
    options: list[Option]
    kind: str


def read_quiz(block: etree.Element, kind: str) -> Quiz:
    """The quiz in a block's parsed children. :func:`~.check.check` judged its source before
    Markdown read it; a quiz Markdown reads otherwise is refused here, not built half-right.
    """
    children = list(block)
    at = next((n for n, c in enumerate(children) if c.tag == "ul"), len(children))
    question, rest = children[:at], children[at:]
    if not question or question[0].tag != "p" or not rest:
        raise LessonError([problem("no-options", text=opening(block)[0])])
    options = [_read_option(li) for li in rest[0]]
    if None in options:
        unmarked = rest[0][options.index(None)]
        raise LessonError([problem("not-task", text=quote(text_of(unmarked)))])
    if len(rest) > 1:
        raise LessonError([problem("stray", text=quote(text_of(rest[1])))])
    right = sum(o.correct for o in options if o)
    return Quiz(question, options, kind or ("multiple" if right > 1 else "single"))  # type: ignore[arg-type]


def _read_option(li: etree.Element) -> Option | None:
    """One ``li`` as an option, or None without a task mark. A right option without feedback
    gets "Right.", sealed like any other (a tiny seal would otherwise mean "right").
    """
    if (li.text or "").strip():  # a tight list
        raw, feedback = li.text or "", list(li)
    elif len(li) and li[0].tag == "p":  # a loose one
        raw, feedback = li[0].text or "", list(li)[1:]
    else:
        raw, feedback = text_of(li), list(li)
    m = RE_MARK.match(raw.strip())
    if m is None:
        return None
    correct = m["mark"] != " "
    if correct and not feedback:
        feedback = [_sub(etree.Element("div"), "p", text="Right.")]
    return Option((m["text"] or "").strip(), correct, feedback)


def build(block: etree.Element, quiz: Quiz, quiz_id: str) -> None:
    """Fill the quiz element: inputs, labels, sealed feedback, a live region, noscript answers."""
    multiple = quiz.kind == "multiple"
    block.set("id", quiz_id)
    block.set("data-lk-quiz", quiz.kind)
    fieldset = _sub(block, "fieldset")
    first, *more = quiz.question
    legend = _sub(fieldset, "legend", text=first.text)
    legend.extend(list(first))
    if more:
        _sub(fieldset, "div", {"class": "lk-quiz__context"}).extend(more)
    if multiple:
        _sub(fieldset, "p", {"class": "lk-quiz__hint"}, "Choose every answer that applies.")
    for n, option in enumerate(quiz.options, 1):
        row = _sub(fieldset, "div", {"class": "lk-quiz__option"})
        input_id = f"{quiz_id}-{n}"
        kind = "checkbox" if multiple else "radio"
        _sub(row, "input", {"type": kind, "id": input_id, "name": quiz_id, "value": str(n)})
        _sub(row, "label", {"for": input_id}, option.text)
        seal = _sub(row, SEAL_TAG, {"data-lk-seal": f"{quiz_id}:{n}:{int(option.correct)}"})
        seal.extend(copy.deepcopy(option.feedback))
    if multiple:
        attrs = {"type": "button", "class": "lk-quiz__check", "hidden": "hidden"}
        _sub(block, "button", attrs, "Check")
    live = {"class": "lk-quiz__feedback", "id": f"{quiz_id}-feedback", "aria-live": "polite"}
    _sub(block, "div", live)
    noscript = _sub(block, "noscript", {"data-search-exclude": ""})
    details = _sub(noscript, "details", {"class": "lk-quiz__answers"})
    _sub(details, "summary", text="Answers and explanations")
    answers = _sub(details, "ul")
    for option in quiz.options:
        li = _sub(answers, "li")
        verdict = "Right answer:" if option.correct else "Wrong answer:"
        _sub(_sub(li, "p"), "strong", text=verdict).tail = " " + option.text
        li.extend(option.feedback)


def _sub(
    parent: etree.Element, tag: str, attrs: dict[str, str] | None = None, text: str | None = None
) -> etree.Element:
    el = etree.SubElement(parent, tag, attrs or {})
    el.text = text
    return el
