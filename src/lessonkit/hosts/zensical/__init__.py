"""lessonkit under Zensical: list ``lessonkit.hosts.zensical`` in ``markdown_extensions``.

Zensical converts each page with a new ``Markdown`` in one process: this adds the page's
features (:class:`~lessonkit.hosts.standalone.page.LessonPage`) and keeps the site's state;
``lessonkit prepare`` writes the site-level outputs before. Under another host it does nothing.
"""

from __future__ import annotations

import atexit
import logging
import sys
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown

from lessonkit.core.prepared import prepared_files, prepared_notebooks, prepared_path
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.hosts.standalone.page import LessonPage
from lessonkit.hosts.standalone.prepare import host_problems
from lessonkit.hosts.standalone.site import Site, SiteConfig

log = logging.getLogger("lessonkit")

CONTEXT = "rendering_context"  # Zensical's first preprocessor: the page and parsed mkdocs.yml
SUPPORTED = "0.0.57"
_SITES: dict[Path, Site] = {}  # by mkdocs.yml's folder; made again when its config changes
_LOCK = threading.Lock()
_CONVERTED: dict[Path, int] = {}  # pages each site converted in this process


def page_context(md: Any) -> tuple[str, str, Path, Mapping[str, Any]] | None:
    """The page's path and URL, the site's folder and config (None under another host): the one
    reader of Zensical's private API."""
    if CONTEXT not in md.preprocessors:
        return None
    try:
        processor = md.preprocessors[CONTEXT]
        page, config = processor.page, processor.config
        return str(page.path), str(page.url), Path(config["root_dir"]), config
    except (AttributeError, KeyError, TypeError) as error:
        message = f"Zensical's rendering context is not what lessonkit reads ({error!r})"
        hint = f"lessonkit supports Zensical {SUPPORTED}: install that version"
        raise LessonError([Problem(message, hint=hint, path="mkdocs.yml")]) from None


class ZensicalExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        if (context := page_context(md)) is None:
            return
        path, url, root, config = context
        site = _site(root, config)
        docs = site.config.docs_dir
        site.sources = prepared_notebooks(docs)  # a notebook lesson's page: read its notebook
        generated = [name for name in prepared_files(docs) if name not in site.sources]
        page = LessonPage(
            site, site.read(path), url, generated=generated, path=prepared_path(docs), warn=_log
        )
        md.registerExtensions([page], {})
        _CONVERTED[root] = _CONVERTED.get(root, 0) + 1


def _site(root: Path, config: Mapping[str, Any]) -> Site:
    entry = (config.get("plugins") or {}).get("lessonkit") or {}
    options = entry.get("config", entry) if isinstance(entry, Mapping) else {}
    options = options if isinstance(options, Mapping) else {}
    site_config = SiteConfig.of(config, root, Settings.from_options(options))
    with _LOCK:
        site = _SITES.get(root)
        if site is not None and site.config == site_config:
            return site
        if site is not None:
            site.close()
        if problems := host_problems(site_config):
            raise LessonError(problems)
        _SITES[root] = site = Site(site_config)
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
