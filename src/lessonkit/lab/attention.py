"""Attention in numpy: softmax, the causal mask, scaled dot-product and multi-head attention.

Read it beside the lesson. Shapes use the lesson's letters:

- ``T``: number of tokens (the sequence length),
- ``d_model``: length of each token's vector,
- ``n_heads``: number of attention heads; each head works on ``d_head = d_model // n_heads``
  numbers per token.

Every function takes plain numpy arrays (or lists) and computes in float64.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "causal_mask",
    "multi_head_attention",
    "multi_head_attention_naive",
    "scaled_dot_product_attention",
    "softmax",
]

Array = NDArray[np.float64]


def softmax(scores: ArrayLike, axis: int = -1, temperature: float = 1.0) -> Array:
    """Turn scores into weights that are positive and sum to 1 along ``axis``.

    ``softmax(s)_i = exp(s_i / temperature) / sum_j exp(s_j / temperature)``. Subtracting the
    largest score first gives the same weights (the common factor cancels) and keeps every
    exponent at or below 0, so scores in the thousands cannot overflow.

    A score of ``-inf`` means "masked": its weight is exactly 0. A row where *every* score is
    ``-inf`` has no weights that sum to 1, so it raises ``ValueError`` instead of returning NaN.
    ``+inf`` and NaN scores also raise.

    >>> softmax([3.0, 1.0, 0.0]).round(2)
    array([0.84, 0.11, 0.04])
    >>> softmax([1000.0, 1000.0])  # no overflow
    array([0.5, 0.5])
    >>> softmax([2.0, -np.inf, 0.0]).round(3)  # masked score gets weight 0
    array([0.881, 0.   , 0.119])
    >>> softmax([3.0, 1.0, 0.0], temperature=10.0).round(2)  # higher temperature: flatter
    array([0.39, 0.32, 0.29])
    >>> softmax([-np.inf, -np.inf])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: every score is -inf (masked); a token must be allowed to attend to ...
    """
    s = _checked_scores(scores, axis, temperature)
    shifted = (s - s.max(axis=axis, keepdims=True)) / temperature  # all <= 0: exp cannot overflow
    exps = np.exp(shifted)
    return exps / exps.sum(axis=axis, keepdims=True)


def _checked_scores(scores: ArrayLike, axis: int, temperature: float) -> Array:
    """``scores`` as floats, or ValueError saying why softmax cannot take them."""
    if not 0 < temperature < np.inf:
        raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 0 or s.shape[axis] == 0:
        raise ValueError(f"softmax needs at least one score along axis {axis}, got shape {s.shape}")
    if np.isnan(s).any():
        raise ValueError("softmax got a NaN score; check the computation that produced the scores")
    if np.isposinf(s).any():
        raise ValueError("softmax got a +inf score; scores must be finite, or -inf for masked")
    all_masked = np.all(np.isneginf(s), axis=axis)
    if np.any(all_masked):
        first = tuple(np.argwhere(all_masked)[0].tolist()) if all_masked.ndim else ()
        row = f" in the slice at index {first}" if first else ""
        raise ValueError(
            f"every score is -inf (masked){row}; a token must be allowed to attend to at least "
            "one position (a causal mask always keeps the diagonal)"
        )
    return s


def causal_mask(n: int) -> NDArray[np.bool_]:
    """Return the ``(n, n)`` causal mask: ``True`` where token ``i`` may look at token ``j``.

    A token may look at itself and earlier tokens (``j <= i``), never at later ones.

    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"causal_mask needs a positive whole number of tokens, got {n!r}")
    return np.tril(np.ones((n, n), dtype=bool))


