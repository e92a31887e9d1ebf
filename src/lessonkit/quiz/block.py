"""The ``/// quiz`` block: read the parsed content, refuse a malformed quiz, build the HTML.

The block works at Python-Markdown's block stage (``on_end``), before inline parsing, so the
question, option labels and feedback it places are still ordinary Markdown, parsed afterwards like
anything else on the page (inline code, emphasis, links; treeprocessors such as the glossary's,
which by its own choice keeps quizzes free of tooltips and turns ``[[term]]`` into plain words).
"""

from __future__ import annotations

import copy
import hashlib
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from pymdownx.blocks.block import Block, type_string

from lessonkit.core.problems import LessonError, Problem

from .rules import RE_MARK, contradiction, problem, quote

SEAL_TAG = "lk-sealed"
"""Placeholder around an option's feedback; the page's postprocessor replaces it by a seal."""
PENDING = "data-lk-pending"
"""Set on a quiz until ``on_end`` ran: still there after parsing means the block never closed."""
RE_PLACEHOLDER = re.compile("\x02wzxhzdk:\\d+\x03")
RE_LIST_LINE = re.compile(r"(?m)^ {0,3}(?:[-*+]|\d+[.)]) +\S.*$")
NO_QUESTION = "(without a question)"
CODE = "a code block"


@dataclass
class Option:
    """One answer as parsed: its Markdown text, whether it is right, its feedback elements."""

    text: str
    correct: bool
    feedback: list[etree.Element]


@dataclass
class Quiz:
    """A valid quiz: question elements (the first a paragraph), options, single or multiple."""

    question: list[etree.Element]
    options: list[Option]
    kind: str


class QuizBlock(Block):
    """``/// quiz`` with one optional option, ``type: single|multiple`` (see the package docs)."""

    NAME = "quiz"
    ARGUMENT = False
    OPTIONS = {"type": ("", type_string)}  # noqa: RUF012 (pymdown's class-level spec)

    def on_validate(self, parent: etree.Element) -> bool:
        problems = []
        if self.options["type"] not in ("", "single", "multiple"):
            problems.append(problem("bad-type", text=quote(self.options["type"])))
        if self.options["attrs"]:
            problems.append(problem("unknown-option", text=quote("attrs")))
        if problems:
            raise LessonError(problems)
        return True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "lk-quiz", PENDING: ""})

    def on_end(self, block: etree.Element) -> None:
        quiz = read_quiz(block, self.options["type"])
        taken = self.tracker.setdefault("ids", set())
        quiz_id = unique_id(block, taken)
        taken.add(quiz_id)
        for child in list(block):
            block.remove(child)
        del block.attrib[PENDING]
        build(block, quiz, quiz_id)


def unique_id(block: etree.Element, taken: set[str]) -> str:
    """``quiz-`` and 8 hex digits of the quiz's text: stable while the quiz is unchanged.

    Saved answers are keyed by it, so editing a quiz forgets readers' answers to the old one.
    A repeated quiz on the same page gets the hash of its text and its repeat number (never a
    suffix, which could collide with an input's ``<quiz id>-<n>``).
    """
    text, n = text_of(block), 1
    while (quiz_id := "quiz-" + hashlib.sha256(text.encode()).hexdigest()[:8]) in taken:
        n += 1
        text = f"{text_of(block)}\x00{n}"
    return quiz_id


def text_of(el: etree.Element) -> str:
    """The element's text on one line, without Python-Markdown's stash placeholders."""
    return " ".join(RE_PLACEHOLDER.sub("", "".join(el.itertext())).split())


def read_quiz(block: etree.Element, kind: str) -> Quiz:
    """The quiz in a block's parsed children; raise LessonError naming every rule it breaks."""
    children = list(block)
    first_p = next((c for c in children if c.tag == "p"), None)
    name = quote(text_of(first_p)) if first_p is not None else NO_QUESTION
    problems: list[Problem] = []
    if any(el.get("class") == "lk-quiz" for el in block.iter() if el is not block):
        problems.append(problem("nested", text=name))
    swallowed = [
        m[0] for p in block.iter("p") for m in RE_LIST_LINE.finditer(p.text or "") if m.start()
    ]
    if swallowed:
        problems.append(problem("needs-blank", text=quote(swallowed[0])))
    at = next((n for n, c in enumerate(children) if c.tag in ("ul", "ol")), len(children))
    question, rest = children[:at], children[at:]
    if not question:
        problems.append(problem("empty-question"))
    elif question[0].tag != "p" or RE_PLACEHOLDER.fullmatch((question[0].text or "").strip()):
        found = text_of(question[0])
        problems.append(problem("question-start", text=quote(found) if found else CODE))
    if not rest:
        if not swallowed:  # a list glued to the paragraph above is reported as such
            problems.append(problem("no-options", text=name))
        raise LessonError(problems)
    if rest[0].tag == "ol":
        problems.append(problem("ordered", text=quote(text_of(rest[0][0]))))
        raise LessonError(problems)
    if len(rest) > 1:
        problems.append(problem("stray", text=quote(text_of(rest[1]))))
    options = _read_options(rest[0], problems)
    right = sum(o.correct for o in options)
    if swallowed:  # options glued to feedback are missing from the count: don't count yet
        raise LessonError(problems)
    if len(rest[0]) == 1:
        problems.append(problem("too-few", text=name))
    if options and not right:
        problems.append(problem("no-correct", text=name))
    if kind == "single" and right > 1:
        problems.append(problem("single-many", text=name))
    if problems:
        raise LessonError(problems)
    return Quiz(question, options, kind or ("multiple" if right > 1 else "single"))


def _read_options(items: etree.Element, problems: list[Problem]) -> list[Option]:
    """The options of a list of ``li`` (tight: text in the ``li``; loose: in its first ``p``)."""
    options = []
    for li in items:
        if (li.text or "").strip():
            raw, feedback = li.text or "", list(li)
        elif len(li) and li[0].tag == "p":
            raw, feedback = li[0].text or "", list(li)[1:]
        else:
            raw, feedback = text_of(li), list(li)
        m = RE_MARK.match(raw.strip())
        if m is None:
            problems.append(problem("not-task", text=quote(raw or text_of(li))))
            continue
        text, correct = (m["text"] or "").strip(), m["mark"] != " "
        if not text:
            problems.append(problem("empty-option", text=quote(raw)))
        if not correct and not feedback:
            problems.append(problem("no-feedback", text=quote(text)))
        opening = feedback[0].text or "" if feedback and feedback[0].tag == "p" else ""
        if fields := contradiction(correct, opening):
            problems.append(problem("contradiction", text=quote(text), **fields))
        if correct and not feedback:  # sealed like any other: a tiny seal would mean "right"
            feedback = [_sub(etree.Element("div"), "p", text="Right.")]
        options.append(Option(text, correct, feedback))
    return options


def build(block: etree.Element, quiz: Quiz, quiz_id: str) -> None:
    """Fill the empty quiz element: a fieldset of real inputs with labels, the sealed feedback
    of each option, a live region for feedback, and the no-JavaScript disclosure."""
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
