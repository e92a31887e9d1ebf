"""The lesson's own "Check yourself" section passes the checks and keeps the seed's feedback."""

from __future__ import annotations

import re
from pathlib import Path

import markdown

from lessonkit.quiz import QuizExtension, check, unseal

LESSON = Path(__file__).parents[2] / "docs" / "transformers-and-attention.md"
SEED_FEEDBACK = [  # the seed lesson's surviving feedback lines, one per question
    "Not quite. Queries are matched against keys of earlier tokens, and the best matches "
    "contribute their values.",
    "Not quite. Cost rises roughly with the square of the length because of those comparisons.",
    "Not quite. Neighbouring words set the meaning: attention blends their information into the "
    "word's vector.",
]


def test_lesson_quizzes_pass_the_checks() -> None:
    assert check(LESSON.read_text(encoding="utf-8")) == []


def test_three_questions_every_option_explained_seed_feedback_kept() -> None:
    section = LESSON.read_text(encoding="utf-8").split("## Check yourself", 1)[1]
    html = markdown.Markdown(extensions=[QuizExtension()]).convert(section)
    quiz_ids = re.findall(r'<div class="lk-quiz" data-lk-quiz="single" id="([\w-]+)">', html)
    assert len(quiz_ids) == 3
    for quiz_id, seed in zip(quiz_ids, SEED_FEEDBACK, strict=True):
        option = rf'<input id="{quiz_id}-(\d+)".*?<data class="lk-quiz__seal" value="([^"]+)">'
        seals = re.findall(option, html, re.S)
        assert 3 <= len(seals) <= 4
        opened = [unseal(f"{quiz_id}:{n}", sealed) for n, sealed in seals]
        assert sum(right for right, _ in opened) == 1
        for right, feedback in opened:
            assert feedback.startswith("<p>Right: " if right else "<p>Not quite. ")
        wrong_texts = [" ".join(f[3:-4].split()) for right, f in opened if not right]
        assert seed in wrong_texts
