"""The softmax trace a lesson walks through, one recorded step at a time.

scores → (scaled scores) → exponentials → total → weights → weight × value → output.

The lesson's small example: scores 3, 1, 0 and values 10, 20, 30.

>>> t = softmax_trace([3, 1, 0], [10, 20, 30])
>>> [f"{e:.1f}" for e in t.exponentials], f"{t.total:.1f}"
(['20.1', '2.7', '1.0'], '23.8')
>>> t.rounded_weights()
(0.84, 0.11, 0.04)
>>> f"{t.output:.2f}"
'11.98'

Rounded weights do not quite add up to 1, and the weighted average computed from them drifts;
a lesson can say so with numbers instead of hiding it:

>>> t.rounded_weights_sum(), f"{t.output_from_rounded_weights():.1f}"
(0.99, '11.8')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SoftmaxTrace", "attention_trace", "scaled_softmax_trace", "shares", "softmax_trace"]

_MAX_EXPONENT = 709.0
"""``math.exp`` overflows above about 709.78; the trace computes raw ``e**score`` as taught."""


@dataclass(frozen=True)
class SoftmaxTrace:
    """Every intermediate number of one softmax-weighted average, in token order."""

    labels: tuple[str, ...]
    """A name per token, for tables and figures ("1", "2", ... unless given)."""
    scores: tuple[float, ...]
    """How well each token's key matched the query."""
    values: tuple[float, ...]
    """What each token passes on (one number per token, as in the lesson)."""
    scale: float | None
    """The number scores were divided by before softmax (``sqrt(d_k)``), or ``None``."""
    scaled_scores: tuple[float, ...]
    """``scores / scale``; the same as ``scores`` when ``scale`` is ``None``."""
    exponentials: tuple[float, ...]
    """``e ** scaled_score`` for each token."""
    total: float
    """The sum of the exponentials."""
    weights: tuple[float, ...]
    """``exponential / total``: positive, and they add up to 1."""
    products: tuple[float, ...]
    """``weight × value`` for each token."""
    output: float
    """The sum of the products: the weighted average of the values."""

    @property
    def winner(self) -> int:
        """Index (from 0) of the token with the largest weight; the first one on a tie.

        >>> softmax_trace([3, 1, 0], [10, 20, 30]).winner
        0
        """
        return max(range(len(self.weights)), key=self.weights.__getitem__)

    @property
    def shares(self) -> tuple[float, ...]:
        """Each token's part of the output: the size of its weight × value over all their sizes.

        The weights say where the token looks; the output is made of weight × value. With values
        0, 20 and 30, token 1 has most of the weight and none of the output:

        >>> t = softmax_trace([3, 1, 0], [0, 20, 30])
        >>> t.rounded_weights(), tuple(round(s, 2) for s in t.shares)
        ((0.84, 0.11, 0.04), (0.0, 0.64, 0.36))
        """
        return shares(self.products)

    def rounded_weights(self, decimals: int = 2) -> tuple[float, ...]:
        """The weights as a lesson prints them.

        >>> softmax_trace([3, 1, 0], [10, 20, 30]).rounded_weights(3)
        (0.844, 0.114, 0.042)
        """
        return tuple(round(w, decimals) for w in self.weights)

    def rounded_weights_sum(self, decimals: int = 2) -> float:
        """The sum a reader gets by adding up the printed weights (not always exactly 1).

        >>> softmax_trace([3, 1, 0], [10, 20, 30]).rounded_weights_sum()
        0.99
        """
        return round(sum(self.rounded_weights(decimals)), decimals)

    def output_from_rounded_weights(self, decimals: int = 2) -> float:
        """The output a reader gets by redoing the average with the printed weights.

        >>> f"{softmax_trace([3, 1, 0], [10, 20, 30]).output_from_rounded_weights():.2f}"
        '11.80'
        """
        return math.fsum(
            w * v for w, v in zip(self.rounded_weights(decimals), self.values, strict=True)
        )


def shares(products: Sequence[float]) -> tuple[float, ...]:
    """``|p| / sum(|p|)`` for each weight × value ``p``; all 0 when every product is 0.

    >>> shares([8.44, 2.28, 1.26])[0] > 0.7, shares([0.0, 0.0])
    (True, (0.0, 0.0))
    """
    total = math.fsum(abs(p) for p in products)
    return tuple(abs(p) / total if total else 0.0 for p in products)


