"""Quizzes: a ``/// quiz`` block (pymdown Blocks API); authoring rules in CONTRIBUTING.md.
Answers are sealed (:func:`seal`) against a glance at the source; ``<noscript>`` lists them.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from typing import Any

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from pymdownx.blocks import BlocksExtension, BlocksProcessor

from .block import FOUND, QuizBlock
from .check import RE_MAYBE_QUIZ, check
from .escape import escape_quizzes
from .page import finish_page, seal, seal_options, unseal

__all__ = ["QuizExtension", "check", "makeExtension", "seal", "unseal"]


class QuizExtension(Extension):
    """The ``quiz`` block, raw HTML escaped in quizzes, the page's result line, sealed answers."""

    def extendMarkdown(self, md: Markdown) -> None:
        self.blocks(md)
        # After lessonkit's execution (29) put in the Markdown code prints; before fences (25).
        md.preprocessors.register(_Check(md), "lessonkit_quiz_check", 27)
        # After fenced code (25) and lessonkit's execution (29); before raw HTML blocks (20).
        md.preprocessors.register(_HtmlEscape(md), "lessonkit_quiz_html", 21)
        # Before inline parsing (20), so code spans are still raw.
        md.treeprocessors.register(_PageFinish(md), "lessonkit_quiz_page", 25)
        # After raw HTML is restored (30): seals exactly what the page would show.
        md.postprocessors.register(_Seal(md), "lessonkit_quiz_seal", 5)

    def blocks(self, md: Markdown) -> BlocksProcessor:
        """pymdown's block processor on ``md`` (shared with other blocks), with ``quiz`` in it."""
        processor = BlocksExtension().register_block_mgr(md)
        if "quiz" not in processor.blocks:
            processor.register(QuizBlock, self.getConfigs())
        return processor


def makeExtension(**kwargs: Any) -> QuizExtension:
    return QuizExtension(**kwargs)


class _Check(Preprocessor):
    """Judge the page's quizzes by :func:`check`; the first quiz block (or the page's end, with
    none) refuses them, placed by their lines' text (execution may change the line count)."""

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        found = None  # None: no quiz to escape, finish or seal (~35 ms a warm 200-page build)
        if RE_MAYBE_QUIZ.search(text):
            found = [
                p._replace(line=None, near=p.near or lines[p.line - 1].strip()) if p.line else p
                for p in check(text)
            ]
        setattr(self.md, FOUND, found)
        return lines


class _HtmlEscape(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return lines if getattr(self.md, FOUND, None) is None else escape_quizzes(lines)


class _PageFinish(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        if (found := getattr(self.md, FOUND, None)) is not None:
            finish_page(root, found)


class _Seal(Postprocessor):
    def run(self, text: str) -> str:
        return text if getattr(self.md, FOUND, None) is None else seal_options(text)
