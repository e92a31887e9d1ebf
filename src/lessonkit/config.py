"""The ``lessonkit`` plugin's options in ``mkdocs.yml``."""

from mkdocs.config import base
from mkdocs.config import config_options as c


class LessonkitConfig(base.Config):
    """Options for the ``lessonkit`` MkDocs plugin."""

    assets_dir = c.Type(str, default="assets/lessonkit")
    """Where lessonkit's CSS and JS are placed in the built site (loaded once, never inlined)."""
