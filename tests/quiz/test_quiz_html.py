"""The quiz block on bare Python-Markdown: the exact HTML a reader's browser receives."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import markdown

from lessonkit.quiz import QuizExtension, unseal

SINGLE = """\
/// quiz
What does `softmax` return?

- [ ] One `int` per token.

    Not quite. It returns one weight per score, and the weights add up to 1.

- [x] Weights that add up to *one*.

    Right: `softmax([3, 1, 0])` is about `[0.84, 0.11, 0.04]`.
///
"""

SINGLE_HTML = """\
<div class="lk-quiz" data-lk-quiz="single" id="QUIZ">
<fieldset>
<legend>What does <code>softmax</code> return?</legend>
<div class="lk-quiz__option"><input id="QUIZ-1" name="QUIZ" type="radio" value="1" />\
<label for="QUIZ-1">One <code>int</code> per token.</label>\
<data class="lk-quiz__seal" value="SEAL"></data></div>
<div class="lk-quiz__option"><input id="QUIZ-2" name="QUIZ" type="radio" value="2" />\
<label for="QUIZ-2">Weights that add up to <em>one</em>.</label>\
<data class="lk-quiz__seal" value="SEAL"></data></div>
</fieldset>
<div aria-live="polite" class="lk-quiz__feedback" id="QUIZ-feedback"></div>
<noscript data-search-exclude="">
<details class="lk-quiz__answers">
<summary>Answers and explanations</summary>
<ul>
<li>
<p><strong>Wrong answer:</strong> One <code>int</code> per token.</p>
<p>Not quite. It returns one weight per score, and the weights add up to 1.</p>
</li>
<li>
<p><strong>Right answer:</strong> Weights that add up to <em>one</em>.</p>
<p>Right: <code>softmax([3, 1, 0])</code> is about <code>[0.84, 0.11, 0.04]</code>.</p>
</li>
</ul>
</details>
</noscript>
</div>
<div class="lk-quiz-result" hidden="hidden">
<p class="lk-quiz-result__score">You got 0 of 1 right.</p>
<button class="lk-quiz-result__reset" type="button">Reset answers</button></div>"""

MULTIPLE = """\
/// quiz
Which vectors does each token make in attention?

- [x] A query.
- [x] A key.

    Right: other tokens' queries are compared with it.

- [ ] A vocabulary.

    Not quite. The vocabulary belongs to the tokenizer.
