"""Softmax and attention obey their laws and agree with independent references."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lessonkit.lab.attention import (
    causal_mask,
    multi_head_attention,
    multi_head_attention_naive,
    scaled_dot_product_attention,
    softmax,
)

finite = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)
score_rows = arrays(np.float64, st.integers(1, 12), elements=finite)
score_grids = arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 7)), elements=finite)


@given(score_rows)
def test_softmax_is_a_probability_distribution_without_nan(s: np.ndarray) -> None:
    w = softmax(s)
    assert not np.isnan(w).any()
    assert np.all(w >= 0)
    assert math.isclose(w.sum(), 1.0, abs_tol=1e-12)


@given(score_grids, st.sampled_from([0, 1, -1]))
def test_softmax_sums_to_one_along_the_chosen_axis(s: np.ndarray, axis: int) -> None:
    np.testing.assert_allclose(softmax(s, axis=axis).sum(axis=axis), 1.0, atol=1e-12)


@given(score_rows, st.floats(-1e4, 1e4))
def test_softmax_ignores_a_constant_added_to_every_score(s: np.ndarray, c: float) -> None:
    np.testing.assert_allclose(softmax(s + c), softmax(s), atol=1e-9)


@given(score_rows)
def test_a_higher_score_never_gets_a_lower_weight(s: np.ndarray) -> None:
    w = softmax(s)
    order = np.argsort(s, kind="stable")
    assert np.all(np.diff(w[order]) >= 0)


@given(score_grids, st.floats(0.05, 20))
def test_softmax_agrees_with_scipy(s: np.ndarray, temperature: float) -> None:
    expected = scipy.special.softmax(s / temperature, axis=-1)
    np.testing.assert_allclose(softmax(s, temperature=temperature), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("big", [1e4, -1e4, 1e300])
def test_softmax_does_not_overflow_on_huge_scores(big: float) -> None:
    w = softmax([big, big - 1.0, 0.0])
    assert not np.isnan(w).any()
    assert math.isclose(w.sum(), 1.0)


def test_masked_scores_get_exactly_zero_weight() -> None:
    w = softmax([1.0, -np.inf, 2.0, -np.inf])
    assert w[1] == 0.0 and w[3] == 0.0
    np.testing.assert_allclose(w[[0, 2]], scipy.special.softmax([1.0, 2.0]), atol=1e-15)


def test_a_fully_masked_row_is_an_error_not_nan() -> None:
    scores = np.array([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(ValueError, match=r"every score is -inf \(masked\) in the slice at index"):
        softmax(scores)


@pytest.mark.parametrize(
    ("scores", "kwargs", "message"),
    [
        ([1.0, np.nan], {}, "NaN"),
        ([1.0, np.inf], {}, r"\+inf"),
        ([], {}, "at least one score"),
        ([1.0], {"temperature": 0.0}, "temperature"),
        ([1.0], {"temperature": np.inf}, "temperature"),
    ],
)
def test_bad_scores_raise_a_clear_error(scores: list[float], kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        softmax(scores, **kwargs)


def test_causal_mask_lets_each_token_see_itself_and_earlier_tokens_only() -> None:
    m = causal_mask(5)
    for i in range(5):
        for j in range(5):
            assert m[i, j] == (j <= i)
    with pytest.raises(ValueError, match="positive whole number"):
        causal_mask(0)


def reference_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Attention written out with loops and math.exp, independent of lessonkit."""
    t_q, t_k = len(q), len(k)
    weights = np.zeros((t_q, t_k))
    out = np.zeros((t_q, v.shape[1]))
    for i in range(t_q):
        allowed = [j for j in range(t_k) if mask is None or mask[i][j]]
        scores = {j: sum(q[i][d] * k[j][d] for d in range(q.shape[1])) for j in allowed}
        scores = {j: s / math.sqrt(q.shape[1]) for j, s in scores.items()}
        top = max(scores.values())
        exps = {j: math.exp(s - top) for j, s in scores.items()}
        total = math.fsum(exps.values())
        for j in allowed:
            weights[i][j] = exps[j] / total
            out[i] += weights[i][j] * v[j]
    return out, weights


@st.composite
def qkv(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = draw(st.integers(1, 6))
    d_k, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    vals = st.floats(-3, 3, allow_nan=False)
    return (
        draw(arrays(np.float64, (t, d_k), elements=vals)),
        draw(arrays(np.float64, (t, d_k), elements=vals)),
        draw(arrays(np.float64, (t, d_v), elements=vals)),
    )


@given(qkv(), st.booleans())
def test_attention_agrees_with_a_direct_loop(arrs: tuple, causal: bool) -> None:
    q, k, v = arrs
    mask = causal_mask(len(q)) if causal else None
    out, w = scaled_dot_product_attention(q, k, v, mask)
    ref_out, ref_w = reference_attention(q, k, v, mask)
    np.testing.assert_allclose(w, ref_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, rtol=0, atol=1e-12)


@given(qkv())
def test_attention_rows_sum_to_one_and_masked_positions_get_zero(arrs: tuple) -> None:
    q, k, v = arrs
    _, w = scaled_dot_product_attention(q, k, v, causal_mask(len(q)))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(w[~causal_mask(len(q))] == 0.0)


def test_attention_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="same last dimension"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="one row per token"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 1)))


@st.composite
def mha_inputs(draw: st.DrawFn) -> tuple[np.ndarray, list[np.ndarray], int]:
    n_heads = draw(st.integers(1, 3))
    d_model = n_heads * draw(st.integers(1, 3))
    t = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return rng.normal(size=(t, d_model)), list(rng.normal(size=(4, d_model, d_model))), n_heads


@given(mha_inputs(), st.booleans())
def test_multi_head_with_one_head_is_single_head_attention(inputs: tuple, causal: bool) -> None:
    x, (w_q, w_k, w_v, w_o), _ = inputs
    mask = causal_mask(len(x)) if causal else None
    single, single_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
    out, w = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=1, causal=causal)
    np.testing.assert_allclose(out, single @ w_o, atol=1e-12)
    np.testing.assert_allclose(w[0], single_w, atol=1e-12)


@given(mha_inputs(), st.booleans())
def test_multi_head_agrees_with_heads_computed_by_a_direct_loop(
    inputs: tuple, causal: bool
) -> None:
    x, (w_q, w_k, w_v, w_o), n_heads = inputs
    d_head = x.shape[1] // n_heads
    mask = causal_mask(len(x)) if causal else None
    outs, maps = [], []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        o, w = reference_attention((x @ w_q)[:, cols], (x @ w_k)[:, cols], (x @ w_v)[:, cols], mask)
        outs.append(o)
        maps.append(w)
    expected = np.concatenate(outs, axis=1) @ w_o
    for fn in (multi_head_attention, multi_head_attention_naive):
        out, w = fn(x, w_q, w_k, w_v, w_o, n_heads=n_heads, causal=causal)
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(w, np.stack(maps), rtol=0, atol=1e-12)


def test_multi_head_rejects_a_width_that_heads_cannot_split() -> None:
    x, w = np.ones((2, 6)), np.eye(6)
    with pytest.raises(ValueError, match="d_model=6 is not divisible by n_heads=4"):
        multi_head_attention(x, w, w, w, w, n_heads=4)
    with pytest.raises(ValueError, match=r"w_o must be \(d_model, d_model\)"):
        multi_head_attention(x, w, w, w, np.eye(5), n_heads=2)
