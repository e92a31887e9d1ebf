"""A notebook cell's IPython semantics in a page's process, through IPython's own machinery.

A notebook was written for IPython: ``%timeit``, ``!ls``, ``%%bash``, ``display()``, a
DataFrame shown as an HTML table. lessonkit runs it in the page's own process (its cache,
timeouts and ``file:cell N:line`` errors), not in a kernel:

- :func:`prepare_cell` turns a cell's IPython syntax into Python, with IPython's
  ``TransformerManager``: ``%timeit x`` becomes ``get_ipython().run_line_magic('timeit', 'x')``,
  line for line (a cell magic is one line, padded with blank ones), so errors keep their lines.
  A cell that is plain Python is returned as it is, without importing IPython (0.4 s).
- :func:`bind` makes the ``InteractiveShell`` (once a process, about 0.1 s) whose namespace is
  the page's: ``get_ipython()`` and ``display`` are in it, and magics see the page's names.
  It writes nothing under ``~/.ipython`` (its profile is a temporary folder, no history).
  ``%matplotlib`` does nothing (lessonkit draws the figures); ``!cmd`` runs through ``bash``
  in the working folder with its output and errors in the cell's output, in order; ``%pip``
  and ``%conda`` do nothing when what they name is installed, and fail otherwise (a build
  installs nothing).
- :class:`DisplayCapture` collects what ``display()`` publishes through the shell's display
  publisher, each with the place in the printed output it came at; :func:`value_bundle` is
  the rich repr of a cell's last value, as the shell's display formatter makes it;
  :func:`best_output` picks what a page shows of one (:data:`PREFERENCE`).

``%timeit`` and ``%time`` print times that differ from run to run: the page shows the run that
made the cached result, and shows it again until the cell (or what it reads) changes.
"""

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
"""What a page shows of a mimebundle, best first (as JupyterLab orders them)."""


