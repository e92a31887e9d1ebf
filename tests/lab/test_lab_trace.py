"""The softmax trace reproduces the lesson's numbers and agrees with softmax."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import scipy.special
from hypothesis import given
from hypothesis import strategies as st

from lessonkit.lab.attention import scaled_dot_product_attention
from lessonkit.lab.trace import attention_trace, scaled_softmax_trace, softmax_trace
from lessonkit.widgets.trace_table import trace_table

SCORES, VALUES = [3, 1, 0], [10, 20, 30]


def test_trace_reproduces_every_number_the_lesson_quotes() -> None:
    t = softmax_trace(SCORES, VALUES)
    # The seed lesson's words: e^3 about 20.1, e^1 about 2.7, e^0 equals 1, total about 23.8,
    # weights about 0.84, 0.11, 0.04, output "about 12.0".
    assert [round(e, 1) for e in t.exponentials] == [20.1, 2.7, 1.0]
    assert t.exponentials[2] == 1.0
    assert round(t.total, 1) == 23.8
    assert t.rounded_weights() == (0.84, 0.11, 0.04)
    assert round(t.output, 1) == 12.0
    assert t.winner == 0


def test_trace_steps_agree_with_an_independent_computation() -> None:
    t = softmax_trace(SCORES, VALUES)
    exps = [math.exp(s) for s in SCORES]
    assert t.exponentials == pytest.approx(exps, rel=1e-15)
    assert t.total == pytest.approx(sum(exps), rel=1e-15)
    np.testing.assert_allclose(t.weights, scipy.special.softmax(SCORES), rtol=0, atol=1e-12)
    assert t.products == pytest.approx(
        [w * v for w, v in zip(t.weights, VALUES, strict=True)], abs=1e-12
    )
    expected = sum(v * e for v, e in zip(VALUES, exps, strict=True)) / sum(exps)
    assert t.output == pytest.approx(expected, abs=1e-12)


def test_rounding_is_reported_honestly() -> None:
    t = softmax_trace(SCORES, VALUES)
    printed = t.rounded_weights()
    assert t.rounded_weights_sum() == round(sum(printed), 2) != 1.0
    assert t.output_from_rounded_weights() == pytest.approx(
        printed[0] * 10 + printed[1] * 20 + printed[2] * 30, abs=1e-12
    )
    assert round(t.output_from_rounded_weights(), 1) != round(t.output, 1)


@given(
    st.lists(st.floats(-20, 20), min_size=1, max_size=8).flatmap(
        lambda s: st.tuples(
            st.just(s), st.lists(st.floats(-100, 100), min_size=len(s), max_size=len(s))
        )
    ),
    st.none() | st.floats(0.5, 10),
)
def test_trace_weights_and_output_agree_with_scipy(data: tuple, scale: float | None) -> None:
    scores, values = data
    t = softmax_trace(scores, values, scale)
    expected = scipy.special.softmax(np.array(scores) / (scale or 1.0))
    np.testing.assert_allclose(t.weights, expected, rtol=0, atol=1e-12)
    assert t.output == pytest.approx(float(expected @ np.array(values)), abs=1e-9)
    assert t.winner == int(np.argmax(expected))


def test_scaled_trace_divides_scores_by_the_square_root_of_d_k() -> None:
    t = scaled_softmax_trace(SCORES, VALUES, d_k=16)
    assert t.scale == 4.0
    assert t.scaled_scores == (0.75, 0.25, 0.0)
    np.testing.assert_allclose(t.weights, scipy.special.softmax(np.array(SCORES) / 4), atol=1e-12)
    assert "score ÷ 4.00" in trace_table(t)


def test_attention_trace_matches_scaled_dot_product_attention() -> None:
    query, keys, values = [1.0, 2.0, -1.0], [[0.5, 1, 0], [2, -1, 1], [0, 0, 3]], [4.0, 5.0, 6.0]
    t = attention_trace(query, keys, values)
    out, w = scaled_dot_product_attention([query], keys, np.array(values)[:, None])
    np.testing.assert_allclose(t.weights, w[0], atol=1e-12)
    assert t.output == pytest.approx(out[0, 0], abs=1e-12)


def test_markdown_table_has_a_row_per_token_with_the_printed_weights() -> None:
    t = softmax_trace(SCORES, VALUES, labels=["a|b", "sat", "on"])
    lines = trace_table(t, decimals=3).splitlines()
    assert len(lines) == 2 + 3 + 1
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]
    header = rows[0]
    weight_col = header.index("weight")
    assert [r[weight_col] for r in rows[2:5]] == [f"{w:.3f}" for w in t.weights]
    assert rows[2][0] == r"a\|b"  # a pipe in a label would break the table
    assert rows[-1][0] == "total" and rows[-1][-1] == f"{t.output:.3f}"
    assert all(len(r) == len(header) for r in rows[2:])


def test_trace_is_frozen() -> None:
    t = softmax_trace(SCORES, VALUES)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.output = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([1, 2], [1]), {}, "one value per score: 2 scores but 1 values"),
        (([], []), {}, "at least one token"),
        (([1000, 0], [1, 2]), {}, "too large for e\\*\\*score.*attention.softmax"),
        (([1, 2], [1, 2]), {"scale": 0}, "scale must be a positive number"),
        (([1, "x"], [1, 2]), {}, "scores must be a list of numbers"),
        (([1, 2], [1, 2]), {"labels": ["a"]}, "one label per score"),
    ],
)
def test_bad_input_gets_a_clear_error(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        softmax_trace(*args, **kwargs)


def test_shares_follow_weight_times_value_not_the_weight() -> None:
    """Values 0, 20, 30: token 1 has most of the weight and none of the output."""
    t = softmax_trace([3, 1, 0], [0, 20, 30])
    assert t.winner == 0 and t.weights[0] > 0.8
    assert t.shares[0] == 0 and max(t.shares) == t.shares[1]
    assert t.shares == pytest.approx([0, 2.2839 / 3.5442, 1.2603 / 3.5442], abs=1e-4)
    assert sum(softmax_trace([3, 1, 0], [-10, 20, 30]).shares) == pytest.approx(1)
