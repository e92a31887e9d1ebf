"""Python-Markdown extension: run a page's ``python exec`` blocks, doctests and inline values.

Works with bare Python-Markdown (code runs in-process) and with the MkDocs plugin, which passes
an :class:`~lessonkit.execute.engine.Engine` (worker processes, cache, pages in parallel).

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

from typing import TYPE_CHECKING

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from lessonkit.core.problems import LessonError
from lessonkit.execute.program import Program, parse_program
from lessonkit.execute.render import render

if TYPE_CHECKING:
    from lessonkit.execute.engine import Engine


class ExecutePreprocessor(Preprocessor):
    def __init__(self, md: Markdown, extension: ExecuteExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        path = self.extension.getConfig("display_path")
        parsed, self.extension.parsed = self.extension.parsed, None
        if parsed is not None and parsed[0] == text:
            program = parsed[1]  # the caller parsed exactly this text already
        else:
            try:
                program = parse_program(
                    text, self.extension.getConfig("line_offset"), self.extension.getConfig("page")
                )
            except LessonError as error:
                raise LessonError(p.at(path) for p in error.problems) from None
        if not program.steps:
            return lines
        engine = self.extension.engine
        if engine is None:
            from lessonkit.execute.runner import run_program  # only without an engine

            result = run_program(program, path, source_text=text)
        else:
            result = engine.result(program, path, text)
        if not result.ok:
            raise LessonError(result.problems)
        return render(text, program, result, self.md.htmlStash.store).split("\n")


class ExecuteExtension(Extension):
    """``engine``: a lessonkit Engine; without one, code runs in this process, uncached."""

    def __init__(self, engine: Engine | None = None, **kwargs: object) -> None:
        self.engine = engine
        self.parsed: tuple[str, Program] | None = None
        """A program its caller parsed from the text the next conversion will hold (build speed)."""
        self.config = {
            "page": ["", "the page's path in the docs folder (code may read files beside it)"],
            "display_path": ["<markdown>", "the page's path as error messages show it"],
            "line_offset": [0, "lines before the Markdown in its file (front matter)"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        # After whitespace normalisation (30), before fenced code (25) and raw HTML (20).
        md.preprocessors.register(ExecutePreprocessor(md, self), "lessonkit_execute", 29)


def makeExtension(**kwargs: object) -> ExecuteExtension:
    return ExecuteExtension(**kwargs)
