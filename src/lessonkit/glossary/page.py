"""The glossary page: Markdown from the glossary, its "used on" lists filled in once every page
is converted. All but the headings is raw HTML, so no term is linked on it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from html.parser import HTMLParser
from typing import TypeVar

from lessonkit.glossary.terms import Glossary

K = TypeVar("K")
INTRO = (
    "Short definitions of the words the lessons use. In a lesson, the first use of each word "
    "links here: hover over it, focus it or tap it to read its definition in place."
)


PLACEHOLDER = re.compile(r"<!-- lk-used-on:(.*?) -->")
"""Where a term's "used on" list goes in the page."""


def page_markdown(glossary: Glossary, title: str = "Glossary", intro: str = INTRO) -> str:
    """The page's Markdown: an h1, an intro, then per term, alphabetically, its heading,
    definition, aliases, related terms and a "used on" placeholder.

    >>> from lessonkit.glossary.terms import Glossary, Term
    >>> g = Glossary([Term("token", "A piece of *text*.", aliases=("sub-word",),
    ...                    related=("KV cache",)), Term("KV cache", "Stored keys.")])
    >>> print(page_markdown(g, intro="Words."))
    # Glossary
    <BLANKLINE>
    <p>Words.</p>
    <BLANKLINE>
    ## KV cache {#kv-cache}
    <BLANKLINE>
    <div class="lk-entry">
    <p>Stored keys.</p>
    <!-- lk-used-on:kv-cache -->
    </div>
    <BLANKLINE>
    ## token {#token}
    <BLANKLINE>
    <div class="lk-entry">
    <p>A piece of <em>text</em>.</p>
    <p class="lk-entry__also">Also written: sub-word.</p>
    <p class="lk-entry__related">Related: <a href="#kv-cache">KV cache</a>.</p>
    <!-- lk-used-on:token -->
    </div>
    <BLANKLINE>
    """
    parts = [f"# {title}", f"<p>{html.escape(intro)}</p>"]
    for term in sorted(glossary, key=lambda t: (t.name.casefold(), t.id)):
        lines = [f"<p>{term.html}</p>"]
        if term.aliases:
            also = ", ".join(html.escape(a) for a in term.aliases)
            lines.append(f'<p class="lk-entry__also">Also written: {also}.</p>')
        related = [r for r in (glossary.lookup(name) for name in term.related) if r]
        if related:
            links = ", ".join(f'<a href="#{r.id}">{html.escape(r.name)}</a>' for r in related)
            lines.append(f'<p class="lk-entry__related">Related: {links}.</p>')
        lines.append(f"<!-- lk-used-on:{term.id} -->")
        parts.append(f"## {term.name} {{#{term.id}}}")
        parts.append('<div class="lk-entry">\n' + "\n".join(lines) + "\n</div>")
    return "\n\n".join(parts) + "\n"


def pages_by_term(
    pages: Iterable[tuple[K, str]], terms: Callable[[str], list[str]] | None = None
) -> dict[str, list[K]]:
    """For each term id, the pages whose HTML links it (``terms``: how to find the ids).

    >>> pages_by_term([("a", '<a data-lk-term="token">t</a>'), ("b", "no terms"),
    ...                ("c", '<a data-lk-term="token">t</a><a data-lk-term="trace">r</a>')])
    {'token': ['a', 'c'], 'trace': ['c']}
    """
    used: dict[str, list[K]] = {}
    for page, page_html in pages:
        for term_id in (terms or used_term_ids)(page_html):
            used.setdefault(term_id, []).append(page)
    return used


def used_on_html(pages: Sequence[tuple[str, str]]) -> str:
    """A "Used on" line from ``(title, href)`` pairs.

    >>> used_on_html([("Attention & you", "../attention/")])
    '<p class="lk-entry__used">Used on: <a href="../attention/">Attention &amp; you</a>.</p>'
    >>> used_on_html([])
    '<p class="lk-entry__used">Not used on any page yet.</p>'
    """
    if not pages:
        return '<p class="lk-entry__used">Not used on any page yet.</p>'
    links = ", ".join(
        f'<a href="{html.escape(href)}">{html.escape(title)}</a>' for title, href in pages
    )
    return f'<p class="lk-entry__used">Used on: {links}.</p>'


def fill_used_on(page_html: str, used_on: Mapping[str, Sequence[tuple[str, str]]]) -> str:
    """Replace every placeholder in the rendered page with its term's "used on" line.

    >>> fill_used_on("<p>x</p><!-- lk-used-on:token -->", {"token": [("Lesson", "../l/")]})
    '<p>x</p><p class="lk-entry__used">Used on: <a href="../l/">Lesson</a>.</p>'
    """
    return PLACEHOLDER.sub(lambda m: used_on_html(used_on.get(m[1], [])), page_html)


class _UsedTerms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        term_id = dict(attrs).get("data-lk-term")
        if tag == "a" and term_id:
            self.ids.setdefault(term_id)


def used_term_ids(html: str) -> list[str]:
    """Ids of the terms linked in a page's HTML, in order of first use.

    >>> used_term_ids('<a data-lk-term="token">a</a> <a data-lk-term="vector">b</a>'
    ...               '<a data-lk-term="token">c</a>')
    ['token', 'vector']
    """
    parser = _UsedTerms()
    parser.feed(html)
    return list(parser.ids)
