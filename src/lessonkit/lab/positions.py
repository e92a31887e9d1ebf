"""Word order: sinusoidal and rotary positions, and what a causal mask alone says about order.

>>> table = sinusoidal(50, 16)
>>> table.shape, float(table[0, 0]), float(table[0, 1])  # position 0: sin 0 = 0, cos 0 = 1
((50, 16), 0.0, 1.0)

Rotary positions turn a query and a key by angles that grow with position, so their dot
product depends only on how far apart they are:

>>> rng = np.random.default_rng(0)
>>> q, k = rng.standard_normal(8), rng.standard_normal(8)
>>> a = rotary(q, 5) @ rotary(k, 3)  # positions 5 and 3: two apart
>>> b = rotary(q, 12) @ rotary(k, 10)  # positions 12 and 10: two apart too
>>> bool(np.isclose(a, b))
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike, NDArray

from lessonkit.lab.attention import causal_mask, softmax
from lessonkit.lab.figure_style import WIDTH_IN, style

__all__ = ["order_test", "position_similarity_figure", "rotary", "sinusoidal"]

Array = NDArray[np.float64]


def sinusoidal(n_positions: int, d: int, base: float = 10_000.0) -> Array:
    """The original transformer's fixed position vectors, ``(n_positions, d)``.

    Column pair ``2i, 2i + 1`` holds ``sin`` and ``cos`` of ``pos / base ** (2i / d)``: fast
    waves in the first columns, slow ones in the last.
    """
    if d % 2:
        raise ValueError(f"d must be even (sine and cosine pairs), got {d}")
    pos = np.arange(n_positions)[:, None]  # (n, 1)
    freq = base ** (-np.arange(0, d, 2) / d)  # (d / 2,)
    table = np.empty((n_positions, d))
    table[:, 0::2] = np.sin(pos * freq)
    table[:, 1::2] = np.cos(pos * freq)
    return table


def rotary(x: ArrayLike, position: int, base: float = 10_000.0) -> Array:
    """Rotate each pair of ``x``'s numbers by ``position × frequency`` (RoPE), pair ``i`` at
    frequency ``base ** (-2i / d)``."""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"the vector's length must be even, got {d}")
    angle = position * base ** (-np.arange(0, d, 2) / d)  # (d / 2,)
    cos, sin = np.cos(angle), np.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _attend(x: Array, w_q: Array, w_k: Array, w_v: Array, causal: bool) -> Array:
    scores = (x @ w_q) @ (x @ w_k).T / np.sqrt(x.shape[1])
    if causal:
        scores = np.where(causal_mask(len(x)), scores, -np.inf)
    return softmax(scores) @ (x @ w_v)


def order_test(words: Sequence[str], d: int = 16, seed: int = 0) -> dict[str, dict[str, bool]]:
    """Attention with no position information, on ``words`` and on the same words reversed.

    For each word: does its output stay the same when the order is reversed? Without a mask it
    always does: order is invisible. With a causal mask each word sees only the words before
    it, and reversing changes which words those are.

    >>> r = order_test(["dog", "bites", "man"])
    >>> r["no mask"]
    {'dog': True, 'bites': True, 'man': True}
    >>> r["causal"]
    {'dog': False, 'bites': False, 'man': False}
    """
    if len(set(words)) != len(words):
        raise ValueError(f"the words must differ from each other, got {list(words)}")
    rng = np.random.default_rng(seed)
    vec = {w: rng.standard_normal(d) for w in words}
    w_q, w_k, w_v = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))
    forward = np.stack([vec[w] for w in words])
    backward = forward[::-1]
    result = {}
    for name, causal in (("no mask", False), ("causal", True)):
        a = _attend(forward, w_q, w_k, w_v, causal)
        b = _attend(backward, w_q, w_k, w_v, causal)[::-1]  # back in the first order
        result[name] = {w: bool(np.allclose(a[i], b[i])) for i, w in enumerate(words)}
    return result


def _cosines(table: Array, at: int) -> Array:
    norms = np.linalg.norm(table, axis=1)
    return table @ table[at] / (norms * norms[at])


def position_similarity_figure(learned: ArrayLike, at: int = 20, n: int = 64) -> Figure:
    """Cosine of position ``at``'s vector with positions 0..n-1: a learned table against
    sinusoidal vectors of the same width.

    >>> fig = position_similarity_figure(np.random.default_rng(0).normal(size=(64, 8)), 3, 10)
    >>> fig.alt_text.startswith("Line chart")
    True
    """
    learned = np.asarray(learned, dtype=np.float64)[:n]
    sines = sinusoidal(n, learned.shape[1])
    xs = np.arange(n)
    with style():
        fig = Figure(figsize=(WIDTH_IN, 3.0), layout="constrained")
        ax = fig.add_subplot()
        ax.plot(xs, _cosines(sines, at), label="sinusoidal (fixed)")
        ax.plot(xs, _cosines(learned, at), label="learned (this model)", linestyle="--")
        ax.axvline(at, linewidth=0.8, alpha=0.5)
        ax.set_xlabel("position")
        ax.set_ylabel(f"cosine with position {at}")
        fig.legend(loc="outside upper center", ncols=2)
    near, far = at + 1, n - 1
    fig.alt_text = (  # type: ignore[attr-defined]
        f"Line chart of the cosine similarity between position {at}'s vector and every position "
        f"from 0 to {n - 1}. Both curves peak at 1 at position {at}. Sinusoidal: "
        f"{_cosines(sines, at)[near]:.2f} at position {near}, {_cosines(sines, at)[far]:.2f} at "
        f"{far}. Learned: {_cosines(learned, at)[near]:.2f} at {near}, "
        f"{_cosines(learned, at)[far]:.2f} at {far}."
    )
    return fig
