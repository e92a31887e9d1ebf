"""The quiz block reads the parsed quiz, and refuses what it cannot build."""

from __future__ import annotations

import xml.etree.ElementTree as etree

import pytest

from lessonkit.core.problems import LessonError
from lessonkit.quiz.block import _read_option, read_quiz


def test_a_quiz_with_one_right_option_is_single() -> None:
    block = etree.fromstring("<div><p>Why?</p><ul><li>[x] a</li><li>[ ] b</li></ul></div>")
    assert read_quiz(block, "").kind == "single"


def test_options_markdown_did_not_read_as_a_list_are_refused() -> None:
    with pytest.raises(LessonError) as error:
        read_quiz(etree.fromstring("<div><p>Why?</p><p>- [x] a</p></div>"), "")
    assert str(error.value) == (
        '<markdown>: error: quiz "Why?" has no option list\n'
        "  hint: after a blank line, list the options as a task list: `- [x] right` and "
        "`- [ ] wrong`"
    )


def test_an_option_reads_from_a_tight_or_a_loose_list() -> None:
    assert _read_option(etree.fromstring("<li>[x] Yes</li>")).feedback[0].text == "Right."
    option = _read_option(etree.fromstring("<li><p>[ ] It is</p><p>Not quite.</p></li>"))
    assert (option.text, [el.text for el in option.feedback]) == ("It is", ["Not quite."])
