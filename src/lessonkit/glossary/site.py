"""The glossary's site-level part, for any host: read the site's glossary, make its page (raw
HTML but the headings, so no term is linked on it), fill its "used on" lists once every page
is converted.

>>> from lessonkit.glossary.terms import Glossary, Term
>>> g = Glossary([Term("token", "t.", line=1), Term("trace", "r.", line=4)], "docs/g.yml")
>>> html, unused = finish_page(g, "<!-- lk-used-on:token -->",
...     [("Lesson", "lesson/", '<a data-lk-term="token">tokens</a>')], lambda url: "../" + url)
>>> html
'<p class="lk-entry__used">Used on: <a href="../lesson/">Lesson</a>.</p>'
>>> [p.format() for p in unused]  # doctest: +ELLIPSIS
["docs/g.yml:4: warning: term 'trace' is used on no page\\n  hint: ..."]
"""

from __future__ import annotations

import html
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.glossary.extension import GlossaryExtension
from lessonkit.glossary.terms import Glossary, load, unused

LINK = "lessonkit-glossary:"
"""Where a term links until the host resolves it per page (a scheme MkDocs' checks pass over)."""


INTRO = (
    "Short definitions of the words the lessons use. In a lesson, the first use of each word "
    "links here: hover over it, focus it or tap it to read its definition in place."
)
PLACEHOLDER = re.compile(r"<!-- lk-used-on:(.*?) -->")  # where a term's "used on" list goes
USED = re.compile(r'<a\s[^>]*?\bdata-lk-term="([^"]+)"')  # a term link, as the extension writes it


def page_markdown(glossary: Glossary, title: str = "Glossary", intro: str = INTRO) -> str:
    """The page's Markdown: an h1, an intro, then each term alphabetically (a test shows it)."""
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


def resolve_links(html: str, glossary_url: str) -> str:
    """Point a converted page's term links at the glossary page, at ``glossary_url`` from it.

    >>> resolve_links('<a href="lessonkit-glossary:#token">tokens</a>', "../glossary/")
    '<a href="../glossary/#token">tokens</a>'
    """
    return html.replace(f'href="{LINK}#', f'href="{glossary_url}#')


def read_glossary(path: Path, where: str) -> Glossary:
    """Load the site's glossary file; LessonError naming ``where`` if it is missing or wrong."""
    try:
        return load(path, where)
    except OSError as error:
        hint = "create the file, or set the glossary option to another file (or to '' for none)"
        message = f"can't read the glossary: {error.strerror}"
        raise LessonError([Problem(message, hint=hint, path=where)]) from None


def finish_page(
    glossary: Glossary,
    page_html: str,
    pages: Iterable[tuple[str, str, str]],
    link_from_glossary: Callable[[str], str],
    terms: Callable[[str], list[str]] | None = None,
) -> tuple[str, list[Problem]]:
    """The glossary page with its "used on" lists filled from ``(title, url, html)`` of the
    other pages, and a warning per unused term."""
    used: dict[str, list[tuple[str, str]]] = {}
    for title, url, content in pages:
        link = (title, link_from_glossary(url))
        for term_id in (terms or used_term_ids)(content):
            used.setdefault(term_id, []).append(link)
    return fill_used_on(page_html, used), unused(glossary, used)


class SiteGlossary(NamedTuple):
    """A site's glossary as a host wires it: the terms, their YAML file and their page."""

    glossary: Glossary
    source: str  # the YAML file in the docs folder (the page's "edit" link points at it)
    page: str  # the generated page in the docs folder
    unused: str = "info"  # how an unused term is reported: info or warn

    @classmethod
    def of_site(cls, settings: Settings, docs_dir: Path, root: Path) -> SiteGlossary | None:
        """The site's glossary by :meth:`Settings.glossary_file`, or None; LessonError if bad."""
        path = settings.glossary_file(docs_dir)
        if path is None:
            return None
        glossary = read_glossary(path, os.path.relpath(path, root))
        source = path.relative_to(docs_dir).as_posix()
        return cls(glossary, source, settings.glossary_page, settings.glossary_unused)

    def extension(self, href: str = f"{LINK}#{{id}}") -> GlossaryExtension:
        """The Markdown extension; its links wait for :func:`resolve_links` by default."""
        return GlossaryExtension(glossary=self.glossary, href=href)

    def link_from(self, page: str) -> str:
        """The glossary page as a relative Markdown link from ``page`` (both in the docs folder).

        >>> from lessonkit.glossary.terms import Glossary
        >>> site = SiteGlossary(Glossary([]), "glossary.yml", "glossary.md")
        >>> site.link_from("index.md"), site.link_from("a/b/c.md")
        ('glossary.md', '../../glossary.md')
        """
        return posixpath.relpath(self.page, posixpath.dirname(page) or ".")

    def page_markdown(self) -> str:
        return page_markdown(self.glossary)
