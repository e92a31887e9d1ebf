"""The ``lessonkit`` plugin's options in ``mkdocs.yml``."""

from mkdocs.config import base
from mkdocs.config import config_options as c


class LessonkitConfig(base.Config):
    """Options for the ``lessonkit`` MkDocs plugin."""

    assets_dir = c.Type(str, default="assets/lessonkit")
    """Where lessonkit's CSS and JS are placed in the built site (loaded once, never inlined)."""

    execute = c.Type(bool, default=True)
    """Run ``python exec`` blocks, doctests and inline values (off: show them as plain code)."""

    cache_dir = c.Type(str, default=".cache/lessonkit")
    """Where execution results are cached, relative to mkdocs.yml (git-ignored)."""

    timeout = c.Type((int, float), default=10)
    """Seconds one block may run before it is stopped; a block can set its own timeout=."""

    workers = c.Type(int, default=0)
    """Worker processes that run pages in parallel; 0 means one per CPU core."""

    glossary = c.Optional(c.Type(str))
    """The glossary YAML, relative to docs_dir. Not set: ``glossary.yml`` if docs_dir has one;
    an empty string: no glossary."""

    glossary_page = c.Type(str, default="glossary.md")
    """The glossary page generated from it (a virtual file: list it in ``nav`` like a page)."""

    glossary_unused = c.Choice(("info", "warn"), default="info")
    """A term no page uses is logged as 'info', or as 'warn' (which fails a --strict build)."""
