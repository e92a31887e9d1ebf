"""Figures: alt text from the data, and SVG that is deterministic, themable and inlinable."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from lessonkit.execute.svg import to_svg
from lessonkit.lab.attention import causal_mask, multi_head_attention, softmax
from lessonkit.lab.figures import (
    INK,
    attention_heatmap,
    cost_curve,
    softmax_bars,
    token_pieces_figure,
)
from lessonkit.lab.model_figures import embedding_map_figure
from lessonkit.lab.trace import softmax_trace

SVG = "{http://www.w3.org/2000/svg}"
TOKENS = ["The", " cat", " sat", " on", " the", " mat"]


def six_token_weights(causal: bool = True) -> np.ndarray:
    rng = np.random.default_rng(7)
    x, weights = rng.normal(size=(6, 8)), rng.normal(size=(4, 8, 8))
    return multi_head_attention(x, *weights, n_heads=1, causal=causal)[1][0]


FIGURES: dict[str, Callable[[], Figure]] = {
    "bars": lambda: softmax_bars(softmax_trace([3, 1, 0], [10, 20, 30])),
    "heatmap": lambda: attention_heatmap(six_token_weights(), TOKENS),
    "cost": lambda: cost_curve(1000),
    "tokens": lambda: token_pieces_figure("How many r letters are in strawberry?"),
    "embedding-map": lambda: embedding_map_figure(
        {
            "pets": [("cat", (-0.4, -0.2)), ("dog", (-0.42, -0.1)), ("cow", (-0.41, -0.1))],
            "numbers": [("two", (0.5, -0.4)), ("three", (0.6, -0.5))],
        },
        0.23,
    ),
}


@pytest.fixture(scope="module", params=sorted(FIGURES))
def rendered(request: pytest.FixtureRequest) -> tuple[str, Figure, str]:
    fig = FIGURES[request.param]()
    return request.param, fig, to_svg(fig, fig.alt_text, id_prefix=f"fig-{request.param}")


def test_every_figure_has_alt_text_in_its_svg(rendered: tuple[str, Figure, str]) -> None:
    _, fig, svg = rendered
    assert isinstance(fig.alt_text, str) and len(fig.alt_text) > 40
    root = ET.fromstring(svg)
    assert root.get("role") == "img"
    assert root.get("aria-label") == fig.alt_text
    assert root[0].tag == f"{SVG}title" and root[0].text == fig.alt_text


def test_alt_text_is_written_from_the_data() -> None:
    t = softmax_trace([3, 1, 0], [10, 20, 30])
    assert all(f"{w:.2f}" in softmax_bars(t).alt_text for w in t.weights)
    w = six_token_weights()
    alt = attention_heatmap(w, TOKENS).alt_text
    for i, j in enumerate(np.argmax(w, axis=1)):
        assert f"{TOKENS[i].strip()} → {TOKENS[j].strip()} {w[i, j]:.2f}" in alt
    assert f"{1000**2:,}" in cost_curve(1000).alt_text
    assert '"str", "aw", "berry"' in token_pieces_figure("strawberry").alt_text


def test_svg_is_ready_to_inline_in_html(rendered: tuple[str, Figure, str]) -> None:
    _, _, svg = rendered
    assert svg.startswith("<svg ")
    for unwanted in ("<?xml", "<!DOCTYPE", "<metadata", "dc:date", "Matplotlib v", "*{"):
        assert unwanted not in svg
    root = ET.fromstring(svg)
    assert root.get("width") is None and root.get("height") is None
    assert re.fullmatch(r"0 0 [\d.]+ [\d.]+", root.get("viewBox", ""))
    assert "width: 100%" in root.get("style", "") and "height: auto" in root.get("style", "")
    width_in = float(root.get("viewBox", "").split()[2]) / 72
    assert width_in <= 6


def test_text_stays_text_and_follows_the_page_colour(rendered: tuple[str, Figure, str]) -> None:
    _, _, svg = rendered
    root = ET.fromstring(svg)
    assert root.findall(f".//{SVG}text")
    assert not re.search(r'id="[^"]*DejaVu', svg)  # no glyph outlines
    assert INK not in svg.lower()
    assert "currentColor" in svg


def test_ids_are_prefixed_and_every_reference_resolves(rendered: tuple[str, Figure, str]) -> None:
    name, _, svg = rendered
    ids = re.findall(r' id="([^"]+)"', svg)
    assert ids and all(i.startswith(f"fig-{name}-") for i in ids)
    assert len(ids) == len(set(ids))
    refs = re.findall(r"url\(#([^)]+)\)", svg) + re.findall(r'href="#([^"]+)"', svg)
    assert set(refs) <= set(ids)


def test_two_figures_on_one_page_share_no_ids() -> None:
    make = FIGURES["heatmap"]
    a, b = make(), make()
    ids_a = set(re.findall(r' id="([^"]+)"', to_svg(a, a.alt_text, "first")))
    ids_b = set(re.findall(r' id="([^"]+)"', to_svg(b, b.alt_text, "second")))
    assert ids_a and ids_b and not ids_a & ids_b


def test_same_inputs_give_the_same_bytes_in_process() -> None:
    for make in FIGURES.values():
        first, second = make(), make()
        assert to_svg(first, first.alt_text, "x") == to_svg(second, second.alt_text, "x")


FRESH_PROCESS = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from test_lab_figures import FIGURES
from lessonkit.execute.svg import to_svg
for name in sorted(FIGURES):
    fig = FIGURES[name]()
    print(name, hashlib.sha256(to_svg(fig, fig.alt_text, name).encode()).hexdigest())
"""


