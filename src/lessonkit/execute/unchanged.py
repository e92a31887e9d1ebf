"""Whether what a page's run used is unchanged, and the key every page's run shares.

A page's cache entry lists the source files its code used, each with its sha256, and the
distributions it imported, each with its version (:mod:`lessonkit.execute.imports` records them
in the worker). At every lookup the build checks them here (:func:`still_current`): one ``stat``
per source file (a digest is re-read only when a file's mtime or size changed, or while they
are too recent to tell a rewrite: :func:`source_digest`) and one dict lookup per distribution
(:func:`installed_version` reads the version from each distribution's folder name, once per
process). And every key holds the digest of lessonkit's execution machinery, which a warm build
finds remembered by its files' stamps (:func:`remembered_machinery_digest`). The build loads
this module, not the recorder: a warm build runs no page.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import platform
import re
import sys
import time
from contextlib import suppress
from functools import cache
from importlib import metadata
from pathlib import Path

from lessonkit.core.patterns import lazy
from lessonkit.execute.digests import too_recent


def _canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them.

    >>> _canonical("Python_Dateutil")
    'python-dateutil'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


# --- Source digests, here and in the worker --------------------------------------------------


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@cache
def _digest_at(path: str, stamp: tuple[int, int]) -> str:
    return _sha256(path)


def source_digest(path: str) -> str | None:
    """sha256 of a source file now (None if it is gone); re-read only when its mtime or size
    changed, so a warm build's lookups cost one ``stat`` per file, or while its mtime is within
    :data:`~lessonkit.execute.digests.RACY` of now (see :func:`too_recent`)."""
    stamp = _stamp(path)
    if stamp is None:
        return None
    if too_recent(stamp[0]):
        return _sha256(path)
    return _digest_at(path, stamp)


# --- Installed distributions ------------------------------------------------------------------

_VERSION = lazy(r"^Version:[ \t]*(\S+)", re.MULTILINE)


def _metadata_text(name: str) -> str | None:
    """The top of ``name``'s METADATA, its headers (``metadata.version`` parses the whole file
    as an email: numpy's holds its licences, which cost more than a warm build's lookups)."""
    try:
        text = metadata.distribution(name).read_text("METADATA") or ""
    except metadata.PackageNotFoundError:
        return None
    return text.split("\n\n", 1)[0]


@cache
def installed_version(name: str) -> str:
    """``name``'s installed version, or ``absent``; read once per process.

    >>> installed_version("numpy") == metadata.version("numpy")
    True
    >>> installed_version("no-such-distribution")
    'absent'
    """
    version = _versions_in_folder_names().get(_canonical(name))
    if version is not None:
        return version
    text = _metadata_text(name)
    if text is None:
        return "absent"
    match = _VERSION.search(text)
    return match[1] if match else metadata.version(name)


@cache
def _versions_in_folder_names() -> dict[str, str | None]:
    """Canonical name -> version of each distribution that ``importlib.metadata`` finds as a
    ``.dist-info`` folder on ``sys.path``, read from the folder's name
    (``numpy-2.1.3.dist-info``: the normalised version, which METADATA holds too), without
    opening its METADATA: nine of those cost a warm build 12 million instructions, this one
    listing of each folder about a fourth of that. Read once per process, as the versions are.

    None where only the metadata can tell: two folders of one name in one place, an
    ``.egg-info`` one, or a name with no version after it. The listing stops at an entry that
    is a file (a zip) or an ``.egg``, where distributions are found too; a distribution from
    those, or from another finder than Python's own, is looked up by ``importlib.metadata``.

    >>> _versions_in_folder_names()["numpy"] == metadata.version("numpy")
    True
    """
    versions: dict[str, str | None] = {}
    finders = [f for f in sys.meta_path if getattr(f, "find_distributions", None)]
    if finders != [importlib.machinery.PathFinder]:
        return versions
    for entry in sys.path:
        if not isinstance(entry, str) or entry.lower().endswith(".egg"):
            break
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:  # a zip, say: its distributions come before later entries'
            break
        except OSError:  # not there: nothing found there
            continue
        here: dict[str, str | None] = {}
        for folder in names:
            low = folder.lower()
            if low.endswith((".dist-info", ".egg-info")):  # as importlib.metadata reads them
                name = _canonical(low.rpartition(".")[0].partition("-")[0])
                version = folder[: -len(".dist-info")].partition("-")[2]
                read = low.endswith(".dist-info") and version[:1].isdigit() and "-" not in version
                here[name] = version if read and name not in here else None
        for name, version in here.items():
            versions.setdefault(name, version)
    return versions


# --- At lookup -----------------------------------------------------------------------------------


def still_current(sources: dict[str, str], packages: dict[str, str]) -> bool:
    """Whether every recorded source file and distribution is still as recorded."""
    for path, digest in sources.items():
        if source_digest(path) != digest:
            return False
    return all(installed_version(name) == version for name, version in packages.items())


# --- The key --------------------------------------------------------------------------------------


MACHINERY_STAMPS = "machinery.stamps"
"""The file in a cache folder that remembers :func:`machinery_digest` by its files' stamps."""


def remembered_machinery_digest(folder: Path) -> str:
    """:func:`machinery_digest`, remembered in ``folder`` (the cache folder) with the stamps
    (mtime, size) of its files and of the folders holding them (a module added beside them
    changes its folder's): while every stamp is as recorded, the digest is not computed again.

    A warm build then costs a ``stat`` per file where the digest reads and hashes them all; a
    record that cannot be read, or names another Python, or any stamp that changed, and the
    digest is computed (and remembered, when the folder can be written).
    """
    record = folder / MACHINERY_STAMPS
    try:
        python, digest, *rows = record.read_text().split("\n")
        stamps = [row.rsplit(" ", 2) for row in rows]
        if python == platform.python_version() and all(
            _stamp(path) == (int(mtime), int(size)) for path, mtime, size in stamps
        ):
            return digest
    except (OSError, ValueError):
        pass
    from lessonkit.execute.imports import machinery_digest, machinery_files  # here: on a miss

    digest = machinery_digest()
    files = machinery_files()
    paths = sorted({*files, *(os.path.dirname(f) for f in files)})
    now, lines = time.time_ns(), [platform.python_version(), digest]
    for path in paths:
        stamp = _stamp(path)
        if stamp is None or too_recent(stamp[0], now):
            return digest  # gone, or too fresh to trust its stamp: not remembered
        lines.append(f"{path} {stamp[0]} {stamp[1]}")
    with suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        temporary = record.with_name(f"{record.name}.{os.getpid()}.tmp")
        temporary.write_text("\n".join(lines))
        os.replace(temporary, record)
    return digest
