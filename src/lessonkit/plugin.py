"""The MkDocs plugin: a thin adapter that wires lessonkit's build wing into MkDocs events."""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from lessonkit.build.assets import bundle
from lessonkit.config import LessonkitConfig


class LessonkitPlugin(BasePlugin[LessonkitConfig]):
    """Adds lessonkit's assets to every page; features live in the Markdown extensions."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        base = self.config.assets_dir.strip("/")
        config.extra_css.append(f"{base}/lessonkit.css")
        config.extra_javascript.append(f"{base}/lessonkit.js")
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        base = self.config.assets_dir.strip("/")
        for kind in ("css", "js"):
            files.append(File.generated(config, f"{base}/lessonkit.{kind}", content=bundle(kind)))
        return files