def test_same_inputs_give_the_same_bytes_across_fresh_processes() -> None:
    here = os.path.dirname(__file__)
    runs = []
    for seed in ("1", "2"):  # different hash seeds: no dependence on set or dict order
        env = {**os.environ, "PYTHONHASHSEED": seed, "MPLBACKEND": "agg"}
        result = subprocess.run(
            [sys.executable, "-c", FRESH_PROCESS, here],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        runs.append(result.stdout)
    assert runs[0] == runs[1]
    expected = ""
    for name in sorted(FIGURES):
        fig = FIGURES[name]()
        expected += (
            f"{name} {hashlib.sha256(to_svg(fig, fig.alt_text, name).encode()).hexdigest()}\n"
        )
    assert runs[0] == expected


def _pyplot_figures() -> dict[str, Callable[[], Figure]]:
    """Figures as lessons draw them with pyplot, each laid out by ``tight_layout()`` once it is
    drawn (a colorbar, a legend placed at draw time, twin axes with an offset, a polar plot),
    or by a layout engine that lays out at every draw."""
    import matplotlib.pyplot as plt

    def heatmap_with_colorbar() -> Figure:
        fig, ax = plt.subplots(figsize=(3, 3))
        fig.colorbar(ax.imshow(np.random.default_rng(0).random((6, 6))))
        ax.set_title("weights")
        fig.tight_layout()
        return fig

    def legend_and_offsets() -> Figure:
        fig, (ax, other) = plt.subplots(1, 2)
        ax.plot(np.arange(10) + 1e7, label="shifted")
        ax.legend(loc="best")
        other.twinx().plot(np.random.default_rng(1).random(10))
        fig.suptitle("two panels")
        fig.tight_layout()
        return fig

    def polar() -> Figure:
        fig, ax = plt.subplots(subplot_kw={"projection": "polar"})
        ax.plot(np.linspace(0, 6, 50), np.linspace(0, 1, 50))
        fig.tight_layout()
        return fig

    def constrained() -> Figure:
        fig, ax = plt.subplots(layout="constrained")
        ax.bar(["a", "b", "c"], [1, 2, 3])
        return fig

    return {f.__name__: f for f in (heatmap_with_colorbar, legend_and_offsets, polar, constrained)}


@pytest.mark.parametrize("name", sorted(_pyplot_figures()))
def test_a_figure_is_drawn_once_unless_its_layout_engine_lays_out_at_draw_time(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``savefig`` draws a figure with a layout engine twice; after ``tight_layout()`` the
    engine does nothing at draw time, and the figure is drawn once (a small heatmap's SVG costs
    about 40 % less) into the same bytes as two draws give."""
    import matplotlib.pyplot as plt

    from lessonkit.execute import svg as svg_module

    make = _pyplot_figures()[name]
    draws = []
    real_draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, r: (draws.append(1), real_draw(fig, r))[1])
    try:
        once = to_svg(make(), "a figure", "f")
        drawn = len(draws)
        with monkeypatch.context() as twice:
            twice.setattr(svg_module, "_drawn_once", lambda fig: contextlib.nullcontext())
            reference = to_svg(make(), "a figure", "f")
    finally:
        plt.close("all")
    assert once == reference
    assert drawn == (2 if name == "constrained" else 1)


def test_a_figure_moved_by_its_draw_event_or_saved_under_constrained_layout_is_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``draw_event`` handler that moves things (matplotlib's "make room for tick labels"
    recipe) sees both draws, as without lessonkit; a page that turned constrained layout on for
    later figures gets the same bytes, and no error, for one that ``tight_layout()`` laid out."""
    import matplotlib as mpl
    import matplotlib.pyplot as plt

    from lessonkit.execute import svg as svg_module

    def moved_on_draw() -> Figure:
        fig, ax = plt.subplots()
        ax.plot([0, 1])
        fig.tight_layout()
        fig.canvas.mpl_connect("draw_event", lambda event: fig.subplots_adjust(left=0.3))
        return fig

    def colorbar_then_constrained() -> Figure:
        fig, ax = plt.subplots()
        fig.colorbar(ax.imshow([[0.0, 1.0], [1.0, 0.0]]))
        fig.tight_layout()
        mpl.rcParams["figure.constrained_layout.use"] = True  # for the page's later figures
        return fig

    for make in (moved_on_draw, colorbar_then_constrained):
        with mpl.rc_context():
            once = to_svg(make(), "a figure", "f")
        with mpl.rc_context(), monkeypatch.context() as twice:
            twice.setattr(svg_module, "_drawn_once", lambda fig: contextlib.nullcontext())
            reference = to_svg(make(), "a figure", "f")
        plt.close("all")
        assert once == reference, make.__name__


def test_six_token_heatmap_is_small() -> None:
    fig = FIGURES["heatmap"]()
    assert len(to_svg(fig, fig.alt_text, "h").encode()) < 20_000


def _heatmap_pixels(svg: str) -> np.ndarray:
    data = re.search(r'href="data:image/png;base64,([^"]+)"', svg)
    assert data, "the heatmap embeds its cells as one small image"
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data.group(1)))).convert("RGBA"))


