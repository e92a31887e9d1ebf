"""Serialise a matplotlib figure as small, deterministic SVG to inline in a page.

Text stays text, ids are stable and prefixed, no date; the lab's ``INK`` becomes
``currentColor`` (light and dark mode); the ``<svg>`` carries the alt text.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.layout_engine import LayoutEngine, PlaceHolderLayoutEngine

from lessonkit.lab.figure_style import INK, STYLE

_NO_AUTOLAYOUT = {"figure.autolayout": False, "figure.constrained_layout.use": False}
_SAVE_KEYS = ("svg.fonttype", "svg.hashsalt", "font.family", "font.sans-serif", "font.monospace")
_ID_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_PAGE_STYLE = re.compile(r'\s*<style type="text/css">\*\{[^}]*\}</style>')
_EMPTY_DEFS = re.compile(r"\s*<defs>\s*</defs>")


def to_svg(fig: Figure, alt: str, id_prefix: str) -> str:
    """``fig`` as an ``<svg>`` to inline in a page; ``id_prefix`` (letters, digits, -, _) keeps
    its ids apart.

    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1], color=INK)
    >>> svg = to_svg(fig, 'A rising line, "y = x".', id_prefix="demo")
    >>> svg.startswith('<svg role="img" aria-label="A rising line, &quot;y = x&quot;."')
    True
    >>> 'id="demo-' in svg and ' id="figure_1"' not in svg and "<?xml" not in svg and INK not in svg
    True
    """
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("to_svg needs alt text describing the figure (alt='...')")
    if not isinstance(id_prefix, str) or not _ID_PREFIX.fullmatch(id_prefix):
        raise ValueError(
            f"id_prefix must start with a letter and hold only letters, digits, - and _: "
            f"{id_prefix!r}"
        )
    buffer = io.StringIO()
    with _save_style(), _drawn_once(fig):
        fig.savefig(
            buffer,
            format="svg",
            transparent=True,
            metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
        )
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML declaration and DOCTYPE: inlined in HTML
    svg = _METADATA.sub("", svg)
    svg = _PAGE_STYLE.sub("", svg)  # `*{stroke-linejoin...}` would style the page: on the root
    svg = _EMPTY_DEFS.sub("", svg)
    svg = svg.replace(INK, "currentColor")
    svg = re.sub(r' transform="rotate\(-?0 [^"]*\)"', "", svg)  # identity rotations on text
    svg = re.sub(r' id="([^"]+)"', rf' id="{id_prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{id_prefix}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{id_prefix}-\1"', svg)
    label = html.escape(alt, quote=True)
    root_end = svg.index(">") + 1  # the <svg ...> start tag: no ">" inside its attributes
    attrs = re.sub(r'\s(?:width|height)="[^"]*"', "", svg[len("<svg") : root_end - 1])
    width_pt = float(attrs.split('viewBox="0 0 ')[1].split()[0])
    new_root = (
        f'<svg role="img" aria-label="{label}"{attrs} style="width: 100%; height: auto; '
        f'max-width: {width_pt * 4 / 3:.0f}px; stroke-linejoin: round; stroke-linecap: butt">'
        f"\n <title>{label}</title>"
    )
    if len(svg) > HEAVY:  # thousands of points, an image: a picture of it weighs less
        return new_root + _raster(fig, attrs) + "</svg>\n"
    return new_root + svg[root_end:].rstrip() + "\n"


HEAVY = 200_000  # characters of SVG past which a figure is a PNG inside the same <svg>
# (a scatter plot of 5,000 points is 600 kB of SVG, 100 kB of PNG)


def _raster(fig: Figure, attrs: str) -> str:
    """``fig`` as a PNG ``<image>`` filling the viewBox in ``attrs``: twice the pixels shown, on
    white (its ink does not follow the page's colours)."""
    buffer = io.BytesIO()
    with _save_style():
        fig.savefig(
            buffer, format="png", dpi=2 * 96, facecolor="white", metadata={"Software": None}
        )
    _, _, width, height = attrs.split('viewBox="')[1].split('"')[0].split()
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<image width="{width}" height="{height}" href="data:image/png;base64,{data}"/>'


def _save_style() -> contextlib.AbstractContextManager[None]:
    return mpl.rc_context({key: STYLE[key] for key in _SAVE_KEYS})


@contextmanager
def _drawn_once(fig: Figure) -> Iterator[None]:
    """Save ``fig`` with one draw, not two, when its layout engine (``tight_layout``'s
    placeholder) lays nothing out: 12 ms a heatmap; a cold 200-page build 12.0 s, not 13.5 s
    (``scripts/benchmark.py --pages 200 --kinds synthetic``), same bytes. Not when a
    ``draw_event`` handler would see one draw fewer."""
    engine: LayoutEngine | None = fig.get_layout_engine()
    if not isinstance(engine, PlaceHolderLayoutEngine) or fig.canvas.callbacks.callbacks.get(
        "draw_event"
    ):
        yield
        return
    with mpl.rc_context(_NO_AUTOLAYOUT):
        fig.set_layout_engine(None)
        try:
            yield
        finally:
            fig.set_layout_engine(engine)
