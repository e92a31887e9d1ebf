"""Layer 3: every lesson's code, doctests and inline values run and pass, page by page."""

import json
import re
from pathlib import Path

import pytest

from lessonkit.core.problems import LessonError
from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.runner import run_program
from lessonkit.notebooks.lesson import lesson_files, read_lesson, read_page

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = lesson_files(DOCS)
"""Markdown lessons and notebook lessons (read as the Markdown they stand for)."""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_lesson_code_and_doctests_pass(page: Path, tmp_path: Path, monkeypatch) -> None:
    display = str(page.relative_to(DOCS.parent))
    try:
        lesson = read_lesson(page, page.relative_to(DOCS).as_posix(), display)
        program = lesson.program
    except LessonError as error:
        pytest.fail(str(error))
    monkeypatch.chdir(tmp_path)
    result = run_program(
        program, display, source_text=lesson.text, page_dir=page.parent, watch=FileWatch([], [DOCS])
    )
    assert result.ok, str(LessonError(lesson.locate(p) for p in result.problems))


FIGURES = {
    "history": 1,  # the cost curve
    "embeddings": 1,  # the map of word groups
    "transformers-and-attention": 2,  # the softmax bars, the cost curve
    "real-model-bank": 4,  # two attention grids, the lean by layer, the similarity by layer
    "building-blocks/attention-in-numbers": 0,
}
"""The figures each page's prose describes. A figure built in a block and never shown (its
call no longer the block's value) leaves a sentence describing a chart nobody sees."""


@pytest.mark.parametrize("page", sorted(FIGURES))
def test_each_page_shows_the_figures_its_prose_describes(built_site: Path, page: str) -> None:
    html = (built_site / page / "index.html").read_text(encoding="utf-8")
    shown = html.count('<figure class="lk-figure"><svg')
    assert shown == FIGURES[page], f"{page} shows {shown} figures, not {FIGURES[page]}"


def _quizzes(text: str) -> list[list[tuple[bool, str]]]:
    """Each quiz's options: (right, text), the text's continuation lines joined."""
    quizzes = []
    for body in re.findall(r"(?ms)^/// quiz\n(.*?)^///", text):
        options = re.findall(r"(?m)^- \[([ x])\] (.*(?:\n  \S.*)*)", body)
        quizzes.append([(mark == "x", " ".join(line.split())) for mark, line in options])
    return quizzes


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_quizzes_cannot_be_guessed_by_shape(page: Path) -> None:
    """The right option is never the longest alone, nor in the same place in every quiz."""
    quizzes = _quizzes(read_page(DOCS, page.relative_to(DOCS).as_posix()).text)
    for options in quizzes:
        right = [len(text) for is_right, text in options if is_right]
        wrong = [len(text) for is_right, text in options if not is_right]
        assert right and max(right) <= max(wrong), f"{page.name}: the right option is longest"
    places = {[r for r, _ in options].index(True) for options in quizzes}
    assert len(quizzes) < 2 or len(places) > 1, f"{page.name}: the right option never moves"


def test_every_chapter_of_the_path_ends_with_a_quiz(built_site: Path) -> None:
    """Each lesson the progress data lists has quizzes under "Check yourself", its last section
    before the "Go deeper" cards: a lesson without one can only be marked done by hand."""
    home = (built_site / "index.html").read_text(encoding="utf-8")
    data = home.split('<script type="application/json" id="lk-path">', 1)[1].split("</script>")[0]
    lessons = json.loads(data)["lessons"]
    assert len(lessons) > 1
    for lesson in lessons:
        html = (built_site / lesson["url"] / "index.html").read_text(encoding="utf-8")
        article = html[html.index("<article") : html.index("</article>")]
        sections = [s for s in re.findall(r'<h2 id="([^"]+)"', article) if s != "resources"]
        assert sections and sections[-1] == "check-yourself", f"{lesson['url']}: {sections[-1:]}"
        assert len(lesson["quizzes"].split()) >= 2, f"{lesson['url']} has fewer than two quizzes"
