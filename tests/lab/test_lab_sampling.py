"""Next-token probabilities, temperature, top-k and top-p against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

from lessonkit.lab.sampling import probabilities, sample, top_k, top_p


def test_temperature_divides_the_logits_before_softmax():
    logits = np.array([3.1, 2.8, 2.2, -0.5])
    for t in (0.5, 1.0, 2.0):
        e = np.exp(logits / t)
        np.testing.assert_allclose(probabilities(logits, t), e / e.sum())


def test_a_temperature_of_zero_or_below_is_an_error():
    with pytest.raises(ValueError, match="above 0"):
        probabilities([1.0, 2.0], temperature=0)


def test_top_k_keeps_the_k_likeliest_and_rescales():
    p = np.array([0.1, 0.4, 0.2, 0.3])
    np.testing.assert_allclose(top_k(p, 2), [0, 4 / 7, 0, 3 / 7])
    with pytest.raises(ValueError, match="between 1 and 4"):
        top_k(p, 0)


def test_top_p_keeps_the_fewest_words_that_reach_p():
    p = np.array([0.1, 0.4, 0.2, 0.3])
    np.testing.assert_allclose(top_p(p, 0.7), [0, 4 / 7, 0, 3 / 7])  # 0.4 + 0.3 reaches 0.7
    np.testing.assert_allclose(top_p(p, 0.71), [0, 0.4, 0.2, 0.3] / np.float64(0.9))
    np.testing.assert_allclose(top_p(p, 1.0), p)


def test_sampling_is_the_same_in_every_run_and_follows_the_probabilities():
    p = [0.5, 0.3, 0.2]
    first, again = sample(p, 20_000), sample(p, 20_000)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, p, atol=0.02)
