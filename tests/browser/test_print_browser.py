"""The whole path to print (print/, made by lessonkit.path): printed to PDF by Chromium, it has
every lesson's title and every figure, the quiz answers and the glossary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

LESSONS = {  # each lesson of the path: its page and its title as its h1 says it
    "history/": "A short history of attention",
    "embeddings/": "Embeddings",
    "transformers-and-attention/": "Transformers and attention",
    "real-model-bank/": "What a real model does with",
    "the-block/": "The whole block, drawn by code",
    "queries-keys-values-and-heads/": "Queries, keys, values and heads",
    "positions/": "Positions and word order",
    "the-output-end/": "The output end",
    "kv-cache/": "The KV cache",
    "training/": "Training in one page",
    "building-blocks/attention-in-numbers/": "Attention in numbers",
}


def test_the_print_page_has_every_lesson_and_figure(built_site: Path) -> None:
    html = (built_site / "print/index.html").read_text(encoding="utf-8")
    for page, title in LESSONS.items():
        assert title in html
        lesson = (built_site / page / "index.html").read_text(encoding="utf-8")
        for label in re.findall(r'<figure class="lk-figure"><svg[^>]*aria-label="([^"]*)"', lesson):
            assert f'aria-label="{label}"' in html, f"{page}: figure {label!r} missing"
    assert html.count('<figure class="lk-figure"><svg') == sum(
        (built_site / p / "index.html").read_text(encoding="utf-8").count('class="lk-figure"><svg')
        for p in LESSONS
    )
    assert "Quiz answers and explanations" in html and "Right answer:" in html
    assert 'class="lk-print__glossary"' in html
    assert "lk-quiz__seal" not in html and "lk-quiz__option" not in html  # answers in the open


def test_it_prints_to_pdf(page, site_url: str, tmp_path: Path) -> None:
    page.goto(site_url)
    page.get_by_role("link", name="the whole path on one page").click()
    page.wait_for_url("**/print/")
    page.emulate_media(media="print")
    pdf = page.pdf(format="A4", print_background=False)
    (tmp_path / "path.pdf").write_bytes(pdf)
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
    # The lessons, the answers and the glossary, each on new pages: 4 to 16 pages a lesson (the
    # bounds five lessons had, 20 and 80).
    assert 4 * len(LESSONS) <= pages <= 16 * len(LESSONS), pages
    text = page.locator("article").inner_text()
    for title in LESSONS.values():
        assert title in text
    assert page.console_errors == []


CUT_OFF = """() => {
  const width = document.documentElement.clientWidth;
  const cut = [];
  for (const el of document.querySelectorAll("article *")) {
    if (el.closest(".lk-visually-hidden")) continue; // clipped on purpose, for screen readers
    const style = getComputedStyle(el);
    const scrolls = style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1;
    if (scrolls || el.getBoundingClientRect().right > width + 1) {
      cut.push(`${el.tagName} ${el.textContent.trim().slice(0, 40)}`);
    }
  }
  return cut;
}"""


def test_in_print_nothing_hides_behind_a_scrollbar(page, site_url: str) -> None:
    """Printed, every table and figure fits the paper's width: nothing scrolls, nothing is cut
    (the real-model page's 8-column similarity table printed with a scrollbar)."""
    page.set_viewport_size({"width": 700, "height": 1000})  # A4's printable width, near enough
    page.goto(site_url + "print/")
    page.emulate_media(media="print")
    assert page.locator("article table").count() > 10
    assert page.evaluate(CUT_OFF) == []
