"""The ``/// quiz`` block: read its parsed content, refuse a malformed quiz, build the HTML.

It runs at the block stage, so the text it places is parsed afterwards like the rest of the page.
"""

from __future__ import annotations

import copy
import hashlib
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from pymdownx.blocks.block import Block, type_string

from lessonkit.core.problems import LessonError, Problem

from .rules import (
    CODE,
    NO_QUESTION,
    PENDING,
    RE_MARK,
    RE_PLACEHOLDER,
    SEAL_TAG,
    contradiction,
    first_line,
    opening,
    problem,
    quote,
    text_of,
)

RE_LIST_LINE = re.compile(r"(?m)^ {0,3}(?:[-*+]|\d+[.)]) +\S.*$")


class QuizBlock(Block):
    """``/// quiz`` with one optional option, ``type: single|multiple``."""

    NAME = "quiz"
    ARGUMENT = False
    OPTIONS = {"type": ("", type_string)}  # noqa: RUF012 (pymdown's class-level spec)

    def on_validate(self, parent: etree.Element) -> bool:
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
    """The quiz in a block's parsed children; LessonError naming every rule it breaks (some stop
    the reading, where later rules would only report their consequences).

    >>> for html in ("<p>Why  scale\\n the scores?</p><ul><li>[x] yes</li></ul>",
    ...              "<ul><li>[x] yes</li></ul>"):
    ...     try:
    ...         read_quiz(etree.fromstring(f"<div>{html}</div>"), "")
    ...     except LessonError as error:
    ...         print([p.message for p in error.problems])
    ['quiz "Why scale the scores?" has only one option']
    ['quiz has no question', 'quiz (without a question) has only one option']
    """
    children = list(block)
    first_p = next((c for c in children if c.tag == "p"), None)
    name = quote(text_of(first_p)) if first_p is not None else NO_QUESTION
    problems = []
    if any(el.get("class") == "lk-quiz" for el in block.iter() if el is not block):
        problems.append(problem("nested", text=name))
    swallowed = _swallowed_options(block)
    if swallowed:
        problems.append(problem("needs-blank", near=swallowed[0], text=quote(swallowed[0])))
    at = next((n for n, c in enumerate(children) if c.tag in ("ul", "ol")), len(children))
    question, rest = children[:at], children[at:]
    problems += _question_problems(question)
    if not rest:
        if not swallowed:  # else already reported as such
            problems.append(problem("no-options", text=name))
        raise LessonError(problems)
    items = rest[0]
    if items.tag == "ol":
        problems.append(problem("ordered", text=quote(text_of(items[0]))))
        raise LessonError(problems)
    if len(rest) > 1:
        problems.append(problem("stray", text=quote(text_of(rest[1]))))
    options = [o for li in items if (o := _read_option(li, problems))]
    if swallowed:  # options glued to feedback are missing from the count: don't count yet
        raise LessonError(problems)
    right = sum(o.correct for o in options)
    if len(items) == 1:
        problems.append(problem("too-few", text=name))
    if options and not right:
        problems.append(problem("no-correct", text=name))
    if kind == "single" and right > 1:
        problems.append(problem("single-many", text=name))
    if problems:
        raise LessonError(problems)
    return Quiz(question, options, kind or ("multiple" if right > 1 else "single"))


def _swallowed_options(block: etree.Element) -> list[str]:
    """Option lines Markdown read into a paragraph because no blank line came before them.

    >>> _swallowed_options(etree.fromstring("<div><p>Which one?\\n- [x] this</p></div>"))
    ['- [x] this']
    >>> _swallowed_options(etree.fromstring("<div><p>- [x] this</p></div>"))
    []
    """
    return [m[0] for p in block.iter("p") for m in RE_LIST_LINE.finditer(p.text or "") if m.start()]


def _question_problems(question: list[etree.Element]) -> list[Problem]:
    """A problem unless the question opens with a plain paragraph.

    >>> [p.message for p in _question_problems([etree.fromstring("<pre>x = 1</pre>")])]
    ['quiz question must start with a sentence, found "x = 1"']
    """
    if not question:
        return [problem("empty-question")]
    first = question[0]
    if first.tag != "p" or RE_PLACEHOLDER.fullmatch((first.text or "").strip()):
        found = text_of(first)
        return [problem("question-start", text=quote(found) if found else CODE)]
    return []


def _read_option(li: etree.Element, problems: list[Problem]) -> Option | None:
    """One ``li`` as an option, or None without a task mark. A right option without feedback
    gets "Right.", sealed like any other (a tiny seal would otherwise mean "right").

    >>> found = []
    >>> _read_option(etree.fromstring("<li>[x] Yes</li>"), found).feedback[0].text
    'Right.'
    >>> li = etree.fromstring("<li><p>[ ] It is</p><p>Right: it is.</p></li>")
    >>> option = _read_option(li, found)
    >>> option.text, [el.text for el in option.feedback]
    ('It is', ['Right: it is.'])
    >>> [p.message for p in found]
    ['option "It is" is marked wrong ([ ]) but its feedback starts "Right"']
    """
    if (li.text or "").strip():  # a tight list
        raw, feedback = li.text or "", list(li)
    elif len(li) and li[0].tag == "p":  # a loose one
        raw, feedback = li[0].text or "", list(li)[1:]
    else:
        raw, feedback = text_of(li), list(li)
    m = RE_MARK.match(raw.strip())
    if m is None:
        near = first_line(raw or text_of(li))
        problems.append(problem("not-task", near=near, text=quote(raw or text_of(li))))
        return None
    text, correct = (m["text"] or "").strip(), m["mark"] != " "
    near = first_line(raw)
    if not text:
        problems.append(problem("empty-option", near=near, text=quote(raw)))
    if not correct and not feedback:
        problems.append(problem("no-feedback", near=near, text=quote(text)))
    start = feedback[0].text or "" if feedback and feedback[0].tag == "p" else ""
    if fields := contradiction(correct, start):
        near = first_line(start)
        problems.append(problem("contradiction", near=near, text=quote(text), **fields))
    if correct and not feedback:
        feedback = [_sub(etree.Element("div"), "p", text="Right.")]
    return Option(text, correct, feedback)


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
