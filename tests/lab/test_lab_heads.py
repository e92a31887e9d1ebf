"""Queries, keys and values from the raw weight matrices; heads' shares; the √d_k spread."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lessonkit.lab.heads import (
    dot_product_spread,
    head_contributions,
    previous_word_weights,
    projection_matrix,
    token_projections,
)
from lessonkit.lab.model import encode, weights


def test_a_tokens_query_is_its_vector_times_the_stored_matrix_plus_bias():
    enc = encode("The bank of the river was muddy.")
    q, k, v = token_projections(enc, "river", layer=3)
    x = enc.hidden[2, enc.position("river")]
    w = weights()
    for got, name in ((q, "query"), (k, "key"), (v, "value")):
        p = f"encoder.layer.2.attention.self.{name}"
        np.testing.assert_allclose(got, w[f"{p}.weight"] @ x + w[f"{p}.bias"])


def test_unknown_projection_names_are_refused_with_the_choices():
    with pytest.raises(ValueError, match="query, key, value, output"):
        projection_matrix(1, "keys")


def test_head_shares_rebuild_attention_output_in_every_layer():
    enc = encode("She opened a savings account at the bank.")
    for layer in (1, 6):
        parts, bias = head_contributions(enc, "bank", layer)
        assert parts.shape == (12, 384)
        # Independently: concatenate the heads' outputs and multiply by W_O.
        x = enc.hidden[layer - 1]
        w = weights()
        p = f"encoder.layer.{layer - 1}.attention"
        v = x @ w[f"{p}.self.value.weight"].T + w[f"{p}.self.value.bias"]
        i = enc.position("bank")
        heads = [enc.attention[layer - 1, h, i] @ v[:, h * 32 : (h + 1) * 32] for h in range(12)]
        whole = np.concatenate(heads) @ w[f"{p}.output.dense.weight"].T + bias
        np.testing.assert_allclose(parts.sum(axis=0) + bias, whole, atol=1e-10)


def test_previous_word_weights_average_the_weight_on_the_token_before():
    enc = encode("The bank approved my loan.")
    got = previous_word_weights([enc])
    rows = range(2, len(enc.tokens) - 1)  # words with a word before them, [SEP] left out
    expected = np.mean([enc.attention[:, :, i, i - 1] for i in rows], axis=0)
    np.testing.assert_allclose(got, expected)


def test_the_spread_of_dot_products_grows_like_the_root_of_their_length():
    rows = dot_product_spread([1, 100], n=3000, seed=1)
    assert rows[0]["std"] == pytest.approx(1.0, rel=0.05)
    assert rows[1]["std"] == pytest.approx(math.sqrt(100), rel=0.05)
    assert rows[1]["std scaled"] == pytest.approx(1.0, rel=0.05)
