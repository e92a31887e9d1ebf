"""What a page's code imports, and the key every page's run shares.

A page's cache entry holds the source file of each lessonkit module its code used, and of what
those import inside lessonkit (their packages' ``__init__.py`` included), each with its sha256
(``PageResult.sources``); a module of a folder put on ``sys.path`` outside Python's installation
(a local helper, an editable install) is followed the same way. The standard library and
installed distributions need nothing: every key holds Python's version and one digest of all
installed distributions (:func:`~lessonkit.execute.digests.environment_digest`), so an upgrade
re-runs every page once. The cache checks the sources at each lookup, as it checks files read.

**Recording.** The zygote that workers are forked from wraps ``builtins.__import__`` and
``importlib.import_module`` once, when it starts (:func:`install`; :meth:`ImportWatch.active` does
it for a run in this process). An ``import`` statement calls ``__import__`` even when the module
is already in ``sys.modules`` (the zygote preloads numpy and matplotlib), so every import is
seen, whoever holds the module. What is imported while the page's steps run is the page's
(:meth:`ImportWatch.recording`). A module loaded earlier does not run its imports again, so
lessonkit's modules (and local ones) are also followed statically (:func:`_imports_in`), and
what any module was seen importing earlier in the process is kept for later pages (:data:`_later`).

**Stale workers.** A worker holds the modules its zygote imported; under ``mkdocs serve`` a
lessonkit file may be edited after the zygote loaded it. So the zygote notes each lessonkit (or
local) source file it holds as it was when imported (:func:`remember_loaded`), and a worker checks
:func:`stale_sources` before each job: a worker holding an edited file refuses the job, and the
build replaces its zygote and the worker by fresh ones (:mod:`lessonkit.execute.zygote`).
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import importlib.machinery
import os
import platform
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from lessonkit.core.patterns import lazy
from lessonkit.execute.digests import (
    current_digest,
    digest_at,
    environment_digest,
    python_folders,
    stamp,
    too_recent,
)

OWN = "lessonkit"
"""lessonkit is followed by its source even though it is installed (editable, in development)."""

FIGURE_STYLE = "lessonkit.lab.figure_style"
"""Where the execution machinery takes its figure style from.

The runner draws every page under this module's ``STYLE`` (matplotlib's rcParams) and
``execute/svg.py`` reads its ``INK``. Both reach only code that uses matplotlib, so this module
(and what it imports) is a dependency of each page that uses matplotlib, not part of every key.
"""

MATPLOTLIB = "matplotlib"


# --- Recording, in the worker --------------------------------------------------------------

_STDLIB = frozenset(sys.stdlib_module_names | set(sys.builtin_module_names) | {"__main__"})

_page: set[str] | None = None
"""The running page's record: every module imported while its steps run, by any code."""

_later: dict[str, set[str]] = {}
"""What each module imported at run time in this process (a lessonkit or local module by name, a
distribution's by its top-level name), while it was the innermost such code on the stack.

Code loads things once per process and keeps them: the first page that needs one records the
import itself; a later page in the same worker imports nothing and relies on what is held, and
this map gives it the same dependency (a library's use of matplotlib, say, which makes the figure
style a dependency). Static reading cannot see such imports (``import_module(name)``)."""

_original = (builtins.__import__, importlib.import_module)
"""The import functions the recording ones call (those in place when :func:`install` ran)."""
_installed = False


def install() -> None:
    """Wrap ``builtins.__import__`` and ``importlib.import_module`` in this process for good (a
    worker does, before it imports what pages use); idempotent."""
    global _original, _installed
    if not _installed:
        _original = (builtins.__import__, importlib.import_module)
        builtins.__import__ = _recording_import
        importlib.import_module = _recording_import_module
        _installed = True


def uninstall() -> None:
    global _installed
    if _installed:
        builtins.__import__, importlib.import_module = _original
        _installed = False


def _recording_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = _original[0](name, globals, locals, fromlist, level)
    if level:
        name = _resolve(name, (globals or {}).get("__package__") or "", level)
    if name and name.partition(".")[0] not in _STDLIB:
        names = [name]
        for item in fromlist or ():
            if f"{name}.{item}" in sys.modules:  # ``from package import submodule``
                names.append(f"{name}.{item}")
        _note(names, sys._getframe(1))
    return module


