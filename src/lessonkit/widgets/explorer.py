"""The softmax explorer: a trace as a table readers without JavaScript see, plus controls.

:func:`explorer_html` writes the static HTML: the trace's numbers in a table, a sentence that
explains them and, hidden until ``assets/js/50-explorer.js`` reveals them, labelled controls for
the scores, the values and the temperature. The script recomputes the same numbers with the same
rules as :func:`explorer_numbers` when a reader moves a control:

- ``z = score ÷ temperature``; the weights are ``softmax(scores, temperature=T)``, computed from
  ``e ** (z - largest z)`` so scores of ±1000 cannot overflow;
- ``e ** z`` is printed with ``decimals`` places while ``z`` is in :data:`EXP_FIXED` (about 0.01
  to 1 million) and otherwise as ``m × 10^k`` with three significant digits: ``e ** 1000`` does
  not fit in a float, but its logarithm does;
- everything else is printed like Python's ``format(x, ".2f")`` (the script rounds exact ties
  half to even as Python does) and scores and values like ``format(x, "g")``.

>>> from lessonkit.lab.trace import softmax_trace
>>> n = explorer_numbers([3, 1, 0], [10, 20, 30])
>>> n.exponentials, n.total, n.weights, n.output
(('20.09', '2.72', '1.00'), '23.80', ('0.84', '0.11', '0.04'), '11.98')
>>> explorer_numbers([1000, -1000, 0], [10, 20, 30]).exponentials
('1.97 × 10^434', '5.08 × 10^-435', '1.00')
>>> print(n.sentence.replace(". ", ".\\n"))
Token 1 gets most of the weight (0.84): its score is the highest.
Most of the output, 8.44 of 11.98, comes from token 1.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lessonkit.lab.attention import softmax
from lessonkit.lab.trace import SoftmaxTrace, shares

__all__ = [
    "EXP_FIXED",
    "SCORE_LIMIT",
    "TEMPERATURE_RANGE",
    "VALUE_LIMIT",
    "ExplorerNumbers",
    "explain",
    "explorer_html",
    "explorer_numbers",
    "format_exp",
]

EXP_FIXED = (-4.6, 13.8)
"""``e ** z`` prints with fixed decimals for ``z`` in this range (``e**-4.6`` ≈ 0.01,
``e**13.8`` ≈ 984,609); outside it, as ``m × 10^k``."""

SCORE_LIMIT = 1000.0
"""Scores may be typed from ``-SCORE_LIMIT`` to ``SCORE_LIMIT``; the slider covers ±10."""

VALUE_LIMIT = 1000.0
"""Values may be typed from ``-VALUE_LIMIT`` to ``VALUE_LIMIT``; the slider covers ±100."""

TEMPERATURE_RANGE = (0.1, 10.0)
"""Smallest and largest temperature the controls accept."""


@dataclass(frozen=True)
class ExplorerNumbers:
    """Every number the explorer shows, formatted as the page prints it."""

    scores: tuple[str, ...]
    values: tuple[str, ...]
    exponentials: tuple[str, ...]
    """``e ** (score ÷ T)`` per token."""
    total: str
    """The sum of the exponentials."""
    weights: tuple[str, ...]
    weight_fractions: tuple[float, ...]
    """The unrounded weights, for the bars."""
    weight_sum: str
    products: tuple[str, ...]
    output: str
    sentence: str
    """Which token gets the most weight, and which makes up most of the output."""


def format_exp(z: float, decimals: int = 2) -> str:
    """``e ** z`` as the explorer prints it, given ``z`` (its natural logarithm).

    >>> format_exp(3.0), format_exp(-5.0), format_exp(709.0), format_exp(-1000.0)
    ('20.09', '6.74 × 10^-3', '8.22 × 10^307', '5.08 × 10^-435')
    """
    if EXP_FIXED[0] <= z <= EXP_FIXED[1]:
        return f"{math.exp(z):.{decimals}f}"
    tens = z * math.log10(math.e)
    k = math.floor(tens)
    mantissa = f"{10 ** (tens - k):.2f}"
    if mantissa == "10.00":  # 9.996 rounds up: 1.00 × 10^(k+1)
        mantissa, k = "1.00", k + 1
    return f"{mantissa} × 10^{k}"


def explain(
    scores: Sequence[float],
    weights: Sequence[float],
    products: Sequence[float],
    labels: Sequence[str],
    decimals: int = 2,
) -> str:
    """The sentences under the table: who gets the weight, then who makes up the output.

    The weights follow the scores alone; the output is the sum of weight × value, so the
    second sentence reads the products (:func:`lessonkit.lab.trace.shares`), not the weights.

    >>> w = [0.844, 0.114, 0.042]  # scores 3, 1, 0 and values 0, 20, 30:
    >>> print(explain([3, 1, 0], w, [0.0, 2.28, 1.26], ["1", "2", "3"]).replace(". ", ".\\n"))
    Token 1 gets most of the weight (0.84): its score is the highest.
    But most of the output, 2.28 of 3.54, comes from token 2: weight × value counts, not weight alone.
    """  # noqa: E501
    return (
        f"{_weight_words(scores, weights, labels, decimals)} "
        f"{_output_words(weights, products, labels, decimals)}"
    )


def _names(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + f" and {labels[-1]}"


def _weight_words(
    scores: Sequence[float], weights: Sequence[float], labels: Sequence[str], decimals: int
) -> str:
    """Which token gets the largest weight, and why: the scores decide."""
    top = max(scores)
    tied = [label for label, s in zip(labels, scores, strict=True) if s == top]
    w = f"{weights[list(scores).index(top)]:.{decimals}f}"
    if len(labels) == 1:
        return f"Token {labels[0]} is the only token, so it gets all the weight ({w})."
    if len(tied) > 1:
        who = f"All {len(labels)} tokens" if len(tied) == len(labels) else f"Tokens {_names(tied)}"
        return f"{who} tie for the highest score, so they get the same weight ({w} each)."
    if weights[labels.index(tied[0])] > 0.5:
        return f"Token {tied[0]} gets most of the weight ({w}): its score is the highest."
    return (
        f"Token {tied[0]} gets the largest weight ({w}), but less than half: its score is the "
        "highest."
    )


def _output_words(
    weights: Sequence[float], products: Sequence[float], labels: Sequence[str], decimals: int
) -> str:
    """Which tokens make up the output: the largest weight × value, whatever the weights say."""
    parts = shares(products)
    output = f"{math.fsum(products):.{decimals}f}"
    if not any(parts):
        return f"Every weight × value is 0, so the output is {output}."
    lead = [label for label, s in zip(labels, parts, strict=True) if s == max(parts)]
    p = f"{products[labels.index(lead[0])]:.{decimals}f}"
    who, each = (f"token {lead[0]}", "") if len(lead) == 1 else (f"tokens {_names(lead)}", " each")
    if min(products) < 0 < max(products):
        return (
            "Positive and negative weight × value partly cancel: the largest is "
            f"{p}{each}, from {who}; the output is {output}."
        )
    amount = "most of the output" if max(parts) > 0.5 else "the largest part of the output"
    if any(weights[labels.index(x)] == max(weights) for x in lead):
        return f"{amount.capitalize()}, {p}{each} of {output}, comes from {who}."
    return (
        f"But {amount}, {p}{each} of {output}, comes from {who}: weight × value counts, not "
        "weight alone."
    )


def explorer_numbers(
    scores: Sequence[float],
    values: Sequence[float],
    temperature: float = 1.0,
    *,
    labels: Sequence[str] | None = None,
    decimals: int = 2,
) -> ExplorerNumbers:
    """Compute and format what the explorer shows for these inputs (the script's rules)."""
    s = [float(x) for x in scores]
    v = [float(x) for x in values]
    names = [str(i + 1) for i in range(len(s))] if labels is None else [str(x) for x in labels]
    if len(v) != len(s) or len(names) != len(s):
        raise ValueError(
            f"need one value and one label per score: {len(s)} scores, {len(v)} values, "
            f"{len(names)} labels"
        )
    weights = [float(w) for w in softmax(np.array(s), temperature=temperature)]
    z = [x / temperature for x in s]
    top = max(z)
    if EXP_FIXED[0] <= top <= EXP_FIXED[1]:  # add up directly, as the lesson does
        log_total = math.log(math.fsum(math.exp(x) for x in z))
    else:  # log-sum-exp: the total's logarithm without computing e**z
        log_total = top + math.log(math.fsum(math.exp(x - top) for x in z))
    products = [w * x for w, x in zip(weights, v, strict=True)]

    def fixed(x: float) -> str:
        return f"{x:.{decimals}f}"

    return ExplorerNumbers(
        scores=tuple(f"{x:g}" for x in s),
        values=tuple(f"{x:g}" for x in v),
        exponentials=tuple(format_exp(x, decimals) for x in z),
        total=format_exp(log_total, decimals),
        weights=tuple(fixed(w) for w in weights),
        weight_fractions=tuple(weights),
        weight_sum=fixed(math.fsum(weights)),
        products=tuple(fixed(p) for p in products),
        output=fixed(math.fsum(products)),
        sentence=explain(s, weights, products, names, decimals),
    )


def _number(x: float) -> str:
    """A number for an HTML attribute: integers without ``.0``, as typed in a field."""
    return f"{x:g}" if abs(x) < 1e15 else repr(x)


def _attr(data: object) -> str:
    """``data`` as JSON, escaped for a double-quoted HTML attribute.

    >>> _attr(["a&b", 'say "hi"'])
    '[&quot;a&amp;b&quot;, &quot;say \\\\&quot;hi\\\\&quot;&quot;]'
    """
    return html.escape(json.dumps(data, ensure_ascii=False), quote=True)


def _control(prefix: str, kind: str, i: int, label: str, x: float, slider: tuple) -> str:
    low, high, step = slider
    limit = SCORE_LIMIT if kind == "score" else VALUE_LIMIT
    ident = f"{prefix}-{kind}-{i + 1}"
    return (
        f'<div class="lk-explorer__control">'
        f'<label id="{ident}-label" for="{ident}">{kind.capitalize()} of token {label}</label>'
        f'<input type="range" id="{ident}" data-role="{kind}" data-index="{i}" '
        f'min="{_number(low)}" max="{_number(high)}" step="{_number(step)}" value="{_number(x)}">'
        f'<input type="number" id="{ident}-number" data-role="{kind}" data-index="{i}" '
        f'aria-labelledby="{ident}-label" min="{_number(-limit)}" max="{_number(limit)}" '
        f'step="any" value="{_number(x)}">'
        "</div>"
    )


def _exp_head(temperature: float) -> str:
    return "e^score" if temperature == 1 else f"e^(score ÷ {temperature:g})"


def _check_arguments(trace: SoftmaxTrace, temperature: float, decimals: int) -> None:
    """Raise ValueError, saying what to pass instead, for inputs the explorer can't show."""
    if trace.scale is not None:
        raise ValueError(
            "explorer_html needs an unscaled trace: use softmax_trace(scores, values) and pass "
            f"temperature={trace.scale:g} to explorer_html instead of scale"
        )
    low_t, high_t = TEMPERATURE_RANGE
    if not low_t <= temperature <= high_t:
        raise ValueError(
            f"temperature must be between {low_t:g} and {high_t:g}, got {temperature!r}"
        )
    if not 0 <= decimals <= 10:
        raise ValueError(f"decimals must be a whole number from 0 to 10, got {decimals!r}")
    for name, xs, limit in (
        ("score", trace.scores, SCORE_LIMIT),
        ("value", trace.values, VALUE_LIMIT),
    ):
        if any(abs(x) > limit for x in xs):
            raise ValueError(f"every {name} must be between {-limit:g} and {limit:g}, got {xs!r}")


def _data_attributes(trace: SoftmaxTrace, temperature: float, decimals: int) -> str:
    """The inputs the script starts from and the reset returns to, as ``data-*`` attributes."""
    return (
        f'data-scores="{_attr(list(trace.scores))}" data-values="{_attr(list(trace.values))}" '
        f'data-temperature="{_number(temperature)}" data-labels="{_attr(list(trace.labels))}" '
        f'data-decimals="{decimals}" data-exp-fixed="{_attr(list(EXP_FIXED))}"'
    )


def _table(n: ExplorerNumbers, labels: list[str], temperature: float) -> str:
    """The table readers without JavaScript see: one row per token, then the totals."""
    rows = "".join(_row(n, i, label) for i, label in enumerate(labels))
    return (
        '<div class="lk-scroll"><table class="lk-explorer__table lk-data-table">'
        "<caption>Softmax step by step: each token's score, e to the power of the score, its "
        "weight (the exponential divided by the total), its value and weight × value; the "
        "output is the sum of the last column.</caption>"
        '<thead><tr><th scope="col">token</th><th scope="col">score</th>'
        f'<th scope="col" data-out="exp-head">{_exp_head(temperature)}</th>'
        '<th scope="col">weight</th><th scope="col">value</th>'
        '<th scope="col">weight × value</th></tr></thead>'
        f"<tbody>{rows}</tbody>"
        '<tfoot><tr><th scope="row">total</th><td></td>'
        f'<td data-out="total">{n.total}</td><td data-out="weight-sum">{n.weight_sum}</td><td></td>'
        f'<td data-out="output">{n.output}</td></tr></tfoot>'
        "</table></div>"
    )


def _row(n: ExplorerNumbers, i: int, label: str) -> str:
    """Token ``i``'s row: score, exponential, weight with its bar, value, weight × value."""
    return (
        "<tr>"
        f'<th scope="row">{label}</th>'
        f'<td data-out="score">{n.scores[i]}</td>'
        f'<td data-out="exp">{n.exponentials[i]}</td>'
        f"{_weight_cell(n.weights[i], n.weight_fractions[i])}"
        f'<td data-out="value">{n.values[i]}</td>'
        f'<td data-out="product">{n.products[i]}</td>'
        "</tr>"
    )


def _weight_cell(weight: str, fraction: float) -> str:
    """A weight as printed, and a bar as long as its unrounded value (hidden from screen readers).

    >>> print(_weight_cell("0.84", 0.84366).replace("><", ">\\n<"))
    <td class="lk-explorer__weight">
    <span data-out="weight">0.84</span>
    <span class="lk-explorer__bar" aria-hidden="true">
    <span style="--lk-w: 0.8437">
    </span>
    </span>
    </td>
    """
    return (
        f'<td class="lk-explorer__weight"><span data-out="weight">{weight}</span>'
        '<span class="lk-explorer__bar" aria-hidden="true">'
        f'<span style="--lk-w: {fraction:.4f}"></span></span></td>'
    )


def _live_region(sentence: str) -> str:
    """The sentence under the table, announced again when the script changes it."""
    return (
        '<p class="lk-explorer__say" data-out="sentence" aria-live="polite">'
        f"{html.escape(sentence)}</p>"
    )


def _controls(
    p: str, labels: list[str], trace: SoftmaxTrace, temperature: float, decimals: int
) -> str:
    """The controls, hidden until the script reveals them: scores, values, temperature, reset.

    ``p`` is the escaped id prefix and ``labels`` the escaped token labels.
    """
    return (
        '<div class="lk-explorer__controls" hidden>'
        '<p class="lk-explorer__hint">Change the numbers and the table follows. Type scores '
        f"from {-SCORE_LIMIT:g} to {SCORE_LIMIT:g}: exponentials too large or too small for "
        f"{decimals} decimals are shown as m × 10^k, and the weights are computed from "
        "e^(score − largest score), which gives the same weights without overflowing.</p>"
        + _control_group("Scores", p, "score", labels, trace.scores, (-10, 10, 0.1))
        + _control_group("Values", p, "value", labels, trace.values, (-100, 100, 1))
        + '<fieldset class="lk-explorer__group"><legend>Temperature</legend>'
        f"{_temperature_control(p, temperature)}"
        '<p class="lk-explorer__hint">The scores are divided by T before softmax: a low T '
        "sharpens the weights, a high T flattens them.</p></fieldset>"
        '<div class="lk-explorer__actions">'
        '<button type="button" class="lk-explorer__reset" data-role="reset">'
        "Reset to the lesson's numbers</button>"
        '<p class="lk-explorer__message" data-out="message" aria-live="polite"></p></div>'
        "</div>"
    )


def _control_group(
    legend: str, p: str, kind: str, labels: list[str], xs: Sequence[float], slider: tuple
) -> str:
    """A fieldset with a slider and a number field for each token's score or value."""
    controls = "".join(
        _control(p, kind, i, label, x, slider)
        for i, (label, x) in enumerate(zip(labels, xs, strict=True))
    )
    return f'<fieldset class="lk-explorer__group"><legend>{legend}</legend>{controls}</fieldset>'


def _temperature_control(p: str, temperature: float) -> str:
    """A slider and a number field for the temperature, within :data:`TEMPERATURE_RANGE`."""
    low_t, high_t = TEMPERATURE_RANGE
    t = _number(temperature)
    return (
        '<div class="lk-explorer__control">'
        f'<label id="{p}-temperature-label" for="{p}-temperature">Temperature T</label>'
        f'<input type="range" id="{p}-temperature" data-role="temperature" '
        f'min="{_number(low_t)}" max="{_number(high_t)}" step="0.1" value="{t}">'
        f'<input type="number" id="{p}-temperature-number" data-role="temperature" '
        f'aria-labelledby="{p}-temperature-label" min="{_number(low_t)}" '
        f'max="{_number(high_t)}" step="any" value="{t}">'
        "</div>"
    )


def explorer_html(
    trace: SoftmaxTrace,
    temperature: float = 1.0,
    decimals: int = 2,
    *,
    id_prefix: str = "lk-softmax",
) -> str:
    """The explorer for ``trace``: its numbers as a table, and controls for the script.

    ``trace`` must be unscaled (from ``softmax_trace`` without ``scale``); the explorer divides
    by ``temperature`` instead. Labels are escaped; ``id_prefix`` keeps ids unique on a page.
    The pieces, in page order: the box with its data attributes, the table, the sentence (a live
    region), and the hidden controls.

    >>> from lessonkit.lab.trace import softmax_trace
    >>> page = explorer_html(softmax_trace([3, 1, 0], [10, 20, 30]))
    >>> page.count('type="range"'), page.count('type="number"'), 'hidden>' in page
    (7, 7, True)
    """
    _check_arguments(trace, temperature, decimals)
    n = explorer_numbers(
        trace.scores, trace.values, temperature, labels=trace.labels, decimals=decimals
    )
    p = html.escape(id_prefix, quote=True)
    labels = [html.escape(label) for label in trace.labels]
    return (
        f'<div class="lk-explorer" id="{p}" data-lk-explorer '
        f"{_data_attributes(trace, temperature, decimals)}>"
        f"{_table(n, labels, temperature)}"
        f"{_live_region(n.sentence)}"
        f"{_controls(p, labels, trace, temperature, decimals)}"
        "</div>"
    )
