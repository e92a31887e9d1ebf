"""The KV cache: what it stores, why reusing it is exact, and what it costs.

A left-to-right model's keys and values for a token depend only on that token and the ones
before it (the causal mask), so they never change when later tokens arrive. The cache keeps
them, and each new token computes only its own.

>>> kv_cache_bytes(layers=32, kv_heads=32, d_head=128, tokens=4096, bytes_per_number=2)
2147483648
>>> check_reuse(n_tokens=6, d=8, seed=0)  # (causal: exact, no mask: stale)
(True, False)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from lessonkit.lab.attention import causal_mask, softmax

__all__ = ["check_reuse", "generation_work", "kv_cache_bytes"]

Array = NDArray[np.float64]


def kv_cache_bytes(
    layers: int, kv_heads: int, d_head: int, tokens: int, bytes_per_number: int = 2
) -> int:
    """Memory the cache takes: a key and a value of ``d_head`` numbers per head, layer, token."""
    return 2 * layers * kv_heads * d_head * tokens * bytes_per_number


def generation_work(prompt: int, new: int, cached: bool) -> dict[str, int]:
    """Work to read ``prompt`` tokens and generate ``new`` more, with or without a cache.

    ``rows`` counts token vectors pushed through the layers (each one's q, k, v and
    feed-forward); ``comparisons`` counts query-key dot products, per head and layer.

    Four prompt tokens, two new ones. Cached: the prompt's 4 rows (1 + 2 + 3 + 4 comparisons)
    give token 5; token 5's one row (5 comparisons) gives token 6. Without the cache the
    second step redoes all 5 rows (1 + ... + 5):

    >>> generation_work(4, 2, cached=True)
    {'rows': 5, 'comparisons': 15}
    >>> generation_work(4, 2, cached=False)
    {'rows': 9, 'comparisons': 25}
    """
    if prompt < 1 or new < 1:
        raise ValueError("need at least one prompt token and one new token")

    def triangle(n: int) -> int:  # comparisons of a causal pass over n tokens
        return n * (n + 1) // 2

    if cached:
        # Prefill: the whole prompt at once; then each new token: one row against all before it.
        # The last generated token is never fed back in, hence range(new - 1).
        rows = prompt + (new - 1)
        comps = triangle(prompt) + sum(prompt + s + 1 for s in range(new - 1))
    else:
        lengths = [prompt + s for s in range(new)]  # each step recomputes the whole sequence
        rows = sum(lengths)
        comps = sum(triangle(n) for n in lengths)
    return {"rows": rows, "comparisons": comps}


def check_reuse(n_tokens: int, d: int, seed: int = 0) -> tuple[bool, bool]:
    """Append a token to random inputs; are the earlier tokens' outputs unchanged?

    With the causal mask, yes, exactly: reusing their keys and values (and outputs) is valid.
    Without a mask (an encoder), every earlier output changes, so nothing can be reused.
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_tokens + 1, d))
    w_q, w_k, w_v = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))

    def outputs(tokens: Array, causal: bool) -> Array:
        scores = (tokens @ w_q) @ (tokens @ w_k).T / np.sqrt(d)
        if causal:
            scores = np.where(causal_mask(len(tokens)), scores, -np.inf)
        return softmax(scores) @ (tokens @ w_v)

    same = []
    for causal in (True, False):
        before = outputs(x[:-1], causal)
        after = outputs(x, causal)[:-1]
        same.append(bool(np.array_equal(before, after) or np.allclose(before, after, atol=1e-12)))
    return same[0], same[1]
