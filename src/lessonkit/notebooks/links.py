"""Links by a notebook's own name: ``x.ipynb`` and ``sub/x.ipynb#Some-Heading``.

Notebooks link by ``.ipynb`` name and Jupyter's anchors (heading text, hyphens for spaces, case
kept); a notebook lesson's page is ``x.md`` with ``toc``'s ids. :func:`resolve` maps one to the
other, so the link works on every host.

>>> link = resolve("sub/x.ipynb#Some-Heading", ["Intro", "Some Heading"])
>>> link.target, link.url()
('sub/x.md#some-heading', 'sub/x/#some-heading')
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterable
from typing import NamedTuple
from urllib.parse import unquote

from markdown import Extension, Markdown
from markdown.extensions.toc import slugify as toc_slugify
from markdown.extensions.toc import unique
from markdown.preprocessors import Preprocessor


class NotebookLink(NamedTuple):
    """Where a link to a notebook goes: its page (``x.md``) and heading id (``""``: the top)."""

    page: str
    anchor: str = ""

    @property
    def target(self) -> str:
        """The link as a Markdown lesson writes it: ``x.md#id``."""
        return self.page + (f"#{self.anchor}" if self.anchor else "")

    def url(self, directory_urls: bool = True) -> str:
        """The page's URL from the site's root, as MkDocs makes it.

        >>> NotebookLink("sub/index.md").url(), NotebookLink("a.md", "b").url(False)
        ('sub/', 'a.html#b')
        """
        stem = posixpath.splitext(self.page)[0]
        head, name = posixpath.split(stem)
        if name in ("index", "README"):
            path = f"{head}/" if head else "./"
        else:
            path = f"{stem}/" if directory_urls else f"{stem}.html"
        return path + (f"#{self.anchor}" if self.anchor else "")


def jupyter_anchor(heading: str) -> str:
    """The anchor Jupyter gives a heading: its text, spaces as hyphens, case kept.

    >>> jupyter_anchor("Broadcasting: the rules")
    'Broadcasting:-the-rules'
    """
    return heading.strip().replace(" ", "-")


def heading_ids(
    headings: Iterable[str], slugify: Callable[[str, str], str] = toc_slugify, separator: str = "-"
) -> dict[str, str]:
    """Each heading's Jupyter anchor -> its ``toc`` id (repeats numbered as ``toc`` does).

    >>> heading_ids(["Sums", "Sums", "Means & Medians"])
    {'Sums': 'sums', 'Means-&-Medians': 'means-medians'}
    """
    used: set[str] = set()
    ids: dict[str, str] = {}
    for heading in headings:
        made = unique(slugify(heading, separator), used)
        ids.setdefault(jupyter_anchor(heading), made)
    return ids


def resolve(
    target: str,
    headings: Iterable[str] = (),
    *,
    slugify: Callable[[str, str], str] = toc_slugify,
    separator: str = "-",
) -> NotebookLink | None:
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
    page = path[: -len(".ipynb")] + ".md"
    if not anchor:
        return NotebookLink(page)
    ids = heading_ids(headings, slugify, separator)
    wanted = unquote(anchor)
    return NotebookLink(page, ids.get(wanted) or anchor)


_TARGET = r"(?P<target>[^\s()<>#]+\.ipynb(?:#[^\s()<>]*)?)"
_LINKS = re.compile(rf"(?P<lead>\]\(\s*<?|^ {{0,3}}\[[^\]]+\]:\s*<?){_TARGET}", re.MULTILINE)
"""An inline link's or a link reference's target that names a notebook."""


def to_pages(markdown: str, page: str = "", notebooks: Collection[str] | None = None) -> str:
    """``markdown`` with each link to a notebook (``x.ipynb``, ``x.ipynb#Some-Heading``) made a
    link to its page (``x.md#some-heading``): the id ``toc`` gives the heading the Jupyter
    anchor names (a heading's id does not depend on its hyphens and spaces; a second heading
    of the same text, which ``toc`` numbers, is not told apart). With ``notebooks`` (the
    notebook lessons' paths in the docs), only a link from ``page`` to one of them: a link to
    another ``.ipynb`` (a page's own download) stays.

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
    """Python-Markdown extension: a page's links to notebook lessons (``notebooks``, their
    paths in the docs) go to their pages (:func:`to_pages`); ``page(md)`` is the path of the
    page ``md`` converts. It runs after the page's code ran (before, a rewritten line would
    move an inline value's column)."""

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
        text = "\n".join(lines)
        if ".ipynb" not in text or not self.links.notebooks:
            return lines
        return to_pages(text, self.links.page(self.md), self.links.notebooks).split("\n")
