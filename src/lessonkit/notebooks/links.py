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
from collections.abc import Callable, Iterable
from typing import NamedTuple
from urllib.parse import unquote

from markdown.extensions.toc import slugify as toc_slugify
from markdown.extensions.toc import unique


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
