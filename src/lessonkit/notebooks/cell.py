"""A block run as a notebook cell: IPython syntax, ``display()``, rich values, expected errors.

The runner runs the code; a :class:`Cell` supplies what a notebook adds around it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from lessonkit.execute.program import Step
from lessonkit.notebooks import expected, ipython

Shown = tuple[int, str, str]  # characters printed before it, output kind, text


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