def _recording_import_module(name, package=None):
    module = _original[1](name, package)
    if module.__name__.partition(".")[0] not in _STDLIB:
        _note([module.__name__], sys._getframe(1))
    return module


_busy = threading.local()


def _note(names: list[str], frame) -> None:
    if _page is not None:
        _page.update(names)
    if getattr(_busy, "on", False):
        return  # an import made while finding out whose an import is (metadata's own)
    _busy.on = True
    try:
        importer = _importer(frame)
        if _kind(names[0].partition(".")[0]) == "source":
            for name in names:  # as just loaded, not as the file may be by the page's end
                file = getattr(sys.modules.get(name), "__file__", None)
                if file:
                    _remember(os.path.abspath(file))
    finally:
        _busy.on = False
    if importer is not None and importer != names[0].partition(".")[0]:
        _later.setdefault(importer, set()).update(names)


def _importer(frame) -> str | None:
    """Whose import this is: the innermost code on the stack outside the standard library; None
    for the page's own code and lessonkit's execution machinery (followed otherwise).

    A package's lazy ``__getattr__`` (PEP 562) imports on behalf of whoever asked for the name,
    so it is passed over: a page using ``lab.softmax_trace`` depends on ``lab/trace.py`` and the
    next page, which may use another name, does not.
    """
    while frame is not None:
        if frame.f_code.co_name == "__getattr__" and "__path__" in frame.f_globals:
            frame = frame.f_back
            continue
        module = frame.f_globals.get("__name__") or ""
        top = module.partition(".")[0]
        if module == "__lesson__" or module.startswith(f"{OWN}.execute"):
            return None
        if top and top not in _STDLIB and top in sys.modules:
            return module if _kind(top) == "source" else top
        frame = frame.f_back
    return None


class ImportWatch:
    """Record the modules a page's code imports; resolve them with :meth:`dependencies`.

    :meth:`active` wraps the import functions (unless :func:`install` did for the process);
    :meth:`recording` marks the page's steps, whose imports are the page's.
    ``own_folder`` is the page's temporary working folder: a module the page writes there and
    imports comes from the page's own code, which is in its key already.

    >>> watch = ImportWatch()
    >>> with watch.active(), watch.recording():
    ...     import json.decoder  # the standard library: Python's version covers it
    ...     from lessonkit.lab import trace  # already loaded or not: seen either way
    ...     yaml = importlib.import_module("yaml")
    >>> {"lessonkit.lab", "lessonkit.lab.trace", "yaml"} <= watch.modules
    True
    >>> any(name.startswith("json") for name in watch.modules)
    False
    """

    def __init__(self, own_folder: Path | None = None) -> None:
        self.modules: set[str] = set()
        self.own_folder = own_folder

    @contextmanager
    def active(self) -> Iterator[ImportWatch]:
        installed_here = not _installed
        install()
        try:
            yield self
        finally:
            if installed_here:
                uninstall()

    @contextmanager
    def recording(self) -> Iterator[ImportWatch]:
        global _page
        previous, _page = _page, self.modules
        try:
            yield self
        finally:
            _page = previous

    def dependencies(self) -> tuple[dict[str, str], dict[str, str]]:
        """``(sources, packages)`` for the modules recorded: see the module's docstring."""
        return dependencies(self.modules, self.own_folder)


def _resolve(name: str, package: str, level: int) -> str:
    """The absolute name of a relative import (``""`` when it cannot be one)."""
    parts = package.split(".") if package else []
    if level - 1 > len(parts) or not parts:
        return ""
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, name] if name else base)


