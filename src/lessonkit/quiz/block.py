"""The ``/// quiz`` block: read the parsed content, refuse a malformed quiz, build the HTML.

The block works at Python-Markdown's block stage (``on_end``), before inline parsing, so the
question, option labels and feedback it places are still ordinary Markdown, parsed afterwards like
anything else on the page (inline code, emphasis, links; treeprocessors such as the glossary's,
which by its own choice keeps quizzes free of tooltips and turns ``[[term]]`` into plain words).
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as etree

from pymdownx.blocks.block import Block, type_string

from lessonkit.core.patterns import lazy
from lessonkit.core.problems import LessonError

from .rules import PENDING, first_line, problem, quote, text_of

RE_LIST_LINE = lazy(r"(?m)^ {0,3}(?:[-*+]|\d+[.)]) +\S.*$")


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
        # Here, not at the top: only a page with a quiz reads and builds one (build speed).
        from .read import build, read_quiz

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
