"""Writing the manifest ``lessonkit prepare`` leaves in the docs folder (read by
:mod:`lessonkit.core.prepared`): the files it made there, a digest of every page's HTML (it
changes when a result does, so a host that watches the docs converts its pages again), the
learner's path and the notebook lesson each page it wrote stands for.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessonkit import __version__
from lessonkit.core.prepared import MANIFEST


def write_manifest(
    docs: Path,
    outputs: Mapping[str, bytes],
    pages: Mapping[str, str],
    path: Mapping[str, Any] | None,
    notebooks: Mapping[str, str] | None = None,
) -> bool:
    """Write the manifest when it changes (then True), its mtime at least a second past the last
    one's: a host that notes files by whole seconds (Zensical) sees each change."""
    manifest = {
        "about": "Written by `lessonkit prepare`: the files it made in this folder (git-ignore "
        "them and this file). `pages` changes when a page's HTML does; `path` is the learner's "
        "path, whose data every page carries; `notebooks` the notebook lesson each page written "
        "here stands for.",
        "lessonkit": __version__,
        "files": {name: sha256(data) for name, data in sorted(outputs.items())},
        "pages": sha256(json.dumps(pages, sort_keys=True).encode()),
        "path": path,
        "notebooks": dict(sorted((notebooks or {}).items())),
    }
    data = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    file = docs / MANIFEST
    try:
        if file.read_bytes() == data:
            return False
        before = file.stat().st_mtime
    except OSError:
        before = 0.0
    atomic_write(file, data)
    now = max(time.time(), int(before) + 1.0)
    os.utime(file, (now, now))
    return True


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
