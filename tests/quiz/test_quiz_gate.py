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
    "plain": "Plain *text*, no slash at all.\n",
    "no block": "Some *text*, a slash escaped: a\\/b, and `///` in code.\n",
    "a quiz": QUIZ,
    "a quiz in a blockquote": "\n".join(f"> {line}" for line in QUIZ.splitlines()),
    "a quiz in markdown html": f'<div markdown="1">\n\n{QUIZ}\n</div>\n',
    "a quiz in an admonition": "!!! note\n\n" + "".join(f"    {x}\n" for x in QUIZ.splitlines()),
    "another extension's block": "/// details | More\nHidden *text*.\n///\n",
    "raw html only": "<div>\n<p>a</p>\n</div>\n\nText.\n",
}


def ungated() -> markdown.Markdown:
    """A Markdown as the quiz made it before the gate: pymdown's processor, with the quiz's
    block, on every page."""
    quiz = QuizExtension()
    md = markdown.Markdown(extensions=[quiz, *EXTENSIONS])
    quiz.blocks(md)
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


@pytest.mark.parametrize("first", ["a quiz", "another extension's block"])
def test_blocks_set_up_after_a_page_without_one_render_as_alone(first: str) -> None:
    """The first page holds no ``///``: the site's other block extension is taken out, and the
    first page that opens a block (the quiz's or the other's) gets both back."""
    for extensions in (EXTENSIONS, EXTENSIONS[::-1]):
        md = markdown.Markdown(extensions=[QuizExtension(), *extensions])
        for name in ["plain", first, "another extension's block", "plain", "a quiz"]:
            alone = ungated().convert(PAGES[name])
            assert md.convert(PAGES[name]) == alone, name
            md.reset()


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


PROBE = (
    "import sys\nfrom mkdocs.commands.build import build\n"
    "from mkdocs.config import load_config\nbuild(load_config('mkdocs.yml', strict=True))\n"
    "print([m in sys.modules for m in ('pymdownx.blocks', 'lessonkit.quiz.escape',"
    " 'lessonkit.quiz.page')])\n"
)


def test_a_site_whose_pages_open_no_block_never_loads_pymdown_blocks(tmp_path) -> None:
    """pymdown's blocks (and the quiz's block) are set up for the first page with a ``///``
    line, and the quiz's escaping, checking and sealing loaded: a build whose pages have none
    loads none of it, and one with a quiz renders it."""
    import os
    import subprocess
    import sys

    docs = tmp_path / "docs"
    docs.mkdir()
    front = "---\ntitle: {0}\ndescription: {0}.\n---\n\n# {0}\n\n"
    (docs / "index.md").write_text(front.format("Home") + "No block; a slash escaped: a\\/b.\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: s\nplugins: [lessonkit]\n")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    loaded = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        loaded.append(done.stdout.strip().splitlines()[-1])
        (docs / "quiz.md").write_text(front.format("Quiz") + QUIZ)
    assert loaded == ["[False, False, False]", "[True, True, True]"]
    assert "a/b" in (tmp_path / "site" / "index.html").read_text()
    assert 'class="lk-quiz"' in (tmp_path / "site" / "quiz" / "index.html").read_text()
