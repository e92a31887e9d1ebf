"""The walking skeleton: the package imports and the site builds strictly with the lesson."""

from html.parser import HTMLParser
from pathlib import Path

import lessonkit


class _Headings(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.headings: list[tuple[str, str]] = []
        self._open: str | None = None
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in {"h1", "h2"}:
            self._open = tag
            self.headings.append((tag, ""))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            self._open = None
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._open:
            tag, text = self.headings[-1]
            self.headings[-1] = (tag, text + data)
        if self._in_title:
            self.title += data


def test_package_imports_with_a_version() -> None:
    assert lessonkit.__version__.count(".") == 2


def test_lesson_page_has_title_and_the_seed_headings(built_site: Path) -> None:
    html = (built_site / "transformers-and-attention" / "index.html").read_text()
    parser = _Headings()
    parser.feed(html)
    assert parser.title.startswith("Transformers and attention")
    h2 = [text.strip().rstrip("¶").strip() for tag, text in parser.headings if tag == "h2"]
    for heading in [
        "What it is",
        "Why it matters",
        "A worked example",
        "A trace with small numbers",
        "Trade-offs and limits",
        "A second example: where attention does not help",
        "Common mistake",
        "The math, when you are ready",
    ]:
        assert heading in h2


def test_lessonkit_assets_are_linked_once_not_inlined(built_site: Path) -> None:
    html = (built_site / "transformers-and-attention" / "index.html").read_text()
    assert html.count("assets/lessonkit/lessonkit.css") == 1
    assert html.count("assets/lessonkit/lessonkit.js") == 1
    assert (built_site / "assets" / "lessonkit" / "lessonkit.js").is_file()
