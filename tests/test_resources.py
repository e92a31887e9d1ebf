"""Go deeper cards come from front matter, escaped, and the lesson shows all of them."""

from html.parser import HTMLParser
from pathlib import Path

import yaml

from lessonkit.resources import check_resources, resources_html

ROOT = Path(__file__).resolve().parents[1]


class _Cards(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cards: list[dict[str, str]] = []
        self._field: str | None = None

    def handle_starttag(self, tag, attrs) -> None:
        cls = dict(attrs).get("class") or ""
        if cls.startswith("lk-resource "):
            self.cards.append({})
        for field in ("kind", "author"):
            if cls == f"lk-resource__{field}":
                self._field = field
        if cls == "lk-resource__title":
            self.cards[-1]["url"] = dict(attrs)["href"]
            self.cards[-1]["target"] = dict(attrs).get("target", "")

    def handle_endtag(self, tag) -> None:
        self._field = None

    def handle_data(self, data) -> None:
        if self._field:
            self.cards[-1][self._field] = data


def test_the_lesson_shows_every_resource_of_its_front_matter(built_site: Path) -> None:
    source = (ROOT / "docs" / "transformers-and-attention.md").read_text()
    meta = yaml.safe_load(source.split("---")[1])
    parser = _Cards()
    parser.feed((built_site / "transformers-and-attention" / "index.html").read_text())
    shown = [(c["kind"], c["author"], c["url"], c["target"]) for c in parser.cards]
    assert shown == [(r["kind"], r["author"], r["url"], "") for r in meta["resources"]]
    assert {c["kind"] for c in parser.cards} == {"Video", "Tool", "Article", "Paper"}


def test_fields_are_escaped() -> None:
    html = resources_html(
        [
            {
                "kind": "Tool",
                "title": "<b>x</b>",
                "author": "a&b",
                "url": "https://x/?a=1&b=2",
                "note": '"quoted"',
            }
        ]
    )
    assert "<b>" not in html and "a&amp;b" in html and "?a=1&amp;b=2" in html


def test_missing_fields_and_bad_urls_are_reported() -> None:
    meta = {"resources": [{"kind": "Video", "title": "T", "url": "ftp://x"}]}
    messages = [p.message for p in check_resources(meta, "---\nresources:\n")]
    assert messages == ["resource 1 lacks author, note", "resource 1 url 'ftp://x' is not http(s)"]


def test_a_card_is_a_list_item_with_kind_linked_title_author_and_note() -> None:
    html = resources_html(
        [
            {
                "kind": "Paper",
                "title": "Attention Is All You Need",
                "author": "Vaswani et al.",
                "url": "https://arxiv.org/abs/1706.03762",
                "note": "The original transformer paper.",
            }
        ]
    )
    assert html == (
        '<ul class="lk-resources">\n'
        '<li class="lk-resource lk-resource--paper"><span class="lk-resource__kind">Paper</span> '
        '<a class="lk-resource__title" href="https://arxiv.org/abs/1706.03762" rel="external">'
        'Attention Is All You Need<span class="lk-visually-hidden"> (another site)</span></a> '
        '<span class="lk-resource__author">Vaswani et al.</span> '
        '<span class="lk-resource__note">The original transformer paper.</span></li>\n</ul>'
    )
