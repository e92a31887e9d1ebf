"""The transformer block, from a model's configuration: its parts, their sizes, its diagram.

Everything is read from :func:`lessonkit.lab.model.config` (all-MiniLM-L6-v2, a BERT-style
encoder), so a different configuration gives a different table and a different drawing.

>>> cfg = config()
>>> counts = parameter_counts(cfg)
>>> counts["one layer"], counts["all layers"]
(1774464, 10646784)
>>> total = sum(counts[k] for k in ("embeddings", "all layers", "pooler"))
>>> total == sum(w.size for w in weights().values())  # every number in the file is counted
True
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import matplotlib.patches as mpatches
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import NDArray

from lessonkit.lab.attention import scaled_dot_product_attention
from lessonkit.lab.figure_style import INK, PALETTE
from lessonkit.lab.model import Encoded, MiniLMConfig, config, gelu, layer_norm, weights

__all__ = [
    "LayerParts",
    "block_diagram",
    "layer_parts",
    "parameter_counts",
    "stream_changes",
]

Array = NDArray[np.float64]


def parameter_counts(cfg: MiniLMConfig) -> dict[str, int]:
    """How many learned numbers each part holds, from the configuration alone.

    >>> c = parameter_counts(config())
    >>> c["attention"], c["feed-forward"], c["word embeddings"]
    (591360, 1181568, 11720448)
    """
    d, f = cfg.d_model, cfg.d_ff
    norm = 2 * d  # a layer norm's gain and shift
    counts = {
        "word embeddings": cfg.vocab_size * d,
        "position embeddings": cfg.max_positions * d,
        "segment embeddings and their norm": 2 * d + norm,
        "attention": 4 * (d * d + d),  # W_Q, W_K, W_V, W_O and their biases
        "feed-forward": d * f + f + f * d + d,  # expand, then contract, with biases
        "two layer norms": 2 * norm,
        "pooler": d * d + d,
    }
    counts["embeddings"] = (
        counts["word embeddings"]
        + counts["position embeddings"]
        + counts["segment embeddings and their norm"]
    )
    counts["one layer"] = counts["attention"] + counts["feed-forward"] + counts["two layer norms"]
    counts["all layers"] = cfg.n_layers * counts["one layer"]
    return counts


@dataclass(frozen=True)
class LayerParts:
    """One layer's steps for every token, each ``(T, d_model)`` but ``hidden`` ``(T, d_ff)``."""

    before: Array  # the layer's input
    attention: Array  # what attention adds (after its output projection W_O)
    after_attention: Array  # layer_norm(before + attention)
    hidden: Array  # the feed-forward step's expanded units, after GELU
    feed_forward: Array  # what the feed-forward step adds (after contracting)
    after: Array  # layer_norm(after_attention + feed_forward): the layer's output


def _linear(x: Array, name: str) -> Array:
    w = weights()
    return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]


def layer_parts(x: Array, layer: int) -> LayerParts:
    """Run layer ``layer`` (0-based) on ``x`` and keep every step, not only its output.

    It is the same arithmetic as :func:`lessonkit.lab.model.encode`, written out step by step:

    >>> from lessonkit.lab.model import encode
    >>> e = encode("The bank of the river was muddy.")
    >>> parts = layer_parts(e.hidden[0], 0)
    >>> bool(np.allclose(parts.after, e.hidden[1]))
    True
    >>> parts.hidden.shape
    (10, 1536)
    """
    cfg, w, eps = config(), weights(), config().layer_norm_eps
    T = x.shape[0]
    p = f"encoder.layer.{layer}"
    q, k, v = (_linear(x, f"{p}.attention.self.{n}") for n in ("query", "key", "value"))
    q, k, v = (a.reshape(T, cfg.n_heads, cfg.d_head).transpose(1, 0, 2) for a in (q, k, v))
    heads, _ = scaled_dot_product_attention(q, k, v)  # (n_heads, T, d_head)
    merged = heads.transpose(1, 0, 2).reshape(T, cfg.d_model)  # heads side by side
    a = _linear(merged, f"{p}.attention.output.dense")
    ln = f"{p}.attention.output.LayerNorm"
    mid = layer_norm(x + a, w[f"{ln}.weight"], w[f"{ln}.bias"], eps)
    h = gelu(_linear(mid, f"{p}.intermediate.dense"))
    f = _linear(h, f"{p}.output.dense")
    ln = f"{p}.output.LayerNorm"
    out = layer_norm(mid + f, w[f"{ln}.weight"], w[f"{ln}.bias"], eps)
    return LayerParts(x, a, mid, h, f, out)


