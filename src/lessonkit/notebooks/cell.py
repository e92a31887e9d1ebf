"""A block run as a notebook cell: IPython syntax, ``display()``, rich values, expected errors.

The runner runs the code; a :class:`Cell` supplies what a notebook adds around it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from lessonkit.execute.program import Program, Step
from lessonkit.notebooks import expected, ipython

Shown = tuple[int, str, str]  # characters printed before it, output kind, text


def link_folder(display_path: str, program: Program, page_dir: Path, folder: Path) -> None:
    """A notebook runs in its folder, as in Jupyter: ``folder`` (the page's working folder) gets
    a link to each file there (writes through them are refused). A notebook page is one from a
    notebook, or with a block marked ``ipython="yes"``."""
    notebook = display_path.endswith((".ipynb", ".py"))  # a Markdown lesson is a .md
    if notebook or any(step.option("ipython") == "yes" for step in program.steps):
        with suppress(OSError):
            for entry in os.scandir(page_dir):
                if not entry.name.startswith("."):
                    os.symlink(entry.path, folder / entry.name)


class Cell:
    """One block's notebook semantics; :attr:`source` is its code as Python."""

    def __init__(self, step: Step) -> None:
        self.step = step
        self.source = ipython.prepare_cell(step.source)
        self.shown: list[Shown] = []  # the last value and an expected error
        self.figures: list[Any] = []  # figures given to display()

    @contextmanager
    def running(self, namespace: dict[str, Any], tell: Callable[[], int]) -> Iterator[None]:
        """While the code runs: the page's shell bound to ``namespace``, displays recorded."""
        self.shell, self.tell = ipython.bind(namespace), tell
        with ipython.DisplayCapture(self.shell, tell) as capture:
            try:
                yield
            finally:
                self.figures = [d.figure for d in capture.shown if d.figure is not None]
                displays = [s for d in capture.shown for s in self._page(d.bundle, d.at)]
                self.shown[:0] = displays  # before the value at the same place (stable sort)

    def show(self, value: Any) -> None:
        """The cell's last value, as Jupyter shows it."""
        self.shown += self._page(ipython.value_bundle(self.shell, value), self.tell())

    def raised(self, error: BaseException, path: str) -> bool:
        """Whether ``error`` is the one the block is tagged to raise; then it is shown."""
        if not (self.step.option("raises") and expected.expected(error)):
            return False
        self.shown.append((self.tell(), "error", expected.shown(error, path, self._place)))
        return True

    def outputs(self) -> list[Shown]:
        return sorted(self.shown, key=lambda item: item[0])

    def _page(self, bundle: dict[str, Any], at: int) -> list[Shown]:
        best = ipython.best_output(bundle)
        return [(at, *ipython.as_page(*best, alt=self.step.option("alt")))] if best else []

    def _place(self, line: int) -> tuple[str, int]:
        """A page line as a notebook reader knows it: its line in the cell."""
        step = self.step
        if step.line <= line < step.line + step.source.count("\n") + 1:
            return f"Cell, line {line - step.line + 1}", line - step.line + 1
        return f"line {line}", line
