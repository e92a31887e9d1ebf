"""The lesson's "Check yourself" quizzes in Chromium: mouse, keyboard, screen readers, memory,
no JavaScript, print, and an axe-core scan."""

from __future__ import annotations

import re
from pathlib import Path

import axe_playwright_python
import markdown
import pytest

from lessonkit.assets.bundle import bundle
from lessonkit.quiz import QuizExtension

pytestmark = pytest.mark.browser

LESSON = "transformers-and-attention/"
AXE = Path(axe_playwright_python.__file__).parent / "axe.min.js"

WRONG = [  # the option of each quiz that shows that feedback
    "Recall any sentence of its training data, word for word, on demand.",
    "Each token is handled once and in order, so the cost grows in step with the length.",
    'In the spelling of "bank", which tells the model which of its senses is meant here.',
]
RIGHT = [
    "Weigh itself and earlier tokens, and take in their values.",
    "Every token meets every earlier token",
    'In the vectors of "approved", "loan" and later words',
]


def feedback_in_lesson(option: str) -> str:
    """The feedback the lesson's source gives under ``option``, its whitespace collapsed."""
    source = (Path(__file__).parents[2] / "docs" / LESSON.strip("/")).with_suffix(".md")
    text = source.read_text(encoding="utf-8")
    found = re.search(rf"^- \[[ x]\] {re.escape(option)}\n\n((?: {{4}}.+\n)+)", text, re.M)
    assert found, f"no option {option!r} in {source}"
    return " ".join(found[1].split())


FEEDBACK = [feedback_in_lesson(option) for option in WRONG]
"""What the page must show for each wrong option: the lesson's own words, as written."""


def open_lesson(page, site_url: str) -> None:
    page.goto(site_url + LESSON)
    page.locator(".lk-quiz[data-lk-ready]").nth(2).wait_for(state="attached")


def quiz(page, n: int):
    return page.locator(".lk-quiz").nth(n)


def option(page, n: int, text: str):
    return quiz(page, n).locator(".lk-quiz__option", has_text=text).locator("input")


def feedback(page, n: int) -> str:
    return " ".join(quiz(page, n).locator(".lk-quiz__feedback").inner_text().split())


def score(page) -> str:
    return page.locator(".lk-quiz-result__score").inner_text()


def test_wrong_then_right_by_mouse(page, site_url: str) -> None:
    open_lesson(page, site_url)
    assert score(page) == "You got 0 of 3 right."
    for n in range(3):
        quiz(page, n).locator("label", has_text=WRONG[n]).click()
        assert feedback(page, n) == FEEDBACK[n]
        assert option(page, n, WRONG[n]).is_checked()
        assert score(page) == f"You got {n} of 3 right."
        quiz(page, n).locator("label", has_text=RIGHT[n]).click()  # retry
        assert feedback(page, n).startswith("Right:")
        assert not option(page, n, WRONG[n]).is_checked()
        assert score(page) == f"You got {n + 1} of 3 right."
    assert page.console_errors == []


def test_every_option_explains_itself(page, site_url: str) -> None:
    """Every option has feedback: 'Right: ...' for the right one, 'Not quite. ...' otherwise."""
    open_lesson(page, site_url)
    for n in range(3):
        labels = quiz(page, n).locator(".lk-quiz__option label")
        assert 3 <= labels.count() <= 4
        for i in range(labels.count()):
            labels.nth(i).click()
            text = feedback(page, n)
            right = labels.nth(i).inner_text().startswith(RIGHT[n])
            assert text.startswith("Right: " if right else "Not quite. "), text
            assert len(text) > len("Not quite. ") + 20


