"""Quizzes that end a lesson ("Check yourself"): a ``/// quiz`` block (pymdown Blocks API).

Authoring (readable in a pull-request diff)::

    /// quiz
    What does attention let a token do?

    - [ ] Remember every word of the training data.

        Not quite. Attention works on the current text: queries are matched against keys of
        earlier tokens, and the best matches contribute their values.

    - [x] Weigh earlier tokens by relevance and pull in their information.

        Right: its query is compared with every earlier key; the best matches contribute their
        values.
    ///

Rules (``check()`` enforces them with line numbers; the block refuses them at render time):

- The question comes first: one or more paragraphs (code or a figure may follow the first); its
  first paragraph becomes the ``<legend>``, the rest sits under it.
- After a blank line, the options: a bulleted task list, ``- [x]`` for a right answer (``[X]``
  too), ``- [ ]`` for a wrong one; at least two options and at least one right one.
- An option's feedback is what is indented 4 spaces under it after a blank line (any Markdown:
  paragraphs, code). Every wrong option needs feedback; a right one without feedback shows
  "Right.". Feedback that opens with "Right" under ``[ ]`` or with "Not quite" under ``[x]`` is
  an error: the mark or the feedback is wrong.
- Leave a blank line between options that have feedback (Markdown would otherwise read the next
  option as part of the feedback paragraph); options without feedback may be a tight list.
- Nothing after the list: unindented text there belongs to no option and is an error.
- One block option, ``type: single`` (radio buttons) or ``type: multiple`` (checkboxes and a
  Check button), written indented 4 spaces on the line right after ``/// quiz``. Without it a
  quiz with several ``[x]`` is multiple, else single. ``type: single`` with several ``[x]``,
  any other option, or a title after ``/// quiz |`` is an error. pymdown-extensions itself
  leaves a block with a bad option as literal text, silently; this extension raises
  ``LessonError`` instead whenever ``/// quiz`` text survives into the page.
- Question, options and feedback are Markdown (emphasis, code, links, images; blocks in the
  question and feedback); raw HTML anywhere in a quiz is shown as text (:mod:`.escape`).

Behaviour (``assets/js/30-quiz.js``): choosing an option shows its feedback in the quiz's
``aria-live`` region; a multiple-answer quiz judges the whole choice when the reader presses
Check. Readers can change their answer at any time. One result line per page, after the last
quiz, counts quizzes answered right over all quizzes on the page ("You got 2 of 3 right.") and
offers "Reset answers". Answers persist in ``localStorage`` per page path and quiz id (the id is
derived from the quiz's text, so editing a quiz forgets old answers); without storage (private
mode, blocked) the quiz simply forgets on reload.

Answers in the page source. This is a learning aid, not an exam. The interactive markup carries
no verdict and no feedback in plain text: each option's verdict and feedback HTML are XORed with
the bytes of the option's id and base64-encoded into a ``<data class="lk-quiz__seal">``
(:func:`seal`); the script decodes the one the reader chose. That keeps answers from a glance at
the page, devtools' element panel, find-in-page and the search index, nothing more: anyone who
reads ``lessonkit.js`` can decode them. Without JavaScript the quiz must still teach, and HTML
cannot decode anything, so each quiz also carries ``<noscript><details>`` listing every option as
right or wrong with its explanation. That copy is plain text in the page source (view-source
shows it); browsers running JavaScript never parse it into the page, and
``data-search-exclude`` keeps it out of Material's search index. For print, the script fills a
print-only copy of the answers just before printing and removes it afterwards.

Public API: :func:`check` (validate raw Markdown), :class:`QuizExtension` /
:func:`makeExtension` (register with Python-Markdown or ``mkdocs.yml`` as
``lessonkit.quiz``), :func:`seal` / :func:`unseal` (the answer encoding).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from typing import Any

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from pymdownx.blocks import BlocksExtension, BlocksProcessor

from .block import QuizBlock
from .check import check
from .escape import escape_quizzes
from .page import finish_page, seal, seal_options, unseal

__all__ = ["QuizExtension", "check", "makeExtension", "seal", "unseal"]


class QuizExtension(Extension):
    """Registers the ``quiz`` block (pymdown's Blocks API), the page checks and result line,
    and answer sealing."""

    def extendMarkdown(self, md: Markdown) -> None:
        self.blocks(md)
        escape = _HtmlEscape(md)
        # After fenced code (25) and lessonkit's execution (29) stashed their HTML; before raw
        # HTML blocks are read (20).
        md.preprocessors.register(escape, "lessonkit_quiz_html", 21)
        # Before inline parsing (20): sees block-level text, so code spans are still raw.
        md.treeprocessors.register(_PageFinish(md, escape), "lessonkit_quiz_page", 25)
        # After raw HTML is restored (30) and ampersands substituted (20): the final HTML.
        md.postprocessors.register(_Seal(md), "lessonkit_quiz_seal", 5)

    def blocks(self, md: Markdown) -> BlocksProcessor:
        """pymdown's block processor on ``md`` (made now unless another extension's blocks
        made it), with the ``quiz`` block registered."""
        processor = BlocksExtension().register_block_mgr(md)
        if "quiz" not in processor.blocks:
            processor.register(QuizBlock, self.getConfigs())
        return processor


def makeExtension(**kwargs: Any) -> QuizExtension:
    """Python-Markdown's hook, so the module's dotted name works as an extension name."""
    return QuizExtension(**kwargs)


class _HtmlEscape(Preprocessor):
    """Raw HTML in a quiz is shown as text (:func:`.escape.escape_quizzes`), before
    Python-Markdown reads raw HTML blocks; ``open``: whether the page's lines hold a ``///``."""

    open = True

    def run(self, lines: list[str]) -> list[str]:
        self.open = "///" in "\n".join(lines)
        return escape_quizzes(lines) if self.open else lines


class _PageFinish(Treeprocessor):
    """A quiz left as text or never closed fails the page; the result line follows the last
    quiz (:func:`.page.finish_page`). A page whose lines hold no ``///`` has no quiz, unless a
    later preprocessor wrote one in its text."""

    def __init__(self, md: Markdown, escape: _HtmlEscape) -> None:
        super().__init__(md)
        self.escape = escape

    def run(self, root: etree.Element) -> None:
        if self.escape.open or "///" in "".join(root.itertext()):
            finish_page(root)


class _Seal(Postprocessor):
    """Each option's feedback sealed in the final HTML (:func:`.page.seal_options`), after
    every treeprocessor (the glossary's included) and once stashed raw HTML is restored, so the
    sealed feedback is exactly what the page would show."""

    def run(self, text: str) -> str:
        return seal_options(text) if "data-lk-seal=" in text else text
