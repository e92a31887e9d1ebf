"""The MkDocs plugin: a thin adapter that wires lessonkit's build wing into MkDocs events."""

from __future__ import annotations

from importlib import resources

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from lessonkit.config import LessonkitConfig

ASSETS = ("lessonkit.css", "lessonkit.js")


class LessonkitPlugin(BasePlugin[LessonkitConfig]):
    """Adds lessonkit's assets to every page; features live in the Markdown extensions."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        base = self.config.assets_dir.strip("/")
        config.extra_css.append(f"{base}/lessonkit.css")
        config.extra_javascript.append(f"{base}/lessonkit.js")
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        base = self.config.assets_dir.strip("/")
        for name in ASSETS:
            content = resources.files("lessonkit.assets").joinpath(name).read_bytes()
            files.append(File.generated(config, f"{base}/{name}", content=content))
        return files
