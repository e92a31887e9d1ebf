"""How many query-key comparisons attention makes, and how that grows with the input.

Full attention compares every token with every token: ``n * n``. Causal attention compares each
token only with itself and the tokens before it: ``1 + 2 + ... + n = n * (n + 1) / 2``.
Both grow with the square of ``n``, so doubling the input roughly quadruples the work.

>>> comparisons(1_000), comparisons(2_000)
(1000000, 4000000)
>>> doubling_ratio(1_000)
4.0
>>> round(doubling_ratio(1_000, causal=True), 3)
3.998

The lessons print a ratio one way everywhere, with :func:`ratio_text`: a whole number exactly,
anything else with three decimals, so the causal 3.998 never shows as a rounded "4.00":

>>> ratio_text(doubling_ratio(1_000)), ratio_text(doubling_ratio(1_000, causal=True))
('4', '3.998')
"""

from __future__ import annotations

__all__ = ["causal_comparisons", "comparisons", "doubling_ratio", "growth_ratio", "ratio_text"]


def _tokens(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"the number of tokens must be a whole number >= 0, got {n!r}")
    return n


def comparisons(n: int, causal: bool = False) -> int:
    """Query-key comparisons for ``n`` tokens: ``n**2`` (full) or ``n*(n+1)//2`` (causal).

    >>> comparisons(4), comparisons(4, causal=True)
    (16, 10)
    """
    n = _tokens(n)
    return n * (n + 1) // 2 if causal else n * n


def causal_comparisons(n: int) -> int:
    """Comparisons when each token sees only itself and earlier tokens: ``n*(n+1)//2``.

    >>> [causal_comparisons(n) for n in range(1, 6)]
    [1, 3, 6, 10, 15]
    """
    return comparisons(n, causal=True)


def growth_ratio(n_from: int, n_to: int, causal: bool = False) -> float:
    """How many times more comparisons ``n_to`` tokens need than ``n_from`` tokens.

    >>> growth_ratio(100, 300)
    9.0
    """
    before = comparisons(n_from, causal)
    if before == 0:
        raise ValueError("n_from must be at least 1 token (0 tokens make 0 comparisons)")
    return comparisons(n_to, causal) / before


def doubling_ratio(n: int, causal: bool = False) -> float:
    """The growth from ``n`` to ``2n`` tokens: exactly 4 for full attention, just under 4 causal.

    For causal attention it is ``2(2n+1)/(n+1)``, which approaches 4 as ``n`` grows.

    >>> doubling_ratio(1, causal=True), doubling_ratio(3, causal=True)
    (3.0, 3.5)
    """
    return growth_ratio(n, 2 * _tokens(n), causal)


def ratio_text(ratio: float) -> str:
    """A growth ratio as every lesson prints it: exact when whole, else with three decimals.

    Three decimals keep a causal ratio just under 4 from printing as a whole "4.00".

    >>> ratio_text(4.0), ratio_text(3.9990004997501248), ratio_text(3.0)
    ('4', '3.999', '3')
    """
    return f"{ratio:g}" if float(ratio).is_integer() else f"{ratio:.3f}"
