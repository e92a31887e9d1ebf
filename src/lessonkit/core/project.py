"""What the command line needs from ``mkdocs.yml``, read without starting MkDocs."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml_env_tag import construct_env_tag

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings

CONFIG_NAME = "mkdocs.yml"


class _Loader(yaml.SafeLoader):
    """Reads MkDocs' custom tags (``!ENV``, ``!!python/name:...``) as None."""


class _Resolver(yaml.SafeLoader):
    """Reads ``!ENV`` and ``!!python/name:`` as MkDocs does (for a host that builds)."""


def _python_name(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    module, _, attribute = suffix.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError, ValueError) as error:
        raise yaml.MarkedYAMLError(
            problem=f"cannot import {suffix}: {error}", problem_mark=node.start_mark
        ) from None


_Resolver.add_constructor("!ENV", construct_env_tag)
_Resolver.add_multi_constructor("tag:yaml.org,2002:python/name:", _python_name)
for _loader in (_Loader, _Resolver):
    _loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    _loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def load_config(text: str, where: str = CONFIG_NAME, resolve: bool = False) -> dict[str, Any]:
    """``mkdocs.yml`` as a mapping; LessonError at the line YAML cannot read. ``resolve``:
    read ``!ENV`` and ``!!python/name:`` as MkDocs does, else as None.

    >>> load_config("a: !ENV [X, 1]\\nb: 2\\n"), load_config("a: !ENV [X, 1]\\n", resolve=True)
    ({'a': None, 'b': 2}, {'a': 1})
    >>> load_config("a: [1\\n", "site/mkdocs.yml")
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: site/mkdocs.yml:2: error: not valid YAML: expected ',' \
or ']', but got '<stream end>'
      hint: fix the YAML there (MkDocs cannot read it either)
    """
    try:
        data = yaml.load(text, Loader=_Resolver if resolve else _Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        hint = "fix the YAML there (MkDocs cannot read it either)"
        line = mark.line + 1 if mark else None
        raise LessonError([Problem(f"not valid YAML: {problem}", line, hint, path=where)]) from None
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
    def from_text(cls, text: str, config_file: Path, where: str = CONFIG_NAME) -> Project:
        """Read ``text`` as ``config_file`` (``where`` in messages); LessonError when invalid."""
        config = load_config(text, where)
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
