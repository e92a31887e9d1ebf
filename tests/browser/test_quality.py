"""The site's quality budget, held in CI: every page in light and dark has zero axe violations,
makes no request to another host and none outside the sub-path, logs no console error; the 404
page is styled; a printed lesson is clean; tooltips and quizzes shift no layout.

The Lighthouse part of the budget is too slow for CI: scripts/quality_report.py measures it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import axe_playwright_python
import pytest

pytestmark = pytest.mark.browser

AXE = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
LESSON = "transformers-and-attention/"
SCHEMES = {"light": "default", "dark": "slate"}


@dataclass
class Visit:
    """What one page load did: axe violations, requests, console errors, failed responses."""

    violations: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def page_paths(built_site: Path) -> list[str]:
    """Every page of the built site as a path under the site's URL; 404.html as a missing URL."""
    paths = []
    for html in sorted(built_site.rglob("*.html")):
        relative = html.relative_to(built_site).as_posix()
        paths.append("no-such-page/" if relative == "404.html" else relative[: -len("index.html")])
    return paths


def visit(browser, url: str, scheme: str) -> Visit:
    """Load ``url`` in a fresh context in ``scheme`` (light/dark), record it and run axe."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme=scheme, service_workers="block"
    )
    page = context.new_page()
    found = Visit()
    page.on("request", lambda r: found.urls.append(r.url))
    page.on("console", lambda m: found.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.console_errors.append(str(e)))
    page.on("requestfailed", lambda r: found.failures.append(f"{r.url} ({r.failure})"))

    def check_status(response) -> None:
        if response.status >= 400 and response.url != url:  # the 404 page itself answers 404
            found.failures.append(f"{response.url} ({response.status})")

    page.on("response", check_status)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    applied = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    assert applied == SCHEMES[scheme], f"{url}: Material did not apply the {scheme} scheme"
    page.evaluate(AXE)
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    found.violations = [
        f"{v['id']}: {[n['target'] for n in v['nodes'][:3]]} {v['nodes'][0]['failureSummary']}"
        for v in result["violations"]
    ]
    context.close()
    return found


@pytest.fixture(scope="module")
def visits(browser, site_url: str, built_site: Path) -> dict[tuple[str, str], Visit]:
    """Every page of the site, loaded once in light and once in dark."""
    return {
        (path, scheme): visit(browser, site_url + path, scheme)
        for scheme in SCHEMES
        for path in page_paths(built_site)
    }


def test_every_page_is_visited(visits: dict[tuple[str, str], Visit]) -> None:
    paths = {path for path, _ in visits}
    assert {"", LESSON, "glossary/", "no-such-page/"} <= paths
    assert all(v.urls for v in visits.values())


def test_axe_finds_no_violations_on_any_page_in_light_or_dark(visits) -> None:
    found = {key: v.violations for key, v in visits.items() if v.violations}
    assert found == {}


def test_no_page_requests_another_host_or_leaves_the_sub_path(visits, site_url: str) -> None:
    """Zero third-party requests (no fonts, no api.github.com), all under /lessonkit/."""
    own = urlsplit(site_url)
    found = {
        key: [
            u
            for u in v.urls
            if urlsplit(u).netloc != own.netloc or not urlsplit(u).path.startswith(own.path)
        ]
        for key, v in visits.items()
    }
    assert {key: urls for key, urls in found.items() if urls} == {}


DOCUMENT_404 = "Failed to load resource: the server responded with a status of 404 (Not Found)"
"""Chromium logs the 404 page's own status; its assets' statuses are checked as failures."""


def test_no_console_errors_and_every_request_succeeds(visits) -> None:
    errors = {
        (path, scheme): [
            e for e in v.console_errors if not (path == "no-such-page/" and e == DOCUMENT_404)
        ]
        + v.failures
        for (path, scheme), v in visits.items()
    }
    assert {key: e for key, e in errors.items() if e} == {}


def test_the_404_page_is_styled_at_any_depth(page, site_url: str) -> None:
    response = page.goto(site_url + "deep/no-such/page/")
    assert response is not None and response.status == 404
    page.wait_for_load_state("networkidle")
    assert page.locator("article h1").inner_text() == "404 - Not found"
    header = page.locator(".md-header")
    assert header.evaluate("h => getComputedStyle(h).position") == "sticky"  # Material's CSS
    assert header.evaluate("h => getComputedStyle(h).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert page.locator(".md-header__button.md-logo svg").is_visible()  # icons inlined
    sheets = page.evaluate("[...document.styleSheets].map(s => s.href).filter(Boolean)")
    assert sum("lessonkit.css" in s for s in sheets) == 1, sheets
    assert [e for e in page.console_errors if e != DOCUMENT_404] == []


def test_printing_a_lesson_gives_a_clean_page(page, site_url: str) -> None:
    page.goto(site_url + LESSON)
    page.locator(".lk-quiz[data-lk-ready]").first.wait_for(state="attached")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # the quiz decodes answers
    page.emulate_media(media="print")

    def display(selector: str) -> list[str]:
        return page.eval_on_selector_all(
            selector, "els => els.map(e => getComputedStyle(e).display)"
        )

    for chrome in (".md-header", ".md-sidebar--primary", ".md-sidebar--secondary", ".md-footer"):
        assert set(display(chrome)) == {"none"}, f"{chrome} prints"
    assert "none" not in display("article")
    explanations = page.locator(".lk-quiz__print")
    assert explanations.count() == page.locator(".lk-quiz").count() >= 1
    for n in range(explanations.count()):
        assert explanations.nth(n).is_visible()
        assert "Right answer:" in explanations.nth(n).inner_text()
    assert set(display(".lk-quiz button")) <= {"none"}  # nothing to click on paper
    tips = page.locator("article .lk-term__tip")
    assert tips.count() >= 1
    for n in range(tips.count()):
        tip = tips.nth(n)
        assert tip.is_visible()
        style = tip.evaluate(
            "t => { const s = getComputedStyle(t);"
            " return [s.display, s.position, parseFloat(s.fontSize), s.color]; }"
        )
        assert style[:2] == ["inline", "static"]  # in the text, not floating over it
        assert style[2] >= 10  # readable size in px
        assert style[3] not in ("rgba(0, 0, 0, 0)", "transparent")


CLS_OBSERVER = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__shifts.push([entry.value, entry.hadRecentInput]);
}).observe({type: "layout-shift", buffered: true});
"""


