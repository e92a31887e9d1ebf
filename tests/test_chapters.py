"""The chapters around the lesson, checked on the built site: History, Attention in numbers and
the landing page. Numbers are recomputed here independently of the page's own code."""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import math
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
import numpy as np
import pytest
from mkdocs.config import load_config
from scipy.special import softmax as scipy_softmax

from lessonkit.core.source import split_front_matter
from lessonkit.execute.program import parse_program
from lessonkit.lab.cost import doubling_ratio
from lessonkit.notebooks.lesson import lesson_pages, read_page

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
HISTORY = "history/index.html"
NUMBERS = "building-blocks/attention-in-numbers/index.html"
LESSON = "transformers-and-attention/index.html"


_PROSE = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6"}


class _Page(HTMLParser):
    """The parts of a built page these tests read: links, ids, tables, list items, text."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict[str, str]] = []
        self.ids: set[str] = set()
        self.tables: list[list[list[str]]] = []
        self.items: list[str] = []
        self.text: list[str] = []
        self.paragraphs: list[str] = []
        self._para = 0  # depth inside a paragraph, heading or list item of the article
        self._cell: list[str] | None = None
        self._item: list[str] | None = None
        self._in_article = 0
        self._skip = 0  # depth inside a glossary tooltip, whose definition is not page prose

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "article":
            self._in_article += 1
        if self._skip or "lk-term__tip" in a.get("class", "").split():
            self._skip += 1
        if self._in_article and (self._para or tag in _PROSE):
            self._para += 1
        if tag == "a" and "href" in a:
            self.links.append(a)
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "li" and self._in_article:
            self._item = []

    def handle_endtag(self, tag: str) -> None:
        if self._skip:
            self._skip -= 1
        if self._para:
            self._para -= 1
        if tag == "article":
            self._in_article -= 1
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "li" and self._item is not None:
            self.items.append(" ".join("".join(self._item).split()))
            self._item = None

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._cell is not None:
            self._cell.append(data)
        if self._item is not None:
            self._item.append(data)
        if self._in_article:
            self.text.append(data)
        if self._para:
            self.paragraphs.append(data)

    @property
    def prose(self) -> str:
        return " ".join("".join(self.text).split())


def _page(site: Path, path: str) -> _Page:
    page = _Page()
    page.feed((site / path).read_text(encoding="utf-8"))
    return page


def _cells(page: _Page, corner: str) -> list[list[str]]:
    """The cells of the one table whose top-left cell is ``corner``, header row first."""
    found = [t for t in page.tables if t and t[0] and t[0][0] == corner]
    assert len(found) == 1, f"expected one table headed {corner!r}, found {len(found)}"
    return found[0]


def _table(page: _Page, corner: str) -> tuple[list[str], list[str], np.ndarray]:
    """A matrix table: column names, row names and the numbers (``−∞`` read as -inf)."""
    header, *rows = _cells(page, corner)
    numbers = [[-math.inf if c == "−∞" else float(c) for c in row[1:]] for row in rows]
    return header[1:], [row[0] for row in rows], np.array(numbers)


def _url(path: str) -> str:
    return "http://site/" + path.removesuffix("index.html")


def test_the_chapters_exist_and_every_internal_link_between_them_resolves(built_site: Path):
    pages = [HISTORY, NUMBERS, LESSON, "index.html"]
    for path in pages:
        assert (built_site / path).is_file(), f"{path} was not built"
    wanted = {
        (LESSON, HISTORY, "why-long-inputs-cost-more"),
        (LESSON, NUMBERS, ""),
        (NUMBERS, LESSON, ""),
        (HISTORY, LESSON, ""),
    }
    seen = set()
    for path in pages:
        for link in _page(built_site, path).links:
            href = urljoin(_url(path), link["href"])
            parts = urlsplit(href)
            if parts.netloc != "site":
                continue  # external or data: links
            target = parts.path.lstrip("/") + ("index.html" if parts.path.endswith("/") else "")
            assert (built_site / target).is_file(), f"{path} links to missing {link['href']}"
            if parts.fragment:
                ids = _page(built_site, target).ids
                assert parts.fragment in ids, f"{path}: no #{parts.fragment} in {target}"
            seen.add((path, target, parts.fragment))
    assert wanted <= seen, f"missing cross-links: {wanted - seen}"


def test_history_quotes_the_cost_ratio_that_lessonkit_computes(built_site: Path):
    page = _page(built_site, HISTORY)
    table = _cells(page, "tokens")
    assert table[0][1:] == ["comparisons (causal)", "times the row above"]
    lengths = [int(row[0].replace(",", "")) for row in table[1:]]
    for row, n in zip(table[1:], lengths, strict=True):
        assert row[1] == f"{n * (n + 1) // 2:,}"  # 1 + 2 + ... + n, written out here
    for row, before, n in zip(table[2:], lengths, lengths[1:], strict=False):
        assert n == 2 * before
        assert row[2] == f"{doubling_ratio(before, causal=True):.3f}"
        assert abs(float(row[2]) - n * (n + 1) / (before * (before + 1))) < 5e-4
    n = 1_000
    ratio = f"{doubling_ratio(n, causal=True):.3f}"
    assert f"from {n:,} to {2 * n:,} tokens" in page.prose
    assert f"{ratio} times as many" in page.prose
    assert f"exactly {doubling_ratio(n):g} times as many" in page.prose
    assert "Line chart of attention" in (built_site / HISTORY).read_text(encoding="utf-8")


def test_attention_weights_rows_sum_to_one_and_match_an_independent_softmax(built_site: Path):
    page = _page(built_site, NUMBERS)
    _, tokens, q = _table(page, "Q")
    _, _, k = _table(page, "K")
    _, _, v = _table(page, "V")
    scores = q @ k.T / math.sqrt(k.shape[1])
    causal = np.where(np.tril(np.ones((len(tokens),) * 2, dtype=bool)), scores, -np.inf)
    expected = {"weights": scipy_softmax(scores, axis=1)}
    expected["causal weights"] = scipy_softmax(causal, axis=1)
    for corner, want in expected.items():
        columns, rows, weights = _table(page, corner)
        assert columns == rows == tokens
        np.testing.assert_allclose(weights, want, atol=5e-4)  # printed with 3 decimals
    _, _, output = _table(page, "output")
    np.testing.assert_allclose(output, expected["weights"] @ v, atol=5e-4)
    weight_tables = [t for t in page.tables if "weights" in t[0][0]]
    assert len(weight_tables) >= 4, "full, causal and one per head"
    for table in weight_tables:
        for row in table[1:]:
            cells = [float(c) for c in row[1:]]
            assert all(0 <= c <= 1 for c in cells)
            # Each printed weight is off by at most 0.0005, so a row may miss 1 by that much each.
            assert abs(sum(cells) - 1) <= 0.0005 * len(cells), f"{table[0][0]}: {row}"


def _notebook(site: Path) -> nbformat.NotebookNode:
    page = _page(site, NUMBERS)
    (link,) = [a for a in page.links if "download" in a]
    assert link["download"] == "attention-in-numbers.ipynb"
    path = urlsplit(urljoin(_url(NUMBERS), link["href"])).path.lstrip("/")
    notebook = nbformat.reads((site / path).read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(notebook)
    return notebook


def test_the_notebook_holds_exactly_the_pages_code(built_site: Path):
    text = (DOCS / "building-blocks" / "attention-in-numbers.md").read_text(encoding="utf-8")
    body, _, offset = split_front_matter(text)
    steps = parse_program(body, offset).steps
    expected = []
    for step in steps:
        if step.kind == "exec":
            expected.append(step.source)
        elif step.kind == "doctest":
            examples = doctest.DocTestParser().get_examples(step.source)
            expected += [e.source.rstrip("\n") for e in examples]
    notebook = _notebook(built_site)
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert code == expected
    prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "{{" not in prose, "inline values are filled in"
    assert "## More than one head" in prose


def test_the_notebook_runs_on_its_own_and_gives_the_outputs_it_ships(built_site: Path):
    namespace: dict[str, object] = {}  # no `here`, nothing from the build
    cells = [c for c in _notebook(built_site).cells if c.cell_type == "code"]
    for cell in cells:
        tree = ast.parse(cell.source)
        last = tree.body.pop() if isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(tree, "<cell>", "exec"), namespace)
            value = (
                eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
                if last
                else None
            )
        for output in cell.outputs:
            if output.output_type == "execute_result":
                assert repr(value) == output.data["text/plain"], cell.source
            elif output.output_type == "display_data" and "image/svg+xml" in output.data:
                assert output.data["text/plain"], "a figure keeps its alt text"
            elif output.output_type == "display_data":  # printed Markdown or HTML
                assert printed.getvalue() == output.data["text/plain"], cell.source
            else:
                assert printed.getvalue() == output.text, cell.source
    assert sum(len(c.outputs) for c in cells) >= 8


def _chapters_in_nav() -> list[str]:
    """Nav pages that are lessons in docs/ (Markdown or notebooks), but the landing and about
    pages."""
    config = load_config(str(ROOT / "mkdocs.yml"))

    def walk(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                yield from walk(value)
            elif value != "index.md" and not value.startswith("about/") and value in lessons:
                yield value

    lessons, _ = lesson_pages(DOCS)  # a notebook lesson is the page it stands for
    return list(walk(config["nav"]))


def test_the_landing_page_lists_the_chapters_in_nav_order_with_reading_times(built_site: Path):
    chapters = _chapters_in_nav()
    assert chapters[:3] == ["history.md", "embeddings.md", "transformers-and-attention.md"]
    landing = _page(built_site, "index.html")
    lessons, _ = lesson_pages(DOCS)
    listed = []
    for link in landing.links:
        href = urljoin(_url("index.html"), link["href"])
        path = urlsplit(href).path.strip("/")
        chapter = f"{path}.md"
        if chapter in lessons and chapter not in listed and not path.startswith("about/"):
            listed.append(chapter)
    assert listed == chapters
    items = [i for i in landing.items if re.search(r"\d+ min read", i)]
    assert len(items) == len(chapters)
    for item, chapter in zip(items, chapters, strict=True):
        meta = read_page(DOCS, chapter).meta  # a notebook lesson's: its first cell's
        assert item.startswith(meta["title"])
        assert " ".join(meta["description"].split()) in item
        found = re.search(r"(\d+) min read, ([\d,]+) words", item)
        assert found, item
        minutes, words = int(found[1]), int(found[2].replace(",", ""))
        assert minutes == max(1, math.ceil(words / 200))
        # Independent count from the built page: the words of its paragraphs, headings and list
        # items (which also hold a few words the source does not, such as the report link).
        built = _page(built_site, chapter.removesuffix(".md") + "/index.html")
        counted = len(re.findall(r"[\w'’-]+", " ".join(built.paragraphs)))
        assert 0.85 * counted <= words <= 1.05 * counted, (chapter, words, counted)


@pytest.mark.parametrize("path", [HISTORY, NUMBERS])
def test_the_chapters_have_a_title_and_no_raw_inline_values(built_site: Path, path: str):
    html = (built_site / path).read_text(encoding="utf-8")
    assert "{{" not in html and "```" not in html
