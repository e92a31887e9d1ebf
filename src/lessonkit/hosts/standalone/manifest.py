"""How ``lessonkit prepare`` writes into the docs folder: one run at a time (:func:`one_writer`),
each file whole or not at all (:func:`atomic_write`), and the manifest read by
:mod:`lessonkit.core.prepared`: a digest of every page's HTML (it changes when a result does, so
a host that watches the docs converts its pages again), the learner's path and the notebook
lesson each page it wrote stands for.
"""

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


def write_manifest(
    docs: Path,
    pages: Mapping[str, str],
    path: Mapping[str, Any] | None,
    notebooks: Mapping[str, str] | None = None,
) -> bool:
    """Write the manifest when it changes (then True), its mtime at least a second past the last
    one's: a host that notes files by whole seconds (Zensical) sees each change."""
    manifest = {
        "about": "Written by `lessonkit prepare` (git-ignore it, with the files it made here: "
        "each carries a `lessonkit-prepare` mark). `pages` changes when a page's HTML does; "
        "`path` is the learner's path, whose data every page carries; `notebooks` the notebook "
        "lesson each page written here stands for.",
        "lessonkit": __version__,
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
    """Write ``data`` to ``path`` whole or not at all (a temporary file, then a rename); the
    temporary file never stays behind (a full disk, Ctrl-C)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def one_writer(docs: Path) -> Iterator[None]:
    """Hold the lock on the folder ``docs`` while the body runs: LessonError if another run
    holds it. The lock is the kernel's (``flock`` on the folder itself: no file to make, none
    left behind), and goes with the process, however it ends. Where there are no such locks
    (Windows, some network file systems), one run at a time is up to the author."""
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
