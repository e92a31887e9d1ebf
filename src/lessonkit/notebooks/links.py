"""Links by a notebook's own name: ``x.ipynb`` and ``sub/x.ipynb#Some-Heading``.

Notebooks link by ``.ipynb`` name and Jupyter's anchors (heading text, hyphens for spaces, case
kept); a notebook lesson's page is ``x.md`` with ``toc``'s ids. :func:`resolve` maps one to the
other, so the link works on every host.

>>> resolve("sub/x.ipynb#Some-Heading", ["Intro", "Some Heading"]).target
'sub/x.md#some-heading'
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterable
from typing import NamedTuple
from urllib.parse import unquote

from markdown import Extension, Markdown
from markdown.extensions.toc import slugify, unique
from markdown.preprocessors import Preprocessor


class NotebookLink(NamedTuple):
    """Where a link to a notebook goes: its page (``x.md``) and heading id (``""``: the top)."""

    page: str
    anchor: str = ""

    @property
    def target(self) -> str:
        """The link as a Markdown lesson writes it: ``x.md#id``."""
        return self.page + (f"#{self.anchor}" if self.anchor else "")


def heading_ids(headings: Iterable[str]) -> dict[str, str]:
    """Each heading's Jupyter anchor (its text, spaces as hyphens, case kept) -> its ``toc`` id
    (repeats numbered as ``toc`` does).

    >>> heading_ids(["Sums", "Sums", "Means & Medians"])
    {'Sums': 'sums', 'Means-&-Medians': 'means-medians'}
    """
    used: set[str] = set()
    ids: dict[str, str] = {}
    for heading in headings:
        ids.setdefault(heading.strip().replace(" ", "-"), unique(slugify(heading, "-"), used))
    return ids


def resolve(target: str, headings: Iterable[str] = ()) -> NotebookLink | None:
    """Where ``target`` goes when it names a notebook (else None), given its page's ``headings``;
    an anchor that is no heading's stays as written, for the link check to report.

    >>> resolve("../a.ipynb#Means-&-Medians", ["Means & Medians"]).target
    '../a.md#means-medians'
    >>> resolve("a.ipynb#means-medians", ["Means & Medians"]).anchor
    'means-medians'
    >>> resolve("a.md#x"), resolve("https://host/a.ipynb")
    (None, None)
    """
    path, _, anchor = target.partition("#")
    if not path.endswith(".ipynb") or "://" in path or path.startswith(("//", "mailto:")):
        return None
    page = path.removesuffix(".ipynb") + ".md"
    if not anchor:
        return NotebookLink(page)
    return NotebookLink(page, heading_ids(headings).get(unquote(anchor)) or anchor)


_TARGET = r"(?P<target>[^\s()<>#]+\.ipynb(?:#[^\s()<>]*)?)"
_LINKS = re.compile(rf"(?P<lead>\]\(\s*<?|^ {{0,3}}\[[^\]]+\]:\s*<?){_TARGET}", re.MULTILINE)
"""An inline link's or a link reference's target that names a notebook."""


def to_pages(markdown: str, page: str = "", notebooks: Collection[str] | None = None) -> str:
    """``markdown`` with each link to a notebook (``x.ipynb#Some-Heading``) made a link to its
    page (``x.md#some-heading``). With ``notebooks`` (the notebook lessons' paths in the docs),
    only links from ``page`` to one of them: another ``.ipynb`` (a page's download) stays.

    >>> to_pages("See [sums](sub/a.ipynb#Means-&-Medians) and [b](b.ipynb).\\n[c]: c.ipynb")
    'See [sums](sub/a.md#means-medians) and [b](b.md).\\n[c]: c.md'
    >>> to_pages("[web](https://host/x.ipynb)")
    '[web](https://host/x.ipynb)'
    >>> to_pages("[a](../a.ipynb) [b](b.ipynb)", "sub/c.md", {"a.ipynb"})
    '[a](../a.md) [b](b.ipynb)'
    """
    if ".ipynb" not in markdown:
        return markdown

    def to_page(m: re.Match[str]) -> str:
        path, _, anchor = unquote(m["target"]).partition("#")
        seen = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        link = resolve(m["target"], [anchor.replace("-", " ")] if anchor else [])
        if link is None or (notebooks is not None and seen not in notebooks):
            return m[0]
        return m["lead"] + link.target

    return _LINKS.sub(to_page, markdown)


class LinksToPages(Extension):
    """Python-Markdown extension: :func:`to_pages` for links to ``notebooks``; ``page(md)`` is the
    path of the page ``md`` converts. Runs after the page's code (else an inline value's column
    would move)."""

    def __init__(self, notebooks: Collection[str], page: Callable[[Markdown], str]) -> None:
        super().__init__()
        self.notebooks, self.page = frozenset(notebooks), page

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_ToPages(md, self), "lessonkit_notebook_links", 28)


class _ToPages(Preprocessor):
    def __init__(self, md: Markdown, links: LinksToPages) -> None:
        super().__init__(md)
        self.links = links

    def run(self, lines: list[str]) -> list[str]:
        text, links = "\n".join(lines), self.links
        if ".ipynb" not in text or not links.notebooks:
            return lines
        return to_pages(text, links.page(self.md), links.notebooks).split("\n")
