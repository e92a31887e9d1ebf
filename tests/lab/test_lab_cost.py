"""Comparison counts match a brute-force count, and doubling roughly quadruples them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessonkit.lab.attention import causal_mask
from lessonkit.lab.cost import causal_comparisons, comparisons, doubling_ratio, growth_ratio


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40])
def test_counts_match_counting_the_allowed_pairs(n: int) -> None:
    assert comparisons(n) == sum(1 for _ in range(n) for _ in range(n))
    assert comparisons(n, causal=True) == int(causal_mask(n).sum())
    assert causal_comparisons(n) == comparisons(n, causal=True)


def test_zero_tokens_make_zero_comparisons() -> None:
    assert comparisons(0) == comparisons(0, causal=True) == 0


@given(st.integers(1, 10**9))
def test_doubling_quadruples_full_attention_exactly(n: int) -> None:
    assert doubling_ratio(n) == 4.0


@given(st.integers(1, 10**9))
def test_doubling_roughly_quadruples_causal_attention(n: int) -> None:
    r = doubling_ratio(n, causal=True)
    assert 3.0 <= r < 4.0
    assert r == pytest.approx(4.0, abs=4 / (n + 1))  # 4 - r = 2/(n+1)


def test_growth_ratio_is_the_square_of_the_length_ratio() -> None:
    assert growth_ratio(100, 300) == 9.0
    with pytest.raises(ValueError, match="n_from must be at least 1"):
        growth_ratio(0, 10)


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_bad_token_counts_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="whole number"):
        comparisons(bad)  # type: ignore[arg-type]
