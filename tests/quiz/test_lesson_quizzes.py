"""The lesson's own "Check yourself" section passes the checks and keeps the seed's feedback."""

from __future__ import annotations

import re
from pathlib import Path

import markdown

from lessonkit.quiz import QuizExtension, check, unseal

LESSON = Path(__file__).parents[2] / "docs" / "transformers-and-attention.md"
SEED_FEEDBACK = [  # one wrong option's feedback per question (rewritten in issue 20: the seed's
    # said later words could not be in the input and that neighbours move "bank" in any model)
    "Not quite. Attention works only on the tokens of the input in front of it. What a model kept "
    "from its training data is spread through the numbers it learned, not stored word by word for "
    "attention to look up.",
    "Not quite. Attention compares each token with every earlier token, so the number of "
    "comparisons, and this part of the cost, grows with the square of the length.",
    'Not quite. "bank" is spelled the same in "The bank of the river"; what differs is the words '
    "around it.",
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
