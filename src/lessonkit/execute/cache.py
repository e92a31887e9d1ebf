"""A store of page results on disk that never breaks a build, nor serves a damaged entry.

An entry is ``<key>.json``: a header line (the format and a sha256 of the key and the payload),
then the payload: the result (each step's output; the files and folders the code read and the
lessonkit or local modules it imported, each with its digest). An entry is served only while
those digests still match (a file is read again only when its mtime or size changed:
:func:`~lessonkit.execute.digests.current_digest`); Python and the installed distributions are
in the key. Failed runs are never stored.

**What it defends against: accidents, not the author's own code.** A torn or partial write, a
full disk, a crash, a bit flip, an entry of an older format, a stale entry: each is a miss (the
page runs again), never an error or a wrong page. Writes are atomic (temporary file, then
rename). The checksum does not stop deliberate forgery: lesson code is the site author's own,
and code that can run a subprocess can write a valid entry. That is accepted: the author can
change what a page prints more simply by editing it, and on GitHub a pull request's builds
cannot write main's cache (Actions caches are scoped per branch).

**Faults are warnings.** A cache folder that cannot be made or written, or that is a file, an
entry that cannot be read, is a folder or is damaged: each is logged once on the ``lessonkit``
logger and the page runs again (a damaged entry is replaced). A cache warning does not fail a
``--strict`` build: the page's output is computed afresh and is the same bytes.

**Pruning.** After a full build, :meth:`Cache.prune` removes the entries that build did not
use and that are older than it (a hit refreshes its entry's mtime: a concurrent build's stay).

>>> import tempfile
>>> cache = Cache(Path(tempfile.mkdtemp()))
>>> cache.put("a" * 64, PageResult(steps=[StepResult(stdout="hi\\n")]))
>>> cache.get("a" * 64).steps[0].stdout
'hi\\n'
>>> cache.get("b" * 64) is None
True
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from lessonkit.core.problems import Problem
from lessonkit.execute.digests import current_digest
from lessonkit.execute.results import Figure, PageResult, StepResult

log = logging.getLogger(__name__)

FORMAT = 5
"""The entry format: raise it whenever what an entry holds changes (older entries are misses)."""

TEMPORARY_AGE = 3600.0
"""Seconds after which a prune removes a temporary file (a writer that crashed mid-entry)."""

_KEY = re.compile(r"[A-Za-z0-9_-]+")
_HEADER_LIMIT = 200
"""Bytes of an entry's header line read at most (:func:`encode` writes some 90)."""


class Corrupt(ValueError):
    """An entry that is not what this version of lessonkit writes."""


