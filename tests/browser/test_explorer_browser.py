"""The softmax explorer and the attention grid in a real Chromium: numbers against lessonkit's
Python, keyboard and touch, the explaining sentence, reset, axe, phone width, no JavaScript."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal, localcontext

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from lessonkit.lab.attention import softmax
from lessonkit.widgets.explorer import EXP_FIXED, explorer_numbers

pytestmark = pytest.mark.browser

LESSON = "transformers-and-attention/"
BOX = "#lk-softmax"
GRID = "#lk-attn"
LESSON_INPUTS = ([3.0, 1.0, 0.0], [10.0, 20.0, 30.0], 1.0)

CASES = [
    LESSON_INPUTS,
    ([1000, -1000, 0], [10, 20, 30], 1),
    ([-1000, -1000, -1000], [1, 2, 3], 1),
    ([1000, 999, -1000], [5, -7.5, 100], 0.1),
    ([3, 1, 0], [10, 20, 30], 0.1),
    ([3, 1, 0], [10, 20, 30], 10),
    ([0, 0, -1000], [0.25, 2.25, 7], 1),  # products 0.125 and 1.125: exact ties, half to even
    ([5, -3.7, 0.01], [-1000, 1000, 0.5], 10),
    ([-2.5, 7.25, 7.2], [33, -1, 0.001], 0.3),
]


def exact(value: Decimal) -> str:
    """A positive number as the explorer prints an exponential: 2 decimals, or m × 10^k."""
    if EXP_FIXED[0] <= float(value.ln()) <= EXP_FIXED[1]:
        return f"{value:.2f}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}"


def expected(scores, values, temperature) -> dict[str, list[str]]:
    """What the page must show, from lessonkit's softmax and exact decimal exponentials."""
    weights = softmax(np.array(scores, dtype=float), temperature=temperature)
    products = [float(w) * v for w, v in zip(weights, values, strict=True)]
    with localcontext() as ctx:
        ctx.prec = 80
        exps = [Decimal(s / temperature).exp() for s in scores]
        total = sum(exps)
    return {
        "score": [f"{float(s):g}" for s in scores],
        "value": [f"{float(v):g}" for v in values],
        "exp": [exact(e) for e in exps],
        "weight": [f"{w:.2f}" for w in weights],
        "product": [f"{p:.2f}" for p in products],
        "total": [exact(total)],
        "weight-sum": [f"{math.fsum(weights):.2f}"],
        "output": [f"{math.fsum(products):.2f}"],
    }


def shown(page: Page) -> dict[str, list[str]]:
    names = ["score", "value", "exp", "weight", "product", "total", "weight-sum", "output"]
    return {n: page.locator(f'{BOX} [data-out="{n}"]').all_inner_texts() for n in names}


def field(page: Page, role: str, i: int = 0, kind: str = "number"):
    ident = "lk-softmax-temperature" if role == "temperature" else f"lk-softmax-{role}-{i + 1}"
    return page.locator(f"#{ident}" + ("-number" if kind == "number" else ""))


def set_inputs(page: Page, scores, values, temperature) -> None:
    for i, (s, v) in enumerate(zip(scores, values, strict=True)):
        field(page, "score", i).fill(str(s))
        field(page, "value", i).fill(str(v))
    field(page, "temperature").fill(str(temperature))


def sentence(page: Page) -> str:
    return page.locator(f'{BOX} [data-out="sentence"]').inner_text()


