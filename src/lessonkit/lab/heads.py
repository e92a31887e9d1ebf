"""Queries, keys, values and heads in the real model: learned matrices, and what heads do.

All of it reads :mod:`lessonkit.lab.model` (all-MiniLM-L6-v2). Layers and heads count from 1,
as the pages print them.

>>> from lessonkit.lab.model import encode
>>> e = encode("The bank of the river was muddy.")
>>> q, k, v = token_projections(e, "bank", layer=1)
>>> q.shape, k.shape, v.shape
((384,), (384,), (384,))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from lessonkit.lab.model import Encoded, config, weights

__all__ = [
    "dot_product_spread",
    "head_contributions",
    "previous_word_weights",
    "projection_matrix",
    "projections",
    "token_projections",
]

Array = NDArray[np.float64]


def projection_matrix(layer: int, which: str) -> Array:
    """W_Q, W_K, W_V or W_O of a layer, as ``(d_model, d_model)`` with ``x @ W`` = the product.

    ``which`` is ``"query"``, ``"key"``, ``"value"`` or ``"output"``.

    >>> projection_matrix(1, "query").shape
    (384, 384)
    """
    names = {"query": "self.query", "key": "self.key", "value": "self.value"}
    names["output"] = "output.dense"
    if which not in names:
        raise ValueError(f"which must be one of {', '.join(names)}, got {which!r}")
    return weights()[f"encoder.layer.{layer - 1}.attention.{names[which]}.weight"].T


def _bias(layer: int, which: str) -> Array:
    name = {"query": "self.query", "key": "self.key", "value": "self.value"}[which]
    return weights()[f"encoder.layer.{layer - 1}.attention.{name}.bias"]


def projections(enc: Encoded, layer: int = 1) -> tuple[Array, Array, Array]:
    """Every token's query, key and value in ``layer``: three ``(T, d_model)`` arrays.

    >>> from lessonkit.lab.model import encode
    >>> q, k, v = projections(encode("The bank approved my loan."), 1)
    >>> q.shape
    (8, 384)
    """
    x = enc.hidden[layer - 1]  # the layer's input, every token
    return tuple(  # type: ignore[return-value]
        x @ projection_matrix(layer, w) + _bias(layer, w) for w in ("query", "key", "value")
    )


def token_projections(enc: Encoded, piece: str, layer: int = 1) -> tuple[Array, Array, Array]:
    """One token's query, key and value in ``layer``: its input vector times W_Q, W_K, W_V.

    The same three matrices serve every token: they are learned once, in training.

    >>> from lessonkit.lab.model import encode
    >>> a, b = encode("The bank approved my loan."), encode("The bank of the river was muddy.")
    >>> qa, _, _ = token_projections(a, "the", 1)
    >>> qb, _, _ = token_projections(b, "the", 1)
    >>> bool(np.allclose(qa, qb))  # same word, same place, layer 1: same query
    True
    """
    i = enc.position(piece)
    q, k, v = projections(enc, layer)
    return q[i], k[i], v[i]


def previous_word_weights(encoded: Sequence[Encoded], offset: int = -1) -> Array:
    """``(L, n_heads)``: the weight each head gives the token ``offset`` away, averaged.

    Rows are the words between ``[CLS]`` and ``[SEP]`` that have such a neighbour inside the
    sentence (``offset=-1``: the token just before; ``+1``: just after).

    >>> from lessonkit.lab.model import encode
    >>> w = previous_word_weights([encode("The bank approved my loan.")])
    >>> w.shape
    (6, 12)
    """
    total = np.zeros(config().n_layers * config().n_heads).reshape(config().n_layers, -1)
    for enc in encoded:
        T = len(enc.tokens)
        rows = np.arange(max(1, 1 - offset), min(T - 1, T - 1 - offset))
        total += enc.attention[:, :, rows, rows + offset].mean(axis=-1)
    return total / len(encoded)


def head_contributions(enc: Encoded, piece: str, layer: int) -> tuple[Array, Array]:
    """What each head adds to ``piece``'s vector: ``(n_heads, d_model)``, and the bias.

    Concatenating the heads and multiplying by W_O is the same as multiplying each head's
    ``d_head`` numbers by its own ``d_head`` rows of W_O and adding the results:

    >>> from lessonkit.lab.model import encode
    >>> from lessonkit.lab.block import layer_parts
    >>> e = encode("The bank of the river was muddy.")
    >>> parts, bias = head_contributions(e, "bank", 1)
    >>> whole = layer_parts(e.hidden[0], 0).attention[e.position("bank")]
    >>> bool(np.allclose(parts.sum(axis=0) + bias, whole))
    True
    """
    cfg = config()
    i = enc.position(piece)
    x = enc.hidden[layer - 1]  # (T, d_model)
    v = x @ projection_matrix(layer, "value") + _bias(layer, "value")  # (T, d_model)
    v = v.reshape(len(enc.tokens), cfg.n_heads, cfg.d_head)  # (T, n_heads, d_head)
    weights_i = enc.attention[layer - 1, :, i, :]  # (n_heads, T)
    heads = np.einsum("ht,thd->hd", weights_i, v)  # (n_heads, d_head): each head's output
    w_o = projection_matrix(layer, "output").reshape(cfg.n_heads, cfg.d_head, cfg.d_model)
    parts = np.einsum("hd,hdm->hm", heads, w_o)  # (n_heads, d_model)
    return parts, weights()[f"encoder.layer.{layer - 1}.attention.output.dense.bias"]


def dot_product_spread(d_ks: Sequence[int], n: int = 2000, seed: int = 0) -> list[dict]:
    """Why scores are divided by √d_k, measured on random vectors with variance-1 numbers.

    For each ``d_k``: the standard deviation of ``q · k`` (it grows like √d_k), of
    ``q · k / √d_k`` (it stays near 1), and the largest softmax weight among 10 such scores,
    averaged over ``n`` draws, before and after scaling.

    >>> rows = dot_product_spread([4, 64], n=500)
    >>> [round(r["std"] / r["d_k"] ** 0.5, 1) for r in rows]  # std close to √d_k
    [1.0, 1.0]
    >>> rows[1]["top weight"] > rows[1]["top weight scaled"]
    True
    """
    rng = np.random.default_rng(seed)
    out = []
    for d_k in d_ks:
        q = rng.standard_normal((n, 10, d_k))
        k = rng.standard_normal((n, 10, d_k))
        scores = (q * k).sum(axis=-1)  # (n, 10): ten scores per draw

        def top(s: Array) -> float:
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            return float((e.max(axis=-1) / e.sum(axis=-1)).mean())

        out.append(
            {
                "d_k": d_k,
                "std": float(scores.std()),
                "std scaled": float((scores / np.sqrt(d_k)).std()),
                "top weight": top(scores),
                "top weight scaled": top(scores / np.sqrt(d_k)),
            }
        )
    return out