def prepare_cell(source: str) -> str:
    """``source`` as Python the runner can execute, its lines where they were.

    >>> prepare_cell("x = 1")
    'x = 1'
    >>> print(prepare_cell("%matplotlib inline\\nfiles = !ls data\\n%timeit sum(range(9))"))
    get_ipython().run_line_magic('matplotlib', 'inline')
    files = get_ipython().getoutput('ls data')
    get_ipython().run_line_magic('timeit', 'sum(range(9))')
    <BLANKLINE>
    >>> prepare_cell("%%bash\\necho hi\\nls").count("\\n")  # three lines still
    2

    Code that is not Python even for IPython comes back as it was: its SyntaxError names the
    author's line, not a transformed one.
    """
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
    """The process's ``InteractiveShell``, its user namespace ``namespace`` (a page's): made
    on first use, rebound for the next page. ``get_ipython`` and ``display`` go into it (not
    into ``builtins``, where IPython puts them: libraries that look for IPython there would
    take the page for a notebook front end)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display

    if not InteractiveShell.initialized():
        main = sys.modules["__main__"]
        _shell_class().instance(**_quiet_profile())
        sys.modules["__main__"] = main  # the process stays as it was: the page's names are
        for name in ("__IPYTHON__", "display"):  # its namespace's, libraries see plain Python
            vars(builtins).pop(name, None)
    shell = InteractiveShell.instance()
    shell.user_module, shell.user_ns = shell.prepare_user_module(None, namespace)
    namespace.setdefault("get_ipython", shell.get_ipython)
    namespace.setdefault("display", display)
    return shell


def _quiet_profile() -> dict[str, Any]:
    """A shell's arguments that keep it out of ``~/.ipython``: no history, a profile folder in
    the temporary folder, one for every page process (IPython only makes its empty folders)."""
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
        """IPython's shell as a page's process needs it."""

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
    """``%pip install x``: nothing when ``x`` is installed; else an error (a build installs
    nothing)."""
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
    figure: Any = None
    """A matplotlib figure passed to ``display()`` (drawn by lessonkit, not published)."""


class DisplayCapture:
    """While active, what ``display()`` (and ``%%html``, ``%%markdown``...) publishes, in
    :attr:`shown`; ``tell`` says how much the cell has printed so far (e.g. its stdout
    buffer's ``tell``), so the runner can put each in its place among the printed text.

    ``IPython.display.display(obj)`` asks the shell's ``display_formatter`` for ``obj``'s
    mimebundle (``_repr_html_``, ``_repr_png_``... and ``text/plain``) and hands it to the
    shell's ``display_pub``: this swaps in a publisher that records it. A matplotlib figure
    passed to ``display()`` is recorded as the figure (lessonkit draws it), not published.
    ``clear_output()`` forgets what the cell displayed so far, as in Jupyter.

    >>> from IPython.display import HTML, display
    >>> shell = bind({})
    >>> with DisplayCapture(shell) as capture:
    ...     display(HTML("<b>hi</b>"), "plain")
    >>> [best_output(s.bundle) for s in capture.shown]
    [('text/html', '<b>hi</b>'), ('text/plain', "'plain'")]
    """

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
    """The mimebundle a cell's last value shows as (``{}``: nothing): its rich reprs as the
    shell's display formatter makes them. A value shown only by a default repr with a memory
    address (``[<matplotlib.lines.Line2D at 0x7f...>]``) shows nothing: it would differ in
    every build.

    >>> class Table:
    ...     def _repr_html_(self):
    ...         return "<table></table>"
    >>> best_output(value_bundle(bind({}), Table()))
    ('text/html', '<table></table>')
    >>> value_bundle(bind({}), object())
    {}
    """
    if value is None:
        return {}
    bundle, _ = shell.display_formatter.format(value)
    if set(bundle) == {"text/plain"} and _ADDRESS.search(bundle["text/plain"]):
        return {}
    return bundle


def quiet(source: str) -> bool:
    """Whether a cell ends in ``;``, which hides its last value in IPython.

    >>> quiet("plt.plot(x);"), quiet("x  # ;")
    (True, False)
    """
    from IPython.core.displayhook import DisplayHook

    try:
        return DisplayHook.semicolon_at_end_of_expression(source)
    except Exception:  # tokenize errors: not a quiet cell
        return False


def best_output(bundle: dict[str, Any]) -> tuple[str, Any] | None:
    """The (mime type, data) a page shows of ``bundle``: the first of :data:`PREFERENCE`.

    >>> best_output({"text/plain": "df", "text/html": "<table/>"})
    ('text/html', '<table/>')
    >>> best_output({"application/vnd.jupyter.widget-view+json": {}}) is None
    True
    """
    for mime in PREFERENCE:
        if mime in bundle:
            return mime, bundle[mime]
    return None


def png_size(data: str | bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels (``data``: base64, as a bundle holds it).

    >>> png_size(base64.b64encode(bytes(16) + (3).to_bytes(4, "big") + (2).to_bytes(4, "big")))
    (3, 2)
    """
    raw = base64.b64decode(data[:32])
    return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")


def as_page(mime: str, data: Any, alt: str = "") -> tuple[str, str]:
    """One output as the runner's output kinds show it: ``("html", ...)``, ``("markdown",
    ...)`` or ``("text", ...)``. An image gets ``alt`` (the block's), or a generated one.

    >>> as_page("text/markdown", "*hi*"), as_page("text/plain", "3")
    (('markdown', '*hi*'), ('text', '3'))
    >>> as_page("image/png", base64.b64encode(bytes(16) + bytes([0, 0, 0, 4] * 2)).decode())[1]
    '<img class="lk-image" src="data:image/png;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAE" \
alt="Generated description: an image of 4 × 4 pixels." width="4" height="4">'
    """
    if mime == "text/html":
        return "html", str(data)
    if mime == "text/markdown":
        return "markdown", str(data)
    if mime == "image/png":
        from lessonkit.execute.alt_text import GENERATED

        width, height = png_size(data)
        alt = alt or f"{GENERATED}an image of {width} × {height} pixels."
        return "html", (
            f'<img class="lk-image" src="data:image/png;base64,{"".join(str(data).split())}" '
            f'alt="{html.escape(alt)}" width="{width}" height="{height}">'
        )
    if mime == "image/svg+xml":
        return "html", f'<figure class="lk-figure">{data}</figure>'
    return "text", str(data)
