"""lessonkit.lab.embeddings: the real table, cosine similarity's laws, neighbours, PCA."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lessonkit.lab.embeddings import (
    cosine_matrix,
    embedding_table,
    is_special,
    mean_cosine_at_distance,
    nearest,
    nearest_other,
    pca,
    position_table,
    token_id,
    vocabulary,
)
from lessonkit.lab.model import config, cosine, encode, layer_norm, tokenize, weights

FINITE = st.floats(-100, 100, allow_nan=False, allow_infinity=False)


def _vectors(rows: int = 6, dim: int = 5):
    """Arrays of ``rows`` vectors, none too short to have a direction."""
    shape = st.tuples(st.integers(2, rows), st.integers(1, dim))
    return arrays(np.float64, shape, elements=FINITE).filter(
        lambda a: bool(np.all(np.linalg.norm(a, axis=1) > 1e-3))
    )


@given(_vectors())
def test_cosines_lie_in_minus_one_to_one_and_are_symmetric(x: np.ndarray) -> None:
    sims = cosine_matrix(x)
    assert np.all(sims >= -1.0) and np.all(sims <= 1.0)
    assert np.array_equal(sims, sims.T) or np.allclose(sims, sims.T, atol=1e-12)
    assert np.allclose(np.diag(sims), 1.0)


@given(_vectors(), st.floats(1e-3, 1e3), st.floats(1e-3, 1e3))
def test_cosine_ignores_length_and_flips_with_direction(x: np.ndarray, a: float, b: float) -> None:
    sims = cosine_matrix(x)
    assert np.allclose(cosine_matrix(a * x, b * x), sims, atol=1e-9)
    assert np.allclose(cosine_matrix(-x, x), -sims, atol=1e-12)


@given(_vectors(rows=3))
def test_the_matrix_agrees_with_the_models_pairwise_cosine(x: np.ndarray) -> None:
    sims = cosine_matrix(x)
    for i in range(len(x)):
        for j in range(len(x)):
            assert sims[i, j] == pytest.approx(cosine(x[i], x[j]), abs=1e-9)


def test_a_zero_vector_has_no_cosine() -> None:
    with pytest.raises(ValueError, match="no direction"):
        cosine_matrix([[0.0, 0.0], [1.0, 0.0]])


def test_the_tables_are_the_ones_the_model_starts_from() -> None:
    cfg = config()
    assert embedding_table().shape == (cfg.vocab_size, cfg.d_model)
    assert position_table().shape == (cfg.max_positions, cfg.d_model)
    assert len(vocabulary()) == cfg.vocab_size
    pieces, ids = tokenize("The river bank.")
    assert [vocabulary()[i] for i in ids] == list(pieces)
    assert [token_id(p) for p in pieces] == list(ids)
    assert not embedding_table().flags.writeable


def test_the_models_first_step_is_the_looked_up_rows_plus_positions() -> None:
    w, cfg = weights(), config()
    _, ids = tokenize("The dog bites the man.")
    summed = (
        embedding_table()[list(ids)]
        + position_table()[: len(ids)]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    norm = "embeddings.LayerNorm"
    ours = layer_norm(summed, w[f"{norm}.weight"], w[f"{norm}.bias"], cfg.layer_norm_eps)
    assert np.allclose(ours, encode("The dog bites the man.").hidden[0], atol=1e-12)


def test_an_unknown_piece_says_how_to_find_the_pieces() -> None:
    with pytest.raises(ValueError, match="tokenize"):
        token_id("Riverbank")


def test_nearest_is_the_brute_force_ranking_without_the_word_or_special_tokens() -> None:
    table = embedding_table()
    word = "river"
    found = nearest(word, 8)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    sims = unit @ unit[token_id(word)]
    ranked = [
        (vocabulary()[j], float(sims[j]))
        for j in np.argsort(-sims, kind="stable")
        if j != token_id(word) and not is_special(vocabulary()[j])
    ][:8]
    assert [p for p, _ in found] == [p for p, _ in ranked]
    assert [s for _, s in found] == pytest.approx([s for _, s in ranked], abs=1e-12)
    assert all(a >= b for (_, a), (_, b) in itertools.pairwise(found))
    assert word not in {p for p, _ in found}
    with pytest.raises(ValueError, match="k >= 1"):
        nearest(word, 0)


@given(_vectors())
def test_nearest_other_never_picks_the_row_itself_and_picks_the_best(x: np.ndarray) -> None:
    sims = cosine_matrix(x)
    for i, j in enumerate(nearest_other(x)):
        assert j != i
        assert sims[i, j] == max(sims[i, k] for k in range(len(x)) if k != i)


@given(_vectors(rows=8), st.data())
def test_mean_cosine_at_distance_averages_every_pair_that_far_apart(x, data) -> None:
    d = data.draw(st.integers(1, len(x) - 1))
    pairs = [cosine(x[p], x[p + d]) for p in range(len(x) - d)]
    assert mean_cosine_at_distance(x, d) == pytest.approx(np.mean(pairs), abs=1e-9)


def test_a_distance_the_table_cannot_hold_is_refused() -> None:
    with pytest.raises(ValueError, match="between 1 and 2"):
        mean_cosine_at_distance(np.eye(3), 3)


@settings(max_examples=50)
@given(_vectors(rows=8, dim=6))
def test_pca_keeps_the_largest_spread(x: np.ndarray) -> None:
    n = min(2, *x.shape)
    centred = x - x.mean(axis=0)
    total = np.sum(centred**2)
    assume(total > 1e-6)  # vectors all (nearly) the same have no spread to share out
    flat = pca(x, n)
    spread = np.sort(np.linalg.eigvalsh(centred.T @ centred))[::-1]  # along each direction
    assert flat.explained == pytest.approx(spread[:n] / total, abs=1e-6)
    assert np.sum(flat.points**2, axis=0) == pytest.approx(spread[:n], rel=1e-6, abs=1e-6)


def test_pca_ignores_where_the_vectors_are_centred() -> None:
    x = np.random.default_rng(1).normal(size=(12, 5)) * [5, 3, 1, 0.5, 0.1]
    assert np.allclose(pca(x + 100.0, 2).points, pca(x, 2).points, atol=1e-9)


def test_pca_signs_are_fixed_so_the_picture_never_flips() -> None:
    x = np.random.default_rng(0).normal(size=(10, 4))
    for flipped in (x, -x):
        points = pca(flipped, 2).points
        largest = points[np.argmax(np.abs(points), axis=0), [0, 1]]
        assert np.all(largest > 0)
    with pytest.raises(ValueError, match="2-D array"):
        pca(np.ones(3), 1)
    with pytest.raises(ValueError, match="all the same"):
        pca(np.ones((3, 2)), 1)
