"""The lessons' code under MkDocs: a page starts when read (``on_files``), and one not done
when MkDocs converts it is converted in ``on_env`` (:class:`Deferred`: the bytes do not depend
on timing). A build lets go of each result once converted; a serve keeps them and the workers.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import as_completed
from contextlib import suppress
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine, Outcome, site_engine, warm_up_if_first_build
from lessonkit.execute.extension import ExecuteExtension
from lessonkit.execute.program import Program
from lessonkit.execute.results import PageResult
from lessonkit.hosts.mkdocs.config import LessonkitConfig, root_of
from lessonkit.hosts.mkdocs.config import settings as settings_of
from lessonkit.hosts.mkdocs.problems import log, reported


class Runs:
    """One site's runs across builds (a serve's rebuilds share its engine and workers)."""

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.serving = False
        self._deferred = Deferred()  # pages waiting for their run
        self._kept: Callable[[str], bool] = lambda page: False
        self._modules: set[str] = set()  # what the last build imported, once its engine closed

    def configure(
        self,
        config: MkDocsConfig,
        settings: Settings,
        root: Path,
        *,
        keep_current: bool,
        kept: Callable[[str], bool],
    ) -> None:
        """Set up this build's runs; ``kept(page)``: whose result outlives conversion (a
        notebook's); ``keep_current``: a dirty rebuild's cache."""
        self._deferred, self._kept = Deferred(), kept
        if not settings.execute:
            return
        docs, site = Path(config.docs_dir), Path(config.site_dir)
        self.engine = self.engine or site_engine(settings, root, docs, site, not self.serving)
        self.engine.forget(keep_current=keep_current)
        warm_up_if_first_build(settings, root)  # begun at on_startup, unless a script skipped it
        self._execute = ExecuteExtension(engine=self.engine)
        config.markdown_extensions.append(self._execute)

    def warm_up(self, options: LessonkitConfig) -> None:
        """On a site's first build, start the fork server at ``on_startup``."""
        warm_up_if_first_build(settings_of(options), root_of(options))

    def start(self, lesson: Lesson, *, changed: bool) -> None:
        """Start a read page's code now, unless the cache may serve it or it is unchanged."""
        with suppress(LessonError):  # wrong block options: reported by the page's checks
            if self.engine and lesson.program.steps and changed:
                self.engine.start(lesson.program, lesson.where, lesson.text)

    def convert(self, page: Page, lesson: Lesson, markdown: str, final: str) -> str:
        """The Markdown MkDocs converts: ``final`` once run well, else ``""`` for now."""
        if self.engine is None:
            return final
        with reported():
            program, text = lesson.program_of(markdown)
        future = self.engine.submit(program, lesson.where, text)
        if not future.done() or not future.result().ok:
            self._deferred.add(page, final, program, future, lesson.locate)
            return ""
        self._prepare(final, program, future.result())
        return final

    def finish(self, config: MkDocsConfig, files: Files) -> None:
        """Convert the pages that waited for their runs (``on_env``)."""
        if self.engine:
            self._deferred.convert(config, files, self._prepare)

    def result(self, lesson: Lesson) -> PageResult | None:
        """The page's result from this build's run (None when execution is off)."""
        engine = self.engine
        return engine.result(lesson.program, lesson.where, lesson.text) if engine else None

    def built(self) -> None:
        """Log what ran and what came from the cache; a whole build prunes the cache."""
        if self.engine:
            log.info(f"lessonkit: {self.engine.summary()}")
        if not self.serving:
            self.close(prune=True)

    def failed(self) -> None:
        """A build stopped: stop the workers, unless a serve will want them."""
        if not self.serving:
            self.close()

    def modules(self) -> set[str]:
        """The source files of the modules the pages imported (this build's or the last)."""
        return self.engine.module_sources() if self.engine else self._modules

    def close(self, *, prune: bool = False) -> None:
        """Stop the workers; ``prune``: the cache keeps what this build used, and no more."""
        if self.engine:
            self._modules = self.engine.module_sources()
            self.engine.close(prune=prune)
            self.engine = None

    def _prepare(self, markdown: str, program: Program, result: PageResult) -> None:
        self._execute.prepare(markdown, program, result)
        if self.engine and not self.serving and not self._kept(program.page):
            self.engine.release(program)


_Waiting = tuple[Page, str, Program, Outcome, Callable[[Problem], Problem]]


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
        self._waiting.append((page, markdown, program, future, locate))

    def convert(
        self,
        config: MkDocsConfig,
        files: Files,
        prepare: Callable[[str, Program, PageResult], None],
    ) -> None:
        """Convert each waiting page as its run finishes (one let go of once handed on);
        LessonError with every failed page's problems, in the navigation's order."""
        pages: dict[Outcome, list[tuple[int, _Waiting]]] = {}  # two may share a run
        for index, waiting in enumerate(self._waiting):
            pages.setdefault(waiting[3], []).append((index, waiting))
        self._waiting = []
        found: dict[int, list[Problem]] = {}
        for future in as_completed(pages):  # those done first
            result = future.result()
            for index, waiting in pages.pop(future):
                page, markdown, program, _, locate = waiting
                if not result.ok:
                    found[index] = [locate(p) for p in result.problems]
                if found:
                    continue  # the build fails: only collect the other pages' problems
                prepare(markdown, program, result)
                page.markdown = markdown
                page.render(config, files)
                page.content = config.plugins.on_page_content(
                    page.content, page=page, config=config, files=files
                )
        if found:
            raise LessonError(p for index in sorted(found) for p in found[index])
