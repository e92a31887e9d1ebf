"""The lesson's figures, drawn with matplotlib.

Each ``*_figure``-style function returns a :class:`matplotlib.figure.Figure` with an ``alt_text``
attribute written from its data. Text, ticks and spines are drawn in :data:`INK`, which the page
serialiser (:mod:`lessonkit.execute.svg`) turns into ``currentColor``; data colours
(:data:`PALETTE`, cividis) read on white and on Material's dark slate.

>>> from lessonkit.lab.trace import softmax_trace
>>> softmax_bars(softmax_trace([3, 1, 0], [10, 20, 30])).alt_text.startswith("Two bar charts")
True
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib import ticker
from matplotlib.colors import Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle
from numpy.typing import ArrayLike

from lessonkit.lab.attention import causal_mask, checked_weights
from lessonkit.lab.cost import comparisons, doubling_ratio, ratio_text
from lessonkit.lab.figure_style import HEATMAP_CMAP, INK, PALETTE, STYLE, WIDTH_IN, style
from lessonkit.lab.tokens import token_ids, token_pieces
from lessonkit.lab.trace import SoftmaxTrace

__all__ = [  # with the style's names, which lessons may import from here too
    "INK",
    "PALETTE",
    "STYLE",
    "attention_heatmap",
    "cost_curve",
    "softmax_bars",
    "style",
    "token_pieces_figure",
]


def _new_figure(height_in: float, layout: str | None = "constrained") -> Figure:
    return Figure(figsize=(WIDTH_IN, height_in), layout=layout)


def _fmt(x: float) -> str:
    return f"{x:g}"


def softmax_bars(trace: SoftmaxTrace) -> Figure:
    """Two bar charts side by side: the scores, and the weights softmax turns them into.

    >>> from lessonkit.lab.trace import softmax_trace
    >>> print(softmax_bars(softmax_trace([3, 1, 0], [10, 20, 30])).alt_text)
    Two bar charts. Left: scores 3, 1, 0 for tokens 1, 2, 3. Right: the weights softmax gives \