def checked_weights(weights: ArrayLike, n_tokens: int, causal: bool = True) -> Array:
    """``weights`` as floats, checked to be an ``(n_tokens, n_tokens)`` grid of attention weights.

    Every weight is finite and between 0 and 1; with ``causal``, those above the diagonal (a
    token looking ahead) are 0. Figures and tables of weights check their input with it.

    >>> checked_weights([[1, 0], [0.3, 0.7]], 2).dtype
    dtype('float64')
    >>> checked_weights([[0.5, 0.5], [0.3, 0.7]], 2)
    Traceback (most recent call last):
    ...
    ValueError: causal weights must be 0 above the diagonal (a token cannot look ahead): compute them with causal_mask, or draw full attention with causal=False
    """  # noqa: E501
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n_tokens, n_tokens):
        shape = (n_tokens, n_tokens)
        raise ValueError(f"weights must be (tokens, tokens) = {shape}, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or w.min() < 0 or w.max() > 1:
        raise ValueError("attention weights must be finite numbers between 0 and 1")
    if causal and np.any(np.triu(w, k=1) > 1e-12):
        raise ValueError(
            "causal weights must be 0 above the diagonal (a token cannot look ahead): compute "
            "them with causal_mask, or draw full attention with causal=False"
        )
    return w


def scaled_dot_product_attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None
) -> tuple[Array, Array]:
    """Attention: ``softmax(q @ k.T / sqrt(d_k)) @ v``; return ``(output, weights)``.

    Shapes (any leading batch or head dimensions ``...`` are carried along):

    - ``q``: ``(..., T_q, d_k)``, one query per token asking "what am I looking for?"
    - ``k``: ``(..., T_k, d_k)``, one key per token saying "what do I contain?"
    - ``v``: ``(..., T_k, d_v)``, one value per token: what it passes on if chosen
    - ``mask``: boolean, broadcastable to ``(..., T_q, T_k)``; ``False`` hides a position
    - returns ``output`` ``(..., T_q, d_v)`` and ``weights`` ``(..., T_q, T_k)``; each row of
      ``weights`` sums to 1 and hidden positions get exactly 0.

    >>> q = np.array([[1.0, 0.0]])
    >>> k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> v = np.array([[10.0], [20.0]])
    >>> out, w = scaled_dot_product_attention(q, k, v)
    >>> w.round(3)  # the first key matches the query better
    array([[0.67, 0.33]])
    >>> out.round(2)
    array([[13.3]])
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError("q, k and v need at least 2 dimensions: (tokens, features)")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same last dimension d_k: {q.shape} vs {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have one row per token: {k.shape} vs {v.shape}")
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (..., T_q, T_k)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)  # (..., T_q, T_k)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


def _check_heads(x: Array, weights: tuple[Array, ...], n_heads: int) -> tuple[int, int, int]:
    if x.ndim != 2:
        raise ValueError(f"x must be (T, d_model), got shape {x.shape}")
    T, d_model = x.shape
    for name, w in zip(("w_q", "w_k", "w_v", "w_o"), weights, strict=True):
        if w.shape != (d_model, d_model):
            raise ValueError(
                f"{name} must be (d_model, d_model) = {(d_model, d_model)}, got {w.shape}"
            )
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive whole number, got {n_heads!r}")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    return T, d_model, d_model // n_heads


def multi_head_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    n_heads: int,
    causal: bool = False,
) -> tuple[Array, Array]:
    """Run ``n_heads`` attention heads side by side; return ``(output, weights)``.

    ``x`` is ``(T, d_model)``; each ``w_*`` is ``(d_model, d_model)``. Every head gets its own
    slice of ``d_head = d_model // n_heads`` columns of the projected queries, keys and values,
    attends independently, and the heads' outputs are joined back and mixed by ``w_o``.
    Returns ``output`` ``(T, d_model)`` and ``weights`` ``(n_heads, T, T)``, one map per head.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(4, 6))
    >>> w_q, w_k, w_v, w_o = rng.normal(size=(4, 6, 6))
    >>> out, w = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=2, causal=True)
    >>> out.shape, w.shape
    ((4, 6), (2, 4, 4))
    >>> w[:, 0, 1:].max()  # causal: the first token sees only itself
    np.float64(0.0)
    >>> naive, _ = multi_head_attention_naive(x, w_q, w_k, w_v, w_o, n_heads=2, causal=True)
    >>> bool(np.allclose(out, naive))
    True
    """
    x, w_q, w_k, w_v, w_o = (np.asarray(a, dtype=np.float64) for a in (x, w_q, w_k, w_v, w_o))
    T, d_model, d_head = _check_heads(x, (w_q, w_k, w_v, w_o), n_heads)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (T, d_model)
    # Split d_model into heads, then put the head axis first so each head is one batch entry.
    q = q.reshape(T, n_heads, d_head)  # (T, n_heads, d_head)
    k = k.reshape(T, n_heads, d_head)  # (T, n_heads, d_head)
    v = v.reshape(T, n_heads, d_head)  # (T, n_heads, d_head)
    q, k, v = (a.transpose(1, 0, 2) for a in (q, k, v))  # each (n_heads, T, d_head)
    mask = causal_mask(T) if causal else None  # (T, T), shared by every head
    heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (n_heads, T, d_head)
    merged = heads.transpose(1, 0, 2)  # (T, n_heads, d_head)
    merged = merged.reshape(T, d_model)  # (T, d_model): the heads side by side again
    return merged @ w_o, weights  # (T, d_model), (n_heads, T, T)


def multi_head_attention_naive(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    n_heads: int,
    causal: bool = False,
) -> tuple[Array, Array]:
    """The same as :func:`multi_head_attention`, one head at a time in a plain loop.

    Slower, but each step is visible: take the head's columns, attend, collect the outputs.

    >>> x = np.eye(2)
    >>> out, w = multi_head_attention_naive(x, np.eye(2), np.eye(2), np.eye(2), np.eye(2), 1)
    >>> w.round(2)
    array([[[0.67, 0.33],
            [0.33, 0.67]]])
    """
    x, w_q, w_k, w_v, w_o = (np.asarray(a, dtype=np.float64) for a in (x, w_q, w_k, w_v, w_o))
    T, _, d_head = _check_heads(x, (w_q, w_k, w_v, w_o), n_heads)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (T, d_model)
    mask = causal_mask(T) if causal else None
    outputs, maps = [], []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)  # this head's d_head columns
        out, w = scaled_dot_product_attention(q[:, cols], k[:, cols], v[:, cols], mask)
        outputs.append(out)  # (T, d_head)
        maps.append(w)  # (T, T)
    merged = np.concatenate(outputs, axis=1)  # (T, d_model)
    return merged @ w_o, np.stack(maps)  # (T, d_model), (n_heads, T, T)
