"""What a page's cache entry records of the files and folders its code read: their digests.

A warm build checks them (:mod:`lessonkit.execute.cache`) without the watch that records them
(:mod:`lessonkit.execute.filewatch`, which only a page's run needs).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

LISTING = os.sep
"""A recorded read whose path ends with this is a folder's listing."""

RACY = 2.0
"""Seconds: a file changed this recently may be rewritten within its file system's timestamp
granularity (Linux before 6.13 stamps from a clock that ticks every 1-4 ms) with the same mtime and
size, so nothing read from it is remembered by its stamp: it is read again."""


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