@pytest.fixture(scope="module")
def shared(browser, site_url: str) -> Iterator[Page]:
    """One lesson page for the tests that only set inputs (each starts from a reset)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.goto(site_url + LESSON)
    yield page
    context.close()


@pytest.fixture
def lesson(shared: Page) -> Iterator[Page]:
    expect(shared.locator(f"{BOX} .lk-explorer__controls")).to_be_visible()
    shared.locator(f'{BOX} [data-role="reset"]').click()
    yield shared
    assert shared.console_errors == []


@pytest.fixture
def fresh(page: Page, site_url: str) -> Page:
    """A newly loaded lesson page, for tests that depend on focus or on the first view."""
    page.goto(site_url + LESSON)
    expect(page.locator(f"{BOX} .lk-explorer__controls")).to_be_visible()
    return page


def test_the_page_starts_with_the_lessons_numbers(fresh: Page) -> None:
    assert shown(fresh) == expected(*LESSON_INPUTS)
    assert shown(fresh)["exp"] == ["20.09", "2.72", "1.00"]  # the lesson's prose: e^3 ≈ 20.1


@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(map(str, c[0])) + f" T={c[2]}")
def test_numbers_match_lessonkits_python_for_every_input(lesson: Page, case) -> None:
    set_inputs(lesson, *case)
    assert shown(lesson) == expected(*case)
    assert sentence(lesson) == explorer_numbers(*case).sentence  # the same words as Python's
    text = lesson.locator(BOX).inner_text()
    assert "NaN" not in text and "Infinity" not in text
    assert lesson.console_errors == []


def test_the_exponential_column_names_the_temperature(lesson: Page) -> None:
    head = lesson.locator(f'{BOX} [data-out="exp-head"]')
    assert head.inner_text() == "e^score"
    field(lesson, "temperature").fill("0.5")
    assert head.inner_text() == "e^(score ÷ 0.5)"


def test_rounding_matches_pythons_format_including_exact_ties(lesson: Page) -> None:
    numbers = [0.125, -0.125, 0.375, 1.125, 2.675, 1.005, 0.5, 1.5, 2.5, -0.0, 1e-7, -1e-7]
    numbers += [12345.125, 999.995, 0.045, 1 / 3, 2 / 3, 1e6 + 0.125]
    for digits in (0, 2, 4):
        got = lesson.evaluate(
            "([xs, d]) => xs.map((x) => lessonkit.format.fixed(x, d))", [numbers, digits]
        )
        assert got == [format(x, f".{digits}f") for x in numbers], digits
    general = [3, 0.1, 1e-5, 0.0001, 123456789, 100.0625, -0.0, 1000, 2.5e-4, -7.25, 1 / 3]
    got = lesson.evaluate("(xs) => xs.map((x) => lessonkit.format.general(x))", general)
    assert got == [format(x, "g") for x in general]


def test_keyboard_alone_operates_every_control(fresh: Page) -> None:
    for _ in range(400):
        fresh.keyboard.press("Tab")
        if fresh.evaluate("document.activeElement.id") == "lk-softmax-score-1":
            break
    else:
        pytest.fail("Tab never reached the first score slider")
    typed = {"score": [2, 5, -1], "value": [7, -4, 12.5], "temperature": [0.5]}
    for role, targets in typed.items():
        for i, target in enumerate(targets):
            slider, number = field(fresh, role, i, "range"), field(fresh, role, i)
            expect(slider).to_be_focused()
            before = float(number.input_value())
            fresh.keyboard.press("ArrowRight")  # one step of the slider, mirrored in the field
            step = 1.0 if role == "value" else 0.1
            assert float(number.input_value()) == pytest.approx(before + step)
            fresh.keyboard.press("Tab")
            expect(number).to_be_focused()
            fresh.keyboard.press("ControlOrMeta+a")
            fresh.keyboard.type(str(target))
            fresh.keyboard.press("Tab")
    assert shown(fresh) == expected(typed["score"], typed["value"], 0.5)
    assert "token 2" in sentence(fresh)
    expect(fresh.locator(f'{BOX} [data-role="reset"]')).to_be_focused()
    fresh.keyboard.press("Enter")
    assert shown(fresh) == expected(*LESSON_INPUTS)
    assert fresh.console_errors == []


def test_the_sentence_follows_the_winning_token_and_says_when_tokens_tie(lesson: Page) -> None:
    values = [10, 20, 30]
    cases = {
        (0, 4, 1): "Token 2 gets most of the weight (0.94): its score is the highest.",
        (0, 0, 5): "Token 3 gets most of the weight (0.99): its score is the highest.",
        (0.2, 0, 0.1): "Token 1 gets the largest weight (0.37), but less than half",
        (1, 0, 1): "Tokens 1 and 3 tie for the highest score",
        (2, 2, 2): "All 3 tokens tie",
    }
    controls = lesson.locator(f"{BOX} .lk-explorer__controls")
    top = "(el) => el.getBoundingClientRect().top + window.scrollY"
    tops = set()
    for scores, words in cases.items():
        set_inputs(lesson, scores, values, 1)
        assert sentence(lesson).startswith(words), scores
        tops.add(controls.evaluate(top))
    assert len(tops) == 1, "a longer or shorter sentence must not move the controls"
    assert lesson.locator(f'{BOX} [data-out="sentence"]').get_attribute("aria-live") == "polite"


def test_the_sentence_reads_the_output_from_weight_times_value(lesson: Page) -> None:
    """The largest weight on a value of 0: that token gets the weight, not the output."""
    set_inputs(lesson, [3, 1, 0], [0, 20, 30], 1)
    assert sentence(lesson) == (
        "Token 1 gets most of the weight (0.84): its score is the highest. But most of the "
        "output, 2.28 of 3.54, comes from token 2: weight × value counts, not weight alone."
    )
    set_inputs(lesson, [3, 1, 0], [-10, 20, 30], 1)
    assert "partly cancel: the largest is -8.44, from token 1; the output is -4.89" in (
        sentence(lesson)
    )


def test_reset_returns_every_number_and_control_to_the_lesson(lesson: Page) -> None:
    static = lesson.locator(f"{BOX} table").inner_text()
    first = sentence(lesson)
    set_inputs(lesson, [1000, 5, -3], [-1, 0, 1], 0.1)
    field(lesson, "value", 2).fill("")  # an unfinished field is reset too
    assert lesson.locator(f"{BOX} table").inner_text() != static
    lesson.locator(f'{BOX} [data-role="reset"]').click()
    assert lesson.locator(f"{BOX} table").inner_text() == static
    assert sentence(lesson) == first
    ranges = lesson.locator(f'{BOX} input[type="range"]')
    numbers = lesson.locator(f'{BOX} input[type="number"]')
    want = ["3", "1", "0", "10", "20", "30", "1"]
    assert [ranges.nth(i).input_value() for i in range(7)] == want
    assert [numbers.nth(i).input_value() for i in range(7)] == want
    assert lesson.locator(f"{BOX} [aria-invalid]").count() == 0


def test_a_field_without_a_valid_number_says_so_and_then_takes_back_the_last_one(
    lesson: Page,
) -> None:
    score = field(lesson, "score", 1)
    score.fill("5000")
    expect(score).to_have_attribute("aria-invalid", "true")
    message = lesson.locator(f'{BOX} [data-out="message"]')
    assert message.inner_text() == "Score of token 2 must be a number from -1000 to 1000."
    assert shown(lesson) == expected(*LESSON_INPUTS)  # nothing recomputed from a bad number
    score.blur()
    expect(score).to_have_value("1")
    expect(message).to_have_text("")


def test_axe_finds_no_violations_in_either_colour_scheme(browser, site_url: str) -> None:
    for scheme, expected_scheme in (("light", "default"), ("dark", "slate")):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(site_url + LESSON)
        page.wait_for_load_state("networkidle")
        assert page.locator("body").get_attribute("data-md-color-scheme") == expected_scheme
        include = {"include": [[BOX], [GRID]]}
        results = [Axe().run(page, context=include).response]
        set_inputs(page, [1000, -1000, 0], [1, 2, 3], 0.1)  # m × 10^k numbers, full bars
        field(page, "score", 0).fill("")  # the error message showing
        page.locator(f"{GRID} tbody tr").nth(4).locator("button").focus()  # a row highlighted
        results.append(Axe().run(page, context=include).response)
        summary = [
            (v["id"], [n["target"] for n in v["nodes"]]) for r in results for v in r["violations"]
        ]
        assert summary == [], scheme
        assert all(r["passes"] for r in results)  # axe did look at something
        context.close()


def test_a_phone_has_no_sideways_scroll_and_touch_works(browser, site_url: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.goto(site_url + LESSON)
    set_inputs(page, [1000, -1000, 999.5], [-1000, 1000, -999.5], 0.1)  # the widest numbers
    for selector in (BOX, GRID):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    field(page, "score", 2).tap()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("1001")  # out of range on a phone keyboard too
    expect(field(page, "score", 2)).to_have_attribute("aria-invalid", "true")
    page.locator(f'{BOX} [data-role="reset"]').tap()
    assert shown(page) == expected(*LESSON_INPUTS)
    say = page.locator(f'{BOX} [data-out="sentence"]')
    heights = {say.bounding_box()["height"]}
    for scores in ([0.2, 0, 0.1], [1, 0, 1], [2, 2, 2], [3, 1, 0]):  # longest to shortest
        set_inputs(page, scores, [10, 20, 30], 1)
        heights.add(say.bounding_box()["height"])
    assert len(heights) == 1, f"the sentence's room changed on a phone: {heights}"
    slider = field(page, "score", 0, "range")
    slider.tap(position={"x": 1, "y": slider.bounding_box()["height"] / 2})  # the left end
    expect(field(page, "score", 0)).to_have_value("-10")
    assert shown(page) == expected([-10, 1, 0], [10, 20, 30], 1)
    word = page.locator(f"{GRID} tbody tr").nth(4).locator("button")
    word.tap()
    expect(page.locator(f"{GRID} tbody tr").nth(4)).to_have_class(re.compile("is-active"))
    expect(page.locator(f'{GRID} [data-out="focus"]')).to_contain_text("“river” attends most")
    context.close()


def test_a_mouse_drags_a_slider_and_bars_move_unless_motion_is_reduced(
    browser, site_url: str
) -> None:
    for motion, duration in (("no-preference", "0.25s"), ("reduce", "0s")):
        context = browser.new_context(reduced_motion=motion)
        page = context.new_page()
        page.goto(site_url + LESSON)
        bar = page.locator(f"{BOX} .lk-explorer__bar > span").first
        assert bar.evaluate("(el) => getComputedStyle(el).transitionDuration") == duration
        slider = field(page, "value", 1, "range")
        slider.scroll_into_view_if_needed()
        box = slider.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] - 1, box["y"] + box["height"] / 2, steps=5)
        page.mouse.up()
        expect(field(page, "value", 1)).to_have_value("100")
        assert shown(page) == expected([3, 1, 0], [10, 100, 30], 1)
        width = bar.evaluate("(el) => el.getBoundingClientRect().width")
        page.locator(f'{BOX} [data-role="reset"]').click()
        field(page, "score", 0).fill("-5")  # token 1's bar shrinks; its track keeps its size
        page.wait_for_function(  # once its transition has run, however slow the machine
            "([el, most]) => el.getBoundingClientRect().width < most",
            arg=[bar.element_handle(), width / 10],
        )
        assert page.locator(f"{BOX} .lk-explorer__bar").first.bounding_box()["width"] > 0
        context.close()


def test_the_grid_shows_where_a_word_looks_on_hover_and_on_focus(fresh: Page) -> None:
    rows = fresh.locator(f"{GRID} tbody tr")
    line = fresh.locator(f'{GRID} [data-out="focus"]')
    intro = line.inner_text()
    heads = fresh.locator(f"{GRID} thead th")
    rows.nth(1).hover()
    expect(rows.nth(1)).to_have_class(re.compile("is-active"))
    expect(line).to_contain_text("“bank” attends most to")
    seen = [bool(re.search("is-seen", heads.nth(j).get_attribute("class") or "")) for j in range(8)]
    assert seen == [True, True] + [False] * 6  # "bank" sees "The" and itself
    fresh.mouse.move(0, 0)
    expect(line).to_have_text(intro)
    button = rows.nth(4).locator("button")
    button.focus()
    note = fresh.locator(f'[id="{button.get_attribute("aria-describedby")}"]')
    description = note.text_content()  # a hidden element, read by screen readers as the description
    assert description.startswith("“river” attends most to “river”") and "“bank”" in description
    expect(line).to_have_text(description)
    top = int(rows.nth(4).get_attribute("data-top"))
    expect(heads.nth(top)).to_have_class(re.compile("is-top"))
    expect(heads.nth(5)).not_to_have_class(re.compile("is-seen"))  # "was" comes after "river"
    fresh.keyboard.press("Escape")
    expect(line).to_have_text(intro)
    expect(rows.nth(4)).not_to_have_class(re.compile("is-active"))
    assert fresh.console_errors == []


def test_without_javascript_readers_get_the_numbers_and_no_dead_controls(
    browser, site_url: str
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + LESSON)
    expect(page.locator(f"{BOX} table")).to_be_visible()
    assert shown(page) == expected(*LESSON_INPUTS)
    expect(page.locator(f"{BOX} .lk-explorer__controls")).to_be_hidden()
    expect(page.locator(f'{GRID} [data-out="focus"]')).to_be_hidden()
    assert page.locator(f"{GRID} button").count() == 0
    row = page.locator(f"{GRID} tbody tr").nth(4)  # "river": itself and the 4 words before it
    expect(row).to_have_text(re.compile(r"^\s*river\s*(\d\.\d\d\s*){5}$"))
    context.close()
