"""What a page's code imports: the lessonkit and local source files its result depends on.

Every import while a page runs is recorded (``__import__`` and ``import_module`` are wrapped);
a module loaded before does not import again, so source modules are also read statically, and
digested as loaded. Installed libraries are in every key (:func:`machinery_digest`).
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import platform
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from lessonkit.execute.digests import digest, environment_digest, python_folders, stamp

OWN = "lessonkit"
FIGURE_STYLE = "lessonkit.lab.figure_style"  # pages drawing with matplotlib depend on it

_STDLIB = frozenset(sys.stdlib_module_names | set(sys.builtin_module_names) | {"__main__"})
_page: set[str] | None = None  # the running page's record of the modules it imports
_original = (builtins.__import__, importlib.import_module)
_installed = False
_busy = threading.local()


def install() -> None:
    """Wrap the import functions in this process for good (idempotent)."""
    global _original, _installed
    if not _installed:
        _original = (builtins.__import__, importlib.import_module)
        builtins.__import__ = _recording_import
        importlib.import_module = _recording_import_module
        _installed = True


def _recording_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = _original[0](name, globals, locals, fromlist, level)
    if level:
        name = _resolve(name, (globals or {}).get("__package__") or "", level)
    if name and name.partition(".")[0] not in _STDLIB:
        names = [name]
        names += [f"{name}.{item}" for item in fromlist or () if f"{name}.{item}" in sys.modules]
        _note(names)
    return module


def _recording_import_module(name, package=None):
    module = _original[1](name, package)
    if module.__name__.partition(".")[0] not in _STDLIB:
        _note([module.__name__])
    return module


def _note(names: list[str]) -> None:
    if _page is not None:
        _page.update(names)
    if getattr(_busy, "on", False):
        return  # an import made while finding a module's kind
    _busy.on = True
    try:
        if _is_source(names[0].partition(".")[0]):
            for name in names:  # digested as loaded, not as the file may be by the page's end
                if file := getattr(sys.modules.get(name), "__file__", None):
                    _remember(os.path.abspath(file))
    finally:
        _busy.on = False


class ImportWatch:
    """Record the modules a page's steps import (``own_folder``: the page's, whose modules are
    the page's own code)."""

    def __init__(self, own_folder: Path | None = None) -> None:
        self.modules: set[str] = set()
        self.own_folder = own_folder

    @contextmanager
    def recording(self) -> Iterator[ImportWatch]:
        """Record meanwhile (wrapping the import functions for this while, unless for good)."""
        global _page, _installed
        installed_here = not _installed
        install()
        previous, _page = _page, self.modules
        try:
            yield self
        finally:
            _page = previous
            if installed_here:
                builtins.__import__, importlib.import_module = _original
                _installed = False

    def dependencies(self) -> dict[str, str]:
        return dependencies(self.modules, self.own_folder)


def _resolve(name: str, package: str, level: int) -> str:
    """The absolute name of a relative import (``""`` when it cannot be one)."""
    try:
        return importlib.util.resolve_name("." * level + name, package)
    except (ImportError, ValueError):
        return ""


def dependencies(modules: Iterable[str], own_folder: Path | None = None) -> dict[str, str]:
    """Each source file ``modules`` use (not in ``own_folder``), with its digest when loaded."""
    files, names = _closure(modules)
    if any(name.partition(".")[0] == "matplotlib" for name in names):
        files |= _closure([FIGURE_STYLE])[0]
    sources = {}
    for path in sorted(files):
        mine = own_folder is not None and Path(path).is_relative_to(own_folder)
        if not mine and (now := _remember(path)) is not None:
            sources[path] = now
    return sources


_sources: dict[str, bool] = {}


def _is_source(top: str) -> bool:
    """Whether top-level module ``top`` is followed: lessonkit, or found outside Python's
    installation (installed libraries are in the key; a module not importable now is not)."""
    if top == OWN:
        return True
    if top in _STDLIB:
        return False
    if top not in _sources:
        if (file := _top_file(top)) is None:
            return False
        _sources[top] = not os.path.realpath(file).startswith(python_folders())
    return _sources[top]


_IMPORT = re.compile(  # it can only err towards more files; ast: 50 ms, not 3, for a figure page
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]+))",
    re.MULTILINE,
)
_NAME = re.compile(r"[A-Za-z_][\w.]*")
_COMMENT = re.compile(r"#[^\n]*")


