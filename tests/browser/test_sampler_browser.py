"""The sampling explorer in a real Chromium: its numbers against lessonkit.lab.sampling."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from lessonkit.widgets.sampler import sampler_numbers

pytestmark = pytest.mark.browser

PAGE = "the-output-end/"
BOX = "#lk-sampler"
LOGITS = [3.1, 2.8, 2.2, 1.9, 1.2, 0.9, 0.3, -0.5]  # the page's invented scores

CASES = [(1.0, 8, 1.0), (0.5, 8, 1.0), (2.0, 3, 1.0), (1.0, 8, 0.9), (3.0, 5, 0.6), (0.1, 1, 1.0)]


def _set(page: Page, role: str, value: float) -> None:
    field = page.locator(f'{BOX} input[type="number"][data-role="{role}"]')
    field.fill(f"{value:g}")
    field.dispatch_event("input")


def _shown(page: Page, out: str) -> list[str]:
    return page.locator(f'{BOX} [data-out="{out}"]').all_inner_texts()


@pytest.fixture(scope="module")
def output_end(browser, site_url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + PAGE)
    expect(page.locator(f"{BOX} .lk-explorer__controls")).to_be_visible()
    yield page
    assert errors == []
    context.close()


def test_the_page_starts_with_the_labs_numbers(output_end: Page) -> None:
    probs, kept = sampler_numbers(LOGITS)
    assert _shown(output_end, "prob") == [f"{x:.3f}" for x in probs]
    assert _shown(output_end, "kept") == [f"{x:.3f}" for x in kept]


@pytest.mark.parametrize(("t", "k", "p"), CASES)
def test_every_setting_gives_the_labs_numbers(output_end: Page, t: float, k: int, p: float):
    for role, value in (("temperature", t), ("k", k), ("p", p)):
        _set(output_end, role, value)
    probs, kept = sampler_numbers(LOGITS, t, k, p)
    assert _shown(output_end, "prob") == [f"{x:.3f}" for x in probs]
    assert _shown(output_end, "kept") == [f"{x:.3f}" for x in kept]
    n = sum(x > 0 for x in kept)
    assert _shown(output_end, "sentence")[0].startswith("1 word is" if n == 1 else f"{n} words")


def test_reset_returns_to_the_pages_numbers(output_end: Page) -> None:
    _set(output_end, "temperature", 0.3)
    output_end.locator(f'{BOX} [data-role="reset"]').click()
    probs, _ = sampler_numbers(LOGITS)
    assert _shown(output_end, "prob") == [f"{x:.3f}" for x in probs]
