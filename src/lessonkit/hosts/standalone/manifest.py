"""How ``lessonkit prepare`` writes: one run at a time, each file whole, and its manifest."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lessonkit import __version__
from lessonkit.core.prepared import MANIFEST
from lessonkit.core.problems import LessonError, Problem

try:
    import fcntl
except ImportError:  # Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]

ABOUT = (
    "Written by `lessonkit prepare` (git-ignore it, with the files it made here: each carries a "
    "`lessonkit-prepare` mark). `pages` changes when a page's HTML does; `path` is the learner's "
    "path, whose data every page carries; `notebooks` the notebook lesson each page written here "
    "stands for."
)


def write_manifest(
    docs: Path,
    pages: Mapping[str, str],
    path: Mapping[str, Any] | None,
    notebooks: Mapping[str, str],
) -> bool:
    """Write the manifest if it changed (then True), its mtime a second past the last one's: a
    host that notes files by whole seconds (Zensical) sees each change."""
    manifest = {
        "about": ABOUT,
        "lessonkit": __version__,
        "pages": sha256(json.dumps(pages, sort_keys=True).encode()),
        "path": path,
        "notebooks": dict(sorted(notebooks.items())),
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
    """Write ``data`` to ``path`` whole or not at all; no temporary file stays behind."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def one_writer(docs: Path) -> Iterator[None]:
    """Hold ``flock`` on the folder ``docs`` (LessonError if another run holds it); the kernel
    lets go when the process ends. Without locks (Windows, some network disks): no guard."""
    if fcntl is None:
        yield
        return
    fd = os.open(docs, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = "another lessonkit prepare is running for this site"
            hint = "wait for it to finish (it writes what this run would)"
            raise LessonError([Problem(message, hint=hint, path="mkdocs.yml")]) from None
        except OSError:  # no locks on this file system
            pass
        yield
    finally:
        os.close(fd)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
