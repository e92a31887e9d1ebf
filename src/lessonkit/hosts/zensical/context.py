"""Which page Zensical converts, and the site's configuration: the one reader of its private API.

Zensical (0.0.57) gives each page's ``Markdown`` a first preprocessor, ``rendering_context``,
holding the page and the parsed ``mkdocs.yml``; if that changes, this says so.

>>> from types import SimpleNamespace as NS
>>> md = NS(preprocessors={NAME: NS(page=NS(path="a/b.md", url="a/b/"),
...                                 config={"root_dir": "/site"})})
>>> page_context(md).path, page_context(md).root
('a/b.md', PosixPath('/site'))
>>> page_context(NS(preprocessors={})) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lessonkit.core.problems import LessonError, Problem

NAME = "rendering_context"
SUPPORTED = "0.0.57"


@dataclass(frozen=True)
class PageContext:
    """The page being converted and the site it belongs to."""

    path: str  # in the docs folder, e.g. building-blocks/a.md
    url: str  # e.g. building-blocks/a/ ("" for the home page)
    root: Path  # the folder of mkdocs.yml
    config: Mapping[str, Any]  # mkdocs.yml as Zensical parsed it

    def plugin_options(self, name: str) -> Mapping[str, Any]:
        """The options ``mkdocs.yml`` gives plugin ``name`` ({} if none)."""
        entry = (self.config.get("plugins") or {}).get(name) or {}
        options = entry.get("config", entry) if isinstance(entry, Mapping) else {}
        return options if isinstance(options, Mapping) else {}


def page_context(md: Any) -> PageContext | None:
    """The context of the page ``md`` converts under Zensical; None under any other host."""
    if NAME not in md.preprocessors:
        return None
    try:
        processor = md.preprocessors[NAME]
        page, config = processor.page, processor.config
        return PageContext(str(page.path), str(page.url), Path(config["root_dir"]), config)
    except (AttributeError, KeyError, TypeError) as error:
        message = f"Zensical's rendering context is not what lessonkit reads ({error!r})"
        hint = f"lessonkit supports Zensical {SUPPORTED}: install that version"
        raise LessonError([Problem(message, hint=hint, path="mkdocs.yml")]) from None
