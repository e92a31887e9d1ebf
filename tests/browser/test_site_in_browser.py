"""The built site in a real Chromium: it renders cleanly and search finds the lesson."""

import pytest

pytestmark = pytest.mark.browser


def test_lesson_renders_without_console_errors(page, site_url: str) -> None:
    page.goto(site_url + "transformers-and-attention/")
    assert page.locator("article h1").inner_text().startswith("Transformers and attention")
    page.wait_for_load_state("networkidle")
    assert page.console_errors == []


def test_search_finds_the_lesson(page, site_url: str) -> None:
    page.goto(site_url)
    page.wait_for_load_state("networkidle")  # the search worker has loaded its index
    page.keyboard.press("s")  # Material's shortcut that opens search
    page.keyboard.type("attention", delay=20)  # typed, as a reader would
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    # Several chapters are about attention; the lesson must be among the results.
    hrefs = [link.get_attribute("href") or "" for link in results.all()]
    assert any("transformers-and-attention" in href for href in hrefs), hrefs


def test_page_load_makes_no_third_party_request(browser, site_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    hosts: set[str] = set()
    page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    page.goto(site_url + "transformers-and-attention/")
    page.wait_for_load_state("networkidle")
    context.close()
    assert hosts == {site_url.split("/")[2]}
