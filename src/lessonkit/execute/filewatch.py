"""Watch what lesson code opens: record files it reads, refuse writes into protected folders.

Uses a ``sys.addaudithook`` hook (installed once per process, idle unless a watch is active),
so it sees every ``open`` - numpy, pandas and plain ``open()`` alike. The files a page reads
become part of its cache entry: editing a data file re-runs the pages that read it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_active: FileWatch | None = None
_installed = False


class FileWatch:
    """Record reads under ``watched``; raise PermissionError on writes into ``protected``."""

    def __init__(self, watched: list[Path] | None = None, protected: list[Path] | None = None):
        self.watched = [p.resolve() for p in watched or []]
        self.protected = [p.resolve() for p in protected or []]
        self._read: set[Path] = set()

    @contextmanager
    def active(self) -> Iterator[FileWatch]:
        global _active
        _install()
        previous, _active = _active, self
        try:
            yield self
        finally:
            _active = previous

    def reads(self) -> dict[str, str]:
        """Each file read, with the sha256 of its content now."""
        return {str(p): file_digest(p) for p in sorted(self._read) if p.is_file()}

    def _on_open(self, path: object, mode: object, flags: object) -> None:
        if isinstance(path, int) or path is None:
            return
        resolved = Path(os.fsdecode(path)).resolve()  # type: ignore[arg-type]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writing:
            for folder in self.protected:
                if resolved.is_relative_to(folder):
                    raise PermissionError(f"lesson code may not write into {folder}: {resolved}")
        elif any(resolved.is_relative_to(folder) for folder in self.watched):
            self._read.add(resolved)


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _install() -> None:
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def _hook(event: str, args: tuple) -> None:
    if event == "open" and _active is not None:
        watch = _active
        globals()["_active"] = None  # reading a file's digest must not re-enter the hook
        try:
            watch._on_open(*args)
        finally:
            globals()["_active"] = watch
