"""The glossary's site-level part, for any host: read the site's glossary, finish its page.

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

import os
import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.glossary import page
from lessonkit.glossary.extension import GlossaryExtension
from lessonkit.glossary.terms import Glossary, load, unused

LINK = "lessonkit-glossary:"
"""Where a term links until the host resolves it per page (a scheme MkDocs' checks pass over)."""


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
    for title, url, html in pages:
        link = (title, link_from_glossary(url))
        for term_id in (terms or page.used_term_ids)(html):
            used.setdefault(term_id, []).append(link)
    return page.fill_used_on(page_html, used), unused(glossary, used)


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
        return page.page_markdown(self.glossary)
