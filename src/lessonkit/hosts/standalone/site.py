"""A lesson site as a host without plugins sees it."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from lessonkit.checks.files import page_url
from lessonkit.checks.markdown_setup import MarkdownSetup, extensions_of
from lessonkit.checks.recipe import Context, check_page
from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import Problem
from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine, site_engine
from lessonkit.glossary.site import SiteGlossary
from lessonkit.hosts import extension_name
from lessonkit.notebooks.lesson import read_lesson
from lessonkit.path import nav_order

_LINK = re.compile(r'(\s(?:href|src))="([^"]*)"')


@dataclass(frozen=True)
class SiteConfig:
    """What lessonkit reads from ``mkdocs.yml``, as the host parsed it."""

    root: Path  # the folder of mkdocs.yml
    docs_dir: Path
    site_dir: Path
    settings: Settings
    site_url: str = ""
    repo_url: str = ""
    use_directory_urls: bool = True
    extensions: tuple[str, ...] = ()  # the Markdown extensions' names
    extra_css: tuple[str, ...] = ()
    extra_javascript: tuple[str, ...] = ()
    watch: tuple[str, ...] = ()  # paths a host watches besides the docs
    nav_titles: Mapping[str, str] = field(default_factory=dict)  # page -> its title in nav
    nav: tuple[tuple[str, tuple[str, ...]], ...] = ()  # nav's pages with their sections' titles
    markdown: MarkdownSetup = field(default_factory=MarkdownSetup)  # for the page checks

    @classmethod
    def of(cls, config: Mapping[str, Any], root: Path, settings: Settings) -> SiteConfig:
        """From ``mkdocs.yml``'s keys, as read by YAML or by a host."""

        def text(key: str, default: str = "") -> str:
            return str(config.get(key) or default)

        def paths(key: str) -> tuple[str, ...]:  # a host may turn each entry into a mapping
            items = config.get(key) or []
            return tuple(str(i.get("path", "") if isinstance(i, Mapping) else i) for i in items)

        listed = config.get("markdown_extensions") or []
        names = (next(iter(e)) if isinstance(e, Mapping) else extension_name(e) for e in listed)
        return cls(
            root=root,
            docs_dir=root / text("docs_dir", "docs"),
            site_dir=root / text("site_dir", "site"),
            settings=settings,
            site_url=text("site_url"),
            repo_url=text("repo_url"),
            use_directory_urls=config.get("use_directory_urls", True) is not False,
            extensions=tuple(names),
            extra_css=paths("extra_css"),
            extra_javascript=paths("extra_javascript"),
            watch=tuple(str(w) for w in config.get("watch") or []),
            nav_titles=nav_titles(config.get("nav") or []),
            nav=tuple(nav_order(config.get("nav") or [])),
            markdown=MarkdownSetup.of(*extensions_of(config)),
        )

    def page_url(self, path: str) -> str:
        return page_url(path, self.use_directory_urls)

    def site_links(self, html: str, path: str) -> str:
        """The page at ``path``'s relative links, from the site's root.

        >>> c = SiteConfig(Path("/s"), Path("/s/docs"), Path("/s/site"), Settings())
        >>> c.site_links('<a href="b.md#x">b</a><a href="#y"></a><img src="i.png">', "a/c.md")
        '<a href="/a/b/#x">b</a><a href="#y"></a><img src="/a/i.png">'
        """

        def link(match: re.Match[str]) -> str:
            href = match[2]
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("/", "#")) or not parts.path:
                return match[0]
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), parts.path))
            url = self.page_url(target) if target.endswith(".md") else target
            return f'{match[1]}="/{url}{href[len(parts.path) :]}"'

        return _LINK.sub(link, html)

    def canonical_url(self, url: str) -> str:
        return urljoin(self.site_url.rstrip("/") + "/", url) if self.site_url else url

    def assets(self) -> dict[str, str]:
        """``css``/``js`` -> its path in docs/."""
        folder = self.settings.assets_dir.strip("/")
        return {kind: f"{folder}/lessonkit.{kind}" for kind in ("css", "js")}


def nav_titles(nav: Iterable[Any]) -> dict[str, str]:
    """The title of each page ``nav`` names (MkDocs' or Zensical's form)."""
    titles: dict[str, str] = {}
    for item in nav:
        if not isinstance(item, Mapping):
            continue
        if "children" in item and "url" in item:  # as Zensical reads nav
            if isinstance(item.get("url"), str) and item.get("title"):
                titles[item["url"].strip()] = str(item["title"])
            titles.update(nav_titles(item.get("children") or []))
            continue
        for title, value in item.items():
            if isinstance(value, str):
                titles[value.strip()] = str(title)
            elif isinstance(value, list):
                titles.update(nav_titles(value))
    return titles


def page_order(path: str) -> tuple[tuple[str, ...], bool, str]:
    """Sort pages as MkDocs lists them: by folder, a folder's index first, folders last.

    >>> sorted(["b/x.md", "z.md", "index.md", "b/index.md"], key=page_order)
    ['index.md', 'z.md', 'b/index.md', 'b/x.md']
    """
    parts = tuple(path.split("/"))
    return parts[:-1], parts[-1].rsplit(".", 1)[0] != "index", parts[-1]


class Site:
    """A site's state for one process."""

    def __init__(self, config: SiteConfig) -> None:
        self.config = config
        settings = config.settings
        self.glossary = SiteGlossary.of_site(settings, config.docs_dir, config.root)
        self.engine: Engine | None = None
        self.sources: dict[str, str] = {}  # a notebook lesson's page -> its notebook
        if settings.execute:
            self.engine = site_engine(settings, config.root, config.docs_dir, config.site_dir)

    def where(self, path: str) -> str:
        """How messages name the page at ``path`` (``docs/a/b.md``)."""
        return os.path.relpath(self.config.docs_dir / path, self.config.root)

    def read(self, path: str) -> Lesson:
        """The page at ``path`` (a notebook lesson's: from its notebook)."""
        source = self.sources.get(path, path)
        return read_lesson(self.config.docs_dir / source, path, self.where(source))

    def check(self, lesson: Lesson, generated: Iterable[str] = ()) -> list[Problem]:
        """The check recipe on ``lesson``; ``generated``: pages made by lessonkit."""
        terms = self.glossary.glossary if self.glossary else None
        virtual = frozenset(generated) | frozenset([self.glossary.page] if self.glossary else [])
        config = self.config
        context = Context(
            config.docs_dir, terms, virtual, settings=config.settings, markdown=config.markdown
        )
        if self.engine:  # a good run in the cache: its code compiles
            context.ran = self.engine.held
        return check_page(lesson, context)

    def close(self, *, prune: bool = False) -> None:
        """Stop the workers; ``prune``: the cache keeps only what this run used."""
        if self.engine:
            self.engine.close(prune=prune)
            self.engine = None
