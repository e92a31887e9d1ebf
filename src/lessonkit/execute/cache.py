"""A content-addressed store of page results on disk, that never breaks a build.

An entry is ``<key>.json``: a header line (the format and the payload's MAC), then the payload:
the result (each step's output; the files and folders the code read, with their digests at run
time; the modules it imported: source digests of lessonkit's, versions of installed
distributions) and the stamps (mtime and size) that let a lookup skip re-reading an unchanged
file. An entry is served only while all of those still match: an edited data file or lab
module, a file added to a folder the code listed, or an upgraded library, is a miss and the page
runs again. Failed runs are never stored.

**Faults are warnings, never a crash or a wrong page.** A cache folder that cannot be made or
written (read-only, or a file), an entry that cannot be read, is a folder, is garbage, fails its
MAC or has the wrong shape: each is logged as a warning on the ``lessonkit`` logger (the page
runs again; a damaged entry is removed and replaced), at most once per kind for the folder. A
cache warning does not fail a ``--strict`` build, on purpose: the page's output is computed
afresh and is the same bytes, and ``--strict`` is for what makes a site wrong (a CI runner with
a read-only or damaged cache must still publish a correct site).

**Entries are lessonkit's alone.** The MAC is an HMAC-SHA256 of the key and the payload with a
random secret made once per cache folder (the ``secret`` file, readable by its owner only; builds
running at once make it under the folder's ``flock`` and agree on it). Lesson code may not open,
change or list the cache folder by any route the write guard sees
(:mod:`lessonkit.execute.filewatch`), and worker processes never hold the secret, so an entry
that a lesson (or anything else) rewrote, even with a recomputed checksum, or copied under
another page's key, is not served. Its shape is validated strictly all the same: a damaged entry
can never crash a lookup. Writes are atomic (temporary file, then rename).

**Pruning.** After a full build, :meth:`Cache.prune` removes the entries that build did not
use and that are older than it (a lookup that hits refreshes its entry's mtime, so a
concurrent build's entries stay).

>>> import tempfile
>>> from lessonkit.execute.results import StepResult
>>> cache = Cache(Path(tempfile.mkdtemp()))
>>> result = PageResult(steps=[StepResult(stdout="hi\\n")])
>>> cache.put("a" * 64, result)
>>> cache.get("a" * 64).steps[0].stdout
'hi\\n'
>>> cache.get("b" * 64) is None
True
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
import types
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache as memoized
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no lock between builds (see _builds_lock)
    fcntl = None  # type: ignore[assignment]

from lessonkit.core.problems import Problem
from lessonkit.execute import unchanged
from lessonkit.execute.digests import LISTING, file_digest, listing_digest, too_recent
from lessonkit.execute.results import PageResult

log = logging.getLogger(__name__)

FORMAT = 4
SECRET = "secret"
"""The file in the cache folder holding its HMAC secret (64 hex digits)."""
CHECKSUM = "fails its checksum (changed since lessonkit wrote it)"
"""Why an entry is refused whose MAC is not its content's under this folder's secret."""

TEMPORARY_AGE = 3600.0
"""Seconds after which a prune removes a temporary file (a writer that crashed mid-entry)."""

_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SECRET_TEXT = re.compile(rb"[0-9a-f]{64}\n?")


class Corrupt(ValueError):
    """An entry that is not what this version of lessonkit writes."""


class Cache:
    """Page results keyed by :meth:`Program.key`; ``None`` means run the page."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._secret: bytes | None = None
        self._broken: str | None = None
        """Why nothing can be stored (then warned once), or None."""
        self._warned: set[str] = set()
        self._replaced = False
        """Whether this cache replaced a damaged secret: the entries the old one signed then
        fail their checksums, as they must, and go without a warning each."""
        self._making = threading.Lock()
        """Held while the secret is made: a cold build's first pages are stored at once, and two
        secrets would leave the entries signed with the first unverifiable."""

    # --- lookups -------------------------------------------------------------------------

    def get(self, key: str) -> PageResult | None:
        path = self._entry(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            self._unusable("is a file, not a folder")
            return None
        except IsADirectoryError:
            self._damaged(path, "is a folder, not a file")
            return None
        except OSError as error:
            self._fault(path, f"cannot be read ({error.strerror or error})")
            return None
        secret = self._read_secret()
        if secret is None:
            return None  # no secret, no entry it could prove
        try:
            result, stamps = _decode(key, data, secret)
        except Corrupt as error:
            if self._replaced and error.args[0] == CHECKSUM:
                _remove(path)  # signed with the secret this cache replaced (it said so once)
            else:
                self._damaged(path, str(error))
            return None
        fresh = _still_current(result.reads, stamps)
        if fresh is None or not unchanged.still_current(result.sources, result.packages):
            return None  # a file or folder the page read has changed, or a module or library
        if fresh != stamps:  # touched, not changed (a checkout): note the new stamps
            self._write(key, result, quiet=True)
        else:
            _refresh(path)  # used by this build: a prune by a concurrent build keeps it
        return result

    def holds(self, key: str) -> bool:
        """Whether there is an entry for ``key`` (one ``stat``; :meth:`get` says if it serves)."""
        try:
            return self._entry(key).is_file()
        except OSError:
            return False

    # --- stores ----------------------------------------------------------------------------

    def put(self, key: str, result: PageResult) -> None:
        """Store ``result`` (if it is a success); a failure to store is a warning."""
        if result.ok:
            self._write(key, result)

    def mark(self) -> None:
        """Make the folder (quietly): the next build is not a first one, even with nothing
        stored."""
        if self._broken is None:
            with suppress(OSError):
                self.folder.mkdir(parents=True, exist_ok=True)

    def _write(self, key: str, result: PageResult, *, quiet: bool = False) -> None:
        path = self._entry(key)
        secret = self._make_secret(quiet=quiet)
        if secret is None:
            return
        stamps = _stamps(result.reads)
        payload = json.dumps({"result": _plain(result), "stamps": stamps}, sort_keys=True).encode()
        header = json.dumps({"format": FORMAT, "mac": _mac(secret, key, payload)}).encode()
        try:
            _atomic_write(path, header + b"\n" + payload)
        except IsADirectoryError:
            if _remove(path):
                self._write(key, result, quiet=quiet)
            elif not quiet:
                self._fault(path, "is a folder that cannot be removed")
        except OSError as error:
            if not quiet:
                self._unusable(f"cannot be written ({error.strerror or error})")

    # --- pruning -----------------------------------------------------------------------------

    def prune(self, used: set[str], before: float) -> int:
        """Remove the entries not in ``used`` last changed before ``before`` (a time), and
        temporary files a crashed writer left; return how many went."""
        try:
            entries = list(os.scandir(self.folder))
        except OSError:
            return 0
        removed = 0
        for entry in entries:
            name = entry.name
            if name.endswith(".json") and _KEY.fullmatch(name[:-5]) and name[:-5] not in used:
                limit = before
            elif name.endswith(".tmp"):
                limit = min(before, time.time() - TEMPORARY_AGE)
            else:
                continue
            try:
                old = entry.stat(follow_symlinks=False).st_mtime < limit
            except OSError:
                continue
            if old and _remove(Path(entry.path)):
                removed += 1
        return removed

    # --- the secret ----------------------------------------------------------------------------

    def _read_secret(self) -> bytes | None:
        if self._secret is None:
            try:
                text = (self.folder / SECRET).read_bytes()
            except OSError:
                return None
            if _SECRET_TEXT.fullmatch(text):
                self._secret = text[:64]
        return self._secret

    def _make_secret(self, *, quiet: bool = False) -> bytes | None:
        """The folder's secret, made (with the folder) if there is none or it is damaged."""
        if self._broken is not None:
            return None
        with self._making:
            return self._read_secret() or self._made_secret(quiet=quiet)

    def _made_secret(self, *, quiet: bool) -> bytes | None:
        path = self.folder / SECRET
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with _builds_lock(self.folder):  # another build (a process) may be making one
                if self._read_secret() is not None:
                    return self._secret  # it just did
                damaged = path.exists()
                import secrets  # here: made once per cache folder

                fresh = secrets.token_hex(32).encode()
                temporary = _temporary(self.folder, fresh)
                try:
                    if damaged:
                        os.replace(temporary, path)
                    else:  # the first of two builds wins (one without the lock: no fcntl)
                        with suppress(FileExistsError):
                            os.link(temporary, path)
                finally:
                    Path(temporary).unlink(missing_ok=True)
                self._secret = None
                secret = self._read_secret()  # what is there now: ours, or the first build's
        except (FileExistsError, NotADirectoryError):
            self._unusable("is a file, not a folder")
            return None
        except OSError as error:
            if not quiet:
                self._unusable(f"cannot be written ({error.strerror or error})")
            return None
        if damaged:
            self._replaced = True
            if not quiet:
                log.warning(
                    Problem(
                        "the cache's secret was damaged: a new one is made, and the pages whose "
                        "entries the old one signed run again",
                        hint="nothing to do (if this repeats, delete the cache folder)",
                        severity="warning",
                        path=_shown(path),
                    ).format()
                )
        return secret

    # --- warnings ----------------------------------------------------------------------------

    def _entry(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a cache key: {key!r}")
        return self.folder / f"{key}.json"

    def _unusable(self, why: str) -> None:
        self._broken = why
        self._warn_once(
            "folder",
            Problem(
                f"the cache folder {why}: pages run, but their results are not stored",
                hint="make it a writable folder, or set the lessonkit option cache_dir to one",
                severity="warning",
                path=_shown(self.folder),
            ),
        )

    def _damaged(self, path: Path, why: str) -> None:
        gone = _remove(path)
        self._fault(path, why + ("" if gone else ", and cannot be removed"))

    def _fault(self, path: Path, why: str) -> None:
        problem = Problem(
            f"cache entry {why}: the page runs again",
            hint="nothing to do: lessonkit replaces it (if this repeats, delete the cache folder)",
            severity="warning",
            path=_shown(path),
        )
        log.warning(problem.format())

    def _warn_once(self, kind: str, problem: Problem) -> None:
        if kind not in self._warned:
            self._warned.add(kind)
            log.warning(problem.format())


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


@contextmanager
def _builds_lock(folder: Path) -> Iterator[None]:
    """Hold the cache folder's lock (``flock`` on the folder itself) against other builds, which
    may find the secret missing or damaged at the same moment: where the platform or the file
    system has no such lock, nothing is held (a missing secret is still made first-wins)."""
    fd = None
    if fcntl is not None:
        with suppress(OSError):
            fd = os.open(folder, os.O_RDONLY)
    try:
        if fd is not None:
            with suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # and with it the lock


def _mac(secret: bytes, key: str, payload: bytes) -> str:
    return hmac.new(secret, key.encode() + b"\n" + payload, "sha256").hexdigest()


def _temporary(folder: Path, data: bytes) -> str:
    fd, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = _temporary(path.parent, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove(path: Path) -> bool:
    """Remove a file or a folder; whether it is gone."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        return False
    return True


def _refresh(path: Path) -> None:
    with suppress(OSError):  # a read-only cache still serves
        os.utime(path)


# --- what a page read, at lookup ---------------------------------------------------------------

Stamps = dict[str, list[int]]
"""path -> [mtime in ns, size]: what a recorded file or folder was when its entry was stored."""


def still_current(result: PageResult) -> bool:
    """Whether a successful ``result`` still holds: every file and folder it read, module it
    imported and library it used is as it was (a ``stat`` each; a read only where one changed)."""
    return (
        result.ok
        and _still_current(result.reads, {}) is not None
        and unchanged.still_current(result.sources, result.packages)
    )


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path.rstrip(os.sep) or os.sep)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]


def _digest(path: str) -> str | None:
    """The digest of a recorded read now: a file's bytes, or a folder's names."""
    if path.endswith(LISTING):
        return listing_digest(path)
    try:
        return file_digest(Path(path))
    except OSError:
        return None


@memoized
def _digest_at(path: str, stamp: tuple[int, int]) -> str | None:
    """:func:`_digest` as it was at ``stamp``, read once per stamp: for stamps older than
    :data:`~lessonkit.execute.digests.RACY` only (see :func:`too_recent`)."""
    return _digest(path)


def _stamps(reads: dict[str, str]) -> Stamps:
    """The stamps of the recorded reads that are still as read and not too recent to trust."""
    found = {}
    now = time.time_ns()
    for path, digest in reads.items():
        stamp = _stamp(path)
        if stamp is None or too_recent(stamp[0], now):  # no stamp: read again at each lookup
            continue
        if _digest_at(path, (stamp[0], stamp[1])) == digest:
            found[path] = stamp
    return found


def _still_current(reads: dict[str, str], stamps: Stamps) -> Stamps | None:
    """The stamps of ``reads`` now if every one is still as it was read, else None: one
    ``stat`` each, and a read of the file (or folder) only when its stamp changed."""
    fresh = {}
    now = time.time_ns()
    for path, digest in reads.items():
        stamp = _stamp(path)
        if stamp is None:
            return None
        trusted = not too_recent(stamp[0], now)  # else read again at every lookup, as if unstamped
        if stamp != stamps.get(path):
            current = _digest_at(path, (stamp[0], stamp[1])) if trusted else _digest(path)
            if current != digest:
                return None
        if path in stamps or trusted:
            fresh[path] = stamp
    return fresh


# --- decoding, strictly ------------------------------------------------------------------------


def _decode(key: str, data: bytes, secret: bytes) -> tuple[PageResult, Stamps]:
    """The result and stamps an entry holds; :class:`Corrupt` unless it is exactly what
    :meth:`Cache.put` writes for ``key`` with this folder's secret."""
    header, newline, payload = data.partition(b"\n")
    try:
        fields = json.loads(header)
    except ValueError:
        raise Corrupt("is not a lessonkit cache entry") from None
    if not newline or not isinstance(fields, dict) or set(fields) != {"format", "mac"}:
        raise Corrupt("is not a lessonkit cache entry")
    if fields["format"] != FORMAT:
        raise Corrupt(f"has format {fields['format']!r}, not {FORMAT}")
    if not isinstance(fields["mac"], str) or not hmac.compare_digest(
        fields["mac"], _mac(secret, key, payload)
    ):
        raise Corrupt(CHECKSUM)
    try:
        body = json.loads(payload)
    except ValueError:
        raise Corrupt("holds no valid JSON") from None
    if not isinstance(body, dict) or set(body) != {"result", "stamps"}:
        raise Corrupt("has the wrong shape: not {result, stamps}")
    result = _value(PageResult, body["result"], "result")
    stamps = _value(dict[str, list[int]], body["stamps"], "stamps")
    if not result.ok:
        raise Corrupt("holds a failed run")
    if any(len(stamp) != 2 or path not in result.reads for path, stamp in stamps.items()):
        raise Corrupt("has the wrong shape: a stamp for no read")
    return result, stamps


def _value(kind: Any, value: Any, where: str) -> Any:
    """``value`` (parsed JSON) as type ``kind``, checked exactly; else :class:`Corrupt`."""
    return _decoder(kind, where)(value)


@memoized
def _decoder(kind: Any, where: str) -> Callable[[Any], Any]:
    """A function turning parsed JSON into type ``kind`` (a record, list, tuple, dict,
    union, Literal or scalar), checking it exactly: a record's fields all there and no other,
    ``bool`` no ``int``. Made once per type: a warm build decodes every page's entry."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)

    def wrong(why: str = "") -> Corrupt:
        return Corrupt(f"has the wrong shape at {where}" + (f": {why}" if why else ""))

    if _is_record(kind):
        fields = {name: _decoder(hint, f"{where}.{name}") for name, hint in _hints(kind).items()}
        names = set(fields)

        ordered = list(fields.items())  # the fields' order: the values go in by position

        def record(value: Any) -> Any:
            if type(value) is not dict or value.keys() != names:
                raise wrong("not its fields")
            return kind(*[decode(value[name]) for name, decode in ordered])

        return record
    if origin in (list, tuple) and not (origin is tuple and args[-1:] != (Ellipsis,)):
        item = _decoder(args[0], f"{where}[]")
        scalar = args[0] in (str, int)

        def sequence(value: Any) -> Any:
            if type(value) is not list:
                raise wrong("not a list")
            if scalar and all(type(v) is args[0] for v in value):
                return value if origin is list else tuple(value)
            items = [item(v) for v in value]
            return items if origin is list else tuple(items)

        return sequence
    if origin is tuple:
        items = [_decoder(a, f"{where}[{n}]") for n, a in enumerate(args)]

        def fixed(value: Any) -> Any:
            if type(value) is not list or len(value) != len(items):
                raise wrong(f"not {len(items)} items")
            return tuple(decode(v) for decode, v in zip(items, value, strict=True))

        return fixed
    if origin is dict:
        key, item = _decoder(args[0], where), _decoder(args[1], f"{where}[]")
        plain = args == (str, str)

        def mapping(value: Any) -> Any:
            if type(value) is not dict:
                raise wrong("not a mapping")
            if plain and all(type(v) is str for v in value.values()):
                return value  # JSON keys are strings
            return {key(k): item(v) for k, v in value.items()}

        return mapping
    if origin in (typing.Union, types.UnionType):
        options = [_decoder(a, where) for a in args]

        def union(value: Any) -> Any:
            for option in options:
                try:
                    return option(value)
                except Corrupt:
                    continue
            raise wrong()

        return union
    if origin is typing.Literal:

        def literal(value: Any) -> Any:
            if not any(type(value) is type(a) and value == a for a in args):
                raise wrong(f"{value!r} is none of {args}")
            return value

        return literal
    if kind is float:

        def number(value: Any) -> Any:
            if type(value) not in (int, float):
                raise wrong("not a number")
            return float(value)

        return number
    if kind in (str, int, bool, type(None)):

        def scalar_value(value: Any) -> Any:
            if type(value) is not kind:
                raise wrong(f"not {kind.__name__}")
            return value

        return scalar_value
    if kind is Any:
        return lambda value: value
    raise TypeError(f"a cache entry cannot hold {kind!r}")  # a field type lessonkit added


@memoized
def _hints(kind: type) -> dict[str, Any]:
    hints = typing.get_type_hints(kind)
    return {name: hints[name] for name in kind._fields}


def _is_record(kind: Any) -> bool:
    """Whether ``kind`` is a record an entry holds as a JSON object: a ``NamedTuple``
    (:class:`PageResult` and what it holds)."""
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it: a record (a ``NamedTuple``) as an object of its fields,
    lists and tuples as lists, mappings as objects.

    >>> _plain([Problem("a warning", 3, severity="warning")])[0]["line"]
    3
    """
    if _is_record(type(value)):
        return {name: _plain(getattr(value, name)) for name in type(value)._fields}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
