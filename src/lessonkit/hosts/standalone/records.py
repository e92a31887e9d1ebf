"""What ``lessonkit prepare`` keeps of each page's conversion, so a warm run converts none again.

A record (title, HTML, content) is keyed by all the conversion depends on: the page's path, URL
and text, its result's digest, the pages lessonkit makes, the site's configuration, lessonkit's
source and the installed distributions (:func:`environment`); each file the conversion read is
checked at lookup. Checks are never recorded (they read other pages). The records live in one
checksummed file in the cache folder, rewritten with only what a whole run used; a damaged one
is ignored, never an error.

>>> import tempfile
>>> store = Records(Path(tempfile.mkdtemp()) / "pages.json")
>>> store.get("k") is None
True
>>> store.put("k", Converted("T", "t/", "<p>x</p>", "<p>x</p>"), {})
>>> store.save()
>>> Records(store.file).get("k").title
'T'
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import lessonkit
from lessonkit.execute.filewatch import LISTING, FileWatch, file_digest, listing_digest
from lessonkit.execute.results import PageResult
from lessonkit.hosts.standalone.manifest import atomic_write

FORMAT = 1


@dataclass(frozen=True)
class Converted:
    """A page as converted: its title, URL, HTML (with the report box) and content."""

    title: str
    url: str
    html: str
    content: str


class Records:
    """The records of one site's pages, in ``file``."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._old = _load(file)
        self._new: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> Converted | None:
        """The record under ``key``, if every file its conversion read is unchanged."""
        record = self._old.get(key) or self._new.get(key)
        if record is None:
            return None
        try:
            reads, page = dict(record["reads"]), Converted(**record["page"])
        except (KeyError, TypeError, ValueError):
            return None
        if any(_read(path) != digest for path, digest in reads.items()):
            return None
        self._new[key] = record
        return page

    def put(self, key: str, page: Converted, reads: Mapping[str, str]) -> None:
        self._new[key] = {"page": asdict(page), "reads": dict(reads)}

    def save(self) -> None:
        """Keep the records this run used (and no others); nothing when unchanged."""
        if self._new == self._old:
            return
        payload = json.dumps(self._new, sort_keys=True)
        data = json.dumps({"format": FORMAT, "sha256": _sha256(payload), "pages": payload})
        with suppress(OSError):  # a cache folder that cannot be written: the next run converts
            self.file.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.file, data.encode())


@contextmanager
def recording(own: Path):
    """Record the files read meanwhile (not under ``own``): yields path -> sha256."""
    watch = FileWatch(own_folder=own)
    with watch.active():
        yield watch.reads


def key_of(*parts: object) -> str:
    """A record's key: the sha256 of ``parts``, each by its ``repr``.

    >>> key_of("a", 1) == key_of("a", 1) != key_of("a", 2)
    True
    """
    digest = hashlib.sha256()
    for part in parts:
        digest.update(repr(part).encode() + b"\0")
    return digest.hexdigest()


def result_digest(result: PageResult | None) -> str:
    """What a page's code produced (its steps' outputs and problems), as a digest."""
    if result is None:
        return ""
    return _sha256(json.dumps(result.steps, sort_keys=True))  # each step's fields, in order


def environment(modules: Iterable[str], files: Iterable[Path]) -> str:
    """What every conversion depends on beyond the page: Python, lessonkit's source, the
    installed distributions, the listed extension ``modules``' source and the bytes of ``files``."""
    digest = hashlib.sha256(_installed().encode())
    for name in sorted(set(modules)):
        source = getattr(_module(name), "__file__", None)
        digest.update(f"{name}\0{_digest(source) if source else ''}\0".encode())
    for file in files:
        digest.update(f"{file}\0{_digest(str(file))}\0".encode())
    return digest.hexdigest()


def _module(name: str) -> ModuleType | None:
    """An extension's module as Python-Markdown names it (``toc``: ``markdown.extensions.toc``)."""
    for candidate in (name, f"markdown.extensions.{name}"):
        with suppress(ImportError, ValueError):
            return importlib.import_module(candidate)
    return None


@cache
def _installed() -> str:
    """Python's version, lessonkit's source and the installed distributions, as one digest."""
    digest = hashlib.sha256(platform.python_version().encode())
    package = Path(lessonkit.__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    for entry in sys.path:
        with suppress(OSError):
            names = sorted(n for n in os.listdir(entry or ".") if n.endswith(".dist-info"))
            digest.update("\0".join([entry, *names]).encode())
    return digest.hexdigest()


def _load(file: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        payload = data["pages"]
        if data["format"] != FORMAT or data["sha256"] != _sha256(payload):
            return {}
        pages = json.loads(payload)
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return pages if isinstance(pages, dict) else {}


def _read(path: str) -> str | None:
    """A recorded read's digest now: a file's bytes, or a folder's names."""
    return listing_digest(path) if path.endswith(LISTING) else _digest(path)


def _digest(path: str) -> str | None:
    try:
        return file_digest(Path(path))
    except OSError:
        return None


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
