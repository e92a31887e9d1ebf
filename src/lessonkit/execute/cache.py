"""Page results on disk: a fault is a warning and a miss, never a broken build or a wrong page.

An entry is ``<key>.json``: a header line (format, sha256 of key and payload), then the result
with the digests of what the page used, served only while those match. Failed runs are never
stored, writes are atomic, a torn, damaged or older entry is a miss (and removed) with one
warning. The checksum guards against accidents, not the site's author.
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

FORMAT = 5  # raise it whenever what an entry holds changes
TEMPORARY_AGE = 3600.0  # seconds after which a prune removes a crashed writer's temporary file
_KEY = re.compile(r"[A-Za-z0-9_-]+")
_HEADER_LIMIT = 200  # bytes: encode writes some 90 (a longer header is no entry)


class Corrupt(ValueError):
    """An entry that is not what this version of lessonkit writes."""


class Cache:
    """Page results keyed by :meth:`Program.key`; ``None`` means run the page."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._broken: str | None = None  # why nothing can be stored (warned once)

    def get(self, key: str) -> PageResult | None:
        path = self._entry(key)
        try:
            result = decode(key, path.read_bytes())
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return self._unusable("is a file, not a folder")
        except IsADirectoryError:
            return self._damaged(path, "is a folder, not a file")
        except OSError as error:
            return self._fault(path, f"cannot be read ({error.strerror or error})")
        except Corrupt as error:
            return self._damaged(path, str(error))
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
        """Store a successful ``result``; a failure to store is a warning."""
        if not result.ok or self._broken is not None:
            return
        path = self._entry(key)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _atomic_write(path, encode(key, result))
        except (FileExistsError, NotADirectoryError):
            self._unusable("is a file, not a folder")
        except IsADirectoryError:
            if _remove(path):
                self.put(key, result)
            else:
                self._fault(path, "is a folder that cannot be removed")
        except OSError as error:
            self._unusable(f"cannot be written ({error.strerror or error})")

    def mark(self) -> None:
        """Make the folder (quietly): the next build is not a first one."""
        if self._broken is None:
            with suppress(OSError):
                self.folder.mkdir(parents=True, exist_ok=True)

    def prune(self, used: set[str], before: float) -> int:
        """Remove entries not in ``used`` older than ``before``, and stale temporary files."""
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
                    path=os.path.relpath(self.folder),
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
            path=os.path.relpath(path),
        )
        log.warning(problem.format())


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
    """Whether every file, folder and module a successful ``result`` used is as it was."""
    depends = {**result.reads, **result.sources}
    return result.ok and all(current_digest(p) == d for p, d in depends.items())


def encode(key: str, result: PageResult) -> bytes:
    payload = json.dumps(_page_json(result), sort_keys=True).encode()
    header = json.dumps({"format": FORMAT, "sha256": _checksum(key, payload)}).encode()
    return header + b"\n" + payload


def decode(key: str, data: bytes) -> PageResult:
    """The result in an entry; :class:`Corrupt` unless :func:`encode` wrote it for ``key``."""
    header, _, payload = data.partition(b"\n")
    try:
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
    except ValueError as error:
        raise Corrupt(f"has the wrong shape ({error})") from None
    if not result.ok:
        raise Corrupt("holds a failed run")
    return result


def _checksum(key: str, payload: bytes) -> str:
    return hashlib.sha256(key.encode() + b"\n" + payload).hexdigest()


def _page_json(result: PageResult) -> dict[str, Any]:
    steps = [{**s._asdict(), "figures": [f._asdict() for f in s.figures]} for s in result.steps]
    return {**result._asdict(), "steps": steps, "problems": [p._asdict() for p in result.problems]}


_OPTIONAL_INT = (int, type(None))
_SHAPE = {  # what _page_json writes: a type, a list of one shape, a record, or a mapping
    "steps": [{"stdout": str, "text": str, "figures": [{"svg": str, "alt": str}], "shown": [list]}],
    "problems": [{**dict.fromkeys(Problem._fields, str), "line": _OPTIONAL_INT}],
    "reads": {str: str},
    "sources": {str: str},
}


def _fits(value: Any, shape: Any) -> bool:
    if isinstance(shape, list):
        return type(value) is list and all(_fits(item, shape[0]) for item in value)
    if shape == {str: str}:
        return type(value) is dict and all(type(item) is str for item in value.values())
    if isinstance(shape, dict):
        fields = type(value) is dict and value.keys() == shape.keys()
        return fields and all(_fits(value[name], shape[name]) for name in shape)
    return type(value) in (shape if isinstance(shape, tuple) else (shape,))


def _page_result(value: Any) -> PageResult:
    if not _fits(value, _SHAPE):
        raise ValueError("not what lessonkit writes")
    if any(p["severity"] not in ("error", "warning") for p in value["problems"]):
        raise ValueError("an unknown severity")
    for step in value["steps"]:
        step["shown"] = [tuple(row) for row in step["shown"]]
        if any([type(x) for x in row] != [int, str, str] for row in step["shown"]):
            raise ValueError("a shown output is not (position, kind, text)")
    steps = [
        StepResult(**{**s, "figures": [Figure(**f) for f in s["figures"]]}) for s in value["steps"]
    ]
    problems = [Problem(**p) for p in value["problems"]]
    return PageResult(**{**value, "steps": steps, "problems": problems})
