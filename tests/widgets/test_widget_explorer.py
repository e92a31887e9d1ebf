"""The softmax explorer's static HTML: what a reader sees without JavaScript, and its controls."""

from __future__ import annotations

import json
import math
from decimal import Decimal, localcontext

import pytest
from bs4 import BeautifulSoup
from hypothesis import given
from hypothesis import strategies as st

from lessonkit.lab.trace import scaled_softmax_trace, softmax_trace
from lessonkit.widgets.explorer import (
    EXP_FIXED,
    explain,
    explorer_html,
    explorer_numbers,
    format_exp,
)
from lessonkit.widgets.trace_table import trace_table

TRACES = {
    "lesson": softmax_trace([3, 1, 0], [10, 20, 30]),
    "mixed": softmax_trace([2.5, -1, 0.25, 4], [1.5, -3, 7, 0.1], labels=["a", "b", "c", "d"]),
    "tie": softmax_trace([1, 1, -2], [5, 15, 100]),
}


def soup(trace, **kwargs) -> BeautifulSoup:
    return BeautifulSoup(explorer_html(trace, **kwargs), "html.parser")


def markdown_rows(trace) -> list[list[str]]:
    """The cells of ``trace_table(trace)``: the lesson's own static table."""
    lines = trace_table(trace, decimals=2).splitlines()[2:]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines]


def table_rows(page: BeautifulSoup) -> list[list[str]]:
    table = page.select_one("table")
    rows = table.select("tbody tr") + table.select("tfoot tr")
    return [[c.get_text().strip() for c in row.find_all(["th", "td"])] for row in rows]


@pytest.mark.parametrize("name", sorted(TRACES))
def test_the_static_table_shows_the_traces_own_formatted_numbers(name: str) -> None:
    trace = TRACES[name]
    assert table_rows(soup(trace)) == markdown_rows(trace)


def test_the_table_is_labelled_and_headed_like_the_lesson_table() -> None:
    page = soup(TRACES["lesson"])
    heads = [th.get_text() for th in page.select("thead th")]
    assert heads == trace_header(TRACES["lesson"])
    assert page.select_one("table caption").get_text().startswith("Softmax step by step")
    assert all(th.get("scope") == "row" for th in page.select("tbody th, tfoot th"))


def trace_header(trace) -> list[str]:
    return [c.strip() for c in trace_table(trace).splitlines()[0].strip("|").split("|")]


def test_bars_carry_the_unrounded_weights_and_are_hidden_from_screen_readers() -> None:
    trace = TRACES["mixed"]
    bars = soup(trace).select(".lk-explorer__bar")
    assert [b.get("aria-hidden") for b in bars] == ["true"] * 4
    shown = [float(b.span["style"].split(":")[1]) for b in bars]
    assert shown == pytest.approx(trace.weights, abs=5e-5)


def test_the_sentence_names_the_winner_and_ties() -> None:
    lesson = soup(TRACES["lesson"]).select_one('[data-out="sentence"]').get_text()
    assert lesson.startswith("Token 1 gets most of the weight")
    tie = soup(TRACES["tie"]).select_one('[data-out="sentence"]')
    assert tie.get_text().startswith("Tokens 1 and 2 tie") and tie["aria-live"] == "polite"


def test_controls_are_hidden_until_the_script_runs_and_every_input_is_labelled() -> None:
    page = soup(TRACES["mixed"])
    controls = page.select_one(".lk-explorer__controls")
    assert controls.has_attr("hidden")
    legends = [f.legend.get_text() for f in controls.select("fieldset")]
    assert legends == ["Scores", "Values", "Temperature"]
    ranges = controls.select('input[type="range"]')
    numbers = controls.select('input[type="number"]')
    assert len(ranges) == len(numbers) == 4 + 4 + 1
    names = []
    for slider, field in zip(ranges, numbers, strict=True):
        label = page.select_one(f'label[for="{slider["id"]}"]')
        assert label is not None and field["aria-labelledby"] == label["id"]
        assert slider["value"] == field["value"]
        names.append(label.get_text())
    assert names[:2] == ["Score of token a", "Score of token b"]
    assert names[4] == "Value of token a" and names[-1] == "Temperature T"
    ids = [el["id"] for el in page.select("[id]")]
    assert len(ids) == len(set(ids))
    reset = controls.select_one('[data-role="reset"]')
    assert reset.name == "button" and reset["type"] == "button"


def test_data_attributes_hold_the_inputs_the_reset_returns_to() -> None:
    trace = TRACES["mixed"]
    box = soup(trace, temperature=2.5).select_one("[data-lk-explorer]")
    assert json.loads(box["data-scores"]) == list(trace.scores)
    assert json.loads(box["data-values"]) == list(trace.values)
    assert json.loads(box["data-labels"]) == list(trace.labels)
    assert float(box["data-temperature"]) == 2.5
    assert json.loads(box["data-exp-fixed"]) == list(EXP_FIXED)


