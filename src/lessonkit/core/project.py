"""What the command line needs from ``mkdocs.yml``, read without starting MkDocs.

>>> p = Project.from_text("docs_dir: lessons\\nplugins:\\n  - lessonkit:\\n      glossary: ''\\n",
...                       Path("/site/mkdocs.yml"))
>>> p.docs_dir, p.glossary, p.glossary_page
(PosixPath('/site/lessons'), None, 'glossary.md')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

CONFIG_NAME = "mkdocs.yml"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when available
    """A safe loader that tolerates MkDocs' custom tags (``!ENV``, ``!!python/name:...``)."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def load_config(text: str) -> dict[str, Any]:
    """``mkdocs.yml`` as a mapping (custom tags read as None)."""
    data = yaml.load(text, Loader=_Loader)  # a SafeLoader subclass
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Project:
    """A lesson site: its config file, docs folder and the lessonkit plugin's glossary options."""

    config_file: Path
    docs_dir: Path
    glossary: Path | None
    """The glossary YAML, or None when the site has none (or turned it off)."""
    glossary_page: str
    """The generated glossary page, relative to ``docs_dir``: links to it are valid."""
    config: dict[str, Any]

    @classmethod
    def from_text(cls, text: str, config_file: Path) -> Project:
        config = load_config(text)
        root = config_file.parent
        docs_dir = root / str(config.get("docs_dir") or "docs")
        options = _plugin_options(config.get("plugins"), "lessonkit")
        name = options.get("glossary", "glossary.yml")
        glossary = docs_dir / name if name and (docs_dir / name).is_file() else None
        page = str(options.get("glossary_page", "glossary.md"))
        return cls(config_file, docs_dir, glossary, page, config)

    @classmethod
    def find(cls, start: Path | None = None) -> Project | None:
        """The project whose ``mkdocs.yml`` is in ``start`` (default: cwd) or a parent folder."""
        here = (start or Path.cwd()).resolve()
        for folder in (here, *here.parents):
            path = folder / CONFIG_NAME
            if path.is_file():
                return cls.from_text(path.read_text(encoding="utf-8"), path)
        return None


def _plugin_options(plugins: object, name: str) -> dict[str, Any]:
    """The options of plugin ``name`` in a ``plugins:`` list or mapping ({} if absent)."""
    items = plugins.items() if isinstance(plugins, dict) else []
    if isinstance(plugins, list):
        items = [next(iter(p.items())) if isinstance(p, dict) else (p, {}) for p in plugins]
    for key, options in items:
        if key == name:
            return options if isinstance(options, dict) else {}
    return {}
