"""A content-addressed store of page results on disk.

An entry is ``<key>.json``: a header line (format and the payload's checksum), then the
payload: the result, the files the code read, with their digests at run time, and the modules it
imported (source digests of lessonkit's, versions of installed distributions). An entry is served
only while all of those still match: an edited data file or lab module, or an upgraded library,
is a miss and the page runs again. Writes are atomic (temporary file, then rename), so a crash
leaves no half entry; a corrupt, truncated or stale entry reads as a miss and is replaced. Failed
runs are never stored.

>>> import tempfile
>>> cache = Cache(Path(tempfile.mkdtemp()))
>>> result = PageResult(steps=[StepResult(stdout="hi\\n")])
>>> cache.put("k1", result)
>>> cache.get("k1").steps[0].stdout
'hi\\n'
>>> cache.get("missing") is None
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.execute import imports
from lessonkit.execute.filewatch import file_digest
from lessonkit.execute.results import Figure, PageResult, StepResult

FORMAT = 3


class Cache:
    """Page results keyed by :meth:`Program.key`; ``None`` means run the page."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, key: str) -> PageResult | None:
        path = self.folder / f"{key}.json"
        try:
            header, _, payload = path.read_bytes().partition(b"\n")
            entry = json.loads(header)
            if entry["format"] != FORMAT or entry["checksum"] != _checksum(payload):
                raise ValueError("checksum mismatch")
            result = _from_dict(json.loads(payload))
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)  # corrupt or from another version: recompute
            return None
        for read, digest in result.reads.items():
            if not Path(read).is_file() or file_digest(Path(read)) != digest:
                return None  # a data file the page read has changed
        if not imports.still_current(result.sources, result.packages):
            return None  # a module the page imported has changed, or a library's version
        return result

    def put(self, key: str, result: PageResult) -> None:
        if not result.ok:
            return
        payload = json.dumps(dataclasses.asdict(result), sort_keys=True).encode()
        header = json.dumps({"format": FORMAT, "checksum": _checksum(payload)}).encode()
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(header + b"\n" + payload)
            os.replace(temporary, self.folder / f"{key}.json")
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _checksum(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def _from_dict(data: dict) -> PageResult:
    steps = [
        StepResult(stdout=s["stdout"], text=s["text"], figures=[Figure(**f) for f in s["figures"]])
        for s in data["steps"]
    ]
    problems = [Problem(**p) for p in data["problems"]]
    return PageResult(
        steps=steps,
        problems=problems,
        reads=dict(data["reads"]),
        sources=dict(data["sources"]),
        packages=dict(data["packages"]),
    )
