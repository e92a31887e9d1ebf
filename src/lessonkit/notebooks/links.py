"""Links by a notebook's name and Jupyter's anchor (``x.ipynb#Some-Heading``) made links to
its page and ``toc``'s id, so they work on every host."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection
from urllib.parse import unquote

from markdown import Extension, Markdown
from markdown.extensions.toc import slugify
from markdown.preprocessors import Preprocessor

_TARGET = r"(?P<target>[^\s()<>#]+\.ipynb(?:#[^\s()<>]*)?)"
_LINKS = re.compile(rf"(?P<lead>\]\(\s*<?|^ {{0,3}}\[[^\]]+\]:\s*<?){_TARGET}", re.MULTILINE)
"""An inline link's or a link reference's target that names a notebook."""


def to_pages(markdown: str, page: str = "", notebooks: Collection[str] | None = None) -> str:
    """``markdown`` with each link to a notebook made a link to its page; with ``notebooks`` (the
    notebook lessons' paths), only links from ``page`` to one of them (a download stays)."""
    if ".ipynb" not in markdown:
        return markdown

    def to_page(m: re.Match[str]) -> str:
        path, _, anchor = m["target"].partition("#")
        seen = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(path)))
        if "://" in path or path.startswith(("//", "mailto:")):
            return m[0]
        if notebooks is not None and seen not in notebooks:
            return m[0]
        heading = f"#{slugify(unquote(anchor).replace('-', ' '), '-')}" if anchor else ""
        return m["lead"] + path.removesuffix(".ipynb") + ".md" + heading

    return _LINKS.sub(to_page, markdown)


class LinksToPages(Extension):
    """:func:`to_pages` for the page ``page(md)``, after its code ran (else an inline value's
    column would move)."""

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
