"""Python-Markdown extension: run a page's ``python exec`` blocks, doctests and inline values.

Without an :class:`~lessonkit.execute.engine.Engine` code runs in this process, uncached.

>>> import markdown
>>> md = markdown.Markdown(extensions=[ExecuteExtension(), "fenced_code"])
>>> print(md.convert('''```python exec source="hide"
... total = sum([20.09, 2.72, 1.0])
... ```
...
... The total is about {{ total:.1f }}.'''))
<p>The total is about 23.8.</p>
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, NamedTuple

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from lessonkit.core.problems import LessonError
from lessonkit.core.source import normalized
from lessonkit.execute.program import Program, parse_program
from lessonkit.execute.render import render
from lessonkit.execute.results import PageResult

if TYPE_CHECKING:
    from lessonkit.execute.engine import Engine


class PreparedPage(NamedTuple):
    """A page whose program a host already ran."""

    program: Program
    result: PageResult


class ExecutePreprocessor(Preprocessor):
    def __init__(self, md: Markdown, extension: ExecuteExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        prepared = self.extension.take(text)
        program = prepared.program if prepared else self._parse(text)
        if not program.steps:
            return lines
        result = prepared.result if prepared else self._run(program, text)
        if not result.ok:
            raise LessonError(result.problems)
        return render(text, program, result, self.md.htmlStash.store).split("\n")

    def _parse(self, text: str) -> Program:
        config = self.extension.getConfig
        try:
            return parse_program(text, config("line_offset"), config("page"))
        except LessonError as error:
            raise LessonError(p.at(config("display_path")) for p in error.problems) from None

    def _run(self, program: Program, text: str) -> PageResult:
        path = self.extension.getConfig("display_path")
        engine = self.extension.engine
        if engine is None:
            from lessonkit.execute.runner import run_program

            return run_program(program, path, source_text=text)
        return engine.result(program, path, text)


class ExecuteExtension(Extension):
    """A host that ran pages hands each result over with :meth:`prepare`; other text runs here."""

    def __init__(self, engine: Engine | None = None, **kwargs: object) -> None:
        self.engine = engine
        self._prepared: dict[str, deque[PreparedPage]] = {}
        self.config = {
            "page": ["", "the page's path in the docs folder (code may read files beside it)"],
            "display_path": ["<markdown>", "the page's path as error messages show it"],
            "line_offset": [0, "lines before the Markdown in its file (front matter)"],
        }
        super().__init__(**kwargs)

    def prepare(self, markdown: str, program: Program, result: PageResult) -> None:
        """Render ``markdown``, when it is converted next, with ``program`` and its ``result``."""
        queue = self._prepared.setdefault(normalized(markdown), deque())
        queue.append(PreparedPage(program, result))

    def take(self, text: str) -> PreparedPage | None:
        """The prepared run for the normalised ``text``, if a host gave one."""
        queue = self._prepared.get(text)
        if not queue:
            return None
        prepared = queue.popleft()
        if not queue:
            del self._prepared[text]
        return prepared

    def extendMarkdown(self, md: Markdown) -> None:
        # After whitespace normalisation (30), before fenced code (25) and raw HTML (20).
        md.preprocessors.register(ExecutePreprocessor(md, self), "lessonkit_execute", 29)


def makeExtension(**kwargs: object) -> ExecuteExtension:
    return ExecuteExtension(**kwargs)
