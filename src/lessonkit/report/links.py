"""Report-a-mistake links: a new GitHub issue through the ``mistake.yml`` form, prefilled.

GitHub fills a form's fields from the URL query, each named by its ``id`` in
``.github/ISSUE_TEMPLATE/mistake.yml`` (a test keeps the two in step).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from html import escape, unescape
from typing import Any
from urllib.parse import urlencode

TEMPLATE = "mistake.yml"  # in .github/ISSUE_TEMPLATE/
FIELDS = {"page": "page", "url": "page-url", "section": "section", "quote": "quote"}
"""What the link fills -> the ``id`` of that field in the issue form."""
QUOTE_LIMIT = 1500
"""Characters of selected text a link carries (URLs stay far below ~8 KB); as in 40-report.js."""


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` with its whitespace tidied, cut to at most ``limit`` characters with an ellipsis.

    >>> shorten("  attention   weights\\n sum to 1 ")
    'attention weights\\nsum to 1'
    >>> len(shorten("x" * 5000)), shorten("x" * 5000)[-1]
    (1500, '…')
    """
    lines = (" ".join(line.split()) for line in text.strip().splitlines())
    tidy = "\n".join(line for line in lines if line)
    return tidy if len(tidy) <= limit else tidy[: limit - 1].rstrip() + "…"


def issue_url(
    repo_url: str, page_title: str, page_url: str, *, section: str = "", quote: str = ""
) -> str:
    """The URL of a new issue on ``repo_url`` through the mistake form, fields prefilled
    (an empty ``section`` or ``quote`` is left out: the reader sees the form's empty field).

    >>> from urllib.parse import parse_qs, urlsplit
    >>> url = issue_url("https://github.com/o/r", "Attention", "https://x/", section="Why")
    >>> url.split("?")[0], parse_qs(urlsplit(url).query)["title"]
    ('https://github.com/o/r/issues/new', ['Mistake: Attention › Why'])
    """
    params = {
        "template": TEMPLATE,
        "title": f"Mistake: {page_title} › {section}" if section else f"Mistake: {page_title}",
        FIELDS["page"]: page_title,
        FIELDS["url"]: page_url,
    }
    if section:
        params[FIELDS["section"]] = section
    if quote.strip():
        params[FIELDS["quote"]] = shorten(quote)
    return f"{repo_url.rstrip('/')}/issues/new?{urlencode(params)}"


@dataclass(frozen=True)
class Report:
    """What a page's template needs: the page's link, and each h2's by its ``id``."""

    url: str
    sections: Mapping[str, str]


def page_report(
    repo_url: str, page_title: str, page_url: str, headings: Iterable[tuple[str, str]]
) -> Report:
    """Links for a page and each of its ``(id, title)`` section headings.

    >>> r = page_report("https://github.com/o/r", "T", "https://x/t/", [("why", "Why")])
    >>> list(r.sections), "section=Why" in r.sections["why"]
    (['why'], True)
    """
    sections = {
        anchor: issue_url(repo_url, page_title, page_url, section=title)
        for anchor, title in headings
    }
    return Report(issue_url(repo_url, page_title, page_url), sections)


def section_headings(toc: Iterable[Any]) -> Iterator[tuple[str, str]]:
    """``(id, title)`` of every level-2 heading in a MkDocs table of contents (titles unescaped)."""
    for item in toc:
        if item.level == 2:
            yield item.id, unescape(item.title)
        yield from section_headings(item.children)


def token_headings(tokens: Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, str]]:
    """:func:`section_headings` of Python-Markdown's ``md.toc_tokens``."""
    for token in tokens:
        if token["level"] == 2:
            yield token["id"], unescape(token["name"])
        yield from token_headings(token["children"])


def aside_html(report: Report) -> str:
    """The page's "Report a mistake" box; ``40-report.js`` adds the per-section links."""
    sections = json.dumps(dict(report.sections), sort_keys=True)
    for char in "<>&'":  # safe in a single-quoted attribute, as Jinja's tojson
        sections = sections.replace(char, f"\\u{ord(char):04x}")
    link = escape(report.url, quote=True)
    return (
        '<aside class="lk-report" aria-label="Report a mistake" data-lk-report\n'
        f"       data-lk-sections='{sections}'>\n"
        "  <p>Spotted a mistake or something unclear?\n"
        f'    <a class="lk-report__link" data-lk-report-link href="{link}">Report it on GitHub</a>'
        ".</p>\n</aside>"
    )
