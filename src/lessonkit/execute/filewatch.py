"""Watch what lesson code does to files: record what it reads, refuse what it may not change.

A ``sys.addaudithook`` hook (installed once per process, idle unless a watch is active) sees the
file functions of Python and of the libraries that use them: ``open`` (numpy, pandas and plain
``open()`` alike), ``os.remove``, ``os.rename``, ``shutil.rmtree``, ``os.listdir``...

- **Reads.** Every file the code reads, anywhere, is recorded with the sha256 of its bytes, and
  every folder it lists (``os.listdir``, ``os.scandir``, ``glob``, ``Path.iterdir``, ``os.walk``)
  with the sha256 of its names; a folder's path is recorded with a trailing separator. Both
  become part of the page's cache entry: an edited data file, or a file added to a folder the
  code listed, re-runs the page. Left out: Python's installation and site-packages (Python's
  version and the installed distributions are in every key: :mod:`lessonkit.execute.imports`),
  what the import system reads and lists (``importlib.metadata`` included: the same), ``/proc``,
  ``/sys`` and ``/dev``, the page's own temporary working folder and the files it wrote itself.
  What code learns from ``os.stat`` or ``os.path.exists`` alone is not seen (no audit event).
- **Writes.** ``protected`` paths (the docs, ``mkdocs.yml``, the site, the cache) may not be
  changed by any route the hook sees: opening for writing, removing, renaming (from or to),
  linking, making folders, truncating, changing modes, owners or times, ``shutil``'s copies,
  moves and archives. The call raises ``PermissionError`` in the lesson's code, at its line.
  ``private`` paths (the site and the cache, which the build itself writes while pages run)
  may not be read or listed either: what code would read there depends on timing.
- **What the hook cannot see.** A subprocess, or C code called through ``ctypes``, writes
  without an audit event. So when the page starts one (its audit event comes first), the
  ``watched`` trees (the docs, ``mkdocs.yml`` and the site, which nothing else should write
  while pages run) are snapshotted (paths, types, sizes, mtimes, inodes), and compared when the
  page ends; a change fails the page at the line that started the process or loaded the C code.
  Nothing is restored: the message says what changed. A page that starts neither walks nothing.
  A snapshot cannot tell who made a change: an edit by another program in that window (an
  author's save while ``mkdocs serve`` runs the page, a ``--dirty`` rebuild writing the preview)
  fails the page too, and the hint says to build again. Not seen: a C extension's own file
  writes (h5py's, say): the guard keeps lesson code from changing the site by accident, not
  from its author.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import stat
import sys
import threading
import zipimport
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from lessonkit.core.problems import Problem
from lessonkit.execute.digests import LISTING, file_digest, listing_digest, python_folders

if TYPE_CHECKING:
    from lessonkit.execute.program import Program

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_active: FileWatch | None = None
_installed = False
_busy = threading.local()
"""Set while the hook handles an event in this thread: what the hook does itself (a digest's
``open``, ``sys._getframe``) is not the lesson's."""

Snapshot = dict[str, tuple[int, int, int, int]]
"""path -> (file type, size, mtime in ns, inode)."""