them, 0.84, 0.11, 0.04 (they add up to 1). Token 1 has the highest score and gets the largest \
weight, 0.84.
    """
    scores = trace.scaled_scores
    labels = list(trace.labels)
    x = np.arange(len(labels))
    score_name = "scores" if trace.scale is None else f"scores ÷ {trace.scale:.2f}"
    with style():
        fig = _new_figure(2.8)
        left, right = fig.subplots(1, 2)
        bars = left.bar(x, scores, color=PALETTE["blue"], width=0.6)
        left.bar_label(bars, labels=[f"{s:.2f}".rstrip("0").rstrip(".") for s in scores], padding=2)
        left.set_title(score_name)
        bars = right.bar(x, trace.weights, color=PALETTE["vermillion"], width=0.6)
        right.bar_label(bars, labels=[f"{w:.2f}" for w in trace.weights], padding=2)
        right.set_title("weights (softmax)")
        right.set_ylim(0, 1.15)
        for ax in (left, right):
            ax.set_xticks(x, labels)
            ax.axhline(0, color=INK, linewidth=0.8)
            ax.yaxis.set_major_locator(ticker.MaxNLocator(4))
            ax.margins(y=0.15)
    top = trace.labels[trace.winner]
    fig.alt_text = (  # type: ignore[attr-defined]
        f"Two bar charts. Left: {score_name} {', '.join(_fmt(round(s, 2)) for s in scores)} "
        f"for tokens {', '.join(labels)}. Right: the weights softmax gives them, "
        f"{', '.join(f'{w:.2f}' for w in trace.weights)} (they add up to 1). "
        f"Token {top} has the highest score and gets the largest weight, "
        f"{trace.weights[trace.winner]:.2f}."
    )
    return fig


def _tick_label(token: str) -> str:
    """A token as a tick label: spaces made visible where they would vanish."""
    shown = token.replace("\n", "↵").replace("\t", "⇥")
    return shown.strip() or "␣" * len(shown)


def attention_heatmap(weights: ArrayLike, tokens: Sequence[str], causal: bool = True) -> Figure:
    """A grid of attention weights: row = the token looking, column = the token looked at.

    Cells a causal model cannot use (a token looking ahead) are hatched, not coloured.
    With up to 12 tokens each cell also shows its weight.

    >>> from lessonkit.lab.attention import causal_mask, softmax
    >>> w = softmax(np.where(causal_mask(3), [[1.0, 0, 0], [2, 0, 0], [0, 1, 2]], -np.inf))
    >>> alt = attention_heatmap(w, ["the", "cat", "sat"]).alt_text
    >>> print(alt)  # doctest: +NORMALIZE_WHITESPACE
    Attention heatmap for 3 tokens: the, cat, sat. Row = the token looking, column = the token it
    looks at; cells above the diagonal are hatched because a token cannot look ahead. Strongest
    weight in each row: the → the 1.00; cat → the 0.88; sat → sat 0.67.
    """
    n = len(tokens)
    w = checked_weights(weights, n, causal)
    hidden = ~causal_mask(n) if causal else np.zeros((n, n), dtype=bool)
    labels = [_tick_label(t) for t in tokens]
    cmap = mpl.colormaps[HEATMAP_CMAP]
    norm = Normalize(0.0, 1.0)
    with style():
        side = min(WIDTH_IN, 1.6 + 0.42 * n)
        fig = _new_figure(side)
        ax = fig.add_subplot()
        if causal:  # hatching under the image, seen only through the masked (transparent) cells
            hatch = Rectangle((0, 0), n, n, fill=False, hatch="///", linewidth=0, zorder=0)
            ax.add_patch(hatch).set(edgecolor=INK, alpha=0.5)
        # One small image, one pixel per cell ("none": drawn with sharp edges when scaled up).
        ax.imshow(
            np.ma.masked_array(w, hidden),
            cmap=cmap,
            norm=norm,
            interpolation="none",
            extent=(0, n, n, 0),  # first token at the top, as in a table
            zorder=1,
        )
        centres = np.arange(n) + 0.5
        ax.set_xticks(
            centres,
            labels,
            rotation=45 if max(map(len, labels)) > 3 else 0,
            ha="right" if max(map(len, labels)) > 3 else "center",
            rotation_mode="anchor",
        )
        ax.set_yticks(centres, labels)
        ax.tick_params(length=0)
        ax.set_xlabel("looked at")
        ax.set_ylabel("looking")
        for spine in ax.spines.values():
            spine.set_visible(False)
        if n <= 12:
            for i in range(n):
                for j in range(n):
                    if hidden[i, j]:
                        continue
                    r, g, b, _ = cmap(norm(w[i, j]))
                    dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45
                    ax.text(
                        j + 0.5,
                        i + 0.5,
                        f"{w[i, j]:.2f}",
                        ha="center",
                        va="center",
                        fontsize=10 if n <= 8 else 8,
                        color="white" if dark else "black",
                    )
    best = [int(np.argmax(row)) for row in w]
    rows = "; ".join(f"{labels[i]} → {labels[j]} {w[i, j]:.2f}" for i, j in enumerate(best))
    masked = (
        "cells above the diagonal are hatched because a token cannot look ahead"
        if causal
        else "every token can look at every token"
    )
    fig.alt_text = (  # type: ignore[attr-defined]
        f"Attention heatmap for {n} tokens: {', '.join(labels)}. Row = the token looking, column "
        f"= the token it looks at; {masked}. Strongest weight in each row: {rows}."
    )
    return fig


def cost_curve(max_n: int) -> Figure:
    """Comparisons attention makes for 0..``max_n`` tokens, marking what doubling does.

    >>> print(cost_curve(1000).alt_text)  # doctest: +NORMALIZE_WHITESPACE
    Line chart of attention's cost for 0 to 1,000 tokens: full attention makes n² comparisons,
    causal attention n(n+1)/2. Doubling the input from 500 to 1,000 tokens raises full attention
    from 250,000 to 1,000,000 comparisons (×4) and causal from 125,250 to 500,500 (×3.996).
    """
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 2:
        raise ValueError(f"max_n must be a whole number of tokens >= 2, got {max_n!r}")
    n = np.unique(np.linspace(0, max_n, num=min(max_n + 1, 121)).round().astype(int))
    half = max_n // 2
    with style():
        fig = _new_figure(3.2)
        ax = fig.add_subplot()
        ax.plot(n, [comparisons(int(k)) for k in n], label="full: n²", color=PALETTE["blue"])
        ax.plot(
            n,
            [comparisons(int(k), causal=True) for k in n],
            label="causal: n(n+1)/2",
            color=PALETTE["vermillion"],
            linestyle="--",
        )
        for k in (half, 2 * half):
            c = comparisons(k)
            ax.plot([k, k, 0], [0, c, c], color=INK, linewidth=0.8, linestyle=":")
            ax.plot([k], [c], "o", color=PALETTE["blue"])
        ax.annotate(
            f"×2 tokens\n→ ×{ratio_text(doubling_ratio(half))} comparisons",
            xy=(2 * half, comparisons(2 * half)),
            xytext=(0.05, 0.45),
            textcoords="axes fraction",
            arrowprops={"arrowstyle": "->", "color": INK, "linewidth": 0.8},
        )
        ax.set_xlim(0, max_n * 1.02)
        ax.set_ylim(0, comparisons(max_n) * 1.05)
        ax.xaxis.set_major_locator(ticker.MaxNLocator(5, integer=True))
        ax.xaxis.set_major_formatter(ticker.StrMethodFormatter("{x:,.0f}"))
        ax.yaxis.set_major_locator(ticker.MaxNLocator(5))
        ax.yaxis.set_major_formatter(ticker.EngFormatter(sep=""))
        ax.set_xlabel("tokens (n)")
        ax.set_ylabel("comparisons")
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, 1.0))
    fig.alt_text = (  # type: ignore[attr-defined]
        f"Line chart of attention's cost for 0 to {max_n:,} tokens: full attention makes n² "
        f"comparisons, causal attention n(n+1)/2. Doubling the input from {half:,} to "
        f"{2 * half:,} tokens raises full attention from {comparisons(half):,} to "
        f"{comparisons(2 * half):,} comparisons (×{ratio_text(doubling_ratio(half))}) and causal "
        f"from {comparisons(half, causal=True):,} to {comparisons(2 * half, causal=True):,} "
        f"(×{ratio_text(doubling_ratio(half, causal=True))})."
    )
    return fig


def _shown_piece(piece: str) -> str:
    return piece.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")


def _box_width(shown: str, token_id: int) -> float:
    """Box width in characters: the piece or its id (smaller digits), whichever is wider."""
    return max(len(shown), len(str(token_id)) * 0.8) + 1.0


def token_pieces_figure(text: str, line_chars: int = 36) -> Figure:
    """The tokens of ``text`` as a row of boxes, each with its id below; spaces shown as ``␣``.

    >>> print(token_pieces_figure("strawberry").alt_text)
    The tokenizer (cl100k_base) splits "strawberry" into 3 tokens: "str", "aw", "berry" \