def _numbers(name: str, xs: Sequence[float]) -> tuple[float, ...]:
    try:
        out = tuple(float(x) for x in xs)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a list of numbers, got {xs!r}") from err
    if not all(math.isfinite(x) for x in out):
        raise ValueError(f"{name} must be finite numbers, got {xs!r}")
    return out


def softmax_trace(
    scores: Sequence[float],
    values: Sequence[float],
    scale: float | None = None,
    *,
    labels: Sequence[str] | None = None,
) -> SoftmaxTrace:
    """Record each step of ``softmax(scores / scale)`` and the weighted average of ``values``.

    ``scale`` is the number the scores are *divided* by (``math.sqrt(d_k)`` in real attention;
    note PyTorch's ``scale`` argument is the reciprocal, a multiplier). ``None`` means no scaling.
    The exponentials are the raw ``e ** score`` the lesson shows, so scores above about 709
    raise ``ValueError``; use :func:`lessonkit.lab.attention.softmax` for large scores.

    >>> t = softmax_trace([3, 1, 0], [10, 20, 30], labels=["cat", "sat", "on"])
    >>> t.labels[t.winner], t.rounded_weights()
    ('cat', (0.84, 0.11, 0.04))
    """
    s = _numbers("scores", scores)
    v = _numbers("values", values)
    if not s:
        raise ValueError("scores is empty; a trace needs at least one token")
    if len(s) != len(v):
        raise ValueError(f"need one value per score: {len(s)} scores but {len(v)} values")
    names = tuple(str(i + 1) for i in range(len(s))) if labels is None else tuple(labels)
    if len(names) != len(s):
        raise ValueError(f"need one label per score: {len(s)} scores but {len(names)} labels")
    if scale is not None and not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number (e.g. math.sqrt(d_k)), got {scale!r}")

    scaled = s if scale is None else tuple(x / scale for x in s)
    if max(scaled) > _MAX_EXPONENT:
        raise ValueError(
            f"score {max(scaled):g} is too large for e**score (overflows above about 709); "
            "scale the scores down or use lessonkit.lab.attention.softmax, which is stable"
        )
    exps = tuple(math.exp(x) for x in scaled)
    total = math.fsum(exps)
    weights = tuple(e / total for e in exps)
    products = tuple(w * x for w, x in zip(weights, v, strict=True))
    return SoftmaxTrace(
        labels=names,
        scores=s,
        values=v,
        scale=None if scale is None else float(scale),
        scaled_scores=scaled,
        exponentials=exps,
        total=total,
        weights=weights,
        products=products,
        output=math.fsum(products),
    )


def scaled_softmax_trace(
    scores: Sequence[float],
    values: Sequence[float],
    d_k: int,
    *,
    labels: Sequence[str] | None = None,
) -> SoftmaxTrace:
    """The trace with scores divided by ``sqrt(d_k)``, as real attention does.

    Dividing by ``sqrt(d_k)`` keeps dot products of long vectors from growing so large that
    softmax puts almost all the weight on one token.

    >>> t = scaled_softmax_trace([3, 1, 0], [10, 20, 30], d_k=4)
    >>> t.scaled_scores, t.rounded_weights()
    ((1.5, 0.5, 0.0), (0.63, 0.23, 0.14))
    """
    if isinstance(d_k, bool) or not isinstance(d_k, int) or d_k < 1:
        raise ValueError(f"d_k (the length of each key vector) must be a positive integer: {d_k!r}")
    return softmax_trace(scores, values, math.sqrt(d_k), labels=labels)


def attention_trace(
    query: Sequence[float],
    keys: Sequence[Sequence[float]],
    values: Sequence[float],
    *,
    labels: Sequence[str] | None = None,
) -> SoftmaxTrace:
    """Score each key against the query with a dot product, scale by ``sqrt(d_k)``, trace it.

    >>> t = attention_trace([1, 0], [[2, 0], [0, 2]], [10, 20])
    >>> t.scores, f"{t.scale:.3f}", t.rounded_weights()
    ((2.0, 0.0), '1.414', (0.8, 0.2))
    """
    q = _numbers("query", query)
    rows = [_numbers(f"keys[{i}]", k) for i, k in enumerate(keys)]
    for i, k in enumerate(rows):
        if len(k) != len(q):
            raise ValueError(f"keys[{i}] has {len(k)} numbers but the query has {len(q)}")
    scores = [math.fsum(a * b for a, b in zip(q, k, strict=True)) for k in rows]
    return scaled_softmax_trace(scores, values, d_k=len(q), labels=labels)
