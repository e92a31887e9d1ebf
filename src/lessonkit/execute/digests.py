"""What a page's cache entry records of the files and folders its code read: their digests.

A warm build checks them (:mod:`lessonkit.execute.cache`) without the watch that records them
(:mod:`lessonkit.execute.filewatch`, which only a page's run needs).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

LISTING = os.sep
"""A recorded read whose path ends with this is a folder's listing."""


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