(3.33 characters per token).
    """
    pieces = token_pieces(text)
    if not pieces:
        raise ValueError("token_pieces_figure needs non-empty text")
    ids = token_ids(text)
    # Lay the boxes out in lines of at most `line_chars` characters (monospace: 1 unit = 1 char).
    placed: list[tuple[int, float, str, int]] = []  # (line, x, shown text, id)
    line, x = 0, 0.0
    for piece, tid in zip(pieces, ids, strict=True):
        shown = _shown_piece(piece)
        width = _box_width(shown, tid)
        if x > 0 and x + width > line_chars:
            line, x = line + 1, 0.0
        placed.append((line, x, shown, tid))
        x += width + 0.4
    lines = line + 1
    char_pt = WIDTH_IN * 72 / (line_chars + 1)  # width of one character, in points
    with style():
        fig = _new_figure(0.25 + 0.62 * lines, layout=None)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.set_xlim(-0.5, line_chars + 0.5)
        ax.set_ylim(lines * 1.6 + 0.1, -0.1)
        colours = [PALETTE["blue"], PALETTE["vermillion"], PALETTE["green"]]
        for k, (row, x0, shown, tid) in enumerate(placed):
            width = _box_width(shown, tid)
            y0 = row * 1.6 + 0.1
            colour = colours[k % len(colours)]
            box = FancyBboxPatch(
                (x0, y0),
                width,
                0.9,
                boxstyle="round,pad=0,rounding_size=0.2",
                facecolor=to_rgba(colour, 0.22),  # a tint: the text on it stays readable
                edgecolor=colour,
                linewidth=1.2,
            )
            ax.add_patch(box)
            ax.text(
                x0 + width / 2,
                y0 + 0.47,
                shown,
                ha="center",
                va="center",
                family="monospace",
                fontsize=char_pt / 0.602,  # DejaVu Sans Mono: one character is 0.602 em wide
            )
            ax.text(x0 + width / 2, y0 + 1.2, str(tid), ha="center", va="center", fontsize=10)
    listed = ", ".join(f'"{p}"' for p in pieces[:40]) + (", …" if len(pieces) > 40 else "")
    fig.alt_text = (  # type: ignore[attr-defined]
        f'The tokenizer (cl100k_base) splits "{text}" into {len(pieces)} token'
        f"{'s' if len(pieces) != 1 else ''}: {listed} "
        f"({len(text) / len(pieces):.2f} characters per token)."
    )
    return fig
