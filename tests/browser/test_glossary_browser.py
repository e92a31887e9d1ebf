"""Glossary tooltips in a real Chromium: mouse, keyboard, touch, print, axe."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

LESSON = "transformers-and-attention/"
TERMS = "article .lk-term__link"


def tip_of(page: Page, link: Locator) -> Locator:
    return page.locator(f"[id='{link.get_attribute('aria-describedby')}']")


def body_term(page: Page, n: int = 3) -> Locator:
    """A term in the body (not the lead paragraph), so the tooltip has room above or below."""
    return page.locator(TERMS).nth(n)


def test_hover_shows_the_definition_and_it_stays_while_the_pointer_is_on_it(
    page: Page, site_url: str
) -> None:
    page.goto(site_url + LESSON)
    link = body_term(page)
    link.scroll_into_view_if_needed()
    tip = tip_of(page, link)
    paragraph = link.locator("xpath=ancestor::p[1]")
    before = paragraph.bounding_box()
    expect(tip).to_be_hidden()
    link.hover()
    expect(tip).to_be_visible()
    assert tip.inner_text().strip()
    assert paragraph.bounding_box() == before, "showing a tooltip must not move the text"
    box = tip.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
    expect(tip).to_be_visible()  # WCAG 1.4.13: hoverable
    page.mouse.move(2, 600)
    expect(tip).to_be_hidden()
    assert page.console_errors == []


def test_tab_reaches_a_term_shows_its_definition_and_escape_hides_it(
    page: Page, site_url: str
) -> None:
    page.goto(site_url + LESSON)
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('lk-term__link')"):
            break
    else:
        pytest.fail("Tab never reached a glossary term")
    link = page.locator(":focus")
    tip = tip_of(page, link)
    expect(tip).to_be_visible()
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    expect(link).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # coming back shows it again
    expect(tip).to_be_visible()


def test_a_tap_on_a_phone_toggles_the_tooltip_inside_the_viewport(browser, site_url: str) -> None:
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.goto(site_url + LESSON)
    links = page.locator(TERMS)
    # The term nearest the right edge is the hardest one to keep on screen.
    rights = [links.nth(i).bounding_box() for i in range(links.count())]
    rightmost = max(range(len(rights)), key=lambda i: rights[i]["x"] + rights[i]["width"])
    for index in (0, rightmost):
        link = links.nth(index)
        tip = tip_of(page, link)
        link.tap()
        expect(tip).to_be_visible()
        box = tip.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        assert box["y"] >= 0 and box["y"] + box["height"] <= 740, box
        assert page.url == site_url + LESSON, "a tap opens the tooltip, it doesn't navigate"
        link.tap()
        expect(tip).to_be_hidden()
    link = links.nth(0)
    link.tap()
    expect(tip_of(page, link)).to_be_visible()
    page.locator("article h2").first.tap(position={"x": 4, "y": 4})  # tapping elsewhere closes it
    expect(tip_of(page, link)).to_be_hidden()
    context.close()


def test_without_javascript_hover_still_shows_and_the_link_opens_the_glossary(
    browser, site_url: str
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + LESSON)
    link = body_term(page)
    term_id = link.get_attribute("data-lk-term")
    link.hover()
    expect(tip_of(page, link)).to_be_visible()
    link.click()
    expect(page).to_have_url(f"{site_url}glossary/#{term_id}")
    expect(page.locator(f"h2[id='{term_id}']")).to_be_visible()
    context.close()


def test_print_shows_each_definition_after_its_term(page: Page, site_url: str) -> None:
    page.goto(site_url + LESSON)
    body_term(page).focus()  # a focused term prints like the others
    page.emulate_media(media="print")
    for i in range(page.locator(TERMS).count()):
        tip = tip_of(page, page.locator(TERMS).nth(i))
        expect(tip).to_be_visible()
        assert tip.evaluate("t => getComputedStyle(t).display") == "inline"
    expect(page.locator(".lk-words")).to_be_hidden()


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_violations_in_terms_tooltips_and_word_box(
    page: Page, site_url: str, scheme: str
) -> None:
    # Scoped to the glossary's markup: the theme's own findings belong to the site-wide scan.
    page.goto(site_url + LESSON)
    page.wait_for_load_state("networkidle")
    page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    page.locator("details.lk-words summary").click()  # open the box: its contents are checked
    scope = {"include": [[".lk-term"], [".lk-words"]]}
    axe = Axe()
    closed = axe.run(page, context=scope).response["violations"]
    body_term(page).focus()  # a tooltip open: its contrast and role are checked too
    opened = axe.run(page, context=scope).response["violations"]
    summary = [(v["id"], [n["target"] for n in v["nodes"]]) for v in closed + opened]
    assert summary == []
