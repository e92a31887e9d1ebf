"""lessonkit under Zensical: list ``lessonkit.hosts.zensical`` in ``markdown_extensions``.

Zensical reads ``mkdocs.yml`` and runs its extensions, not MkDocs plugins, converting each page
with a new ``Markdown`` in one process. This extension finds the page (:mod:`.context`), keeps
the site's state for the process, and adds every feature of the page
(:class:`~lessonkit.hosts.standalone.page.LessonPage`). The site-level outputs come from
``lessonkit prepare``, run before ``zensical build``. Under any other host it does nothing.
"""

from __future__ import annotations

import atexit
import logging
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown

from lessonkit.core.prepared import prepared_files, prepared_notebooks, prepared_path
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.hosts.standalone.page import LessonPage
from lessonkit.hosts.standalone.prepare import host_problems
from lessonkit.hosts.standalone.site import Site, SiteConfig
from lessonkit.hosts.zensical.context import PageContext, page_context

log = logging.getLogger("lessonkit")

_SITES: dict[Path, Site] = {}  # by mkdocs.yml's folder; made again when its config changes
_LOCK = threading.Lock()
_CONVERTED: dict[Path, int] = {}  # pages each site converted in this process


class ZensicalExtension(Extension):
    """Every lessonkit feature of the page Zensical converts (nothing under another host)."""

    def extendMarkdown(self, md: Markdown) -> None:
        context = page_context(md)
        if context is None:
            return
        site = _site(context)
        docs = site.config.docs_dir
        site.sources = prepared_notebooks(docs)  # a notebook lesson's page: read its notebook
        lesson = site.read(context.path)
        generated = [name for name in prepared_files(docs) if name not in site.sources]
        path = prepared_path(docs)
        page = LessonPage(site, lesson, context.url, generated=generated, path=path, warn=_log)
        md.registerExtensions([page], {})
        _CONVERTED[site.config.root] = _CONVERTED.get(site.config.root, 0) + 1


def _site(context: PageContext) -> Site:
    options = context.plugin_options("lessonkit")
    config = SiteConfig.of(context.config, context.root, Settings.from_options(options))
    with _LOCK:
        site = _SITES.get(config.root)
        if site is not None and site.config == config:
            return site
        if site is not None:
            site.close()
        if problems := host_problems(config):
            raise LessonError(problems)
        _SITES[config.root] = site = Site(config)
        return site


def _log(problems: Iterable[Problem]) -> None:
    """Warnings go to Python's log (``lessonkit prepare --strict`` fails on them)."""
    for problem in problems:
        log.warning(problem.format())


@atexit.register
def _close() -> None:
    """Stop the workers; say how many pages ran their code."""
    with _LOCK:
        for root, site in _SITES.items():
            ran = site.engine.executed if site.engine else 0
            site.close()
            converted = _CONVERTED.get(root, 0)
            print(f"lessonkit: {converted} page(s) converted, {ran} ran", file=sys.stderr)
        _SITES.clear()


def makeExtension(**kwargs: Any) -> ZensicalExtension:
    return ZensicalExtension(**kwargs)