class FileWatch:
    """Record reads; refuse changes to ``protected`` and reads of ``private``; snapshot
    ``watched`` when the page starts a process or loads C code, to catch what they change.

    ``own_folder`` is the page's temporary working folder (default: the current folder when
    the watch starts, where the worker runs each page): what the page reads there, it wrote.
    """

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
        global _active
        _install()
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
        """Each file read, with the sha256 of its content now; each folder listed (its path
        ending with :data:`LISTING`), with the sha256 of its names now."""
        found = {}
        for path in sorted(self._read - self._written):
            digest = file_digest(Path(path)) if os.path.isfile(path) else None
            if digest is not None:
                found[path] = digest
        for path in sorted(self._listed):
            digest = listing_digest(path)
            if digest is not None:
                found[path.rstrip(os.sep) + LISTING] = digest
        return found

    def problems(self, program: Program | None = None) -> list[Problem]:
        """A problem when a process or C code the page started changed a watched tree (empty
        otherwise), at the line that started it (``program``: unused, the runner passes it)."""
        if not self._changes or self._escape is None:
            return []
        shown = ", ".join(f"{verb} {self._label(path)}" for verb, path in self._changes[:3])
        if len(self._changes) > 3:
            shown += f" and {len(self._changes) - 3} more"
        in_site = [_within(path, self.private) for _, path in self._changes]
        what = (
            "the site"
            if all(in_site)
            else "the sources"
            if not any(in_site)
            else "the sources and the site"
        )
        names = [self._label(p) for p in self.watched if os.path.lexists(p)] or ["them"]
        sources = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
        line, started = self._escape
        hint = (
            f"if the {started} started here wrote there: lesson code may not change {sources} "
            "by any route, let it write into its working folder (the current folder); if "
            "another program did (an editor's save, a preview's rebuild), build again"
        )
        return [Problem(f"{what} changed while this page's code ran: {shown}", line, hint)]

    # --- the hook's handlers (the hook is idle, for this thread, while one runs) -------------

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
            resolved = _fd_path(path)
            if resolved is not None:
                self._refuse_change(resolved, verb)
            return
        base = _fd_path(dir_fd) if isinstance(dir_fd, int) and dir_fd >= 0 else None
        if path is None or (isinstance(dir_fd, int) and dir_fd >= 0 and base is None):
            return  # nothing to resolve against (no /proc): let it through
        text = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
        self._refuse_change(os.path.join(base, text) if base else os.path.abspath(text), verb)

    def _on_escape(self, what: str) -> None:
        # before the process starts, or the C code runs; not lessonkit's own (capture flushes
        # C's stdout through ctypes after each block: a snapshot then would fail the page for
        # what the build writes meanwhile)
        if self._escape is None and not _machinery(_busy.caller):
            self._escape = (_lesson_line(), what)
            self._before = [_snapshot(p) for p in self.watched]

    def _refuse_change(self, path: str, verb: str) -> None:
        """Raise PermissionError if ``path`` (as written, with its folder resolved, or resolved
        through links) is or is in a protected path."""
        lexical = os.path.normpath(path)
        folder, name = os.path.split(lexical)
        candidates = {lexical, _real(lexical), os.path.join(_real(folder), name)}
        for folder in self.protected:
            for candidate in candidates:
                if candidate == folder or candidate.startswith(folder + os.sep):
                    label = self._label(folder)
                    raise _refused(
                        f"lesson code may not {verb} {label}: {self._label(candidate)}",
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
        """``path`` as messages show it: relative to the folder holding the protected paths
        (the project's), a folder with a trailing ``/``."""
        shown = os.path.relpath(path, self._base) if self._base else path
        if shown.startswith(".."):
            shown = path
        folder = os.path.isdir(path) or (
            path in self.protected and not os.path.exists(path) and not os.path.splitext(path)[1]
        )
        return shown + "/" if folder and not shown.endswith("/") else shown


def _refused(message: str, hint: str) -> PermissionError:
    """What the hook raises into lesson code: a PermissionError whose ``hint`` says what to do
    instead (the runner shows it)."""
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
    try:
        info = os.lstat(root)
    except OSError:
        return found
    found[root] = _state(info)
    if stat.S_ISDIR(info.st_mode):
        _walk(root, found)
    return found


def _walk(folder: str, found: Snapshot) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        found[entry.path] = _state(info)
        if stat.S_ISDIR(info.st_mode):
            _walk(entry.path, found)


def _state(info: os.stat_result) -> tuple[int, int, int, int]:
    kind = stat.S_IFMT(info.st_mode)
    if kind == stat.S_IFDIR:  # a folder's own size and mtime change with what it holds
        return kind, 0, 0, info.st_ino
    return kind, info.st_size, info.st_mtime_ns, info.st_ino


def _diff(before: Snapshot, after: Snapshot) -> list[tuple[str, str]]:
    """What changed between two snapshots: ``(verb, path)`` pairs in path order."""
    changes = [("deleted", p) for p in before if p not in after]
    changes += [("created", p) for p in after if p not in before]
    changes += [("changed", p) for p in before if p in after and before[p] != after[p]]
    return sorted(changes, key=lambda change: change[1])


# --- The hook ------------------------------------------------------------------------------


def _install() -> None:
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def _change(verb: str, path: int, dir_fd: int | None = None) -> Callable[[FileWatch, tuple], None]:
    """A handler for an event whose argument ``path`` is a path the call changes, relative to
    the folder descriptor at ``dir_fd`` (when the event has one)."""

    def handle(watch: FileWatch, args: tuple) -> None:
        watch._on_change(verb, args[path], None if dir_fd is None else args[dir_fd])

    return handle


def _renaming(watch: FileWatch, args: tuple) -> None:  # (src, dst, src_dir_fd, dst_dir_fd)
    watch._on_change("move files out of or into", args[0], args[2])
    watch._on_change("move files out of or into", args[1], args[3])


def _linking(watch: FileWatch, args: tuple) -> None:  # a hard link makes a second name
    watch._on_change("link to or into", args[0], args[2])
    watch._on_change("link to or into", args[1], args[3])


def _escape(what: str) -> Callable[[FileWatch, tuple], None]:
    return lambda watch, args: watch._on_escape(what)


_HANDLERS: dict[str, Callable[[FileWatch, tuple], None]] = {
    "open": lambda watch, args: watch._on_open(*args[:3]),
    "os.listdir": lambda watch, args: watch._on_listing(args[0]),
    "os.scandir": lambda watch, args: watch._on_listing(args[0]),
    "os.remove": _change("delete from", 0, 1),
    "os.rmdir": _change("delete from", 0, 1),
    "shutil.rmtree": _change("delete from", 0, 1),
    "os.mkdir": _change("make folders in", 0, 2),
    "os.rename": _renaming,
    "shutil.move": lambda watch, args: _renaming(watch, (args[0], args[1], None, None)),
    "os.link": _linking,
    "os.symlink": _change("make links in", 1, 2),
    "os.truncate": _change("truncate files in", 0),
    "os.chmod": _change("change modes in", 0, 2),
    "os.chown": _change("change owners in", 0, 3),
    "os.utime": _change("change times in", 0, 3),
    "os.chflags": _change("change flags in", 0),
    "os.lchflags": _change("change flags in", 0),
    "os.setxattr": _change("change attributes in", 0),
    "os.removexattr": _change("change attributes in", 0),
    "shutil.copyfile": _change("copy into", 1),
    "shutil.copymode": _change("copy into", 1),
    "shutil.copystat": _change("copy into", 1),
    "shutil.copytree": _change("copy into", 1),
    "shutil.chown": _change("change owners in", 0),
    "shutil.unpack_archive": _change("unpack into", 1),
    "shutil.make_archive": _change("write into", 0),
    "sqlite3.connect": lambda watch, args: watch._on_change("write into", args[0]),
    "subprocess.Popen": _escape("process"),
    "os.system": _escape("process"),
    "os.exec": _escape("process"),
    "os.posix_spawn": _escape("process"),
    "os.spawn": _escape("process"),
    "os.startfile": _escape("process"),
    "pty.spawn": _escape("process"),
    "ctypes.dlopen": _escape("C code (ctypes)"),
    "ctypes.dlsym": _escape("C code (ctypes)"),
    "ctypes.call_function": _escape("C code (ctypes)"),
}


_IMPORT_SYSTEM = (
    "<frozen importlib",
    os.path.dirname(importlib.__file__) + os.sep,  # importlib.metadata, importlib.resources
    pkgutil.__file__,
    zipimport.__file__,
)
_STDLIB = (os.path.dirname(os.__file__) + os.sep, "<frozen ")
_MACHINERY = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _machinery(frame: FrameType | None) -> bool:
    """Whether a read, a listing or C code reached from ``frame`` (the caller of the audited
    function) is the import system's (importing, finding distributions: followed by
    :mod:`lessonkit.execute.imports`) or lessonkit's execution machinery's (reading a module's
    source to follow its imports, flushing C's stdout): the innermost frame outside the standard
    library decides.

    A loader's ``get_data`` reads a module's code when importing, and a package's data for
    ``pkgutil.get_data``: the latter is a read."""
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
    if watch is None:
        return
    handler = _HANDLERS.get(event)
    if handler is None or getattr(_busy, "on", False):
        return
    _busy.caller = sys._getframe(1)
    _busy.on = True
    try:
        handler(watch, args)
    finally:
        _busy.on, _busy.caller = False, None
