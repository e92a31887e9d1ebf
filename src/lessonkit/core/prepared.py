"""Reading the manifest ``lessonkit prepare`` leaves in the docs folder: what it made there.

``docs/.lessonkit-prepared.json`` lists the files ``lessonkit prepare`` wrote (with their
sha256: the next run removes one that is no longer made, the MkDocs plugin and ``lessonkit
check`` leave them out), a digest of every page's HTML, the learner's path
(:func:`lessonkit.path.path_record`) and the notebook lesson each page it wrote stands for
(``embeddings.md``: ``embeddings.ipynb``). Every host and the checks read it; only prepare
writes it (:mod:`lessonkit.hosts.standalone.manifest`). Reading it is cheap: no Markdown, no YAML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lessonkit.path import read_record

MANIFEST = ".lessonkit-prepared.json"
"""In the docs folder: what ``lessonkit prepare`` wrote there (git-ignore it with them)."""


def _manifest(docs_dir: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((docs_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def prepared_files(docs_dir: Path) -> dict[str, str]:
    """The files the last ``lessonkit prepare`` wrote into ``docs_dir``: path -> sha256."""
    files = _manifest(docs_dir).get("files")
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def prepared_notebooks(docs_dir: Path) -> dict[str, str]:
    """The pages the last ``lessonkit prepare`` wrote for notebook lessons: page -> notebook
    (``embeddings.md`` -> ``embeddings.ipynb``, in ``docs_dir``)."""
    found = _manifest(docs_dir).get("notebooks")
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def prepared_path(docs_dir: Path) -> dict[str, Any] | None:
    """The learner's path as the last ``lessonkit prepare`` found it
    (:func:`lessonkit.path.path_record`), or None when the site has none."""
    return read_record(_manifest(docs_dir).get("path"))
