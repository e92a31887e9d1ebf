"""Layer 3: every lesson's code, doctests and inline values run and pass, page by page."""

from pathlib import Path

import pytest

from lessonkit.core.problems import LessonError
from lessonkit.core.source import split_front_matter
from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_lesson_code_and_doctests_pass(page: Path, tmp_path: Path, monkeypatch) -> None:
    text = page.read_text(encoding="utf-8")
    body, _, offset = split_front_matter(text)
    display = str(page.relative_to(DOCS.parent))
    try:
        program = parse_program(body, offset, str(page.relative_to(DOCS)))
    except LessonError as error:
        pytest.fail(str(LessonError(p.at(display) for p in error.problems)))
    monkeypatch.chdir(tmp_path)
    result = run_program(
        program, display, source_text=text, page_dir=page.parent, watch=FileWatch([], [DOCS])
    )
    assert result.ok, str(LessonError(result.problems))
