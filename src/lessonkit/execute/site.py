"""What a host needs to run a site's pages: the engine its settings describe."""

from __future__ import annotations

import os
from pathlib import Path

from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine


def site_engine(
    settings: Settings, root: Path, docs_dir: Path, site_dir: Path, snapshot: bool = True
) -> Engine:
    """The engine a site's settings describe (``root``: the configuration's folder)."""
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
        snapshot=snapshot,
    )


CONFIG_FILES = ("mkdocs.yml", "mkdocs.yaml")  # lesson code may not change or make them


def warm_up_if_first_build(settings: Settings, root: Path) -> None:
    """On a first build (no cache folder), start the fork server now: its imports overlap the
    host's start."""
    if settings.execute and not (root / settings.cache_dir).exists():
        from lessonkit.execute import worker  # a warm build imports none

        worker.warm_up()
