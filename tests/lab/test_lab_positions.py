"""Sinusoidal and rotary positions against their formulas; the order test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lessonkit.lab.positions import order_test, rotary, sinusoidal


def test_sinusoidal_follows_the_papers_formula():
    table = sinusoidal(30, 8)
    for pos, i in [(0, 0), (7, 1), (29, 3)]:
        angle = pos / 10_000 ** (2 * i / 8)
        assert table[pos, 2 * i] == pytest.approx(math.sin(angle))
        assert table[pos, 2 * i + 1] == pytest.approx(math.cos(angle))


def test_rotary_keeps_length_and_only_the_distance_counts():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    assert np.linalg.norm(rotary(q, 17)) == pytest.approx(np.linalg.norm(q))
    assert rotary(q, 9) @ rotary(k, 4) == pytest.approx(rotary(q, 105) @ rotary(k, 100))
    assert rotary(q, 9) @ rotary(k, 4) != pytest.approx(rotary(q, 9) @ rotary(k, 5))


@pytest.mark.parametrize("seed", [0, 1])
def test_without_a_mask_reversing_the_words_changes_no_output(seed: int):
    result = order_test(["a", "b", "c", "d"], seed=seed)
    assert all(result["no mask"].values())
    assert not any(result["causal"].values())


def test_repeated_words_are_refused():
    with pytest.raises(ValueError, match="must differ"):
        order_test(["a", "a"])
