"""Whether anything changed in some folders since a moment: Linux's inotify, through ctypes.

A worker snapshots the watched trees (the docs, ``mkdocs.yml``) once and keeps the snapshot as
long as an :class:`Inotify` watching every folder in them reports nothing: a page process then
starts from the worker's snapshot and, when nothing happened while it ran, needs no second walk
(:mod:`lessonkit.execute.filewatch`). Any event at all (another program's, the build's own
next to ``mkdocs.yml``, a full queue) only means "walk again".

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> watch = Inotify.start()
>>> watch is None or (watch.add([folder]) and not watch.add([folder]) and not watch.pending())
True
>>> _ = open(os.path.join(folder, "new.md"), "w").close()
>>> watch is None or watch.pending()
True
>>> watch is None or (watch.drain() or not watch.pending())
True
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import sys
from collections.abc import Iterable

_MASK = (
    0x002  # IN_MODIFY
    | 0x004  # IN_ATTRIB
    | 0x008  # IN_CLOSE_WRITE
    | 0x040  # IN_MOVED_FROM
    | 0x080  # IN_MOVED_TO
    | 0x100  # IN_CREATE
    | 0x200  # IN_DELETE
    | 0x400  # IN_DELETE_SELF
    | 0x800  # IN_MOVE_SELF
)
"""Every event that changes what a snapshot records (reads and opens are left out)."""

_LOCAL = frozenset(
    {
        0xEF53,  # ext2, ext3, ext4
        0x58465342,  # XFS
        0x9123683E,  # Btrfs
        0x01021994,  # tmpfs
        0x858458F6,  # ramfs
        0x794C7630,  # overlayfs (a container's own files)
        0x2FC12FC1,  # ZFS
        0xF2F52010,  # F2FS
        0xCA451A4E,  # bcachefs
        0x52654973,  # ReiserFS
        0x3153464A,  # JFS
    }
)
"""Filesystems (``statfs`` magic numbers) whose every change is made by this kernel, so inotify
reports it. On a network filesystem, FUSE (virtiofs too) or 9p (WSL's Windows drives, a virtual
machine's shared folder) an edit made on the other side comes with no event."""


class Inotify:
    """One inotify instance (its file descriptor is inherited by page processes)."""

    def __init__(self, fd: int, libc: ctypes.CDLL) -> None:
        self.fd = fd
        self._add = libc.inotify_add_watch
        self._add.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
        self._watches: set[int] = set()
        self._name = _name(fd)

    @classmethod
    def start(cls) -> Inotify | None:
        """A new instance, or None where there is no inotify (not Linux, or too many open)."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            return None
        return cls(fd, libc) if fd >= 0 else None

    def add(self, folders: Iterable[str]) -> bool:
        """Watch what changes in each of ``folders`` (their entries, not deeper); whether one
        of them was not watched yet. OSError when one cannot be (gone meanwhile, or the
        system's limit of watches reached)."""
        new = False
        for folder in folders:
            watch = self._add(self.fd, os.fsencode(folder), _MASK)
            if watch < 0:
                number = ctypes.get_errno()
                raise OSError(number, os.strerror(number), folder)
            new = new or watch not in self._watches
            self._watches.add(watch)
        return new

    def pending(self) -> bool:
        """Whether an event came since the last :meth:`drain` (or the descriptor was closed,
        its number now another file's: lesson code closed it, then opened a pipe)."""
        if _name(self.fd) != self._name:
            return True
        poll = select.poll()  # not select(): any descriptor number
        poll.register(self.fd, select.POLLIN)
        return bool(poll.poll(0))

    def drain(self) -> None:
        """Forget the events so far."""
        with contextlib.suppress(OSError):  # BlockingIOError: none left
            while os.read(self.fd, 65536):
                pass

    def close(self) -> None:
        os.close(self.fd)


def local(path: str) -> bool:
    """Whether inotify sees every change to what is at ``path`` (a folder): its filesystem is
    one of this machine's own (:data:`_LOCAL`). False when that cannot be told.

    >>> local(os.path.dirname(os.__file__)) in (True, False)
    True
    """
    if not sys.platform.startswith("linux"):
        return False
    buffer = ctypes.create_string_buffer(512)  # a struct statfs: its first field is the type
    if ctypes.CDLL(None).statfs(os.fsencode(path), buffer) != 0:
        return False
    return ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF in _LOCAL


def _name(fd: int) -> str | None:
    """What descriptor ``fd`` is (``anon_inode:inotify``), or None (closed, or no ``/proc``)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