def test_all_three_by_keyboard_only(page, site_url: str) -> None:
    open_lesson(page, site_url)
    page.locator("#check-yourself a.headerlink").focus()  # start just above the quizzes
    keys: list[str] = []
    for n in range(3):
        _tab_into(page, quiz(page, n))
        first = page.evaluate("document.activeElement.labels[0].textContent")
        assert page.evaluate("document.activeElement.matches(':focus-visible')")
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline not in ("", "none")
        page.keyboard.press("Space")  # choose the focused (first) option
        assert page.evaluate("document.activeElement.checked")
        assert feedback(page, n).startswith("Right:" if first.startswith(RIGHT[n]) else "Not")
        while not page.evaluate("document.activeElement.labels[0].textContent").startswith(
            RIGHT[n]
        ):
            page.keyboard.press("ArrowDown")  # moves and chooses, as radio groups do
            keys.append("ArrowDown")
        assert feedback(page, n).startswith("Right:")
    assert keys  # the right answers are not first: arrows were needed
    assert score(page) == "You got 3 of 3 right."
    assert page.console_errors == []


def _tab_into(page, target, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if target.evaluate("(q) => q.contains(document.activeElement)"):
            return
    raise AssertionError("Tab never reached the quiz")


def test_feedback_is_announced_by_a_live_region(page, site_url: str) -> None:
    open_lesson(page, site_url)
    quiz(page, 1).locator("label", has_text=WRONG[1]).click()
    box = quiz(page, 1).locator(".lk-quiz__feedback")
    assert box.get_attribute("aria-live") == "polite"
    assert " ".join(box.inner_text().split()) == FEEDBACK[1]
    # The chosen input is described by the feedback, for when focus comes back to it.
    described = option(page, 1, WRONG[1]).get_attribute("aria-describedby")
    assert described == box.get_attribute("id")


def test_answers_persist_across_reload_until_reset(page, site_url: str) -> None:
    open_lesson(page, site_url)
    quiz(page, 0).locator("label", has_text=RIGHT[0]).click()
    quiz(page, 2).locator("label", has_text=WRONG[2]).click()
    page.reload()
    open_lesson(page, site_url)
    assert option(page, 0, RIGHT[0]).is_checked()
    assert option(page, 2, WRONG[2]).is_checked()
    assert feedback(page, 2) == FEEDBACK[2]
    assert score(page) == "You got 1 of 3 right."
    page.get_by_role("button", name="Reset answers").click()
    assert score(page) == "You got 0 of 3 right."
    assert page.locator(".lk-quiz__option input:checked").count() == 0
    assert feedback(page, 2) == ""
    page.reload()
    open_lesson(page, site_url)
    assert page.locator(".lk-quiz__option input:checked").count() == 0
    assert page.console_errors == []


def test_works_without_local_storage(browser, site_url: str) -> None:
    context = browser.new_context()
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', {get() {"
        " throw new DOMException('The operation is insecure.', 'SecurityError'); }});"
    )
    page = context.new_page()
    errors: list[str] = []  # Material's own inline script throws here too: only count ours
    page.on(
        "pageerror",
        lambda e: errors.append(e.stack or "") if "lessonkit" in (e.stack or "") else None,
    )
    open_lesson(page, site_url)
    quiz(page, 0).locator("label", has_text=RIGHT[0]).click()
    assert score(page) == "You got 1 of 3 right."
    page.reload()
    open_lesson(page, site_url)
    assert score(page) == "You got 0 of 3 right."  # forgotten, quietly
    context.close()
    assert errors == []


def test_without_javascript_the_disclosure_shows_answers(browser, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + LESSON)
    disclosures = page.locator("details.lk-quiz__answers")
    assert disclosures.count() == 3
    for n in range(3):
        q = quiz(page, n)
        assert q.locator("legend").is_visible()
        assert q.locator(".lk-quiz__option label").first.is_visible()
        answers = q.locator("details.lk-quiz__answers")
        assert not answers.locator("li").first.is_visible()  # behind the disclosure
        answers.locator("summary").click()
        text = " ".join(answers.inner_text().split())
        assert f"Right answer: {RIGHT[n]}" in text
        assert f"Wrong answer: {WRONG[n]} {FEEDBACK[n]}" in text
    assert not page.locator(".lk-quiz-result").is_visible()  # no score without a script
    context.close()


