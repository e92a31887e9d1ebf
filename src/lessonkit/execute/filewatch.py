"""Watch what lesson code does to files: record what it reads, refuse what it may not change.

An audit hook sees Python's file functions. **Reads** join the page's cache entry (not Python's
installation, the import system's, the page's working folder's). **Writes** to a ``protected``
path raise ``PermissionError`` at the lesson's line; ``private`` paths may not be read either.
**Escapes**: a subprocess or ``ctypes`` writes unseen, so a full build snapshots the ``watched``
trees when one starts and compares them when the page ends. The guard stops accidents, not the
author.
"""

from __future__ import annotations

import importlib
import itertools
import os
import pkgutil
import stat
import sys
import threading
import zipimport
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType

from lessonkit.core.problems import Problem
from lessonkit.execute.digests import LISTING, digest, python_folders

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_active: FileWatch | None = None
_installed = False
_busy = threading.local()  # set while the hook handles an event: its own calls are not the page's

Snapshot = dict[str, tuple[int, int, int, int]]  # path -> (file type, size, mtime ns, inode)


class FileWatch:
    """Record reads; refuse changes to ``protected`` and reads of ``private``; snapshot
    ``watched`` around a process or C code. ``own_folder``: the page's (default: the current)."""

    def __init__(
        self,
        watched: list[Path] | None = None,
        protected: list[Path] | None = None,
        private: list[Path] | None = None,
        own_folder: Path | None = None,
    ) -> None:
        self.watched = [_real(p) for p in watched or []]
        self.protected = [_real(p) for p in protected or []]
        self.private = [_real(p) for p in private or []]
        self._base = os.path.dirname(self.protected[0]) if self.protected else ""
        self._own = own_folder
        self._skip: tuple[str, ...] = ()
        self._read: set[str] = set()
        self._listed: set[str] = set()
        self._written: set[str] = set()
        self._escape: tuple[int | None, str] | None = None
        self._before: list[Snapshot] = []
        self._changes: list[tuple[str, str]] = []

    @contextmanager
    def active(self) -> Iterator[FileWatch]:
        global _active, _installed
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True
        own = _real(self._own or Path.cwd())
        self._skip = (*python_folders(), own + os.sep)
        previous, _active = _active, self
        try:
            yield self
        finally:
            _active = previous
            self._changes = []
            if self._escape is not None:
                after = [_snapshot(p) for p in self.watched]
                self._changes = [
                    c for b, a in zip(self._before, after, strict=True) for c in _diff(b, a)
                ]

    def reads(self) -> dict[str, str]:
        """Each file read and folder listed (path ending with :data:`LISTING`): its digest now."""
        paths = sorted(self._read - self._written)
        paths += [path.rstrip(os.sep) + LISTING for path in sorted(self._listed)]
        return {path: now for path in paths if (now := digest(path)) is not None}

    def problems(self) -> list[Problem]:
        """A problem, at the line that started it, if a process or C code changed a watched tree."""
        if not self._changes or self._escape is None:
            return []
        shown = ", ".join(f"{verb} {self._label(path)}" for verb, path in self._changes[:3])
        if len(self._changes) > 3:
            shown += f" and {len(self._changes) - 3} more"
        in_site = {_within(path, self.private) for _, path in self._changes}
        what = " and ".join(
            w for w, at in (("the sources", False), ("the site", True)) if at in in_site
        )
        names = [self._label(p) for p in self.watched if os.path.lexists(p)] or ["them"]
        sources = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
        line, started = self._escape
        hint = (
            f"if the {started} started here wrote there: lesson code may not change {sources} "
            "by any route, let it write into its working folder (the current folder); if "
            "another program did (an editor's save, say), build again"
        )
        return [Problem(f"{what} changed while this page's code ran: {shown}", line, hint)]

    def _on_open(self, path: object, mode: object, flags: object) -> None:
        if isinstance(path, int) or path is None:
            return
        resolved = _real(path)
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writing:
            self._refuse_change(resolved, "write into")
            self._written.add(resolved)
        elif not _machinery(_busy.caller):
            self._refuse_private(resolved)
            if not resolved.startswith(self._skip):
                self._read.add(resolved)

    def _on_listing(self, path: object) -> None:
        resolved = _fd_path(path) if isinstance(path, int) else _real(path or ".")
        if resolved is None or _machinery(_busy.caller):
            return
        self._refuse_private(resolved)
        if not (resolved + os.sep).startswith(self._skip):
            self._listed.add(resolved)

    def _on_change(self, verb: str, path: object, dir_fd: object = None) -> None:
        """``path`` is about to change (``dir_fd``: the folder it is relative to, or -1)."""
        if isinstance(path, int):
            path, dir_fd = _fd_path(path), None
        base = _fd_path(dir_fd) if isinstance(dir_fd, int) and dir_fd >= 0 else os.getcwd()
        if path is not None and base is not None:  # else nothing to resolve against (no /proc)
            text = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
            self._refuse_change(os.path.join(base, text), verb)

    def _on_escape(self, what: str) -> None:
        # not lessonkit's own (capture flushes C's stdout through ctypes after each block)
        if self._escape is None and not _machinery(_busy.caller):
            self._escape = (_lesson_line(), what)
            self._before = [_snapshot(p) for p in self.watched]

    def _refuse_change(self, path: str, verb: str) -> None:
        """PermissionError if ``path`` (as written, or resolved) is or is in a protected path."""
        lexical = os.path.normpath(path)
        folder, name = os.path.split(lexical)
        candidates = {lexical, _real(lexical), os.path.join(_real(folder), name)}
        for folder, candidate in itertools.product(self.protected, candidates):
            if _within(candidate, [folder]):
                raise _refused(
                    f"lesson code may not {verb} {self._label(folder)}: {self._label(candidate)}",
                    "lesson code runs in a working folder of its own (the current folder): "
                    "write files there; docs/, mkdocs.yml, the site and the cache are "
                    "read-only while the site builds",
                )

    def _refuse_private(self, path: str) -> None:
        for folder in self.private:
            if _within(path, [folder]):
                raise _refused(
                    f"lesson code may not read {self._label(folder)}: the build writes it "
                    f"while pages run ({self._label(path)})",
                    "compute what the page needs in its code, or read it from docs/: what the "
                    "site or the cache holds while pages run depends on timing",
                )

    def _label(self, path: str) -> str:
        """``path`` relative to the project, a folder with a trailing ``/``."""
        shown = os.path.relpath(path, self._base) if self._base else path
        if shown.startswith(".."):
            shown = path
        folder = os.path.isdir(path) or (
            path in self.protected and not os.path.exists(path) and not os.path.splitext(path)[1]
        )
        return shown + "/" if folder and not shown.endswith("/") else shown


