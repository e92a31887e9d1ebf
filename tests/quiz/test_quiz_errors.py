"""Malformed quizzes: check() names the line, rendering refuses them, the build fails.

Each file in ``broken/`` is a lesson with one quiz mistake and a comment
``<!-- expect: LINE: TEXT -->`` saying where the error must point and what it must say.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import markdown
import pytest

from lessonkit.core.problems import LessonError
from lessonkit.quiz import QuizExtension, check

BROKEN = Path(__file__).parent / "broken"
CASES = sorted(BROKEN.glob("*.md"))
EXPECT = re.compile(r"<!-- expect: (\d+): (.+?) -->")
BUILT = ["front-matter", "unknown-option", "unclosed", "needs-blank-feedback"]
"""Cases also built as real sites: front matter shifts lines; pymdown would leave the second as
literal text; the third swallows the rest of the page; the fourth loses an option silently."""


def expected(case: Path) -> tuple[int, str]:
    line, text = EXPECT.search(case.read_text()).groups()
    return int(line), text


def render(source: str) -> str:
    md = markdown.Markdown(extensions=[QuizExtension(), "pymdownx.superfences"])
    return md.convert(source)


def test_corpus_covers_every_rule() -> None:
    from lessonkit.quiz.rules import RULES

    patterns = {
        rule: re.compile(re.sub(r"\\\{\w+\\\}", ".*", re.escape(message)) + "$")
        for rule, (message, _) in RULES.items()
    }
    found = {p.message for case in CASES for p in check(case.read_text())}
    covered = {rule for rule, rx in patterns.items() if any(rx.match(m) for m in found)}
    assert set(RULES) - covered == {"leftover"}  # that one is rendering's, tested below


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_check_names_the_line_says_what_and_how_to_fix(case: Path) -> None:
    line, text = expected(case)
    problems = check(case.read_text())
    assert [(p.line, text in p.message) for p in problems] == [(line, True)], problems
    assert problems[0].hint


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_rendering_refuses_the_same_quiz_with_the_same_words(case: Path) -> None:
    _, text = expected(case)
    with pytest.raises(LessonError) as error:
        render(case.read_text())
    assert any(text in p.message for p in error.value.problems), error.value
    assert all(p.hint for p in error.value.problems)


@pytest.mark.parametrize("stem", ["unknown-option", "argument", "header-junk", "bad-type"])
def test_a_quiz_pymdown_would_leave_as_text_is_an_error_not_a_paragraph(stem: str) -> None:
    source = (BROKEN / f"{stem}.md").read_text()
    if stem == "bad-type":  # a value pymdown itself rejects, so the block falls back to text
        source = source.replace("type: many", "type: 3")
    with pytest.raises(LessonError) as error:
        render(source)
    messages = [p.message for p in error.value.problems]
    if stem == "bad-type":
        assert messages[0].startswith("`/// quiz` was left as literal text")
        assert 'not "3"' in messages[1]
    else:
        assert any(m.startswith("`/// quiz` was left as literal text") for m in messages)


def test_render_error_quotes_the_offending_text() -> None:
    with pytest.raises(LessonError) as error:
        render((BROKEN / "no-feedback.md").read_text())
    assert str(error.value) == (
        '<markdown>: error: wrong option "Remember the training data." has no feedback\n'
        "  hint: after a blank line, indent a paragraph by 4 spaces under the option that starts"
        " 'Not quite.' and says why"
    )


def test_fenced_quiz_syntax_is_not_checked() -> None:
    source = "Write:\n\n```markdown\n/// quiz | not checked\n- [ ] no feedback\n```\n"
    assert check(source) == []
    assert "/// quiz | not checked" in render(source)


SITE_CONFIG = """\
site_name: broken quiz
plugins:
  - lessonkit:
      execute: false
      glossary: ""
markdown_extensions:
  - pymdownx.superfences
  - lessonkit.quiz
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, mkdocs_build_shared) -> dict[str, str]:
    root = tmp_path_factory.mktemp("broken-quiz")

    def build(stem: str) -> str:
        site = root / stem
        (site / "docs").mkdir(parents=True)
        (site / "docs" / f"{stem}.md").write_text((BROKEN / f"{stem}.md").read_text())
        (site / "mkdocs.yml").write_text(SITE_CONFIG)
        result = mkdocs_build_shared(site)
        assert result.returncode != 0, f"{stem}.md built although its quiz is broken"
        return result.stderr

    with ThreadPoolExecutor(max_workers=len(BUILT)) as pool:
        return dict(zip(BUILT, pool.map(build, BUILT), strict=True))


@pytest.mark.parametrize("stem", BUILT)
def test_site_build_fails_with_file_line_and_message(stem: str, builds: dict[str, str]) -> None:
    line, text = expected(BROKEN / f"{stem}.md")
    stderr = builds[stem]
    assert f"docs/{stem}.md:{line}: error: " in stderr, stderr
    assert text in stderr
    assert "hint:" in stderr
    assert "Traceback (most recent call last)" not in stderr


def test_rendering_names_every_broken_quiz_of_the_page_at_once() -> None:
    quiz = "/// quiz\nWhich?\n\n- [x] Yes.\n- [ ] No, {n}.\n///\n"
    page = "\n".join(quiz.format(n=n) for n in ("first", "second"))
    with pytest.raises(LessonError) as error:
        render(page)
    assert [(p.message, p.near) for p in error.value.problems] == [
        ('wrong option "No, first." has no feedback', "- [ ] No, first."),
        ('wrong option "No, second." has no feedback', "- [ ] No, second."),
    ]


@pytest.mark.parametrize("source", ["- /// quiz\n  Why?\n\n  - [x] Yes.\n", "Text.\n\n* ///Quiz\n"])
def test_a_quiz_opened_on_a_list_item_s_line_is_refused(source: str) -> None:
    """A quiz pymdown opens inside a list item is never closed there: the page fails, however
    the quiz text hides behind the bullet."""
    with pytest.raises(LessonError, match="is never closed"):
        render(source)
