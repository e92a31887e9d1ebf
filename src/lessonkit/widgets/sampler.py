"""The sampling explorer: next-token probabilities as a table, plus temperature, top-k and top-p.

:func:`sampler_html` writes the table readers without JavaScript see, computed by
:mod:`lessonkit.lab.sampling`, and hidden controls that ``assets/js/52-sampler.js`` reveals.
The script recomputes with the same rules: ``softmax(logits / T)`` from
``e ** ((logit - largest) / T)``; top-k keeps the k likeliest (ties: the earlier word);
top-p keeps each word whose likelier words' total is below p; the kept ones are rescaled to
add up to 1; numbers print with 3 decimals.

>>> page = sampler_html(["shore", "bank"], [3.1, 2.8])
>>> page.count('type="range"'), "0.574" in page, "0.426" in page
(3, True, True)
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

import numpy as np

from lessonkit.lab.sampling import probabilities, top_k, top_p

__all__ = ["sampler_html", "sampler_numbers"]

DECIMALS = 3


def sampler_numbers(
    logits: Sequence[float], temperature: float = 1.0, k: int | None = None, p: float = 1.0
) -> tuple[list[float], list[float]]:
    """The probabilities, and what is left after top-k (``k=None``: all) then top-p.

    >>> probs, kept = sampler_numbers([2.0, 1.0, 0.0], k=2)
    >>> [round(x, 3) for x in kept]
    [0.731, 0.269, 0.0]
    """
    probs = probabilities(logits, temperature)
    kept = top_k(probs, k) if k is not None else probs
    if p < 1:
        kept = top_p(kept, p)
    return [float(x) for x in probs], [float(x) for x in kept]


def _say(words: Sequence[str], kept: Sequence[float]) -> str:
    n = sum(x > 0 for x in kept)
    best = words[int(np.argmax(kept))]
    which = "1 word is" if n == 1 else f"{n} words are"
    return f"{which} left to draw from; the likeliest is “{best}”."


def _control(p: str, role: str, label: str, low: float, high: float, step: float, x: float) -> str:
    return (
        '<div class="lk-explorer__control">'
        f'<label id="{p}-{role}-label" for="{p}-{role}">{label}</label>'
        f'<input type="range" id="{p}-{role}" data-role="{role}" min="{low:g}" max="{high:g}" '
        f'step="{step:g}" value="{x:g}">'
        f'<input type="number" id="{p}-{role}-number" data-role="{role}" '
        f'aria-labelledby="{p}-{role}-label" min="{low:g}" max="{high:g}" step="{step:g}" '
        f'value="{x:g}">'
        "</div>"
    )


def _cell(x: float, out: str) -> str:
    return (
        f'<td class="lk-explorer__weight"><span data-out="{out}">{x:.{DECIMALS}f}</span>'
        '<span class="lk-explorer__bar" aria-hidden="true">'
        f'<span style="--lk-w: {x:.4f}"></span></span></td>'
    )


def sampler_html(
    words: Sequence[str],
    logits: Sequence[float],
    temperature: float = 1.0,
    *,
    id_prefix: str = "lk-sampler",
) -> str:
    """The explorer for these next-token ``logits``: the table, a sentence, hidden controls."""
    if len(words) != len(logits) or not words:
        raise ValueError(f"need one logit per word: {len(words)} words, {len(logits)} logits")
    probs, kept = sampler_numbers(logits, temperature)
    p = html.escape(id_prefix, quote=True)
    rows = "".join(
        f'<tr><th scope="row">{html.escape(w)}</th><td>{s:g}</td>'
        f"{_cell(probs[i], 'prob')}{_cell(kept[i], 'kept')}</tr>"
        for i, (w, s) in enumerate(zip(words, logits, strict=True))
    )
    data = html.escape(json.dumps({"words": list(words), "logits": list(logits)}), quote=True)
    return (
        f'<div class="lk-explorer" id="{p}" data-lk-sampler="{data}" '
        f'data-temperature="{temperature:g}">'
        '<div class="lk-scroll"><table class="lk-explorer__table lk-data-table">'
        "<caption>Next-token sampling: each word's score, its probability after softmax with "
        "temperature T, and its probability after top-k and top-p cut the tail and rescale."
        "</caption>"
        '<thead><tr><th scope="col">next word</th><th scope="col">score</th>'
        '<th scope="col">probability</th><th scope="col">after top-k and top-p</th></tr>'
        f"</thead><tbody>{rows}</tbody></table></div>"
        '<p class="lk-explorer__say" data-out="sentence" aria-live="polite">'
        f"{html.escape(_say(words, kept))}</p>"
        '<div class="lk-explorer__controls" hidden>'
        '<fieldset class="lk-explorer__group"><legend>Sampling settings</legend>'
        + _control(p, "temperature", "Temperature T", 0.1, 5, 0.1, temperature)
        + _control(p, "k", "Top-k: words kept", 1, len(words), 1, len(words))
        + _control(p, "p", "Top-p: probability kept", 0.05, 1, 0.05, 1)
        + '<p class="lk-explorer__hint">T divides the scores before softmax. Top-k keeps the k '
        "likeliest words; top-p then keeps the fewest likeliest words whose probabilities reach "
        "p. None of this touches attention inside the model.</p></fieldset>"
        '<div class="lk-explorer__actions"><button type="button" class="lk-explorer__reset" '
        'data-role="reset">Reset</button></div>'
        "</div></div>"
    )
