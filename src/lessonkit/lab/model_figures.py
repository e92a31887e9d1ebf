"""Figures of what the real model (:mod:`lessonkit.lab.model`) does: deterministic, with alt text.

They use the lab's :func:`~lessonkit.lab.figure_style.style` (text in :data:`INK`, cividis heatmaps,
Okabe-Ito lines), so :func:`~lessonkit.execute.svg.to_svg` makes them follow light and dark mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib import ticker
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from lessonkit.lab.figure_style import HEATMAP_CMAP, INK, PALETTE, WIDTH_IN, style
from lessonkit.lab.model import Encoded

__all__ = [
    "attention_from_figure",
    "embedding_map_figure",
    "is_word",
    "similarity_by_layer_figure",
    "strongest_head",
]


def is_word(token: str) -> bool:
    """Whether a token is part of a word: not ``[CLS]``/``[SEP]``, not bare punctuation.

    >>> [is_word(t) for t in ("[CLS]", "river", "##bank", ".", "[SEP]")]
    [False, True, True, False, False]
    """
    return not (token.startswith("[") and token.endswith("]")) and any(c.isalnum() for c in token)


def strongest_head(enc: Encoded, piece: str, toward: str | None = None) -> tuple[int, int, int]:
    """The head giving the largest weight from ``piece`` to another word: ``(layer, head, j)``.

    ``layer`` and ``head`` count from 1; ``j`` is the index of the word it picks. Special tokens,
    punctuation and ``piece`` itself are left out, so the answer is a word of the sentence.
    With ``toward``, only that word counts: the head that looks at it hardest.

    >>> from lessonkit.lab.model import encode
    >>> enc = encode("The bank approved my loan.")
    >>> layer, head, j = strongest_head(enc, "bank", toward="loan")
    >>> enc.tokens[j]
    'loan'
    """
    i = enc.position(piece)
    if toward is not None:
        others = [enc.position(toward)]
    else:
        others = [j for j, t in enumerate(enc.tokens) if j != i and is_word(t)]
    if not others:
        raise ValueError(f"{enc.text!r} has no word besides {piece!r} to look at")
    rows = enc.attention[:, :, i, others]  # (L, n_heads, words)
    layer, head, k = np.unravel_index(int(np.argmax(rows)), rows.shape)
    return int(layer) + 1, int(head) + 1, others[int(k)]


def attention_from_figure(enc: Encoded, piece: str, toward: str | None = None) -> Figure:
    """Heatmap of the weights ``piece`` gives every token: a row per layer, then the top head.

    Each layer's row is the mean of its heads; the last row is the single head that gives the
    largest weight to another word, or to ``toward`` (see :func:`strongest_head`).
    """
    i = enc.position(piece)
    n_layers, n_heads, T, _ = enc.attention.shape
    mean = enc.attention[:, :, i, :].mean(axis=1)  # (L, T): each layer, heads averaged
    layer, head, j = strongest_head(enc, piece, toward)
    rows = np.vstack([mean, enc.attention[layer - 1, head - 1, i]])  # (L + 1, T)
    labels = [f"layer {n + 1}" for n in range(n_layers)] + [f"layer {layer}, head {head}"]
    cmap, norm = mpl.colormaps[HEATMAP_CMAP], Normalize(0.0, 1.0)
    with style():
        fig = Figure(figsize=(WIDTH_IN, 1.3 + 0.34 * len(rows)), layout="constrained")
        ax = fig.add_subplot()
        ax.imshow(rows, cmap=cmap, norm=norm, interpolation="none", aspect="auto")
        ax.axhline(n_layers - 0.5, color=INK, linewidth=2)  # means above, one head below
        for r, row in enumerate(rows):
            for c, w in enumerate(row):
                red, green, blue, _ = cmap(norm(w))
                dark = 0.2126 * red + 0.7152 * green + 0.0722 * blue < 0.45
                ax.text(
                    c,
                    r,
                    f"{w:.2f}".lstrip("0"),
                    ha="center",
                    va="center",
                    fontsize=9 if T <= 10 else 7,
                    color="white" if dark else "black",
                )
        ax.set_xticks(range(T), enc.tokens, rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(len(rows)), labels)
        ax.tick_params(length=0)
        ax.set_title(f'attention from "{piece}"')
        for spine in ax.spines.values():
            spine.set_visible(False)
    target = "another word" if toward is None else f'"{toward}"'
    tops = "; ".join(
        f"layer {n + 1}: {enc.tokens[int(np.argmax(r))]} {r.max():.2f}" for n, r in enumerate(mean)
    )
    fig.alt_text = (  # type: ignore[attr-defined]
        f'Heatmap of the attention "{piece}" gives each token of "{enc.text}" '
        f"({', '.join(enc.tokens)}). One row per layer, averaged over its {n_heads} heads; the "
        f"largest weight in each: {tops}. Last row: layer {layer}, head {head}, the head that "
        f"gives {target} the most weight: "
        f'"{enc.tokens[j]}" gets {enc.attention[layer - 1, head - 1, i, j]:.2f}.'
    )
    return fig


def similarity_by_layer_figure(
    series: Mapping[str, Sequence[float]], what: str, quantity: str = "cosine similarity"
) -> Figure:
    """Line chart of a quantity after each layer (0 = embeddings), one line per series.

    ``quantity`` names what is plotted (the y axis); cosine similarity unless given.

    >>> fig = similarity_by_layer_figure({"a": [1.0, 0.5], "b": [1.0, 0.9]}, "two vectors")
    >>> print(fig.alt_text)
    Line chart of the cosine similarity of two vectors after each layer (0 = before any \
layer). a: 1.00, 0.50. b: 1.00, 0.90.
    >>> print(similarity_by_layer_figure({"c": [-0.11, -0.25]}, '"bank"', "lean").alt_text)
    Line chart of the lean of "bank" after each layer (0 = before any layer). c: -0.11, -0.25.
    """
    lengths = {len(v) for v in series.values()}
    if len(lengths) != 1 or lengths == {0}:
        raise ValueError("every series needs the same, non-zero number of layers")
    x = np.arange(lengths.pop())
    styles = ["-", "--", ":", "-."]
    colours = list(PALETTE.values())
    with style():
        fig = Figure(figsize=(WIDTH_IN, 3.6), layout="constrained")
        ax = fig.add_subplot()
        for k, (name, values) in enumerate(series.items()):
            ax.plot(
                x,
                values,
                marker="o",
                label=name,
                linestyle=styles[k % len(styles)],
                color=colours[k % len(colours)],
            )
        ax.set_xticks(x)
        ax.set_xlabel("after layer (0 = embeddings)")
        ax.set_ylabel(quantity)
        ax.yaxis.set_major_locator(ticker.MaxNLocator(5))
        ax.grid(axis="y")
        fig.legend(loc="outside lower center", ncols=2)
    listed = " ".join(
        f"{name}: {', '.join(f'{v:.2f}' for v in values)}." for name, values in series.items()
    )
    fig.alt_text = (  # type: ignore[attr-defined]
        f"Line chart of the {quantity} of {what} after each layer (0 = before any layer). {listed}"
    )
    return fig


def _label_offsets(
    words: Sequence[tuple[str, tuple[float, float]]], width_pt: float = 330, height_pt: float = 260
) -> list[tuple[float, float]]:
    """Where each word's label goes, in points from its marker: right of it, moved past labels
    already placed that it would overlap (roughly: 5 points per letter, 10 per line), toward
    the middle of the plot so it stays inside.

    >>> _label_offsets([("one", (0.0, 1.0)), ("two", (0.0, 1.0)), ("far", (1.0, 0.0))])
    [(4, 3), (4, -7), (4, 3)]
    >>> _label_offsets([("one", (0.0, 0.0)), ("two", (0.0, 0.0)), ("far", (1.0, 1.0))])
    [(4, 3), (4, 13), (4, 3)]
    """
    xs = [x for _, (x, _) in words]
    ys = [y for _, (_, y) in words]
    sx = width_pt / ((max(xs) - min(xs)) or 1.0)
    sy = height_pt / ((max(ys) - min(ys)) or 1.0)
    placed: list[tuple[float, float, float]] = []  # (left, bottom, right) of each label, points
    offsets = []
    middle = (max(ys) + min(ys)) / 2
    for word, (x, y) in words:
        dy, step = 3, -10 if y > middle else 10
        left, right = x * sx + 4, x * sx + 4 + 5 * len(word)
        while any(
            left < r and other < right and abs(y * sy + dy - b) < 10 for other, b, r in placed
        ):
            dy += step
        placed.append((left, y * sy + dy, right))
        offsets.append((4, dy))
    return offsets


def embedding_map_figure(
    groups: Mapping[str, Sequence[tuple[str, tuple[float, float]]]], kept: float
) -> Figure:
    """Scatter plot of words at 2-D points (e.g. from :func:`lessonkit.lab.embeddings.pca`).

    ``groups`` maps a group's name to its ``(word, (x, y))`` pairs; each group gets its own
    colour and marker. ``kept`` is the share of the vectors' spread the two directions keep,
    which the axes and the alt text state.

    >>> fig = embedding_map_figure({"pets": [("cat", (1.0, 0.5)), ("dog", (0.9, 0.4))]}, 0.25)
    >>> print(fig.alt_text)
    Scatter plot of 2 words' embedding vectors, flattened onto the two directions along which \
they spread most (together 25% of their spread). pets: cat (1.00, 0.50), dog (0.90, 0.40).
    """
    colours = [*PALETTE.values(), INK]
    markers = ["o", "s", "^", "D", "v", "P"]
    with style():
        fig = Figure(figsize=(WIDTH_IN, 4.4), layout="constrained")
        ax = fig.add_subplot()
        for k, (name, members) in enumerate(groups.items()):
            xs, ys = zip(*(point for _, point in members), strict=True)
            ax.scatter(
                xs,
                ys,
                label=name,
                color=colours[k % len(colours)],
                marker=markers[k % len(markers)],
                s=36,
            )
        words = [(word, point) for members in groups.values() for word, point in members]
        for (word, (x, y)), (dx, dy) in zip(words, _label_offsets(words), strict=True):
            ax.annotate(word, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=8)
        ax.set_xlabel("direction 1")
        ax.set_ylabel("direction 2")
        ax.set_xticks([])
        ax.set_yticks([])
        fig.legend(loc="outside lower center", ncols=3)
    n = sum(len(members) for members in groups.values())
    listed = " ".join(
        f"{name}: " + ", ".join(f"{word} ({x:.2f}, {y:.2f})" for word, (x, y) in members) + "."
        for name, members in groups.items()
    )
    fig.alt_text = (  # type: ignore[attr-defined]
        f"Scatter plot of {n} words' embedding vectors, flattened onto the two directions along "
        f"which they spread most (together {kept:.0%} of their spread). {listed}"
    )
    return fig
