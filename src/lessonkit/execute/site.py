"""What a host needs to run a site's pages: the engine its settings describe."""

from __future__ import annotations

import os
from pathlib import Path

from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine


def site_engine(settings: Settings, root: Path, docs_dir: Path, site_dir: Path) -> Engine:
    """An engine with the site's cache, workers and timeout; code may not change the docs, the
    configuration, the output or the cache (nor read the last two).

    ``root`` is the folder of the site's configuration (the cache folder is relative to it).
    """
    return Engine(
        root / settings.cache_dir,
        workers=settings.workers or os.cpu_count() or 1,
        timeout=float(settings.timeout),
        docs_dir=docs_dir.resolve(),
        sources=tuple(root.resolve() / name for name in CONFIG_FILES),
        private=(site_dir.resolve(),),
        limits={
            "output_limit": settings.output_limit,
            "memory_limit": settings.memory_limit,
            "describe_figures": settings.generated_alt_text,
        },
    )


CONFIG_FILES = ("mkdocs.yml", "mkdocs.yaml")
"""The names MkDocs (and Zensical) look for: lesson code may not change or make them."""


def warm_up_if_first_build(settings: Settings, root: Path) -> None:
    """On the site's first build (no cache folder yet: every page runs), start the fork server
    now. A host calls this as soon as it has read lessonkit's options, so that the server's
    imports overlap the rest of the host's start (MkDocs: at ``on_startup``)."""
    if settings.execute and not (root / settings.cache_dir).exists():
        from lessonkit.execute import worker  # here: a warm build imports no worker code

        worker.warm_up()
