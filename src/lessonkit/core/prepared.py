"""What ``lessonkit prepare`` made in the docs folder: files it can prove it wrote.

Every file prepare writes carries a mark (:func:`mark`): ``lessonkit-prepare`` and the sha256
of the file with that digest zeroed, in a comment of the file's kind (a notebook: in its
metadata). A file is prepare's only when it is a regular file inside the docs folder, no
symlink, whose mark checks out (:func:`prepared_files`). So an author's file, or one prepare
wrote that the author then edited, is never removed, overwritten or left out of the build; no
path comes from the manifest; and a run stopped half-way, or a deleted manifest, is put right
by the next run, which finds its own files by their marks.

The manifest (``docs/.lessonkit-prepared.json``, written by
:mod:`lessonkit.hosts.standalone.manifest`) holds the rest: a digest of every page's HTML, the
learner's path (:func:`lessonkit.path.path_record`) and the notebook lesson each page prepare
wrote stands for (``embeddings.md``: ``embeddings.ipynb``), each checked when read.
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

MANIFEST = ".lessonkit-prepared.json"
"""In the docs folder: what ``lessonkit prepare`` found (git-ignore it with its files)."""
KINDS = (".md", ".ipynb", ".css", ".js")
"""The kinds of file prepare writes (the only ones that can be its own)."""
_STAMP = "lessonkit-prepare "
_MARK = re.compile(rb"lessonkit-prepare ([0-9a-f]{64})")
_ZERO = b"0" * 64
_SAY = "Written by lessonkit prepare, made again on every run (git-ignore it): "


def mark(name: str, data: bytes) -> bytes:
    """``data``, the file ``name`` prepare writes, with its mark (see the module).

    >>> marked = mark("a.css", b"p {}\\n")
    >>> marked.startswith(b"/* Written by lessonkit prepare"), is_marked(marked)
    (True, True)
    >>> is_marked(marked.replace(b"p {}", b"p {color: red}"))
    False
    """
    stamp = _STAMP + _ZERO.decode()
    if name.endswith(".ipynb"):  # in the notebook's metadata, laid out as nbformat lays it out
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
    return data[: found.start(1)] + _digest(data).encode() + data[found.end(1) :]


def is_marked(data: bytes) -> bool:
    """Whether ``data`` carries a mark that checks out: prepare wrote it, and nobody changed it."""
    found = _MARK.search(data)
    if found is None:
        return False
    return _digest(data[: found.start(1)] + _ZERO + data[found.end(1) :]) == found[1].decode()


def _digest(data: bytes) -> str:
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
    """Whether the file ``name`` in ``docs_dir`` is one prepare wrote (see the module)."""
    if not name.endswith(KINDS) or not inside(docs_dir, name):
        return False
    try:
        found = (docs_dir / name).lstat()
    except OSError:
        return False
    if not stat.S_ISREG(found.st_mode):  # a symlink or a folder is the site's own
        return False
    return _marked(str(docs_dir / name), found.st_mtime_ns, found.st_size, found.st_ino)


@lru_cache(maxsize=512)
def _marked(path: str, *_changed: int) -> bool:
    """:func:`is_marked` for a file, once per version of it (a host asks for every page)."""
    try:
        return is_marked(Path(path).read_bytes())
    except OSError:
        return False


def prepared_files(docs_dir: Path) -> frozenset[str]:
    """The files in ``docs_dir`` that ``lessonkit prepare`` wrote (by their marks), as paths in
    it. Symlinked folders are not followed."""
    found = []
    for folder, folders, files in os.walk(docs_dir):
        folders[:] = [f for f in folders if not f.startswith(".")]
        here = Path(folder).relative_to(docs_dir).as_posix()
        names = (f if here == "." else f"{here}/{f}" for f in files if f.endswith(KINDS))
        found += [name for name in names if is_prepared(docs_dir, name)]
    return frozenset(found)


def taken(name: str, where: str) -> Problem:
    """The error, on every host, for a file of the site's own (named ``where``) at the path of a
    page lessonkit makes (``print.md``, ``glossary.md``): neither is ever replaced.

    >>> print(taken("print.md", "docs/print.md").format())
    docs/print.md: error: lessonkit makes print.md, but the docs folder has a file of that name
      hint: rename or remove it (lessonkit's own page takes that name)
    """
    message = f"lessonkit makes {name}, but the docs folder has a file of that name"
    return Problem(
        message, hint="rename or remove it (lessonkit's own page takes that name)", path=where
    )


def _manifest(docs_dir: Path) -> dict[str, Any]:
    file = docs_dir / MANIFEST
    try:
        manifest = None if file.is_symlink() else json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def prepared_notebooks(docs_dir: Path) -> dict[str, str]:
    """The pages the last ``lessonkit prepare`` wrote for notebook lessons: page -> notebook
    (``embeddings.md`` -> ``embeddings.ipynb``, in ``docs_dir``): only a page prepare wrote,
    whose notebook is beside it in the docs."""
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
    """The learner's path as the last ``lessonkit prepare`` found it
    (:func:`lessonkit.path.path_record`), or None when the site has none."""
    return read_record(_manifest(docs_dir).get("path"))