///
"""

MULTIPLE_HTML = """\
<div class="lk-quiz" data-lk-quiz="multiple" id="QUIZ">
<fieldset>
<legend>Which vectors does each token make in attention?</legend>
<p class="lk-quiz__hint">Choose every answer that applies.</p>
<div class="lk-quiz__option"><input id="QUIZ-1" name="QUIZ" type="checkbox" value="1" />\
<label for="QUIZ-1">A query.</label><data class="lk-quiz__seal" value="SEAL"></data></div>
<div class="lk-quiz__option"><input id="QUIZ-2" name="QUIZ" type="checkbox" value="2" />\
<label for="QUIZ-2">A key.</label><data class="lk-quiz__seal" value="SEAL"></data></div>
<div class="lk-quiz__option"><input id="QUIZ-3" name="QUIZ" type="checkbox" value="3" />\
<label for="QUIZ-3">A vocabulary.</label><data class="lk-quiz__seal" value="SEAL"></data></div>
</fieldset>
<button class="lk-quiz__check" hidden="hidden" type="button">Check</button>\
<div aria-live="polite" class="lk-quiz__feedback" id="QUIZ-feedback"></div>
<noscript data-search-exclude="">
<details class="lk-quiz__answers">
<summary>Answers and explanations</summary>
<ul>
<li>
<p><strong>Right answer:</strong> A query.</p>
<p>Right.</p>
</li>
<li>
<p><strong>Right answer:</strong> A key.</p>
<p>Right: other tokens' queries are compared with it.</p>
</li>
<li>
<p><strong>Wrong answer:</strong> A vocabulary.</p>
<p>Not quite. The vocabulary belongs to the tokenizer.</p>
</li>
</ul>
</details>
</noscript>
</div>
<div class="lk-quiz-result" hidden="hidden">
<p class="lk-quiz-result__score">You got 0 of 1 right.</p>
<button class="lk-quiz-result__reset" type="button">Reset answers</button></div>"""

RE_ID = re.compile(r'<div class="lk-quiz" data-lk-quiz="\w+" id="(quiz-[0-9a-f]{8})">')
RE_SEAL = re.compile(r'<data class="lk-quiz__seal" value="([A-Za-z0-9+/=]*)"></data>')


def render(source: str, *extensions: object) -> str:
    return markdown.Markdown(extensions=[QuizExtension(), *extensions]).convert(source)


def opened(html: str) -> tuple[str, list[tuple[bool, str]]]:
    """The HTML with the quiz id written QUIZ and seals written SEAL, and the seals decoded."""
    [quiz_id] = RE_ID.findall(html)
    seals = RE_SEAL.findall(html)
    decoded = [unseal(f"{quiz_id}:{n}", value) for n, value in enumerate(seals, 1)]
    html = RE_SEAL.sub('<data class="lk-quiz__seal" value="SEAL"></data>', html)
    return html.replace(quiz_id, "QUIZ"), decoded


def test_single_answer_quiz_exact_html() -> None:
    html, seals = opened(render(SINGLE))
    assert html == SINGLE_HTML
    code = "<code>softmax([3, 1, 0])</code> is about <code>[0.84, 0.11, 0.04]</code>"
    assert seals == [
        (False, "<p>Not quite. It returns one weight per score, and the weights add up to 1.</p>"),
        (True, f"<p>Right: {code}.</p>"),
    ]


def test_multiple_answer_quiz_exact_html() -> None:
    html, seals = opened(render(MULTIPLE))
    assert html == MULTIPLE_HTML
    assert seals == [
        (True, "<p>Right.</p>"),
        (True, "<p>Right: other tokens' queries are compared with it.</p>"),
        (False, "<p>Not quite. The vocabulary belongs to the tokenizer.</p>"),
    ]


def test_type_option_overrides_the_inferred_kind() -> None:
    source = MULTIPLE.replace("- [x] A key.", "- [ ] A key.").replace("Right: other", "Not quite.")
    assert 'data-lk-quiz="single"' in render(source)
    forced = source.replace("/// quiz\n", "/// quiz\n    type: multiple\n\n", 1)
    assert 'data-lk-quiz="multiple"' in render(forced)
    assert 'type="checkbox"' in render(forced)


def test_answers_are_not_in_the_interactive_markup() -> None:
    """Outside <noscript>, no verdict or feedback appears in plain or plainly-encoded text."""
    html = render(SINGLE)
    interactive = re.sub(r"(?s)<noscript.*?</noscript>", "", html)
    for secret in ("Right", "Not quite", "0.84"):
        assert secret not in interactive
        for value in RE_SEAL.findall(html):
            assert secret.encode() not in base64.b64decode(value)
    assert "correct" not in interactive.lower()


def test_seals_of_right_options_do_not_look_alike() -> None:
    """Two right options with the same feedback get unrelated seals (no pattern to spot)."""
    html = render(MULTIPLE.replace("Right: other tokens' queries are compared with it.", "Right."))
    first, second, _ = RE_SEAL.findall(html)
    assert first != second
    assert first[:2] != second[:2]


def test_ids_are_stable_and_unique_per_page() -> None:
    first = RE_ID.findall(render(SINGLE))
    assert first == RE_ID.findall(render(SINGLE))  # same quiz, same id: saved answers still match
    assert first != RE_ID.findall(render(SINGLE.replace("per token", "per score")))
    page = render(SINGLE + "\n" + SINGLE + "\n" + MULTIPLE)
    ids = [value for name, value in _attributes(page) if name == "id"]
    assert len(ids) == len(set(ids)) == 3 + 3 + (2 + 2 + 3)  # quizzes, live regions, inputs
    assert RE_ID.findall(page)[0] == first[0]


def test_one_result_line_after_the_last_quiz_counts_every_quiz() -> None:
    page = render("Intro.\n\n" + SINGLE + "\nBetween.\n\n" + MULTIPLE + "\nAfter.\n")
    assert page.count('class="lk-quiz-result"') == 1
    assert "You got 0 of 2 right." in page
    last_quiz_end = page.rindex("</noscript>\n</div>")
    assert last_quiz_end < page.index('class="lk-quiz-result"') < page.index("<p>After.</p>")


def test_no_quiz_no_result_line() -> None:
    assert "lk-quiz" not in render("Just prose.\n\n- [x] a task list, not a quiz\n")


def test_quiz_syntax_shown_as_code_is_left_alone() -> None:
    source = "Write `/// quiz` to start one:\n\n    /// quiz\n    Question?\n    ///\n"
    html = render(source, "pymdownx.superfences")
    assert "<code>/// quiz</code>" in html
    assert "lk-quiz" not in html


def test_glossary_marks_in_a_quiz_render_as_plain_words() -> None:
    """The glossary keeps quizzes free of tooltips (a definition could give the answer away):
    ``[[term]]`` marks in the question, options and feedback read as plain words, never as
    literal brackets, and inline code still renders."""
    from lessonkit.glossary.extension import GlossaryExtension
    from lessonkit.glossary.terms import Glossary, Term

    glossary = Glossary([Term("token", "A piece of text."), Term("vector", "A list of numbers.")])
    source = (
        SINGLE.replace("return?", "return for each [[token]]?")
        .replace("One `int` per token", "One `int` per [[vector]]")
        .replace("Right: `softmax", "Right: a [[vector]] of weights, `softmax")
    )
    terms = GlossaryExtension(glossary=glossary, href="g.html#{id}", words_box=False)
    html = render("A [[token]] outside the quiz.\n\n" + source, terms)
    inside = html[html.index('<div class="lk-quiz"') :]
    _, seals = opened(html)
    assert 'class="lk-term"' in html[: html.index('<div class="lk-quiz"')]
    for text in (inside, *(feedback for _, feedback in seals)):
        assert "[[" not in text
        assert "lk-term" not in text
    assert "<legend>What does <code>softmax</code> return for each token?</legend>" in inside
    assert ">One <code>int</code> per vector.</label>" in inside
    assert seals[1][1].startswith("<p>Right: a vector of weights, <code>softmax(")


def _attributes(html: str) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.extend(attrs)

    Collect().feed(html)
    return found