def test_masked_cells_are_visibly_distinct() -> None:
    fig = FIGURES["heatmap"]()
    svg = to_svg(fig, fig.alt_text, "h")
    pixels = _heatmap_pixels(svg)
    assert pixels.shape[:2] == (6, 6)  # one pixel per cell: sharp at any size
    alpha = pixels[..., 3]
    mask = causal_mask(6)
    assert np.all(alpha[~mask] == 0)  # masked cells are not coloured ...
    assert np.all(alpha[mask] == 255)
    assert "<pattern" in svg  # ... and a hatch pattern shows through them
    full = attention_heatmap(six_token_weights(causal=False), TOKENS, causal=False)
    full_svg = to_svg(full, full.alt_text, "f")
    assert "<pattern" not in full_svg and np.all(_heatmap_pixels(full_svg)[..., 3] == 255)


def test_heatmap_labels_every_token() -> None:
    fig = FIGURES["heatmap"]()
    texts = [t.text for t in ET.fromstring(to_svg(fig, fig.alt_text, "h")).iter(f"{SVG}text")]
    for token in TOKENS:
        assert texts.count(token.strip()) >= 2  # once per axis


def test_heatmap_refuses_weights_a_causal_model_cannot_have() -> None:
    full = softmax(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="must be 0 above the diagonal"):
        attention_heatmap(full, ["a", "b", "c"], causal=True)
    with pytest.raises(ValueError, match=r"weights must be \(tokens, tokens\)"):
        attention_heatmap(full, ["a", "b"])


def test_alt_text_is_escaped() -> None:
    fig = Figure(figsize=(2, 1))
    fig.add_subplot().plot([0, 1])
    alt = 'Scores <3 & "weights"'
    svg = to_svg(fig, alt, "esc")
    assert html.escape(alt) in svg and alt not in svg
    assert ET.fromstring(svg).get("aria-label") == alt


@pytest.mark.parametrize(
    ("alt", "prefix", "message"),
    [("", "ok", "alt text"), ("A line.", "1st", "id_prefix"), ("A line.", "a b", "id_prefix")],
)
def test_to_svg_rejects_missing_alt_text_and_bad_prefixes(
    alt: str, prefix: str, message: str
) -> None:
    fig = Figure(figsize=(2, 1))
    with pytest.raises(ValueError, match=message):
        to_svg(fig, alt, prefix)


PYPLOT_SCRIPT = """
import matplotlib.pyplot as plt
from lessonkit.execute.svg import to_svg
from lessonkit.lab.figures import INK, style
with style():
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0, 1, 4])
    ax.set_title("squares")
print(plt.get_backend())
print(to_svg(fig, "A curve of squares.", "py"))
"""


def test_to_svg_serialises_a_pyplot_figure_without_a_window() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"MPLBACKEND", "DISPLAY"}}
    result = subprocess.run(
        [sys.executable, "-c", PYPLOT_SCRIPT], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    backend, svg = result.stdout.split("\n", 1)
    assert backend.lower() == "agg"
    root = ET.fromstring(svg)
    assert root.get("aria-label") == "A curve of squares."
    assert "currentColor" in svg and INK not in svg
    assert any(t.text == "squares" for t in root.iter(f"{SVG}text"))


def test_the_figure_style_is_one_however_a_lesson_reaches_it() -> None:
    import matplotlib as mpl

    from lessonkit.lab import figure_style, figures

    assert figures.style is figure_style.style
    assert figures.STYLE == figure_style.STYLE
    with figures.style():
        assert mpl.rcParams["text.color"] == INK