def stream_changes(enc: Encoded, piece: str) -> list[dict[str, float]]:
    """Per layer, at token ``piece``: how big each addition is next to the vector it joins.

    ``attention share`` is ``|attention| / |input|``, ``feed-forward share`` is
    ``|feed-forward| / |vector after attention|``; ``kept`` is the cosine between the layer's
    input and output at that token (1 = same direction).

    >>> from lessonkit.lab.model import encode
    >>> rows = stream_changes(encode("The bank of the river was muddy."), "bank")
    >>> len(rows), sorted(rows[0])
    (6, ['attention share', 'feed-forward share', 'kept', 'layer'])
    >>> all(-1 <= r["kept"] <= 1 for r in rows)
    True
    """
    i = enc.position(piece)
    rows = []
    for layer in range(config().n_layers):
        parts = layer_parts(enc.hidden[layer], layer)
        x, out = parts.before[i], parts.after[i]
        rows.append(
            {
                "layer": layer + 1,
                "attention share": float(np.linalg.norm(parts.attention[i]) / np.linalg.norm(x)),
                "feed-forward share": float(
                    np.linalg.norm(parts.feed_forward[i]) / np.linalg.norm(parts.after_attention[i])
                ),
                "kept": float(x @ out / (np.linalg.norm(x) * np.linalg.norm(out))),
            }
        )
    return rows


def _box(ax, y: float, text: str, colour: str, width: float = 0.74, x: float = 0.5) -> None:
    ax.add_patch(
        mpatches.FancyBboxPatch(
            (x - width / 2, y - 0.32),
            width,
            0.64,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=colour,
            alpha=0.22,
            edgecolor=INK,
            linewidth=1,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=11.5)


def _arrow(ax, x0: float, y0: float, x1: float, y1: float) -> None:
    ax.annotate(
        "", xy=(x1, y1), xytext=(x0, y0), arrowprops={"arrowstyle": "->", "color": INK, "lw": 1}
    )


def block_diagram(cfg: MiniLMConfig) -> Figure:
    """The model from token ids to its outputs, every size read from ``cfg``.

    Bottom to top, as the vectors flow: ids, embeddings plus positions, ``n_layers`` copies of
    [attention, add & norm, feed-forward, add & norm], then two ends side by side: this
    encoder's (one vector per token, averaged into a sentence vector) and a left-to-right
    model's (the last token's vector scored against every word of the vocabulary).

    >>> fig = block_diagram(config())
    >>> texts = [t.get_text() for t in fig.axes[0].texts]
    >>> any("× 6 layers" in t for t in texts), any("30,522" in t for t in texts)
    (True, True)
    """
    d, f, h = cfg.d_model, cfg.d_ff, cfg.n_heads
    fig = Figure(figsize=(6.4, 9.4), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, 11.2)
    ax.axis("off")
    steps = [
        (0.0, f"token ids (T numbers, each < {cfg.vocab_size:,})", PALETTE["purple"]),
        (
            1.3,
            f"word embedding ({cfg.vocab_size:,} × {d}) + position ({cfg.max_positions} × {d})"
            "\n→ layer norm: T vectors of " + f"{d}",
            PALETTE["purple"],
        ),
        (
            2.8,
            f"attention: {h} heads of {cfg.d_head}, W_Q W_K W_V W_O ({d} × {d})",
            PALETTE["blue"],
        ),
        (3.9, "add (input + attention) & layer norm", PALETTE["green"]),
        (5.0, f"feed-forward: {d} → {f} → {d}, GELU, each token alone", PALETTE["vermillion"]),
        (6.1, "add (input + feed-forward) & layer norm", PALETTE["green"]),
    ]
    for y, text, colour in steps:
        _box(ax, y, text, colour, width=0.84, x=0.54)
    for (y0, *_), (y1, *_) in itertools.pairwise(steps):
        _arrow(ax, 0.54, y0 + 0.34, 0.54, y1 - 0.34)
    # The residual paths: the input goes around each sub-layer to its "add".
    for y0, y1 in ((2.15, 3.9), (4.45, 6.1)):
        ax.annotate(
            "",
            xy=(0.11, y1),
            xytext=(0.07, y0),
            arrowprops={"arrowstyle": "->", "color": INK, "lw": 1, "linestyle": "--"},
        )
    ax.text(0.045, 4.1, "residual", rotation=90, va="center", ha="center", fontsize=9)
    ax.add_patch(
        mpatches.Rectangle(
            (0.025, 2.15), 0.95, 4.35, fill=False, edgecolor=INK, linewidth=1, linestyle=":"
        )
    )
    ax.text(0.97, 6.75, f"× {cfg.n_layers} layers", ha="right", fontsize=11, fontweight="bold")
    # Two ends: this encoder's, and a left-to-right model's.
    _arrow(ax, 0.54, 6.45, 0.27, 7.65)
    _arrow(ax, 0.54, 6.45, 0.73, 7.65)
    _box(ax, 8.0, f"this encoder:\nT vectors of {d}", PALETTE["blue"], width=0.44, x=0.25)
    _box(ax, 9.4, f"average: one sentence\nvector of {d}", PALETTE["blue"], 0.44, 0.25)
    _arrow(ax, 0.25, 8.34, 0.25, 9.06)
    _box(ax, 8.0, f"left-to-right model:\nlast token's {d}", PALETTE["vermillion"], 0.44, 0.75)
    _box(
        ax,
        9.4,
        f"× unembedding ({d} × {cfg.vocab_size:,}):\nscores over the vocabulary",
        PALETTE["vermillion"],
        0.46,
        0.75,
    )
    _box(ax, 10.7, "softmax → pick the next token", PALETTE["vermillion"], 0.46, 0.75)
    _arrow(ax, 0.75, 8.34, 0.75, 9.06)
    _arrow(ax, 0.75, 9.74, 0.75, 10.36)
    return fig