class Cache:
    """Page results keyed by :meth:`Program.key`; ``None`` means run the page."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._broken: str | None = None
        """Why nothing can be stored (then warned once), or None."""

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
        try:
            result = decode(key, data)
        except Corrupt as error:
            self._damaged(path, str(error))
            return None
        if not still_current(result):
            return None  # a file, folder or module the page used has changed
        with suppress(OSError):  # used by this build: a concurrent build's prune keeps it
            os.utime(path)
        return result

    def holds(self, key: str) -> bool:
        """Whether there is an entry for ``key`` (one ``stat``; :meth:`get` says if it serves)."""
        try:
            return self._entry(key).is_file()
        except OSError:
            return False

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

    def _write(self, key: str, result: PageResult) -> None:
        if self._broken is not None:
            return
        path = self._entry(key)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _atomic_write(path, encode(key, result))
        except (FileExistsError, NotADirectoryError):
            self._unusable("is a file, not a folder")
        except IsADirectoryError:
            if _remove(path):
                self._write(key, result)
            else:
                self._fault(path, "is a folder that cannot be removed")
        except OSError as error:
            self._unusable(f"cannot be written ({error.strerror or error})")

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

    def _entry(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a cache key: {key!r}")
        return self.folder / f"{key}.json"

    def _unusable(self, why: str) -> None:
        if self._broken is None:
            self._broken = why
            log.warning(
                Problem(
                    f"the cache folder {why}: pages run, but their results are not stored",
                    hint="make it a writable folder, or set the lessonkit option cache_dir",
                    severity="warning",
                    path=_shown(self.folder),
                ).format()
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


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def _atomic_write(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
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


def still_current(result: PageResult) -> bool:
    """Whether a successful ``result`` still holds: every file and folder it read and module it
    imported is as it was (a ``stat`` each; a read only where one changed)."""
    depends = {**result.reads, **result.sources}
    return result.ok and all(current_digest(p) == d for p, d in depends.items())


# --- the format: a checksummed header, then each record by its fields ----------------------------


def encode(key: str, result: PageResult) -> bytes:
    """What :meth:`Cache.put` writes for ``key``."""
    payload = json.dumps(_page_json(result), sort_keys=True).encode()
    header = json.dumps({"format": FORMAT, "sha256": _checksum(key, payload)}).encode()
    return header + b"\n" + payload


def decode(key: str, data: bytes) -> PageResult:
    """The result an entry holds; :class:`Corrupt` unless it is exactly what
    :func:`encode` writes for ``key`` in this format (a copy under another key is not)."""
    header, _, payload = data.partition(b"\n")
    try:  # what encode writes is some 90 bytes: longer is no entry (nor nested past recursion)
        fields = json.loads(header) if len(header) <= _HEADER_LIMIT else None
    except ValueError:
        fields = None
    if not isinstance(fields, dict) or set(fields) != {"format", "sha256"}:
        raise Corrupt("is not a lessonkit cache entry")
    if fields["format"] != FORMAT:
        raise Corrupt(f"has format {fields['format']!r}, not {FORMAT}")
    if fields["sha256"] != _checksum(key, payload):
        raise Corrupt("fails its checksum (changed since lessonkit wrote it)")
    try:
        result = _page_result(json.loads(payload))
    except (ValueError, TypeError) as error:  # json's and _typed's
        raise Corrupt(f"has the wrong shape ({error})") from None
    if not result.ok:
        raise Corrupt("holds a failed run")
    return result


def _checksum(key: str, payload: bytes) -> str:
    return hashlib.sha256(key.encode() + b"\n" + payload).hexdigest()


def _page_json(result: PageResult) -> dict[str, Any]:
    return {
        "steps": [
            {
                "stdout": s.stdout,
                "text": s.text,
                "figures": [f._asdict() for f in s.figures],
                "shown": s.shown,
            }
            for s in result.steps
        ],
        "problems": [p._asdict() for p in result.problems],
        "reads": result.reads,
        "sources": result.sources,
    }


def _page_result(value: Any) -> PageResult:
    page = _fields(value, "steps", "problems", "reads", "sources")
    return PageResult(
        steps=[_step(s) for s in _typed(page["steps"], list)],
        problems=[_problem(p) for p in _typed(page["problems"], list)],
        reads=_mapping(page["reads"], str),
        sources=_mapping(page["sources"], str),
    )


def _step(value: Any) -> StepResult:
    step = _fields(value, "stdout", "text", "figures", "shown")
    figures = [_figure(f) for f in _typed(step["figures"], list)]
    shown = [_displayed(s) for s in _typed(step["shown"], list)]
    return StepResult(_typed(step["stdout"], str), figures, _typed(step["text"], str), shown)


def _displayed(value: Any) -> tuple[int, str, str]:
    at, kind, text = _typed(value, list)
    return _typed(at, int), _typed(kind, str), _typed(text, str)


def _figure(value: Any) -> Figure:
    figure = _fields(value, "svg", "alt")
    return Figure(_typed(figure["svg"], str), _typed(figure["alt"], str))


def _problem(value: Any) -> Problem:
    problem = _fields(value, *Problem._fields)
    if problem["severity"] not in ("error", "warning"):
        raise ValueError(f"severity {problem['severity']!r}")
    if problem["line"] is not None:
        _typed(problem["line"], int)
    for name in ("message", "hint", "path", "details", "near"):
        _typed(problem[name], str)
    return Problem(**problem)


def _fields(value: Any, *names: str) -> dict[str, Any]:
    if type(value) is not dict or value.keys() != set(names):
        raise ValueError(f"not the fields {', '.join(names)}")
    return value


def _typed(value: Any, kind: type) -> Any:
    if type(value) is not kind:
        raise TypeError(f"{type(value).__name__} where {kind.__name__} belongs")
    return value


def _mapping(value: Any, kind: type) -> dict[str, Any]:
    for item in _typed(value, dict).values():
        _typed(item, kind)
    return value
