"""What the command line needs from ``mkdocs.yml``, read without starting MkDocs.

>>> p = Project.from_text("docs_dir: lessons\\nplugins:\\n  - lessonkit:\\n      glossary: ''\\n",
...                       Path("/site/mkdocs.yml"))
>>> p.docs_dir, p.glossary, p.settings.glossary_page
(PosixPath('/site/lessons'), None, 'glossary.md')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lessonkit.core.settings import Settings

CONFIG_NAME = "mkdocs.yml"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when available
    """A safe loader that tolerates MkDocs' custom tags (``!ENV``, ``!!python/name:...``)."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def load_config(text: str) -> dict[str, Any]:
    """``mkdocs.yml`` as a mapping (custom tags read as None)."""
    data = yaml.load(text, Loader=_Loader)
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Project:
    """A lesson site: its config file, docs folder and the lessonkit plugin's glossary options."""

    config_file: Path
    docs_dir: Path
    settings: Settings
    config: dict[str, Any]

    @property
    def glossary(self) -> Path | None:
        """The glossary YAML, or None when the site has none (or turned it off)."""
        return self.settings.glossary_file(self.docs_dir)

    @property
    def virtual_pages(self) -> frozenset[str]:
        """Pages the build generates (relative to ``docs_dir``): links to them are valid."""
        glossary = [self.settings.glossary_page] if self.glossary else []
        return frozenset([*glossary, "print.md"])  # lessonkit.path.PRINT_PAGE

    @classmethod
    def from_text(cls, text: str, config_file: Path) -> Project:
        """Read ``text`` as ``config_file``; LessonError for wrong lessonkit options."""
        config = load_config(text)
        root = config_file.parent
        docs_dir = root / str(config.get("docs_dir") or "docs")
        options = _plugin_options(config.get("plugins"), "lessonkit")
        settings = Settings.from_options(options, where=config_file.name)
        return cls(config_file, docs_dir, settings, config)


def entries(listed: object) -> list[tuple[Any, Any]]:
    """``(name, options)`` of a ``mkdocs.yml`` list of names and one-key mappings, or mapping.

    >>> entries(["search", {"lessonkit": {"workers": 2}}]), entries(None)
    ([('search', None), ('lessonkit', {'workers': 2})], [])
    """
    if isinstance(listed, dict):
        return list(listed.items())
    if isinstance(listed, list):
        return [next(iter(i.items())) if isinstance(i, dict) and i else (i, None) for i in listed]
    return []


def _plugin_options(plugins: object, name: str) -> dict[str, Any]:
    """The options of plugin ``name`` in a ``plugins:`` list or mapping ({} if absent)."""
    found = next((options for key, options in entries(plugins) if key == name), None)
    return found if isinstance(found, dict) else {}
