"""A causal attention heatmap as an HTML table: numbers for everyone, highlights with a script.

:func:`attention_grid_html` writes one row per token looking back and one column per token it
can look at, each cell holding its weight on a colour from the lesson's heatmap colormap (text
black or white, whichever contrasts more). ``assets/js/51-attention-grid.js`` turns each row's
word into a button: hovering or focusing it highlights the row and the earlier words it attends
to, and the button's description reads out the row's strongest weights.

>>> from lessonkit.lab.attention import causal_mask, softmax
>>> w = softmax(np.where(causal_mask(3), [[1.0, 0, 0], [2, 0, 0], [0, 1, 2]], -np.inf))
>>> print(row_sentence(w, ["the", "cat", "sat"], 2))
“sat” attends most to “sat” (0.67), then “cat” (0.24) and “the” (0.09).
>>> print(row_sentence(w, ["the", "cat", "sat"], 0))
“the” can only attend to itself (1.00).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from numpy.typing import ArrayLike

from lessonkit.lab.attention import checked_weights
from lessonkit.lab.figure_style import HEATMAP_CMAP

__all__ = ["attention_grid_html", "cell_colours", "contrast", "row_sentence"]


def _luminance(rgb: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour with channels 0..1."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG contrast ratio between two sRGB colours (1 to 21).

    >>> round(contrast((0, 0, 0), (1, 1, 1)), 1)
    21.0
    """
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def cell_colours(weight: float) -> tuple[str, str]:
    """Background and text colour (hex) for a cell holding ``weight`` (0 to 1).

    The text is black or white, whichever contrasts more; that is always at least 4.58:1.

    >>> cell_colours(0.0), cell_colours(1.0)
    (('#00224e', '#ffffff'), ('#fee838', '#000000'))
    """
    rgb = mpl.colormaps[HEATMAP_CMAP](float(weight))[:3]
    fg = (0.0, 0.0, 0.0) if contrast(rgb, (0, 0, 0)) >= contrast(rgb, (1, 1, 1)) else (1, 1, 1)
    return mpl.colors.to_hex(rgb), mpl.colors.to_hex(fg)


def _quoted(token: str) -> str:
    return f"“{token.strip() or '␣'}”"


def row_sentence(weights: ArrayLike, tokens: Sequence[str], row: int, decimals: int = 2) -> str:
    """What row ``row`` attends to, itself included: its three largest weights, largest first.

    Words whose weights print the same are named together, not ranked.

    >>> print(row_sentence([[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.2, 0.6]], ["a", "b", "c"], 2))
    “c” attends most to “c” (0.60), then “a” and “b” (0.20 each).
    >>> print(row_sentence([[1, 0, 0], [0.5, 0.5, 0], [0.5, 0.3, 0.2]], ["a", "b", "c"], 2))
    “c” attends most to “a” (0.50), then “b” (0.30) and “c” (0.20).
    >>> print(row_sentence([[1, 0], [0.5, 0.5]], ["a", "b"], 1))
    “b” splits its weight, 0.50 each, between “a” and “b”.
    """
    w = np.asarray(weights, dtype=np.float64)[row, : row + 1]
    me = _quoted(tokens[row])
    if row == 0:
        return f"{me} can only attend to itself ({w[0]:.{decimals}f})."
    printed = [f"{x:.{decimals}f}" for x in w]
    levels = sorted(set(printed), key=float, reverse=True)
    groups = [[_quoted(tokens[j]) for j in range(row + 1) if printed[j] == v] for v in levels]
    if len(groups[0]) > 1:
        split = "weight" if len(groups) == 1 else "most"
        first = f"{me} splits its {split}, {levels[0]} each, between {_series(groups[0])}"
    else:
        first = f"{me} attends most to {groups[0][0]} ({levels[0]})"
    if len(groups) == 1:
        return f"{first}."
    rest = [
        f"{_series(g)} ({v}{' each' if len(g) > 1 else ''})"
        for g, v in zip(groups[1:3], levels[1:3], strict=False)
    ]
    return f"{first}, then {' and '.join(rest)}."


def _series(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def attention_grid_html(
    weights: ArrayLike,
    tokens: Sequence[str],
    *,
    decimals: int = 2,
    caption: str = "",
    id_prefix: str = "lk-attn",
) -> str:
    """A causal attention heatmap table for ``tokens``; ``weights[i, j]`` is row i's weight on j.

    Cells above the diagonal (later tokens) must be 0 and stay empty. Tokens and caption are
    escaped; ``id_prefix`` keeps ids unique on a page.

    >>> from lessonkit.lab.attention import causal_mask, softmax
    >>> w = softmax(np.where(causal_mask(2), [[0.0, 0], [1, 0]], -np.inf))
    >>> page = attention_grid_html(w, ["a", "<b>"])
    >>> page.count('<th scope="row"'), "&lt;b&gt;" in page, "<b>" in page
    (2, True, False)
    """
    n = len(tokens)
    w = checked_weights(weights, n)
    p = html.escape(id_prefix, quote=True)
    names = [html.escape(t.strip() or "␣") for t in tokens]
    head = "".join(f'<th scope="col">{name}</th>' for name in names)
    rows, notes = [], []
    for i, name in enumerate(names):
        cells = []
        for j in range(n):
            if j > i:
                cells.append('<td class="lk-attn__later"></td>')
                continue
            bg, fg = cell_colours(w[i, j])
            cells.append(f'<td style="--lk-bg: {bg}; --lk-fg: {fg}">{w[i, j]:.{decimals}f}</td>')
        top = max(range(i + 1), key=lambda j: (w[i, j], -j))
        rows.append(
            f'<tr data-row="{i}" data-top="{top}">'
            f'<th scope="row" data-note="{p}-note-{i}">{name}</th>{"".join(cells)}</tr>'
        )
        notes.append(f'<span id="{p}-note-{i}">{html.escape(row_sentence(w, tokens, i))}</span>')
    caption_html = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (
        f'<div class="lk-attn" id="{p}" data-lk-attn>'
        f'<div class="lk-scroll"><table class="lk-attn__table lk-data-table">{caption_html}'
        f'<thead><tr><td class="lk-attn__corner"></td>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="lk-attn__focus" data-out="focus" aria-hidden="true" hidden>'
        "Hover over or focus a word on the left to see which words, itself included, it attends "
        "to.</p>"
        f'<div class="lk-attn__notes" hidden>{"".join(notes)}</div>'
        "</div>"
    )