def shifts(page) -> tuple[float, float]:
    """(CLS, all shifts): layout shifts since the last call, without and with the ones within
    500 ms of the reader's own input (which CLS, by its definition, does not count)."""
    entries = page.evaluate("window.__shifts.splice(0)")
    return sum(v for v, recent in entries if not recent), sum(v for v, _ in entries)


@pytest.mark.parametrize("viewport", [(412, 823), (1280, 900)], ids=["phone", "laptop"])
def test_the_landing_page_shifts_no_layout_while_it_loads(
    browser, site_url: str, viewport: tuple[int, int]
) -> None:
    """The progress box the script adds to the home page moves nothing the reader sees (at the
    top of the article, it pushed the chapters down: CLS 0.24 on a phone, Lighthouse 87)."""
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script(CLS_OBSERVER)
    page.goto(site_url)
    page.locator(".lk-progress--home").wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)
    cls, _ = shifts(page)
    context.close()
    assert cls == 0, "the landing page shifts while it loads"


def test_tooltips_and_quiz_answers_shift_no_layout(browser, site_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.add_init_script(CLS_OBSERVER)
    page.goto(site_url + LESSON)
    page.locator(".lk-quiz[data-lk-ready]").first.wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)
    assert shifts(page)[0] == 0, "the lesson shifts while it loads"

    term = page.locator("article p .lk-term__link").nth(3)
    term.scroll_into_view_if_needed()
    page.wait_for_timeout(100)
    shifts(page)  # scrolling is not a shift
    term.hover()
    page.locator(f"[id='{term.get_attribute('aria-describedby')}']").wait_for(state="visible")
    page.mouse.move(2, 2)
    page.wait_for_timeout(300)
    assert shifts(page) == (0, 0), "a tooltip moved something, even right after the hover"

    quiz = page.locator(".lk-quiz").first
    quiz.scroll_into_view_if_needed()
    page.wait_for_timeout(100)
    shifts(page)
    labels = quiz.locator(".lk-quiz__option label")
    labels.first.click()
    quiz.locator(".lk-quiz__feedback").wait_for(state="visible")
    labels.last.click()
    page.wait_for_timeout(800)  # past the 500 ms input window: a late shift would count
    cls, _ = shifts(page)
    context.close()
    # The feedback opening below the chosen answer moves what follows at once, as the reader's
    # own click asks; nothing moves later, by itself.
    assert cls == 0
