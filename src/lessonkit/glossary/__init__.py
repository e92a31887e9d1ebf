"""The glossary feature: terms from YAML, tooltips in prose, checks, and the glossary page.

- :mod:`.terms`: load and validate ``glossary.yml``; find terms (with inflections) in text;
- :mod:`.extension`: the Python-Markdown extension (``lessonkit.glossary`` in ``mkdocs.yml``)
  that links first uses with tooltips and adds the "Words on this page" box;
- :mod:`.checks`: problems with ``[[term]]`` marks in raw Markdown, with line numbers;
- :mod:`.page`: the glossary page's Markdown and its "used on" lists.

Each name below loads its module on first use, so a site without a glossary imports none of them.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "check": "checks",
    "GlossaryExtension": "extension",
    "makeExtension": "extension",
    "fill_used_on": "page",
    "page_markdown": "page",
    "pages_by_term": "page",
    "used_term_ids": "page",
    "Glossary": "terms",
    "Term": "terms",
    "load": "terms",
    "unused": "terms",
}


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module 'lessonkit.glossary' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lessonkit.glossary.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "Glossary",
    "GlossaryExtension",
    "Term",
    "check",
    "fill_used_on",
    "load",
    "makeExtension",
    "page_markdown",
    "pages_by_term",
    "unused",
    "used_term_ids",
]
