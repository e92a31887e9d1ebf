"""Converting the pages whose code was still running when MkDocs reached them, in ``on_env``.

A page converts exactly as it would have without waiting (same Markdown, extensions and
``on_page_content`` hooks), so the site's bytes do not depend on timing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, as_completed
from dataclasses import dataclass

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lessonkit.core.problems import LessonError, Problem
from lessonkit.execute.engine import Outcome
from lessonkit.execute.program import Program
from lessonkit.execute.results import PageResult


@dataclass(frozen=True)
class _Waiting:
    page: Page
    markdown: str
    program: Program
    future: Outcome
    locate: Callable[[Problem], Problem]


class Deferred:
    """Pages to convert once their code is done."""

    def __init__(self) -> None:
        self._waiting: list[_Waiting] = []

    def add(
        self,
        page: Page,
        markdown: str,
        program: Program,
        future: Outcome,
        locate: Callable[[Problem], Problem],
    ) -> None:
        """Convert ``page`` once ``future`` is done; ``locate`` places its problems."""
        self._waiting.append(_Waiting(page, markdown, program, future, locate))

    def convert(
        self,
        config: MkDocsConfig,
        files: Files,
        prepare: Callable[[str, Program, PageResult], None],
    ) -> None:
        """Convert each waiting page as its run finishes; LessonError with every failed page's
        problems, in the navigation's order."""
        pages: dict[Outcome, list[tuple[int, _Waiting]]] = {}  # two may share a run
        for index, item in enumerate(self._waiting):
            pages.setdefault(item.future, []).append((index, item))
        self._waiting = []
        found: dict[int, list[Problem]] = {}
        for future in _as_finished(pages):
            result = future.result()
            for index, item in pages.pop(future):  # a converted page's run is let go of
                if not result.ok:
                    found[index] = [item.locate(p) for p in result.problems]
                if found:
                    continue  # the build fails: only collect the other pages' problems
                prepare(item.markdown, item.program, result)
                item.page.markdown = item.markdown
                item.page.render(config, files)
                item.page.content = config.plugins.on_page_content(
                    item.page.content, page=item.page, config=config, files=files
                )
        if found:
            raise LessonError(p for index in sorted(found) for p in found[index])


def _as_finished(outcomes: Iterable[Outcome]) -> Iterator[Outcome]:
    """``outcomes`` as they finish, ready ones first; none is held once handed on."""
    ready = [o for o in outcomes if not isinstance(o, Future)]
    finishing = as_completed([o for o in outcomes if isinstance(o, Future)])
    while ready:
        yield ready.pop(0)
    yield from finishing