def test_a_temperature_divides_the_scores_like_a_scaled_trace() -> None:
    page = soup(TRACES["lesson"], temperature=2.0)
    scaled = scaled_softmax_trace([3, 1, 0], [10, 20, 30], d_k=4)  # divides by sqrt(4) = 2
    weights = [s.get_text() for s in page.select('[data-out="weight"]')]
    assert weights == [f"{w:.2f}" for w in scaled.weights]
    assert page.select_one('[data-out="output"]').get_text() == f"{scaled.output:.2f}"
    assert page.select_one('[data-out="exp-head"]').get_text() == "e^(score ÷ 2)"


def test_labels_and_prefix_are_escaped() -> None:
    trace = softmax_trace([1, 0], [1, 2], labels=['<script>alert("x")</script>', "a&b"])
    text = explorer_html(trace, id_prefix='x" onload="y')
    assert "<script>" not in text and 'onload="y"' not in text
    page = BeautifulSoup(text, "html.parser")
    assert page.select_one("tbody th").get_text() == '<script>alert("x")</script>'
    assert json.loads(page.select_one("[data-lk-explorer]")["data-labels"])[1] == "a&b"


def test_bad_arguments_say_what_to_do() -> None:
    with pytest.raises(ValueError, match=r"unscaled trace.*temperature=2"):
        explorer_html(scaled_softmax_trace([1, 0], [1, 2], d_k=4))
    with pytest.raises(ValueError, match=r"temperature must be between 0\.1 and 10"):
        explorer_html(TRACES["lesson"], temperature=0)
    with pytest.raises(ValueError, match=r"every value must be between -1000 and 1000"):
        explorer_html(softmax_trace([1, 0], [1, 5000]))


def exact_exp(z: float, decimals: int = 2) -> str:
    """e**z to the explorer's precision from exact decimal arithmetic: an independent reference."""
    with localcontext() as ctx:
        ctx.prec = 60
        value = Decimal(z).exp()
    if EXP_FIXED[0] <= z <= EXP_FIXED[1]:
        return f"{value:.{decimals}f}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}"


@pytest.mark.parametrize("z", [0, 1, 3, -4.6, 13.8, -4.7, 13.9, 30, 709.8, 1000, -1000, 1e4, -1e4])
def test_exponentials_match_exact_arithmetic_in_fixed_and_scientific_form(z: float) -> None:
    assert format_exp(z) == exact_exp(z)


@given(st.floats(-10_000, 10_000))
def test_exponentials_match_exact_arithmetic_everywhere(z: float) -> None:
    assert format_exp(z) == exact_exp(z)


def test_extreme_scores_give_finite_weights_and_the_stable_total() -> None:
    n = explorer_numbers([1000, -1000, 1000], [10, 20, 30], 0.1)
    assert n.weights == ("0.50", "0.00", "0.50") and n.output == "20.00"
    assert n.exponentials[0] == exact_exp(10_000) and n.total == exact_exp(10_000 + math.log(2))
    assert n.sentence.startswith("Tokens 1 and 3 tie")
    low = explorer_numbers([-1000, -1000, -1000], [1, 2, 3])  # every e**score underflows to 0
    assert low.total == exact_exp(-1000 + math.log(3)) and low.output == "2.00"


def test_the_sentence_covers_a_clear_winner_a_narrow_one_and_a_full_tie() -> None:
    labels = ["1", "2", "3"]
    clear = explain([0, 5, 1], [0.01, 0.97, 0.02], [0.1, 19.4, 0.6], labels)
    assert clear.startswith("Token 2 gets most of the weight (0.97)")
    narrow = explain([0.2, 0, 0.1], [0.36, 0.3, 0.34], [3.6, 6, 7.2], labels)
    assert "Token 1 gets the largest weight (0.36)" in narrow and "less than half" in narrow
    assert "the largest part of the output, 7.20 of 16.80, comes from token 3" in narrow
    assert explain([2, 2, 2], [1 / 3] * 3, [1, 2, 3], labels).startswith("All 3 tokens tie")


def test_the_sentence_reads_the_output_from_weight_times_value() -> None:
    """Most of the weight on a value of 0 is none of the output (values the sliders allow)."""
    zero = explorer_numbers([3, 1, 0], [0, 20, 30]).sentence
    assert zero.startswith("Token 1 gets most of the weight (0.84)")
    assert "But most of the output, 2.28 of 3.54, comes from token 2" in zero
    assert "token 1" not in zero.split(". ", 1)[1]
    cancel = explorer_numbers([3, 1, 0], [-10, 20, 30]).sentence
    assert "partly cancel: the largest is -8.44, from token 1; the output is -4.89" in cancel
    assert "Every weight × value is 0" in explorer_numbers([3, 1, 0], [0, 0, 0]).sentence
