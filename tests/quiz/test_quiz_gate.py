"""The blocks gate (``lessonkit.quiz.gate``) changes no page: with it, every page renders as with
pymdown's block processor testing every block, whatever order pages come in on one Markdown."""

from __future__ import annotations

import markdown
import pytest
from markdown.preprocessors import Preprocessor

from lessonkit.core.problems import LessonError
from lessonkit.quiz import QuizExtension

QUIZ = "/// quiz\nWhich one?\n\n- [x] This one.\n- [ ] That one.\n\n    Not quite.\n///\n"
EXTENSIONS = ["admonition", "md_in_html", "pymdownx.superfences", "pymdownx.blocks.details"]

PAGES = {
    "no block": "Some *text*, a slash escaped: a\\/b, and `///` in code.\n",
    "a quiz": QUIZ,
    "a quiz in a blockquote": "\n".join(f"> {line}" for line in QUIZ.splitlines()),
    "a quiz in markdown html": f'<div markdown="1">\n\n{QUIZ}\n</div>\n',
    "a quiz in an admonition": "!!! note\n\n" + "".join(f"    {x}\n" for x in QUIZ.splitlines()),
    "another extension's block": "/// details | More\nHidden *text*.\n///\n",
    "raw html only": "<div>\n<p>a</p>\n</div>\n\nText.\n",
}


def ungated() -> markdown.Markdown:
    """A Markdown as the quiz made it before the gate: pymdown's processor on every page."""
    md = markdown.Markdown(extensions=[QuizExtension(), *EXTENSIONS])
    md.preprocessors.deregister("lessonkit_blocks_gate")
    return md


@pytest.mark.parametrize("name", PAGES)
def test_a_page_renders_as_without_the_gate(name: str) -> None:
    gated = markdown.Markdown(extensions=[QuizExtension(), *EXTENSIONS])
    assert gated.convert(PAGES[name]) == ungated().convert(PAGES[name])


def test_one_markdown_converting_pages_in_turn_renders_each_as_alone() -> None:
    md = markdown.Markdown(extensions=[QuizExtension(), *EXTENSIONS])
    order = list(md.parser.blockprocessors)
    for name in ["no block", "a quiz", "raw html only", "a quiz in markdown html", "no block"]:
        alone = ungated().convert(PAGES[name])
        assert md.convert(PAGES[name]) == alone, name
        md.reset()
    md.convert(PAGES["a quiz"])  # put back where pymdown registers it (BLOCKS_PRIORITY)
    assert list(md.parser.blockprocessors) == order


def test_a_page_without_a_block_line_skips_the_block_processor() -> None:
    md = markdown.Markdown(extensions=[QuizExtension(), *EXTENSIONS])
    md.convert(PAGES["raw html only"])
    assert "blocks" not in md.parser.blockprocessors
    md.convert(PAGES["a quiz"])
    assert "blocks" in md.parser.blockprocessors


class AddsAQuiz(Preprocessor):
    """A preprocessor after the gate that writes a quiz into a page (no site should)."""

    def run(self, lines: list[str]) -> list[str]:
        return [*lines, "", *QUIZ.splitlines()]


def test_a_quiz_added_after_the_gate_fails_loudly() -> None:
    md = markdown.Markdown(extensions=[QuizExtension(), *EXTENSIONS])
    md.preprocessors.register(AddsAQuiz(md), "adds_a_quiz", 10)
    with pytest.raises(LessonError, match="was left as literal text"):
        md.convert(PAGES["raw html only"])
