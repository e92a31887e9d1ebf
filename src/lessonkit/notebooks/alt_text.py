"""Alt text for a matplotlib figure whose author wrote none (ordinary notebooks don't).

Per panel: the kind of plot, its title, the axes' labels and ranges, the legend's series. It
starts with :data:`GENERATED`, so a reader knows no person wrote it.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.plot([0, 10], [-1, 1], label="sin"), ax.plot([0, 10], [1, -1], label="cos")
>>> _ = ax.set(title="Waves", xlabel="time (s)", ylabel="amplitude"), ax.legend()
>>> print(describe(fig))
Generated description: a line plot of 2 lines titled "Waves"; x axis "time (s)" from 0 to \
10; y axis "amplitude" from -1 to 1; series: sin, cos.
>>> plt.close(fig)
"""

from __future__ import annotations

import itertools
import math
from typing import Any

GENERATED = "Generated description: "


def describe(figure: Any) -> str:
    """The generated alt text for ``figure``."""
    panels = [_panel(ax) for ax in figure.get_axes() if not hasattr(ax, "_colorbar")]
    title = figure._suptitle.get_text() if getattr(figure, "_suptitle", None) else ""
    head = f'a figure titled "{title}"' if title else "a figure"
    if not panels:
        return f"{GENERATED}{head} with no plot."
    if len(panels) == 1:
        text = panels[0] if not title else f"{head}: {panels[0]}"
    else:
        listed = "; ".join(f"({n}) {p}" for n, p in enumerate(panels, 1))
        text = f"{head} of {len(panels)} panels: {listed}"
    return f"{GENERATED}{text}."


def _panel(ax: Any) -> str:
    parts = [_kind(ax) or "an empty plot"]
    if title := ax.get_title():
        parts[0] += f' titled "{title}"'
    if _kind(ax) and not ax.images and not _is_pie(ax):
        (x0, x1), (y0, y1) = _ranges(ax)
        parts.append(_axis("x", ax.get_xlabel(), x0, x1, ax.get_xscale(), _categories(ax)))
        parts.append(_axis("y", ax.get_ylabel(), y0, y1, ax.get_yscale()))
    legend = ax.get_legend()
    if legend is not None and (names := [t.get_text() for t in legend.get_texts()]):
        parts.append("series: " + ", ".join(names))
    return "; ".join(parts)


def _kind(ax: Any) -> str:
    """What is drawn on ``ax``, with how much of it, e.g. ``a scatter plot of 5,000 points``."""
    kinds = []
    if ax.images:
        rows, cols = ax.images[0].get_array().shape[:2]
        kinds.append(f"an image of {rows} × {cols} values")
    bars = [c for c in ax.containers if type(c).__name__ == "BarContainer"]
    for container in bars:
        kind = "histogram" if _adjacent(container.patches) else "bar chart"
        count = len(container.patches)
        kinds.append(f"a {kind} of {count} {'bins' if kind == 'histogram' else 'bars'}")
    for collection in ax.collections:
        name = type(collection).__name__
        if name == "PathCollection":
            kinds.append(f"a scatter plot of {len(collection.get_offsets()):,} points")
        elif name == "QuadMesh":
            kinds.append("a color mesh")
        elif name in ("PolyCollection", "FillBetweenPolyCollection"):
            kinds.append("a filled area")
    if _is_pie(ax):
        kinds.append(f"a pie chart of {len(ax.patches)} slices")
    if lines := len(ax.lines):
        kinds.append(f"a line plot of {lines} lines" if lines > 1 else "a line plot")
    return " with ".join(kinds)


def _is_pie(ax: Any) -> bool:
    return bool(ax.patches) and all(type(p).__name__ == "Wedge" for p in ax.patches)


def _adjacent(patches: list[Any]) -> bool:
    """Whether bars touch (a histogram)."""
    edges = [(p.get_x(), p.get_x() + p.get_width()) for p in patches]
    return len(edges) > 1 and all(
        abs(start - end) <= 1e-9 * max(1.0, abs(end))
        for (_, end), (start, _) in itertools.pairwise(edges)
    )


def _ranges(ax: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """The data's x and y extent, or the axes' limits when there is none."""
    box = ax.dataLim
    if box.width >= 0 and box.height >= 0 and all(map(math.isfinite, box.extents)):
        return (box.x0, box.x1), (box.y0, box.y1)
    return ax.get_xlim(), ax.get_ylim()


def _categories(ax: Any) -> list[str]:
    """The names on a categorical x axis (a bar chart of strings)."""
    units = ax.xaxis.get_units()
    return [str(name) for name in getattr(units, "_mapping", {})]


def _axis(name: str, label: str, low: float, high: float, scale: str, cats: list[str] = ()) -> str:
    said = f'{name} axis "{label}"' if label else f"{name} axis"
    if cats:
        return f"{said}: {', '.join(cats)}"
    log = ", log scale" if scale == "log" else ""
    return f"{said} from {low:.3g} to {high:.3g}{log}"
