"""Report a mistake in Chromium: selected text and the section travel to the issue form."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

pytestmark = pytest.mark.browser

LESSON = "transformers-and-attention/"
ISSUE_FORM = "https://github.com/lessonkit/lessonkit/issues/new"


def _fields(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def _follow(page, link) -> str:
    """Click ``link`` and return the URL the browser asked for (GitHub is never contacted)."""
    asked: list[str] = []

    def fulfil(route) -> None:
        asked.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p>issue form</p>")

    page.route("https://github.com/**", fulfil)
    link.click()
    page.wait_for_url("https://github.com/**")
    return asked[-1]


def _select(page, selector: str) -> str:
    """Select the text of the first element matching ``selector``, as a reader dragging would."""
    return page.evaluate(
        """selector => {
            const el = document.querySelector(selector);
            const range = document.createRange();
            range.selectNodeContents(el);
            const selection = window.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
            return selection.toString();
        }""",
        selector,
    )


def test_selected_text_travels_with_the_page_link(page, site_url: str) -> None:
    page.goto(site_url + LESSON)
    selected = _select(page, "article h2 + p")
    assert len(selected) > 40
    url = _follow(page, page.locator("a.lk-report__link"))
    assert url.startswith(ISSUE_FORM + "?")
    fields = _fields(url)
    assert fields["template"] == "mistake.yml"
    assert fields["page"] == "Transformers and attention"
    assert fields["page-url"].endswith("/" + LESSON)
    assert fields["quote"] == " ".join(selected.split())
    assert page.console_errors == []


def test_section_link_carries_the_section_and_selection(page, site_url: str) -> None:
    page.goto(site_url + LESSON)
    heading = page.locator("article h2", has_text="Why it matters")
    link = heading.locator("a.lk-report__section")
    assert link.inner_text().startswith("report")
    selected = _select(page, "#why-it-matters + p")
    url = _follow(page, link)
    fields = _fields(url)
    assert fields["section"] == "Why it matters"
    assert fields["title"] == "Mistake: Transformers and attention › Why it matters"
    assert fields["quote"] == " ".join(selected.split())


def test_link_without_selection_carries_no_quote(page, site_url: str) -> None:
    page.goto(site_url + LESSON)
    page.locator("a.lk-report__link").focus()
    url = _follow(page, page.locator("a.lk-report__link"))
    assert "quote" not in _fields(url)


def test_page_link_works_without_javascript(browser, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + LESSON)
    link = page.locator("a.lk-report__link")
    assert link.inner_text() == "Report it on GitHub"
    assert "Spotted a mistake or something unclear?" in page.locator(".lk-report").inner_text()
    fields = _fields(link.get_attribute("href"))
    assert fields["page"] == "Transformers and attention"
    assert page.locator(".lk-report__section").count() == 0  # section links need JavaScript
    context.close()
