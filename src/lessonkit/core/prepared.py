"""The files ``lessonkit prepare`` wrote in docs/, proved by a mark each carries:
``lessonkit-prepare`` and the sha256 of the file with that digest zeroed. An author's file, or
one they edited, is never prepare's; no path comes from the manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from lessonkit.core.problems import Problem
from lessonkit.path import read_record

MANIFEST = ".lessonkit-prepared.json"  # in the docs folder
KINDS = (".md", ".ipynb", ".css", ".js")  # the kinds of file prepare writes
_STAMP = "lessonkit-prepare "
_MARK = re.compile(rb"lessonkit-prepare ([0-9a-f]{64})")
_ZERO = b"0" * 64
_SAY = "Written by lessonkit prepare, made again on every run (git-ignore it): "


def mark(name: str, data: bytes) -> bytes:
    """``data``, the file ``name`` prepare writes, with its mark.

    >>> marked = mark("a.css", b"p {}\\n")
    >>> marked.startswith(b"/* Written by lessonkit prepare"), is_marked(marked)
    (True, True)
    >>> is_marked(marked.replace(b"p {}", b"p {color: red}"))
    False
    """
    stamp = _STAMP + _ZERO.decode()
    if name.endswith(".ipynb"):  # in its metadata, laid out as nbformat does
        notebook = json.loads(data)
        notebook["metadata"]["lessonkit"] = stamp
        text = json.dumps(
            notebook, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False
        )
        data = (text + "\n").encode()
    elif name.endswith(".md") and data.startswith(b"---\n"):  # a YAML comment in front matter
        data = f"---\n# {_SAY}{stamp}\n".encode() + data[4:]
    elif name.endswith(".md"):
        data = f"<!-- {_SAY}{stamp} -->\n".encode() + data
    else:
        data = f"/* {_SAY}{stamp} */\n".encode() + data
    found = _MARK.search(data)
    assert found is not None
    return data[: found.start(1)] + _sha256(data).encode() + data[found.end(1) :]


def is_marked(data: bytes) -> bool:
    """Whether ``data`` carries a mark that checks out (prepare wrote it, nobody changed it)."""
    found = _MARK.search(data)
    if found is None:
        return False
    return _sha256(data[: found.start(1)] + _ZERO + data[found.end(1) :]) == found[1].decode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inside(docs_dir: Path, name: str) -> bool:
    """Whether ``name`` is a path in ``docs_dir`` that stays inside it, symlinks followed.

    >>> inside(Path("/s/docs"), "a/b.md"), inside(Path("/s/docs"), "../mkdocs.yml")
    (True, False)
    >>> inside(Path("/s/docs"), "/etc/passwd"), inside(Path("/s/docs"), "")
    (False, False)
    """
    relative = PurePosixPath(name)
    if not name or relative.is_absolute() or ".." in relative.parts or "\\" in name:
        return False
    docs = docs_dir.resolve()
    return (docs / relative).resolve().is_relative_to(docs)


def is_prepared(docs_dir: Path, name: str) -> bool:
    """Whether the file ``name`` in ``docs_dir`` is one prepare wrote."""
    return name.endswith(KINDS) and inside(docs_dir, name) and _prepared(docs_dir / name)


def _prepared(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) with prepare's mark."""
    try:
        found = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(found.st_mode):
        return False
    return _marked(str(path), found.st_mtime_ns, found.st_size, found.st_ino)


@lru_cache(maxsize=512)
def _marked(path: str, *_changed: int) -> bool:
    """:func:`is_marked`, once per version of a file (Zensical asks at every page: O(pages²))."""
    try:
        return is_marked(Path(path).read_bytes())
    except OSError:
        return False


def prepared_files(docs_dir: Path) -> frozenset[str]:
    """The files prepare wrote, as paths in ``docs_dir`` (no symlinked folders)."""
    found = []
    for folder, folders, files in os.walk(docs_dir):  # inside docs_dir: links are not followed
        folders[:] = [f for f in folders if not f.startswith(".")]
        here = Path(folder).relative_to(docs_dir).as_posix()
        marked = [f for f in files if f.endswith(KINDS) and _prepared(Path(folder, f))]
        found += [f if here == "." else f"{here}/{f}" for f in marked]
    return frozenset(found)


def taken(name: str, where: str) -> Problem:
    """The error for a site's own file at the path of a page lessonkit makes (never replaced).

    >>> print(taken("print.md", "docs/print.md").format())
    docs/print.md: error: lessonkit makes print.md, but the docs folder has a file of that name
      hint: rename or remove it (lessonkit's own page takes that name)
    """
    message = f"lessonkit makes {name}, but the docs folder has a file of that name"
    hint = "rename or remove it (lessonkit's own page takes that name)"
    return Problem(message, hint=hint, path=where)


def _manifest(docs_dir: Path) -> dict[str, Any]:
    file = docs_dir / MANIFEST
    try:
        manifest = None if file.is_symlink() else json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def prepared_notebooks(docs_dir: Path) -> dict[str, str]:
    """Page -> notebook for the pages prepare wrote for notebook lessons beside them."""
    found = _manifest(docs_dir).get("notebooks")
    if not isinstance(found, dict):
        return {}
    made = prepared_files(docs_dir)
    return {
        page: source
        for page, source in found.items()
        if page in made
        and isinstance(source, str)
        and PurePosixPath(source).with_suffix(".md").as_posix() == page
        and inside(docs_dir, source)
    }


def prepared_path(docs_dir: Path) -> dict[str, Any] | None:
    """The learner's path as prepare last recorded it, or None."""
    return read_record(_manifest(docs_dir).get("path"))
