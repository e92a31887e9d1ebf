"""The ``/// quiz`` block: read the parsed content into a :class:`Quiz`, refuse a malformed
quiz (naming every rule it breaks), build the HTML.

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

from .rules import (
    CODE,
    NO_QUESTION,
    PENDING,
    RE_MARK,
    RE_PLACEHOLDER,
    SEAL_TAG,
    contradiction,
    first_line,
    problem,
    quote,
    text_of,
)

RE_LIST_LINE = re.compile(r"(?m)^ {0,3}(?:[-*+]|\d+[.)]) +\S.*$")


class QuizBlock(Block):
    """``/// quiz`` with one optional option, ``type: single|multiple`` (see the package docs)."""

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
            first = next(block.iter("p"), None)
            near = "" if first is None else first_line(first.text or "")
            raise LessonError(p._replace(near=p.near or near) for p in error.problems) from None
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


def read_quiz(block: etree.Element, kind: str) -> Quiz:
    """The quiz in a block's parsed children; raise LessonError naming every rule it breaks.

    The steps, in the order their problems are reported: a quiz nested inside; options glued to
    the paragraph above; the question (everything before the first list); the option list; each
    option; the rules that count options. Some problems stop the reading early, where the later
    checks could only report consequences of the first.
    """
    children = list(block)
    name = _quiz_name(children)
    problems = _nesting_problems(block, name)
    swallowed = _swallowed_options(block)
    if swallowed:
        problems.append(problem("needs-blank", near=swallowed[0], text=quote(swallowed[0])))
    question, rest = _split_at_list(children)
    problems += _question_problems(question)
    items, found = _find_option_list(rest, name, bool(swallowed))
    problems += found
    if items is None:
        raise LessonError(problems)
    options = _read_options(items, problems)
    if swallowed:  # options glued to feedback are missing from the count: don't count yet
        raise LessonError(problems)
    problems += _count_problems(items, options, kind, name)
    if problems:
        raise LessonError(problems)
    return Quiz(question, options, kind or _kind_of(options))


def _quiz_name(children: list[etree.Element]) -> str:
    """How messages name the quiz: its first paragraph, quoted, or :data:`NO_QUESTION`.

    >>> _quiz_name([etree.fromstring("<p>Why  scale\\n the scores?</p>")])
    '"Why scale the scores?"'
    >>> _quiz_name([etree.fromstring("<ul><li>[x] yes</li></ul>")])
    '(without a question)'
    """
    first_p = next((c for c in children if c.tag == "p"), None)
    return quote(text_of(first_p)) if first_p is not None else NO_QUESTION


def _nesting_problems(block: etree.Element, name: str) -> list[Problem]:
    """A 'nested' problem if another quiz sits anywhere inside ``block``."""
    if any(el.get("class") == "lk-quiz" for el in block.iter() if el is not block):
        return [problem("nested", text=name)]
    return []


def _swallowed_options(block: etree.Element) -> list[str]:
    """Option lines Markdown read into a paragraph because no blank line came before them.

    A list line that starts a paragraph is not swallowed, only one after a line of text:

    >>> _swallowed_options(etree.fromstring("<div><p>Which one?\\n- [x] this</p></div>"))
    ['- [x] this']
    >>> _swallowed_options(etree.fromstring("<div><p>- [x] this</p></div>"))
    []
    """
    return [m[0] for p in block.iter("p") for m in RE_LIST_LINE.finditer(p.text or "") if m.start()]


def _split_at_list(
    children: list[etree.Element],
) -> tuple[list[etree.Element], list[etree.Element]]:
    """The question (the children before the first list) and the rest (that list onwards)."""
    at = next((n for n, c in enumerate(children) if c.tag in ("ul", "ol")), len(children))
    return children[:at], children[at:]


