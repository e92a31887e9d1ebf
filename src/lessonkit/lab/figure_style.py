"""The lesson figures' style: matplotlib settings, the ink colour, the palette.

Its own module, apart from the figures: the execution machinery draws every page under
:data:`STYLE` (so a page that uses matplotlib depends on this file, and the worker processes
import it before any page runs), and neither should pull in what the figures compute with
(tiktoken for the token figure, the lab's cost and trace modules).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib as mpl
from cycler import cycler

__all__ = ["HEATMAP_CMAP", "INK", "PALETTE", "STYLE", "WIDTH_IN", "style"]

INK = "#20201f"
"""Sentinel colour for text, ticks and spines; the page serialiser makes it ``currentColor``.

It is a near-black no palette uses, so a PNG saved directly still reads on white.
"""

PALETTE = {"blue": "#0072b2", "vermillion": "#d55e00", "green": "#009e73", "purple": "#cc79a7"}
"""Okabe-Ito colours (colour-blind safe) with at least 3:1 contrast on white and on #1e2129."""

HEATMAP_CMAP = "cividis"
"""Perceptually uniform and readable with colour-blindness; weights 0..1 map to dark..light."""

WIDTH_IN = 5.0
"""Figure width in inches: at most ~6 so text stays legible when scaled to a 360 px phone."""

STYLE: dict[str, Any] = {
    "figure.figsize": (WIDTH_IN, 3.2),
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.monospace": ["DejaVu Sans Mono"],
    "font.size": 12,
    "axes.titlesize": 12,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "legend.frameon": False,
    "text.color": INK,
    "axes.labelcolor": INK,
    "axes.titlecolor": INK,
    "axes.edgecolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "grid.color": INK,
    "grid.alpha": 0.2,
    "hatch.color": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=list(PALETTE.values())),
    "image.cmap": HEATMAP_CMAP,
    "svg.fonttype": "none",
    "svg.hashsalt": "lessonkit",
}
"""matplotlib settings every lesson figure uses; wrap pyplot code in :func:`style` to get them."""


@contextmanager
def style() -> Iterator[None]:
    """Apply :data:`STYLE` inside a ``with`` block (for figures drawn with pyplot in a lesson).

    >>> import matplotlib as mpl
    >>> with style():
    ...     mpl.rcParams["text.color"] == INK
    True
    """
    with mpl.rc_context(STYLE):
        yield
