"""The attention grid: a causal heatmap as a table with real numbers and readable colours."""

from __future__ import annotations

import numpy as np
import pytest
from bs4 import BeautifulSoup
from matplotlib.colors import to_rgb

from lessonkit.lab.attention import causal_mask, scaled_dot_product_attention
from lessonkit.widgets.attention_grid import attention_grid_html, cell_colours, contrast

WORDS = ["The", "bank", "of", "the", "river", "<b>"]


def weights(n: int = len(WORDS)) -> np.ndarray:
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=(2, n, 4))
    return scaled_dot_product_attention(q, k, k, mask=causal_mask(n))[1]


def grid() -> BeautifulSoup:
    return BeautifulSoup(attention_grid_html(weights(), WORDS, caption="A & B"), "html.parser")


def test_each_cell_holds_its_weight_and_later_cells_stay_empty() -> None:
    w = weights()
    rows = grid().select("tbody tr")
    assert len(rows) == len(WORDS)
    for i, row in enumerate(rows):
        cells = row.find_all("td")
        seen = [c.get_text() for c in cells[: i + 1]]
        assert seen == [f"{x:.2f}" for x in w[i, : i + 1]]
        later = cells[i + 1 :]
        assert all(c.get_text() == "" and "lk-attn__later" in c["class"] for c in later)
        assert int(row["data-top"]) == int(np.argmax(w[i, : i + 1]))


def test_headers_are_escaped_and_scoped() -> None:
    page = grid()
    assert [th.get_text() for th in page.select("thead th")] == WORDS
    assert all(th["scope"] == "col" for th in page.select("thead th"))
    assert [th.get_text() for th in page.select("tbody th")] == WORDS
    assert all(th["scope"] == "row" for th in page.select("tbody th"))
    assert page.select_one("caption").get_text() == "A & B"
    assert "<b>" not in attention_grid_html(weights(), WORDS)


def test_each_row_points_to_a_description_naming_its_strongest_weight() -> None:
    w = weights()
    page = grid()
    notes = page.select_one(".lk-attn__notes")
    assert notes.has_attr("hidden")  # read through aria-describedby, shown by the script
    for i, th in enumerate(page.select("tbody th")):
        note = page.select_one(f'[id="{th["data-note"]}"]')
        top = int(np.argmax(w[i, : i + 1]))
        assert note.get_text().startswith(f"“{WORDS[i]}”")
        strongest = "itself" if i == 0 else f"“{WORDS[top]}”"
        assert f"{strongest} ({w[i, top]:.2f})" in note.get_text()
    assert page.select_one('[data-out="focus"]').has_attr("hidden")


@pytest.mark.parametrize("weight", np.linspace(0, 1, 101))
def test_cell_text_contrasts_with_its_colour_at_least_4_5_to_1(weight: float) -> None:
    bg, fg = cell_colours(weight)
    assert contrast(to_rgb(bg), to_rgb(fg)) >= 4.5


def test_weights_that_look_ahead_or_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="causal_mask"):
        attention_grid_html(np.full((2, 2), 0.5), ["a", "b"])
    with pytest.raises(ValueError, match=r"\(tokens, tokens\) = \(3, 3\)"):
        attention_grid_html(weights(2), ["a", "b", "c"])
