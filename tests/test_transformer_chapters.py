"""The chapters on the whole transformer, checked on the built site: each opens with what the
reader will be able to do, ends with a quiz and "Go deeper" links, and prints the numbers the
lab computes (recomputed here with plain numpy, not with the page's code)."""

from __future__ import annotations

import html as htmllib
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from lessonkit.lab.model import config

CHAPTERS = [
    "the-block",
    "queries-keys-values-and-heads",
    "positions",
    "the-output-end",
    "kv-cache",
    "training",
]


class _Tables(HTMLParser):
    """Every table's cells, as text (the parser in test_chapters.py is not importable)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _read(site: Path, slug: str) -> tuple[str, str, list[list[list[str]]]]:
    """A built chapter: its HTML, its article's text, its tables."""
    html = (site / slug / "index.html").read_text(encoding="utf-8")
    article = html[html.index("<article") : html.index("</article>")]
    article = re.sub(r"(?s)<svg.*?</svg>|<[^>]+>", " ", article)
    parser = _Tables()
    parser.feed(html)
    return html, " ".join(htmllib.unescape(article).split()), parser.tables


def _table(tables: list[list[list[str]]], *header: str) -> list[list[str]]:
    """The one table whose header row begins with ``header``."""
    found = [t for t in tables if t and tuple(t[0][: len(header)]) == header]
    assert len(found) == 1, f"expected one table headed {header!r}, found {len(found)}"
    return found[0]


@pytest.mark.parametrize("slug", CHAPTERS)
def test_each_chapter_opens_with_its_goal_and_ends_with_a_quiz_and_links(
    built_site: Path, slug: str
):
    html, prose, _ = _read(built_site, slug)
    lead = prose[prose.index("After this chapter") :][:400] if "After this chapter" in prose else ""
    assert lead.startswith("After this chapter you will be able to"), prose[:300]
    assert prose.index("After this chapter") < 300  # the opening line, after the title
    assert html.count('class="lk-quiz"') >= 3 and "Check yourself" in prose
    assert "Go deeper" in html
    assert "{{" not in html and "[[" not in html and "<style" not in html


def test_the_block_table_counts_parameters_from_the_configuration(built_site: Path):
    cfg = config()
    _, _, tables = _read(built_site, "the-block")
    rows = {r[0]: r for r in _table(tables, "part")[1:]}
    d, f = cfg.d_model, cfg.d_ff
    assert rows["word embeddings"][2] == f"{cfg.vocab_size * d:,}"
    assert rows["attention, per layer"][2] == f"{4 * (d * d + d):,}"
    assert rows["feed-forward, per layer"][2] == f"{2 * d * f + d + f:,}"


def test_the_output_end_tables_are_softmax_and_its_cuts(built_site: Path):
    _, prose, tables = _read(built_site, "the-output-end")
    table = _table(tables, "next word", "score (logit)", "probability")
    logits = np.array([float(r[1]) for r in table[1:-1]])
    e = np.exp(logits - logits.max())
    probs = e / e.sum()
    assert [r[2] for r in table[1:-1]] == [f"{x:.3f}" for x in probs]
    cut = next(t for t in tables if len(t[0]) == 4 and t[0][2].startswith("top-k"))
    k = int(re.search(r"k = (\d+)", cut[0][2])[1])
    p = float(re.search(r"p = ([\d.]+)", cut[0][3])[1])
    order = np.argsort(-probs, kind="stable")
    top_k = np.zeros_like(probs)
    top_k[order[:k]] = probs[order[:k]]
    assert [r[2] for r in cut[1:]] == [f"{x:.3f}" for x in top_k / top_k.sum()]
    n = int(np.searchsorted(np.cumsum(probs[order]), p) + 1)  # fewest words reaching p
    top_p = np.zeros_like(probs)
    top_p[order[:n]] = probs[order[:n]]
    assert [r[3] for r in cut[1:]] == [f"{x:.3f}" for x in top_p / top_p.sum()]
    assert "Temperature never touches attention" in prose