def _refused(message: str, hint: str) -> PermissionError:
    error = PermissionError(message)
    error.hint = hint  # type: ignore[attr-defined]
    return error


def _real(path: object) -> str:
    return os.path.realpath(os.fsdecode(os.fspath(path)))  # type: ignore[arg-type]


def _fd_path(fd: object) -> str | None:
    """The path an open file descriptor names (Linux: ``/proc/self/fd``), or None."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target if target.startswith("/") else None


def _lesson_line() -> int | None:
    """The line of the innermost frame of lesson code (its namespace is ``__lesson__``)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "__lesson__":
            return frame.f_lineno
        frame = frame.f_back
    return None


def _within(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder + os.sep) for folder in folders)


def _snapshot(root: str) -> Snapshot:
    found: Snapshot = {}
    todo = [root]
    while todo:
        path = todo.pop()
        try:
            info = os.lstat(path)
        except OSError:
            continue
        found[path] = _state(info)
        if stat.S_ISDIR(info.st_mode):
            with suppress(OSError):
                todo += [entry.path for entry in os.scandir(path)]
    return found


def _state(info: os.stat_result) -> tuple[int, int, int, int]:
    kind = stat.S_IFMT(info.st_mode)
    if kind == stat.S_IFDIR:  # a folder's own size and mtime change with what it holds
        return kind, 0, 0, info.st_ino
    return kind, info.st_size, info.st_mtime_ns, info.st_ino


