"""The output end of a left-to-right model: scores over the vocabulary, softmax, sampling.

Temperature, top-k and top-p act on the **next-token** probabilities only, after the last
layer; none of them changes any attention weight inside the model.

>>> logits = [2.0, 1.0, 0.0, -1.0]
>>> probabilities(logits).round(3)
array([0.644, 0.237, 0.087, 0.032])
>>> top_k(probabilities(logits), 2).round(3)
array([0.731, 0.269, 0.   , 0.   ])
>>> top_p(probabilities(logits), 0.9).round(3)  # 0.644 + 0.237 < 0.9: a third token joins
array([0.665, 0.245, 0.09 , 0.   ])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lessonkit.lab.attention import softmax

__all__ = ["probabilities", "sample", "summary", "top_k", "top_p"]

Array = NDArray[np.float64]


def probabilities(logits: ArrayLike, temperature: float = 1.0) -> Array:
    """``softmax(logits / temperature)``: one probability per vocabulary token.

    >>> probabilities([1.0, 0.0], temperature=0.5).round(3)  # colder: sharper
    array([0.881, 0.119])
    """
    if not temperature > 0:
        raise ValueError(f"temperature must be above 0, got {temperature!r}")
    return softmax(np.asarray(logits, dtype=np.float64), temperature=temperature)


def _renormalised(probs: Array, keep: NDArray[np.bool_]) -> Array:
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum()


def top_k(probs: ArrayLike, k: int) -> Array:
    """Keep the ``k`` likeliest tokens (ties broken by order), zero the rest, rescale to 1."""
    p = np.asarray(probs, dtype=np.float64)
    if not 1 <= k <= p.size:
        raise ValueError(f"k must be between 1 and {p.size}, got {k!r}")
    keep = np.zeros(p.size, dtype=bool)
    keep[np.argsort(-p, kind="stable")[:k]] = True
    return _renormalised(p, keep)


def top_p(probs: ArrayLike, p: float) -> Array:
    """Keep the fewest likeliest tokens whose probabilities add up to at least ``p``.

    >>> top_p([0.5, 0.3, 0.2], 0.5)  # the first alone reaches 0.5
    array([1., 0., 0.])
    """
    probs = np.asarray(probs, dtype=np.float64)
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p!r}")
    order = np.argsort(-probs, kind="stable")
    before = np.cumsum(probs[order]) - probs[order]  # mass of the likelier tokens
    keep = np.zeros(probs.size, dtype=bool)
    keep[order[before < p - 1e-12]] = True
    return _renormalised(probs, keep)


def sample(probs: ArrayLike, n: int, seed: int = 0) -> Array:
    """How often each token is picked in ``n`` draws (a seeded generator: same every build).

    >>> sample([0.75, 0.25, 0.0], 4000).round(2)
    array([0.75, 0.25, 0.  ])
    """
    p = np.asarray(probs, dtype=np.float64)
    picks = np.random.default_rng(seed).choice(p.size, size=n, p=p)
    return np.bincount(picks, minlength=p.size) / n


def summary(words: Sequence[str], probs: ArrayLike) -> str:
    """The likeliest words and their probabilities, for alt text and sentences.

    >>> summary(["a", "b"], [0.25, 0.75])
    'b 0.75, a 0.25'
    """
    p = np.asarray(probs, dtype=np.float64)
    return ", ".join(f"{words[i]} {p[i]:.2f}" for i in np.argsort(-p, kind="stable") if p[i] > 0)
