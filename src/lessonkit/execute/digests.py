"""Digests of what a page's result depends on: files, folders' names, installed distributions.

A file or folder is remembered by its stamp (mtime in ns, size): a digest is read again only
when the stamp changed, or while it is too recent to tell a rewrite (:func:`too_recent`).
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import sysconfig
import time
from functools import cache
from importlib import metadata
from pathlib import Path

LISTING = os.sep
"""A recorded read whose path ends with this is a folder's listing."""

RACY = 2.0
"""Seconds: a file changed this recently may be rewritten within its file system's timestamp
granularity (Linux before 6.13 stamps from a clock that ticks every 1-4 ms) with the same mtime and
size, so nothing read from it is remembered by its stamp: it is read again."""

Stamp = tuple[int, int]


def too_recent(mtime_ns: int, now_ns: int | None = None) -> bool:
    """Whether a file last changed at ``mtime_ns`` changed within :data:`RACY` of now.

    >>> too_recent(time.time_ns()), too_recent(0)
    (True, False)
    """
    return (time.time_ns() if now_ns is None else now_ns) - mtime_ns < RACY * 1e9


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, hex."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def listing_digest(folder: str) -> str | None:
    """sha256 of a folder's sorted names, hex (None if it is no folder now)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def stamp(path: str) -> Stamp | None:
    """A file's or folder's (mtime in ns, size) now, or None if it is gone."""
    try:
        info = os.stat(path.rstrip(os.sep) or os.sep)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def digest(path: str) -> str | None:
    """The digest of a recorded dependency now: a file's bytes, or a folder's names (a path
    ending with :data:`LISTING`); None if it is gone."""
    if path.endswith(LISTING):
        return listing_digest(path)
    try:
        return file_digest(Path(path))
    except OSError:
        return None


@cache
def digest_at(path: str, at: Stamp) -> str | None:
    """:func:`digest`, read once per stamp (only for stamps that are not :func:`too_recent`)."""
    return digest(path)


def current_digest(path: str) -> str | None:
    """:func:`digest` now: read once per stamp, or at every call while the stamp is recent."""
    now = stamp(path)
    if now is None:
        return None
    return digest(path) if too_recent(now[0]) else digest_at(path, now)


@cache
def environment_digest() -> str:
    """sha256 of every installed distribution's metadata headers (name and version among them):
    part of every page's key, so an install or upgrade re-runs every page once. Read once per
    process (about 10 ms for 90 distributions)."""
    heads = sorted(
        (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").split("\n\n", 1)[0]
        for dist in metadata.distributions()
    )
    return hashlib.sha256("\0".join(heads).encode("utf-8", "surrogateescape")).hexdigest()


@cache
def python_folders() -> tuple[str, ...]:
    """Python's installation, its site-packages and the kernel's virtual files, resolved, each
    ending with a separator: Python's version and :func:`environment_digest` cover what is there
    (the import watch and the file watch follow nothing in them)."""
    folders = {"/proc", "/sys", "/dev"}
    paths = sysconfig.get_paths()
    folders.update(paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))
    folders.update(site.getsitepackages())
    folders.add(site.getusersitepackages())
    folders.update(
        p for p in sys.path if p.rstrip(os.sep).endswith(("site-packages", "dist-packages"))
    )
    if sys.prefix != sys.base_prefix:  # a virtual environment: all of it is Python's
        folders.add(sys.prefix)
    return tuple(sorted({os.path.realpath(f) + os.sep for f in folders if f}))
