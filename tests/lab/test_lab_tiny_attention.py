"""The one-layer attention model: gradients against finite differences, causality, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from lessonkit.lab.tiny_attention import NAMES, AttentionLM, train, vocabulary

CORPUS = ["the bank of the river was muddy", "the bank of the town was closed"]


def _model(seed: int = 3) -> tuple[AttentionLM, list[np.ndarray]]:
    model = AttentionLM.create(vocabulary(CORPUS), max_len=8, d=4, seed=seed)
    return model, [model.ids(s) for s in CORPUS]


@pytest.mark.parametrize("name", NAMES)
def test_gradients_match_finite_differences(name: str):
    model, sentences = _model()
    grad = model.gradients(sentences)[name]
    eps = 1e-6
    for index in [(0, 0), (1, 3), (2, 1)]:
        bumped = model.params[name].copy()
        bumped[index] += eps
        up = AttentionLM(model.words, {**model.params, name: bumped}).loss(sentences)
        bumped[index] -= 2 * eps
        down = AttentionLM(model.words, {**model.params, name: bumped}).loss(sentences)
        assert grad[index] == pytest.approx((up - down) / (2 * eps), abs=1e-7)


def test_a_token_sees_nothing_after_it():
    model, _ = _model()
    a = model.forward(model.ids("the bank of the river"))
    b = model.forward(model.ids("the bank of the town"))
    np.testing.assert_array_equal(a.h[:4], b.h[:4])  # same first four words: same vectors
    assert not np.allclose(a.h[4], b.h[4])
    assert np.allclose(np.triu(a.weights, 1), 0)


def test_training_is_deterministic_and_lowers_the_loss():
    model, sentences = _model()
    _, first = train(model, sentences, steps=30)
    _, again = train(_model()[0], sentences, steps=30)
    assert first == again
    assert first[-1] < first[0]