def test_print_shows_the_explanations(page, site_url: str) -> None:
    open_lesson(page, site_url)
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    page.emulate_media(media="print")
    printed = quiz(page, 0).locator(".lk-quiz__print")
    assert printed.is_visible()
    assert quiz(page, 0).locator("legend").is_visible()
    text = " ".join(printed.inner_text().split())
    assert f"Wrong answer: {WRONG[0]} {FEEDBACK[0]}" in text
    assert f"Right answer: {RIGHT[0]}" in text
    page.emulate_media(media="screen")
    assert not printed.is_visible()
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.locator(".lk-quiz__print").count() == 0  # decoded answers leave the page again


def axe_violations(page) -> list[tuple[str, list]]:
    """axe-core's violations inside the quizzes and the result line (ids and first nodes)."""
    page.add_script_tag(content=AXE.read_text())
    context = "{include: [['.lk-quiz'], ['.lk-quiz-result']]}"
    result = page.evaluate(f"axe.run({context}, {{resultTypes: ['violations']}})")
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations(browser, site_url: str, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    open_lesson(page, site_url)
    quiz(page, 0).locator("label", has_text=WRONG[0]).click()  # a mark and feedback shown
    quiz(page, 1).locator("label", has_text=RIGHT[1]).click()
    quiz(page, 2).locator("label", has_text=RIGHT[2]).focus()
    found = axe_violations(page)
    context.close()
    assert found == []


MULTIPLE = """\
/// quiz
Which vectors does each token make in attention?

- [x] A query.

    Right: it says what the token is looking for.

- [x] A key.

    Right: other tokens' queries are compared with it.

- [ ] A vocabulary.

    Not quite. The vocabulary belongs to the tokenizer.
///
"""


def test_multiple_answer_quiz_judges_on_check(page) -> None:
    """A multiple-answer quiz on a bare page (no Material): checkboxes, then Check."""
    html = markdown.Markdown(extensions=[QuizExtension()]).convert(MULTIPLE)
    document = (
        "<!doctype html><html lang='en'><head><title>Quiz</title>"
        f"<style>{bundle('css').decode()}</style></head>"
        f"<body><main>{html}</main><script>{bundle('js').decode()}</script></body></html>"
    )
    page.route(
        "http://quiz.test/", lambda route: route.fulfill(body=document, content_type="text/html")
    )
    page.goto("http://quiz.test/")
    q = page.locator(".lk-quiz")
    check = q.get_by_role("button", name="Check")
    assert check.is_visible()
    q.get_by_label("A query.").check()
    q.get_by_label("A vocabulary.").check()
    assert q.locator(".lk-quiz__feedback").inner_text() == ""  # nothing judged before Check
    check.click()
    text = " ".join(q.locator(".lk-quiz__feedback").inner_text().split())
    assert text.startswith("Not quite: you chose 1 of the 2 right answers and 1 wrong one.")
    assert "A vocabulary. Not quite. The vocabulary belongs to the tokenizer." in text
    assert page.locator(".lk-quiz-result__score").inner_text() == "You got 0 of 1 right."
    q.get_by_label("A vocabulary.").uncheck()
    assert q.locator(".lk-quiz__feedback").inner_text() == ""  # a changed choice waits for Check
    q.get_by_label("A key.").check()
    check.click()
    text = " ".join(q.locator(".lk-quiz__feedback").inner_text().split())
    assert text.startswith("Right: you chose every right answer and no wrong one.")
    assert "A key. Right: other tokens' queries are compared with it." in text
    assert page.locator(".lk-quiz-result__score").inner_text() == "You got 1 of 1 right."
    assert axe_violations(page) == []
    assert page.console_errors == []
