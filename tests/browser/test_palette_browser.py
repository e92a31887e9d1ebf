"""The light/dark toggle (overrides/partials/palette.html) in a real Chromium: the system's
preference on first visit, a click or Enter switches and is remembered, no script errors."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

LESSON = "transformers-and-attention/"
TOGGLE = "[data-lk-palette] label:not([hidden])"


def scheme(page: Page) -> str:
    return page.evaluate("document.body.dataset.mdColorScheme")


@pytest.mark.parametrize(
    ("system", "first", "other"), [("light", "default", "slate"), ("dark", "slate", "default")]
)
def test_the_toggle_follows_the_system_then_the_reader(
    browser, site_url: str, system, first, other
) -> None:
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + LESSON)
    assert scheme(page) == first
    expect(page.locator(TOGGLE)).to_have_count(1)  # one button: the way to the other scheme
    page.locator(TOGGLE).click()
    assert scheme(page) == other
    expect(page.locator("body")).not_to_have_attribute("data-md-color-switching", "")
    page.goto(site_url)  # remembered on the next page, from the first paint
    assert scheme(page) == other
    page.locator("[data-lk-palette] input:checked").focus()
    page.keyboard.press("Enter")  # as in Material: Enter on the toggle switches
    assert scheme(page) == first
    page.reload()
    assert scheme(page) == first
    assert errors == []
    context.close()


def test_the_header_has_no_material_palette_component(page: Page, site_url: str) -> None:
    """Material's palette component restyles the whole page three times on every load."""
    page.goto(site_url + LESSON)
    assert page.locator("[data-md-component=palette]").count() == 0
    assert page.evaluate("document.documentElement.classList.contains('js')")
