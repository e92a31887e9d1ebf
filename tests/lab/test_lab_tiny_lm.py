"""The tiny model's gradients against finite differences; training is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from lessonkit.lab.tiny_lm import TinyLM, lowest_loss, pairs, train, vocabulary

CORPUS = ["the river bank was muddy", "the money bank was closed", "the river was wide"]


def test_gradients_match_finite_differences():
    lm = TinyLM.create(vocabulary(CORPUS), d=3, seed=1)
    x, y = pairs(lm, CORPUS)
    d_e, d_u = lm.gradients(x, y)
    eps = 1e-6
    for name, grad in (("E", d_e), ("U", d_u)):
        array = getattr(lm, name)
        for index in [(0, 0), (1, 2), (2, 1)]:
            bumped = array.copy()
            bumped[index] += eps
            up = TinyLM(lm.words, **{"E": lm.E, "U": lm.U, name: bumped}).loss(x, y)
            bumped[index] -= 2 * eps
            down = TinyLM(lm.words, **{"E": lm.E, "U": lm.U, name: bumped}).loss(x, y)
            assert grad[index] == pytest.approx((up - down) / (2 * eps), abs=1e-8)


def test_training_is_the_same_in_every_run_and_approaches_the_lowest_loss():
    lm = TinyLM.create(vocabulary(CORPUS), d=6, seed=0)
    x, y = pairs(lm, CORPUS)
    _, first = train(lm, x, y, steps=400, lr=1.0)
    _, again = train(TinyLM.create(vocabulary(CORPUS), d=6, seed=0), x, y, steps=400, lr=1.0)
    assert first == again
    floor = lowest_loss(x, y)
    assert floor <= first[-1] < floor + 0.01


def test_lowest_loss_is_the_entropy_of_what_follows_each_word():
    # After "a": "b" twice and "c" once; after "b": always "a".
    x, y = np.array([0, 0, 0, 1]), np.array([1, 1, 2, 0])
    expected = -(2 * np.log(2 / 3) + np.log(1 / 3)) / 4
    assert lowest_loss(x, y) == pytest.approx(expected)


def test_an_unknown_word_is_named():
    lm = TinyLM.create(("a", "b"), d=2)
    with pytest.raises(ValueError, match="'a z' has a word outside"):
        lm.ids("a z")