def _question_problems(question: list[etree.Element]) -> list[Problem]:
    """A problem if there is no question, or if it does not open with a plain paragraph.

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


def _find_option_list(
    rest: list[etree.Element], name: str, swallowed: bool
) -> tuple[etree.Element | None, list[Problem]]:
    """The bulleted list of options at the start of ``rest``, and problems with what is there.

    The list is None when there is none to read (no list, or a numbered one). A missing list is
    not reported when options were ``swallowed``: that problem is already reported as such.
    """
    if not rest:
        return None, ([] if swallowed else [problem("no-options", text=name)])
    items = rest[0]
    if items.tag == "ol":
        return None, [problem("ordered", text=quote(text_of(items[0])))]
    if len(rest) > 1:
        return items, [problem("stray", text=quote(text_of(rest[1])))]
    return items, []


def _count_problems(
    items: etree.Element, options: list[Option], kind: str, name: str
) -> list[Problem]:
    """The rules on the whole list: two options or more, one right at least, one only if single."""
    problems = []
    right = sum(o.correct for o in options)
    if len(items) == 1:
        problems.append(problem("too-few", text=name))
    if options and not right:
        problems.append(problem("no-correct", text=name))
    if kind == "single" and right > 1:
        problems.append(problem("single-many", text=name))
    return problems


def _kind_of(options: list[Option]) -> str:
    """A quiz without ``type:`` is multiple if several options are right, else single."""
    return "multiple" if sum(o.correct for o in options) > 1 else "single"


def _read_options(items: etree.Element, problems: list[Problem]) -> list[Option]:
    """The options of a list of ``li``; problems for each ``li`` that is not a valid option."""
    options = []
    for li in items:
        option = _read_option(li, problems)
        if option is not None:
            options.append(option)
    return options


def _read_option(li: etree.Element, problems: list[Problem]) -> Option | None:
    """One ``li`` as an option, or None if it has no task mark; its problems go to ``problems``.

    A right option without feedback gets "Right.", sealed like any other feedback (a tiny seal
    would otherwise mean "right").
    """
    raw, feedback = _option_parts(li)
    m = RE_MARK.match(raw.strip())
    if m is None:
        near = first_line(raw or text_of(li))
        problems.append(problem("not-task", near=near, text=quote(raw or text_of(li))))
        return None
    text, correct = (m["text"] or "").strip(), m["mark"] != " "
    problems.extend(_option_problems(raw, text, correct, feedback))
    if correct and not feedback:
        feedback = [_sub(etree.Element("div"), "p", text="Right.")]
    return Option(text, correct, feedback)


def _option_parts(li: etree.Element) -> tuple[str, list[etree.Element]]:
    """An option's raw text (mark included) and its feedback elements.

    In a tight list the text is the ``li``'s own; in a loose one, its first paragraph's:

    >>> _option_parts(etree.fromstring("<li>[x] Yes</li>"))
    ('[x] Yes', [])
    >>> raw, feedback = _option_parts(etree.fromstring("<li><p>[ ] No</p><p>Not quite.</p></li>"))
    >>> raw, [el.text for el in feedback]
    ('[ ] No', ['Not quite.'])
    """
    if (li.text or "").strip():
        return li.text or "", list(li)
    if len(li) and li[0].tag == "p":
        return li[0].text or "", list(li)[1:]
    return text_of(li), list(li)


def _option_problems(
    raw: str, text: str, correct: bool, feedback: list[etree.Element]
) -> list[Problem]:
    """The rules on one option: text after the mark, feedback if wrong, feedback agreeing.

    >>> feedback = [etree.fromstring("<p>Right: it is.</p>")]
    >>> [p.message for p in _option_problems("[ ] It is", "It is", False, feedback)]
    ['option "It is" is marked wrong ([ ]) but its feedback starts "Right"']
    """
    problems = []
    near = first_line(raw)
    if not text:
        problems.append(problem("empty-option", near=near, text=quote(raw)))
    if not correct and not feedback:
        problems.append(problem("no-feedback", near=near, text=quote(text)))
    opening = feedback[0].text or "" if feedback and feedback[0].tag == "p" else ""
    if fields := contradiction(correct, opening):
        near = first_line(opening)
        problems.append(problem("contradiction", near=near, text=quote(text), **fields))
    return problems


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