def _diff(before: Snapshot, after: Snapshot) -> list[tuple[str, str]]:
    """``(verb, path)`` pairs in path order."""
    changes = [("deleted", p) for p in before if p not in after]
    changes += [("created", p) for p in after if p not in before]
    changes += [("changed", p) for p in before if p in after and before[p] != after[p]]
    return sorted(changes, key=lambda change: change[1])


_MOVE, _LINK = "move files out of or into", "link to or into"
_CHANGES: dict[str, tuple] = {  # event: the verb, then (path, folder descriptor) argument indexes
    "os.remove": ("delete from", (0, 1)),
    "os.rmdir": ("delete from", (0, 1)),
    "shutil.rmtree": ("delete from", (0, 1)),
    "os.mkdir": ("make folders in", (0, 2)),
    "os.rename": (_MOVE, (0, 2), (1, 3)),
    "shutil.move": (_MOVE, (0, None), (1, None)),
    "os.link": (_LINK, (0, 2), (1, 3)),  # a hard link makes a second name
    "os.symlink": ("make links in", (1, 2)),
    "os.truncate": ("truncate files in", (0, None)),
    "os.chmod": ("change modes in", (0, 2)),
    "os.chown": ("change owners in", (0, 3)),
    "os.utime": ("change times in", (0, 3)),
    "os.chflags": ("change flags in", (0, None)),
    "os.lchflags": ("change flags in", (0, None)),
    "os.setxattr": ("change attributes in", (0, None)),
    "os.removexattr": ("change attributes in", (0, None)),
    "shutil.copyfile": ("copy into", (1, None)),
    "shutil.copymode": ("copy into", (1, None)),
    "shutil.copystat": ("copy into", (1, None)),
    "shutil.copytree": ("copy into", (1, None)),
    "shutil.chown": ("change owners in", (0, None)),
    "shutil.unpack_archive": ("unpack into", (1, None)),
    "shutil.make_archive": ("write into", (0, None)),
    "sqlite3.connect": ("write into", (0, None)),
}
_PROCESS, _C = "process", "C code (ctypes)"
_ESCAPES = {
    **dict.fromkeys(["subprocess.Popen", "os.system", "os.exec", "os.posix_spawn"], _PROCESS),
    **dict.fromkeys(["os.spawn", "os.startfile", "pty.spawn"], _PROCESS),
    **dict.fromkeys(["ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function"], _C),
}
_LISTINGS = ("os.listdir", "os.scandir")
_EVENTS = frozenset({"open", *_LISTINGS, *_CHANGES, *_ESCAPES})


_IMPORT_SYSTEM = (
    "<frozen importlib",
    os.path.dirname(importlib.__file__) + os.sep,  # importlib.metadata, importlib.resources
    pkgutil.__file__,
    zipimport.__file__,
)
_STDLIB = (os.path.dirname(os.__file__) + os.sep, "<frozen ")
_MACHINERY = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _machinery(frame: FrameType | None) -> bool:
    """Whether a read, a listing or C code from ``frame`` is the import system's (but not
    ``pkgutil.get_data``'s) or the machinery's: the innermost frame outside the stdlib decides."""
    if frame is not None and frame.f_code.co_filename.startswith(_IMPORT_SYSTEM):
        caller = frame.f_back
        data = frame.f_code.co_name == "get_data" and caller is not None
        if not (
            data and caller.f_code.co_name == "get_data" and "pkgutil" in caller.f_code.co_filename
        ):
            return True
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_STDLIB) or "-packages" in name:
            return name.startswith(_MACHINERY)
        frame = frame.f_back
    return False


def _hook(event: str, args: tuple) -> None:
    watch = _active
    if watch is None or event not in _EVENTS or getattr(_busy, "on", False):
        return
    _busy.caller, _busy.on = sys._getframe(1), True
    try:
        if event == "open":
            watch._on_open(*args[:3])
        elif event in _LISTINGS:
            watch._on_listing(args[0])
        elif event in _ESCAPES:
            watch._on_escape(_ESCAPES[event])
        else:
            verb, *paths = _CHANGES[event]
            for path, folder in paths:
                watch._on_change(verb, args[path], None if folder is None else args[folder])
    finally:
        _busy.on, _busy.caller = False, None
