"""The learner's progress across lessons (60-progress.js) in Chromium: a quiz answered right
marks its lesson done on the home page and in the nav, with a place to resume; it survives a
reload, stays apart from a second site on the same origin, clears on reset, works by keyboard,
and a lesson whose quiz changed says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

LESSON = "transformers-and-attention/"
RIGHT = [  # the lesson's right answers, as tests/browser/test_quiz_browser.py clicks them
    "Weigh itself and earlier tokens, and take in their values.",
    "Every token meets every earlier token",
    'In the vectors of "approved", "loan" and later words',
]
DONE = "done, 3 of 3 quiz answers right"


@pytest.fixture(scope="module")
def second_url(built_site: Path, site_url: str) -> str:
    """The same site served again under another sub-path of the same origin."""
    shutil.copytree(built_site, built_site.parent / "second", dirs_exist_ok=True)
    return site_url.replace("/lessonkit/", "/second/")


@pytest.fixture(scope="module")
def total(built_site: Path) -> int:
    """How many lessons the path has, from the path data the home page carries."""
    home = (built_site / "index.html").read_text(encoding="utf-8")
    data = home.split('<script type="application/json" id="lk-path">', 1)[1].split("</script>")[0]
    return len(json.loads(data)["lessons"])


def answer_all_right(page, url: str) -> None:
    page.goto(url + LESSON)
    page.locator(".lk-progress").wait_for()
    for n, text in enumerate(RIGHT):
        page.locator(".lk-quiz").nth(n).locator("label", has_text=text).click()


def home_status(page, url: str) -> str:
    page.goto(url)
    page.locator(".lk-progress--home").wait_for()
    return page.locator(".lk-progress--home .lk-progress__status").inner_text()


def nav_mark(page, title: str) -> str:
    link = page.locator(".md-nav--primary a.md-nav__link", has_text=title).first
    return link.locator(".lk-progress-mark .lk-visually-hidden").inner_text().strip()


def test_a_quiz_answered_right_is_done_on_the_home_page_and_resumes(total, page, site_url) -> None:
    answer_all_right(page, site_url)
    status = page.locator(".lk-progress .lk-progress__status")
    assert status.get_attribute("role") == "status"  # announced, not only shown
    assert status.inner_text() == f"This lesson: {DONE}."
    assert page.locator(".lk-progress__mark").get_attribute("aria-pressed") == "true"
    assert home_status(page, site_url) == f"1 of {total} lessons done."
    article = page.locator("article")
    mark = article.locator("a", has_text="Transformers and attention").locator(".lk-progress-mark")
    assert mark.locator(".lk-visually-hidden").inner_text().strip() == f"({DONE})"
    assert "✓ 3/3" in mark.inner_text()
    assert nav_mark(page, "Transformers and attention") == f"({DONE})"
    resume = page.locator(".lk-progress__resume")
    assert resume.inner_text().startswith("Resume where you left off: Transformers and attention")
    resume.locator("a").click()
    page.wait_for_url(f"**/{LESSON}**")
    page.reload()  # kept across a reload
    assert nav_mark(page, "Transformers and attention") == f"({DONE})"
    assert home_status(page, site_url) == f"1 of {total} lessons done."
    assert page.console_errors == []


def test_a_second_site_on_the_same_origin_keeps_its_own(total, page, site_url, second_url) -> None:
    answer_all_right(page, site_url)
    assert home_status(page, site_url) == f"1 of {total} lessons done."
    assert home_status(page, second_url) == f"0 of {total} lessons done."
    page.goto(second_url + "history/")
    page.locator(".lk-progress__mark").click()  # marked by hand
    assert home_status(page, second_url) == f"1 of {total} lessons done."
    assert nav_mark(page, "History") == "(done)"
    assert home_status(page, site_url) == f"1 of {total} lessons done."
    page.goto(site_url)
    assert (
        page.locator(".md-nav--primary a", has_text="History").locator(".lk-progress-mark").count()
        == 0
    )
    keys = page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('lessonkit:progress:'))"
    )
    assert sorted(keys) == ["lessonkit:progress:/lessonkit/", "lessonkit:progress:/second/"]


def test_reset_clears_progress_and_quiz_answers(total, page, site_url) -> None:
    answer_all_right(page, site_url)
    home_status(page, site_url)
    page.get_by_role("button", name="Reset progress").click()
    status = page.locator(".lk-progress--home .lk-progress__status").inner_text()
    assert status == "Progress reset: no lesson is marked done."
    assert page.locator("article .lk-progress-mark").count() == 0
    assert home_status(page, site_url) == f"0 of {total} lessons done."
    page.goto(site_url + LESSON)
    page.locator(".lk-progress").wait_for()
    assert page.locator(".lk-quiz input:checked").count() == 0  # the answers went too
    assert page.locator(".lk-progress__status").inner_text() == "This lesson: not started."


def test_keyboard_only(total, page, site_url) -> None:
    page.goto(site_url + "history/")
    button = page.locator(".lk-progress__mark")
    button.wait_for()
    for _ in range(400):
        page.keyboard.press("Tab")
        if button.evaluate("(b) => b === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached 'Mark this lesson as done'")
    assert button.evaluate("(b) => b.matches(':focus-visible')")
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "true"
    assert page.locator(".lk-progress__status").inner_text() == "This lesson: done."
    page.keyboard.press("Space")  # and back
    assert button.get_attribute("aria-pressed") == "false"
    assert page.locator(".lk-progress__status").inner_text() == "This lesson: started."
    page.keyboard.press("Space")
    home_status(page, site_url)
    reset = page.get_by_role("button", name="Reset progress")
    reset.focus()
    page.keyboard.press("Enter")
    assert home_status(page, site_url) == f"0 of {total} lessons done."


def test_a_changed_quiz_says_so(total, page, site_url) -> None:
    page.goto(site_url)
    page.locator(".lk-progress--home").wait_for()
    stale = {
        "lessons": {LESSON: {"quizzes": "quiz-00000000", "done": True, "right": 1, "total": 1}}
    }
    page.evaluate(
        "(s) => localStorage.setItem('lessonkit:progress:/lessonkit/', s)", json.dumps(stale)
    )
    page.reload()
    assert nav_mark(page, "Transformers and attention") == (
        "(the quiz changed since you took it: take it again)"
    )
    assert home_status(page, site_url) == f"0 of {total} lessons done."


def test_without_javascript_the_home_page_is_as_before(browser, site_url) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url)
    assert page.locator(".lk-progress").count() == 0
    assert page.locator("a", has_text="the whole path on one page").count() == 1
    context.close()
