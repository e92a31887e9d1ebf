"""Report-a-mistake links decode to the mistake form with the page and section filled in."""

from __future__ import annotations

from types import SimpleNamespace as Item
from urllib.parse import parse_qs, urlsplit

from hypothesis import given
from hypothesis import strategies as st

from lessonkit.report.links import (
    QUOTE_LIMIT,
    Report,
    aside_html,
    issue_url,
    page_report,
    section_headings,
    shorten,
    token_headings,
)

REPO = "https://github.com/lessonkit/lessonkit"
PAGE = "https://lessonkit.github.io/lessonkit/transformers-and-attention/"


def fields(url: str) -> dict[str, str]:
    query = parse_qs(urlsplit(url).query, strict_parsing=True)
    assert all(len(v) == 1 for v in query.values()), query
    return {k: v[0] for k, v in query.items()}


def test_page_link_opens_the_mistake_form_with_page_fields() -> None:
    url = issue_url(REPO + "/", "Transformers and attention", PAGE)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "github.com",
        "/lessonkit/lessonkit/issues/new",
    )
    assert fields(url) == {
        "template": "mistake.yml",
        "title": "Mistake: Transformers and attention",
        "page": "Transformers and attention",
        "page-url": PAGE,
    }


def test_section_link_names_the_section_in_field_and_title() -> None:
    url = issue_url(REPO, "Softmax & friends", PAGE, section="Q&A: why #1?")
    got = fields(url)
    assert got["section"] == "Q&A: why #1?"
    assert got["page"] == "Softmax & friends"
    assert got["title"] == "Mistake: Softmax & friends › Q&A: why #1?"


def test_quote_is_carried_and_kept_within_url_limits() -> None:
    short = issue_url(REPO, "T", PAGE, quote="  the weights\n\n  sum to 1 ")
    assert fields(short)["quote"] == "the weights\nsum to 1"
    long_quote = "é" * 10_000  # worst case for percent-encoding: 6 bytes of URL per char
    url = issue_url(REPO, "T", PAGE, quote=long_quote)
    assert len(fields(url)["quote"]) == QUOTE_LIMIT
    assert fields(url)["quote"].endswith("…")
    assert len(url) < 10_000  # below the ~8 KB GitHub accepts, with room for the rest


def test_empty_section_and_quote_are_left_out() -> None:
    assert "section" not in fields(issue_url(REPO, "T", PAGE, section="", quote="  \n"))
    assert "quote" not in fields(issue_url(REPO, "T", PAGE, quote="  \n"))


def test_page_report_has_one_link_per_section_in_order() -> None:
    report = page_report(REPO, "T", PAGE, [("why", "Why it matters"), ("how", "How")])
    assert list(report.sections) == ["why", "how"]
    assert fields(report.sections["how"])["section"] == "How"
    assert "section" not in fields(report.url)


@given(st.text(max_size=3000))
def test_shorten_never_exceeds_the_limit_and_keeps_short_text(text: str) -> None:
    result = shorten(text)
    assert len(result) <= QUOTE_LIMIT
    tidy = "\n".join(" ".join(line.split()) for line in text.splitlines() if line.split())
    if len(tidy) <= QUOTE_LIMIT:
        assert result == tidy


def test_sections_are_the_level_2_headings_of_either_table_of_contents_unescaped() -> None:
    toc = [
        Item(level=1, id="t", title="T", children=[
            Item(level=2, id="qa", title="Q&amp;A", children=[
                Item(level=3, id="sub", title="Sub", children=[])])])
    ]  # fmt: skip
    assert list(section_headings(toc)) == [("qa", "Q&A")]
    tokens = [
        {"level": 1, "id": "t", "name": "T", "children": [
            {"level": 2, "id": "qa", "name": "Q&amp;A", "children": []}]}
    ]  # fmt: skip
    assert list(token_headings(tokens)) == [("qa", "Q&A")]


def test_the_aside_carries_its_links_escaped_for_a_single_quoted_attribute() -> None:
    html = aside_html(Report("https://x/new?a=1&b=2", {"why": "https://x/new?s='w'"}))
    assert html == (
        '<aside class="lk-report" aria-label="Report a mistake" data-lk-report\n'
        '       data-lk-sections=\'{"why": "https://x/new?s=\\u0027w\\u0027"}\'>\n'
        "  <p>Spotted a mistake or something unclear?\n"
        '    <a class="lk-report__link" data-lk-report-link href="https://x/new?a=1&amp;b=2">'
        "Report it on GitHub</a>.</p>\n</aside>"
    )
