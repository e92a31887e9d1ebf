"""Issue 40, class 4: a value lessonkit writes into a page's HTML stays a value, whatever it holds.

The learner's path travels in every page as JSON inside ``<script type="application/json">``:
lesson titles (front matter, headings) and URLs (file names) must neither end the element early
(``</script>``) nor make the real ``</script>`` part of it (``<!--<script>``: the rest of the page
becomes script text, and every page of the site loses its progress and its content)."""

from __future__ import annotations

import json
import re

import pytest

from lessonkit.path import Lesson, progress_json

TITLES = ["The <!--<script> trap", "Ends </script> here", "A & B > C", "Line\u2028separator"]


def path_script(titles: list[str]) -> str:
    lessons = [Lesson(f"l{n}.md", title, f"l{n}/", "") for n, title in enumerate(titles)]
    return progress_json(lessons, "../", "print/")


def test_the_path_json_holds_no_markup_and_reads_back_every_title() -> None:
    script = path_script(TITLES)
    text = re.fullmatch(r'<script type="application/json" id="lk-path">(.*)</script>', script)
    assert text is not None, script
    assert not re.search("[<>&\u2028\u2029]", text[1]), text[1]
    assert [x["title"] for x in json.loads(text[1])["lessons"]] == TITLES


@pytest.mark.browser
def test_a_title_in_the_path_json_cannot_swallow_the_rest_of_the_page(browser) -> None:
    page = browser.new_page()
    try:
        page.set_content(f"<!doctype html><body>{path_script(TITLES)}<p id='after'>after</p>")
        assert page.locator("#after").count() == 1, "the page after the script is still HTML"
        data = page.evaluate("JSON.parse(document.getElementById('lk-path').textContent)")
        assert [x["title"] for x in data["lessons"]] == TITLES
    finally:
        page.close()
