"""The glossary page: Markdown from the glossary, its "used on" lists filled in once every page
is converted. All but the headings is raw HTML, so no term is linked on it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from lessonkit.glossary.terms import Glossary

INTRO = (
    "Short definitions of the words the lessons use. In a lesson, the first use of each word "
    "links here: hover over it, focus it or tap it to read its definition in place."
)
PLACEHOLDER = re.compile(r"<!-- lk-used-on:(.*?) -->")  # where a term's "used on" list goes
USED = re.compile(r'<a\s[^>]*?\bdata-lk-term="([^"]+)"')  # a term link, as the extension writes it


def page_markdown(glossary: Glossary, title: str = "Glossary", intro: str = INTRO) -> str:
    """The page's Markdown: an h1, an intro, then each term alphabetically.

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


def fill_used_on(page_html: str, used_on: Mapping[str, Sequence[tuple[str, str]]]) -> str:
    """Replace each placeholder in the rendered page with its term's ``(title, href)`` links.

    >>> fill_used_on("<!-- lk-used-on:token -->", {"token": [("Attention & you", "../a/")]})
    '<p class="lk-entry__used">Used on: <a href="../a/">Attention &amp; you</a>.</p>'
    >>> fill_used_on("<!-- lk-used-on:token -->", {})
    '<p class="lk-entry__used">Not used on any page yet.</p>'
    """

    def used_on_html(m: re.Match[str]) -> str:
        pages = used_on.get(m[1], [])
        if not pages:
            return '<p class="lk-entry__used">Not used on any page yet.</p>'
        links = (f'<a href="{html.escape(href)}">{html.escape(title)}</a>' for title, href in pages)
        return f'<p class="lk-entry__used">Used on: {", ".join(links)}.</p>'

    return PLACEHOLDER.sub(used_on_html, page_html)


def used_term_ids(page_html: str) -> list[str]:
    """Ids of the terms linked in a page's HTML, in order of first use.

    >>> used_term_ids('<a data-lk-term="token">a</a> <a class="x" data-lk-term="vector">b</a>'
    ...               '<a data-lk-term="token">c</a> <span data-lk-term="no">')
    ['token', 'vector']
    """
    return list(dict.fromkeys(USED.findall(page_html)))
