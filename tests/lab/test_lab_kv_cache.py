"""The KV cache's memory and the work it saves, against a step-by-step simulation."""

from __future__ import annotations

import pytest

from lessonkit.lab.kv_cache import check_reuse, generation_work, kv_cache_bytes


def _simulate(prompt: int, new: int, cached: bool) -> dict[str, int]:
    """Count what each step of generation computes, one step at a time."""
    rows = comparisons = 0
    length = prompt
    for step in range(new):
        fed = (prompt if step == 0 else 1) if cached else length
        rows += fed
        # Each fed token at position p (1-based) compares with p tokens.
        comparisons += sum(range(length - fed + 1, length + 1))
        length += 1
    return {"rows": rows, "comparisons": comparisons}


@pytest.mark.parametrize(("prompt", "new"), [(1, 1), (4, 2), (10, 7), (1000, 200)])
def test_generation_work_matches_a_step_by_step_count(prompt: int, new: int):
    for cached in (True, False):
        assert generation_work(prompt, new, cached) == _simulate(prompt, new, cached)


def test_cache_memory_is_a_key_and_a_value_per_head_layer_and_token():
    one = kv_cache_bytes(layers=2, kv_heads=3, d_head=4, tokens=1, bytes_per_number=2)
    assert one == 2 * 2 * 3 * 4 * 2
    assert kv_cache_bytes(2, 3, 4, tokens=10, bytes_per_number=2) == 10 * one


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reuse_is_exact_only_under_the_causal_mask(seed: int):
    assert check_reuse(n_tokens=5, d=6, seed=seed) == (True, False)
