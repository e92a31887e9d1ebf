"""A notebook cell's IPython semantics in a page's process, through IPython's own machinery."""

from __future__ import annotations

import ast
import base64
import builtins
import html
import os
import re
import subprocess
import sys
from typing import Any, NamedTuple

PREFERENCE = ("text/html", "image/svg+xml", "image/png", "text/markdown", "text/plain")
"""What a page shows of a mimebundle, best first (as JupyterLab)."""


def prepare_cell(source: str) -> str:
    """``source`` as Python, its lines where they were (``%magic``, ``!cmd``: IPython's calls);
    plain Python, or what even IPython cannot read, as it is."""
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        pass
    from IPython.core.inputtransformer2 import TransformerManager

    code = TransformerManager().transform_cell(source)
    try:
        ast.parse(code)
    except SyntaxError:
        return source
    return code + "\n" * max(0, source.count("\n") - code.count("\n"))


def bind(namespace: dict[str, Any]) -> Any:
    """The process's ``InteractiveShell`` over ``namespace``; ``get_ipython`` and ``display`` go
    there, not into ``builtins`` (libraries would take the page for Jupyter)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display

    if not InteractiveShell.initialized():
        main = sys.modules["__main__"]
        _shell_class().instance(**_quiet_profile())
        sys.modules["__main__"] = main  # libraries see plain Python
        for name in ("__IPYTHON__", "display"):
            vars(builtins).pop(name, None)
    shell = InteractiveShell.instance()
    shell.user_module, shell.user_ns = shell.prepare_user_module(None, namespace)
    namespace.setdefault("get_ipython", shell.get_ipython)
    namespace.setdefault("display", display)
    return shell


def _quiet_profile() -> dict[str, Any]:
    """Keep the shell out of ``~/.ipython``: no history, a temporary profile."""
    import tempfile

    from IPython.core.profiledir import ProfileDir
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    folder = os.path.join(tempfile.gettempdir(), f".lessonkit-ipython-{os.getuid()}")
    return {"config": config, "ipython_dir": folder, "profile_dir": ProfileDir(location=folder)}


def _shell_class() -> type:
    from IPython.core.interactiveshell import InteractiveShell

    class PageShell(InteractiveShell):
        def init_magics(self) -> None:
            super().init_magics()
            self.register_magic_function(_no_backend, "line", "matplotlib")
            for name in ("pip", "conda", "mamba"):
                self.register_magic_function(_installed, "line", name)

        def system(self, cmd: str) -> None:
            """``!cmd``: through bash, output and errors in order into ``sys.stdout``."""
            cmd = self.var_expand(cmd, depth=1)
            done = subprocess.run(
                cmd, shell=True, executable="/bin/bash", stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False,
            )  # fmt: skip
            sys.stdout.write(done.stdout.decode(errors="replace"))
            self.user_ns["_exit_code"] = done.returncode

    return PageShell


def _no_backend(line: str) -> None:
    """``%matplotlib inline`` and the like: lessonkit draws a cell's figures itself."""


def _installed(line: str) -> None:
    """``%pip install x``: nothing when ``x`` is installed, else an error (builds install none)."""
    from importlib.metadata import PackageNotFoundError, version

    from IPython.core.error import UsageError
    from packaging.requirements import InvalidRequirement, Requirement

    words = line.split()
    missing = []
    for word in words[1:] if words[:1] == ["install"] else ["?"]:
        if word.startswith("-"):
            continue
        try:
            version(Requirement(word).name)
        except (InvalidRequirement, PackageNotFoundError):
            missing.append(word)
    if missing:
        raise UsageError(
            f"a page's code installs nothing ({' '.join(missing)} is not installed): add it to "
            "the project's dependencies and install it before the build"
        )


class Shown(NamedTuple):
    """One ``display()``: what was published, and how much had been printed before it."""

    at: int
    bundle: dict[str, Any]
    figure: Any = None  # a matplotlib figure passed to display(), drawn by lessonkit


class DisplayCapture:
    """While active, what ``display()`` publishes, in :attr:`shown`, each at ``tell()`` (how
    much the cell printed); a matplotlib figure is recorded."""

    def __init__(self, shell: Any, tell: Any = lambda: 0) -> None:
        self.shell = shell
        self.tell = tell
        self.shown: list[Shown] = []

    def __enter__(self) -> DisplayCapture:
        from IPython.core.displaypub import DisplayPublisher

        capture = self

        class Publisher(DisplayPublisher):
            def publish(self, data, metadata=None, source=None, **_: Any) -> None:
                capture.shown.append(Shown(capture.tell(), dict(data)))

            def clear_output(self, wait: bool = False) -> None:
                capture.shown.clear()

        self.saved = self.shell.display_pub
        self.shell.display_pub = Publisher(shell=self.shell)
        self.figures = self.shell.display_formatter.ipython_display_formatter
        self.figures.for_type_by_name("matplotlib.figure", "Figure", self._figure)
        return self

    def _figure(self, figure: Any) -> None:
        self.shown.append(Shown(self.tell(), {}, figure))

    def __exit__(self, *exc: object) -> None:
        self.shell.display_pub = self.saved
        self.figures.pop("matplotlib.figure.Figure", None)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def value_bundle(shell: Any, value: Any) -> dict[str, Any]:
    """The mimebundle a cell's last value shows as (``{}``: a repr with a memory address, which
    would differ in every build)."""
    if value is None:
        return {}
    bundle, _ = shell.display_formatter.format(value)
    if set(bundle) == {"text/plain"} and _ADDRESS.search(bundle["text/plain"]):
        return {}
    return bundle


def best_output(bundle: dict[str, Any]) -> tuple[str, Any] | None:
    """The (mime type, data) a page shows of ``bundle``: the first of :data:`PREFERENCE`."""
    return next(((mime, bundle[mime]) for mime in PREFERENCE if mime in bundle), None)


def png_size(data: str | bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels (``data``: base64, as a bundle holds it).

    >>> png_size(base64.b64encode(bytes(16) + (3).to_bytes(4, "big") + (2).to_bytes(4, "big")))
    (3, 2)
    """
    raw = base64.b64decode(data[:32])
    return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")


def as_page(mime: str, data: Any, alt: str = "") -> tuple[str, str]:
    """One output as the runner's output kinds show it; an image gets ``alt`` or a generated one."""
    if mime == "text/html":
        return "html", str(data)
    if mime == "text/markdown":
        return "markdown", str(data)
    if mime == "image/png":
        from lessonkit.notebooks.alt_text import GENERATED

        width, height = png_size(data)
        alt = alt or f"{GENERATED}an image of {width} × {height} pixels."
        return "html", (
            f'<img class="lk-image" src="data:image/png;base64,{"".join(str(data).split())}" '
            f'alt="{html.escape(alt)}" width="{width}" height="{height}">'
        )
    if mime == "image/svg+xml":
        return "html", f'<figure class="lk-figure">{data}</figure>'
    return "text", str(data)