def _imports_in(path: str, name: str) -> tuple[str, ...]:
    """Absolute names module ``name`` (file ``path``) imports; ``from a import b`` gives ``a``
    and ``a.b``.

    >>> name = "lessonkit.lab.model_figures"
    >>> [n for n in _imports_in(_module_file(name), name) if n.startswith("lessonkit")][-2:]
    ['lessonkit.lab.model', 'lessonkit.lab.model.Encoded']
    """
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found: set[str] = set()
    for origin, names, plain in _IMPORT.findall(text):
        if plain:
            found.update(part.split(" ")[0] for part in _names(plain))
            continue
        level = len(origin) - len(origin.lstrip("."))
        base = _resolve(origin.lstrip("."), package, level) if level else origin
        if base:
            found.add(base)
            found.update(f"{base}.{item.split(' ')[0]}" for item in _names(names) if item != "*")
    return tuple(sorted(n for n in found if _NAME.fullmatch(n)))


def _names(text: str) -> list[str]:
    """An import's comma-separated names, without comments, parentheses or backslashes."""
    text = _COMMENT.sub("", text).replace("(", " ").replace(")", " ").replace("\\", " ")
    return [" ".join(part.split()) for part in text.split(",") if part.strip()]


def _closure(
    names: Iterable[str], skip: tuple[str, ...] = (), *, own_only: bool = False
) -> tuple[set[str], set[str]]:
    """``(files, seen)``: the source files ``names`` use, transitively, parent packages included,
    and every module name met. ``skip``: names left out; ``own_only``: lessonkit's source alone."""
    files: set[str] = set()
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or any(name == s or name.startswith(s + ".") for s in skip):
            continue
        seen.add(name)
        top = name.partition(".")[0]
        if not (top == OWN if own_only else _is_source(top)):
            continue
        if parent := name.rpartition(".")[0]:
            todo.append(parent)
        if (path := _module_file(name)) is not None:
            files.add(path)
            todo.extend(_imports_in(path, name))
    return files, seen


def _module_file(name: str) -> str | None:
    """The file module ``name`` runs from (loaded or not), or None when it is no module."""
    if file := getattr(sys.modules.get(name), "__file__", None):
        return os.path.abspath(file)
    top, _, rest = name.partition(".")
    top_file = _top_file(top)
    if top_file is None or not rest:
        return top_file
    if not top_file.endswith("__init__.py"):
        return None  # a plain module has no submodules
    folder = Path(top_file).parent.joinpath(*rest.split("."))
    for candidate in (folder.with_name(folder.name + ".py"), folder / "__init__.py"):
        if candidate.is_file():
            return str(candidate)
    return None


def _top_file(top: str) -> str | None:
    """The file of top-level module ``top``, found without importing anything."""
    module = sys.modules.get(top)
    file = getattr(module, "__file__", None)
    if file is None and module is None:
        spec = importlib.machinery.PathFinder.find_spec(top)
        file = spec.origin if spec is not None and spec.has_location else None
    return os.path.abspath(file) if file else None


_loaded: dict[str, tuple[tuple[int, int], str]] = {}  # source file -> its stamp, digest when seen


def _remember(path: str) -> str | None:
    if path not in _loaded:
        at, now = stamp(path), digest(path)
        if at is None or now is None:
            return None
        _loaded[path] = (at, now)
    return _loaded[path][1]


def remember_loaded() -> None:
    """Note the source file of each lessonkit module this process holds, as it is now."""
    for name, module in list(sys.modules.items()):
        if (name == OWN or name.startswith(OWN + ".")) and (
            file := getattr(module, "__file__", None)
        ):
            _remember(os.path.abspath(file))


def stale_sources() -> list[str]:
    """The source files this process holds that have changed on disk since it read them."""
    return [path for path, (at, _) in _loaded.items() if stamp(path) != at]


@cache
def machinery_digest() -> str:
    """Every page's key besides its program: Python's version, the installed distributions and
    the execution machinery's source (:func:`machinery_files`)."""
    root = Path(__file__).resolve().parents[2]
    total = hashlib.sha256(f"{platform.python_version()}\0{environment_digest()}\0".encode())
    for path in machinery_files():
        total.update(os.path.relpath(path, root).encode() + b"\0")
        total.update(Path(path).read_bytes())
    return total.hexdigest()


@cache
def machinery_files() -> tuple[str, ...]:
    """``lessonkit/execute/`` and the lessonkit modules it imports, except :data:`FIGURE_STYLE`."""
    folder = Path(__file__).resolve().parent
    names = [f"{OWN}.execute.{p.stem}" for p in sorted(folder.glob("*.py")) if p.stem != "__init__"]
    return tuple(sorted(_closure(names, skip=(FIGURE_STYLE,), own_only=True)[0]))
