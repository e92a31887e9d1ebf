"""The ``lessonkit`` plugin's options in ``mkdocs.yml``, from the one schema (``core.settings``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c

from lessonkit.core.settings import OPTIONS, Option, Settings


def _config_option(option: Option) -> c.BaseConfigOption[Any]:
    kind = option.types[0] if len(option.types) == 1 else option.types
    if option.choices:
        return c.Choice(option.choices, default=option.default)
    if option.nullable:
        return c.Optional(c.Type(kind))
    return c.Type(kind, default=option.default)


LessonkitConfig: type[base.Config] = type(
    "LessonkitConfig",
    (base.Config,),
    {"__doc__": "Options for the ``lessonkit`` MkDocs plugin.", "__module__": __name__}
    | {option.name: _config_option(option) for option in OPTIONS},
)


def root_of(config: base.Config) -> Path:
    """The folder of the site's ``mkdocs.yml``."""
    return Path(config.config_file_path or ".").resolve().parent


def settings(config: base.Config) -> Settings:
    """The plugin's validated options as lessonkit's :class:`Settings`."""
    return Settings(**{option.name: config[option.name] for option in OPTIONS})