def dependencies(
    modules: Iterable[str], own_folder: Path | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """``(sources, packages)``: the source files (path -> sha256) ``modules`` use, and no
    packages (installed distributions are in every key; the pair stays for the runner's call).

    Each file's digest is the one this process noted when it loaded the file (else it is noted
    now). No scan of ``sys.modules`` here: a page process is a fork that shares its worker's
    memory until it writes, and touching every module object copies hundreds of pages (a
    process that runs further pages itself calls :func:`remember_loaded` after each)."""
    files, tops = _closure(modules)
    if MATPLOTLIB in tops:
        files |= _closure([FIGURE_STYLE])[0]
    sources = {}
    for path in sorted(files):
        if own_folder is not None and Path(path).is_relative_to(own_folder):
            continue
        digest = _remember(path)
        if digest is not None:
            sources[path] = digest
    return sources, {}


_kinds: dict[str, str] = {}


def _kind(top: str) -> str:
    """``stdlib``, ``package`` (in Python's installation: site-packages), ``source`` (lessonkit,
    or a module outside Python's installation) or ``unknown`` (not importable now; perhaps
    later: a folder put on ``sys.path``)."""
    if top == OWN:
        return "source"
    if top in _STDLIB:
        return "stdlib"
    if top not in _kinds:
        file = _top_file(top)
        if file is None:
            return "unknown"
        real = os.path.realpath(file)
        installed = real.startswith(python_folders())
        _kinds[top] = "package" if installed else "source"
    return _kinds[top]


# --- lessonkit's own modules (and local ones): followed statically ---------------------------

_IMPORT = lazy(
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]+))",
    re.MULTILINE,
)
"""An import statement at the start of a line (ruff format gives each statement its own line).

A regular expression rather than ``ast``: the key's :func:`machinery_digest` scans lessonkit's
``execute/`` package at every build, and this reads it in 0.5 ms where ``ast.parse`` takes 10.
It can only err towards more: an import-like line inside a string adds a file, never drops one.
"""


def _imports_in(path: str, name: str) -> tuple[str, ...]:
    """Absolute names of what the module ``name`` (source file ``path``) imports.

    ``from a import b`` gives both ``a`` and ``a.b`` (``b`` may be a submodule).

    >>> name = "lessonkit.lab.model_figures"
    >>> [n for n in _imports_in(_module_file(name), name) if n.startswith("lessonkit")][-2:]
    ['lessonkit.lab.model', 'lessonkit.lab.model.Encoded']
    """
    at = stamp(path)
    if at is None:
        return ()
    if too_recent(at[0]):  # as in current_digest: read it again
        return _read_imports(path, name)
    return _imports_at(path, name, at)


@cache
def _imports_at(path: str, name: str, at: tuple[int, int]) -> tuple[str, ...]:
    return _read_imports(path, name)


def _read_imports(path: str, name: str) -> tuple[str, ...]:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found: set[str] = set()
    for origin, names, plain in _IMPORT.findall(text):
        if plain:
            for part in _names(plain):
                found.add(part.split(" ")[0])
            continue
        level = len(origin) - len(origin.lstrip("."))
        base = _resolve(origin.lstrip("."), package, level) if level else origin
        if not base:
            continue
        found.add(base)
        found.update(f"{base}.{item.split(' ')[0]}" for item in _names(names) if item != "*")
    return tuple(sorted(n for n in found if re.fullmatch(r"[A-Za-z_][\w.]*", n)))


def _names(text: str) -> list[str]:
    """The comma-separated names of an import, without comments, parentheses or backslashes."""
    text = re.sub(r"#[^\n]*", "", text).replace("(", " ").replace(")", " ").replace("\\", " ")
    return [" ".join(part.split()) for part in text.split(",") if part.strip()]


def _closure(
    names: Iterable[str], skip: tuple[str, ...] = (), *, own_only: bool = False
) -> tuple[set[str], set[str]]:
    """What modules ``names`` use, transitively: the source files of the lessonkit (and local)
    ones, with their parent packages' and those of what they import, read statically and as
    seen at run time (:data:`_later`); and the top-level names of distributions' modules among
    them, with what those were seen importing. Names in ``skip`` (and their submodules) are left
    out; ``own_only`` follows lessonkit's source alone, as written."""
    files: set[str] = set()
    tops: set[str] = set()
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or any(name == s or name.startswith(s + ".") for s in skip):
            continue
        seen.add(name)
        top = name.partition(".")[0]
        kind = "source" if top == OWN else "other" if own_only else _kind(top)
        if kind == "package":
            if top not in tops:
                tops.add(top)
                todo.extend(_later.get(top, ()))
            continue
        if kind != "source":
            continue
        parent = name.rpartition(".")[0]
        if parent:
            todo.append(parent)
        path = _module_file(name)
        if path is None:
            continue
        files.add(path)
        todo.extend(_imports_in(path, name))
        if not own_only:
            todo.extend(_later.get(name, ()))
    return files, tops


