"""Words that depend on numbers: comparisons, counts, lists and rounding, taken from the values.

A lesson's sentence about computed values gets its comparison or count word from here, so a
changed input changes the word together with the number instead of leaving a typed "more than",
"all", "not 1" or "pieces" false. Values compare *as a reader sees them*: two numbers printed the
same with ``decimals`` places are "about" equal, never "more" or "less".

>>> w, other = 0.34, 0.02
>>> f"{w:.2f}, {compare(w, other)} the {other:.2f} of any other word"
'0.34, more than the 0.02 of any other word'
>>> compare(0.3401, 0.3399), compare(1.0, 1.0)
('about', 'exactly')
>>> plural(1, "token"), plural(3, "piece"), count_of(4, 4, "sentences"), count_of(0, 4)
('1 token', '3 pieces', 'all 4 sentences', 'none of the 4')
>>> series([4, 5]), rounds_to(0.99, 1), at_least(0.955), at_most(0.811)
('4 and 5', False, '0.95', '0.82')
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

__all__ = [
    "about",
    "at_least",
    "at_most",
    "by_count",
    "compare",
    "count_of",
    "plural",
    "rounded_sum",
    "rounds_to",
    "rounds_to_words",
    "series",
    "shown",
]


def shown(x: float, decimals: int = 2) -> str:
    """``x`` as a page prints it with ``decimals`` places (Python's ``format``, as ``{{ x:.2f }}``).

    >>> shown(0.845), shown(2.5, 0), shown(-0.0001)
    ('0.84', '2', '-0.00')
    """
    return f"{x:.{decimals}f}"


def _same(a: float, b: float, decimals: int | None) -> bool:
    """True if ``a`` and ``b`` print the same (a negative zero prints as zero)."""
    return decimals is not None and float(shown(a, decimals)) == float(shown(b, decimals))


def compare(
    a: float,
    b: float,
    decimals: int | None = 2,
    *,
    above: str = "more than",
    below: str = "less than",
    near: str = "about",
    equal: str = "exactly",
) -> str:
    """How ``a`` compares with ``b``, as a word to write before ``b``.

    ``equal`` when they are the same number; ``near`` when they differ but print the same with
    ``decimals`` places (``None``: never near); else ``above`` or ``below``. Pass other words to
    fit the sentence.

    >>> compare(0.52, 0.5), compare(0.48, 0.5), compare(0.501, 0.5), compare(0.5, 0.5)
    ('more than', 'less than', 'about', 'exactly')
    >>> compare(4.6, 4, 0, near="close to"), compare(4.4, 4, 0, near="close to")
    ('more than', 'close to')
    >>> compare(0.501, 0.5, None)
    'more than'
    >>> lean = -0.13
    >>> compare(lean, 0, above="toward water", below="toward money", near="to neither side")
    'toward money'
    """
    if a == b:
        return equal
    if _same(a, b, decimals):
        return near
    return above if a > b else below


def about(x: float, decimals: int = 2, *, inexact: str = "about", exact: str = "exactly") -> str:
    """``exact`` if ``x`` is exactly the number printed with ``decimals`` places, else ``inexact``.

    >>> import math
    >>> [f"e^{s} is {about(math.exp(s), 1)} {math.exp(s):.1f}" for s in (0, 1)]
    ['e^0 is exactly 1.0', 'e^1 is about 2.7']
    """
    return exact if Decimal(x) == Decimal(shown(x, decimals)) else inexact


def rounds_to(x: float, target: float, decimals: int = 2) -> bool:
    """Whether ``x`` prints as ``target`` with ``decimals`` places.

    >>> rounds_to(0.999, 1), rounds_to(0.99, 1), rounds_to(1.004, 1)
    (True, False, True)
    """
    return _same(x, target, decimals)


def rounds_to_words(
    x: float,
    target: float,
    decimals: int = 2,
    *,
    yes: str = "rounds to {target:g}",
    no: str = "does not round to {target:g}",
) -> str:
    """``yes`` or ``no`` (formatted with ``target``): does ``x`` print as ``target``?

    >>> rounds_to_words(0.999, 1), rounds_to_words(0.99, 1)
    ('rounds to 1', 'does not round to 1')
    """
    return (yes if rounds_to(x, target, decimals) else no).format(target=target)


def rounded_sum(values: Iterable[float], decimals: int = 2) -> float:
    """What a reader gets by adding up ``values`` as they are printed, to ``decimals`` places.

    >>> rounded_sum([0.844, 0.114, 0.042]), rounded_sum([1 / 3] * 3), rounded_sum([0.5, 0.5])
    (0.99, 0.99, 1.0)
    """
    total = sum(Decimal(shown(v, decimals)) for v in values)
    return float(total)


def _bound(x: float, decimals: int, rounding: str) -> str:
    step = Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(float(x))).quantize(step, rounding=rounding))


def at_least(x: float, decimals: int = 2) -> str:
    """``x`` rounded *down*: a lower bound that stays true ("0.95 or more" for 0.955).

    >>> at_least(0.955), at_least(0.96), at_least(-0.111)
    ('0.95', '0.96', '-0.12')
    """
    return _bound(x, decimals, ROUND_FLOOR)


def at_most(x: float, decimals: int = 2) -> str:
    """``x`` rounded *up*: an upper bound that stays true ("at most 0.82" for 0.811).

    >>> at_most(0.811), at_most(0.82), at_most(-0.119)
    ('0.82', '0.82', '-0.11')
    """
    return _bound(x, decimals, ROUND_CEILING)


def plural(n: int, singular: str, plural_form: str | None = None, spec: str = "") -> str:
    """``n`` and the noun, singular for exactly one; ``spec`` formats ``n`` (``","``: 1,000).

    >>> plural(1, "piece"), plural(0, "piece"), plural(2, "query", "queries")
    ('1 piece', '0 pieces', '2 queries')
    >>> plural(1_000, "token", spec=","), plural(1, "token", spec=",")
    ('1,000 tokens', '1 token')
    """
    if n == 1:
        return f"{n:{spec}} {singular}"
    return f"{n:{spec}} {plural_form or singular + 's'}"


def count_of(k: int, n: int, noun: str = "") -> str:
    """``k`` out of ``n``, in words: "all 4", "both", "none of the 4", "3 of the 8".

    ``noun`` (plural) follows the count.

    >>> count_of(8, 8, "sentences"), count_of(2, 2, "heads"), count_of(0, 4, "banks")
    ('all 8 sentences', 'both heads', 'none of the 4 banks')
    >>> count_of(3, 8, "layers"), count_of(1, 1, "layer")
    ('3 of the 8 layers', 'the 1 layer')
    """
    if not 0 <= k <= n:
        raise ValueError(f"count_of needs 0 <= k <= n, got {k} of {n}")
    tail = f" {noun}" if noun else ""
    if n == 1:
        return f"the 1{tail}" if k else f"none of the 1{tail}"
    if k == n:
        return f"both{tail}" if n == 2 else f"all {n}{tail}"
    if k == 0:
        return f"none of the {n}{tail}"
    return f"{k} of the {n}{tail}"


def by_count(
    k: int,
    n: int,
    *,
    every: str = "supports",
    some: str = "only partly supports",
    none: str = "does not support",
) -> str:
    """A verdict by how many of ``n`` cases hold: ``every``, ``some`` or ``none``.

    >>> by_count(4, 4), by_count(1, 4), by_count(0, 4)
    ('supports', 'only partly supports', 'does not support')
    """
    if not 0 <= k <= n or n == 0:
        raise ValueError(f"by_count needs 0 <= k <= n and n > 0, got {k} of {n}")
    return every if k == n else none if k == 0 else some


def series(items: Iterable[object], conjunction: str = "and") -> str:
    """Items as an English list: "4", "4 and 5", "4, 5 and 6".

    >>> series([4]), series(["river", "loan"]), series([1, 2, 3], "or")
    ('4', 'river and loan', '1, 2 or 3')
    >>> series([])
    Traceback (most recent call last):
    ...
    ValueError: series needs at least one item
    """
    words = [str(i) for i in items]
    if not words:
        raise ValueError("series needs at least one item")
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