def _module_file(name: str) -> str | None:
    """The file module ``name`` runs from (loaded or not), or None when it is no module."""
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None) if module is not None else None
    if file:
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
    file = getattr(module, "__file__", None) if module is not None else None
    if file is None and module is None:
        spec = importlib.machinery.PathFinder.find_spec(top)
        file = spec.origin if spec is not None and spec.has_location else None
    return os.path.abspath(file) if file else None


# --- Source digests, here and in the worker --------------------------------------------------


_loaded: dict[str, tuple[tuple[int, int], str]] = {}
"""Each source file this process holds (or used), with its stamp and digest when first seen."""


def _remember(path: str) -> str | None:
    if path not in _loaded:
        at = stamp(path)
        digest = None if at is None else digest_at(path, at)
        if at is None or digest is None:
            return None
        _loaded[path] = (at, digest)
    return _loaded[path][1]


def remember_loaded() -> None:
    """Note the source file of each lessonkit module this process holds, as it is now."""
    for name, module in list(sys.modules.items()):
        if name == OWN or name.startswith(OWN + "."):
            file = getattr(module, "__file__", None)
            if file:
                _remember(os.path.abspath(file))


def warm(package: str) -> None:
    """Read what each module of ``package`` imports, and digest its file, into this process's
    caches, without noting the modules as held (:func:`stale_sources` does not follow them): a
    page process forked from here that uses them finds both ready instead of reading the files.
    """
    import pkgutil  # here: only a zygote warms, and a build's lookups need none of it

    folders = getattr(sys.modules.get(package) or importlib.import_module(package), "__path__", [])
    names = [package, *(f"{package}.{info.name}" for info in pkgutil.iter_modules(folders))]
    files, _ = _closure(names)
    for path in files:
        current_digest(path)


def stale_sources() -> list[str]:
    """The source files this process holds that have changed on disk since it read them."""
    return [path for path, (at, _) in _loaded.items() if stamp(path) != at]


def edited_sources() -> list[str]:
    """:func:`stale_sources` whose text changed too (a checkout that rewrote a file with the
    same bytes is no edit), or that are gone."""
    return [path for path in stale_sources() if current_digest(path) != _loaded[path][1]]


def forget_folder(folder: Path) -> None:
    """Drop the modules imported from ``folder`` (a page's temporary working folder, about to
    go), so that the next page importing the same name imports its own, and this process is not
    taken for stale when the folder is gone."""
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(os.path.abspath(file)).is_relative_to(folder):
            del sys.modules[name]
    for path in [p for p in _loaded if Path(p).is_relative_to(folder)]:
        del _loaded[path]


# --- The key ----------------------------------------------------------------------------------


@cache
def machinery_digest() -> str:
    """What every page's key holds besides its program: Python's version, the installed
    distributions (:func:`~lessonkit.execute.digests.environment_digest`) and the source of
    lessonkit's execution machinery (:func:`machinery_files`). Read once per process."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256(f"{platform.python_version()}\0{environment_digest()}\0".encode())
    for path in machinery_files():
        digest.update(os.path.relpath(path, root).encode() + b"\0")
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


@cache
def machinery_files() -> tuple[str, ...]:
    """The ``lessonkit/execute/`` package (runner, render and svg changes change results) and the
    lessonkit modules it imports (``lessonkit.core.problems``, the packages' ``__init__``...),
    except :data:`FIGURE_STYLE`, a dependency of the pages that use matplotlib only."""
    folder = Path(__file__).resolve().parent
    names = [f"{OWN}.execute.{p.stem}" for p in sorted(folder.glob("*.py")) if p.stem != "__init__"]
    files, _ = _closure(names, skip=(FIGURE_STYLE,), own_only=True)
    return tuple(sorted(files))
