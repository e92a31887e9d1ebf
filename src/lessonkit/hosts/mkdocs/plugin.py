"""The MkDocs (and ProperDocs) plugin: it only wires MkDocs' events to lessonkit's features."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from html import unescape
from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from lessonkit import resources
from lessonkit.checks.recipe import Context, check_page
from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import normalized
from lessonkit.execute import figure_slots
from lessonkit.execute.engine import Engine
from lessonkit.execute.extension import ExecuteExtension
from lessonkit.execute.program import parse_program
from lessonkit.execute.results import PageResult
from lessonkit.execute.site import site_engine
from lessonkit.glossary.site import SiteGlossary, resolve_links
from lessonkit.hosts.mkdocs.config import LessonkitConfig, add_missing_extensions, settings
from lessonkit.hosts.mkdocs.deferred import Deferred
from lessonkit.hosts.mkdocs.generated import (
    Notebooks,
    add_assets,
    add_glossary_page,
    finish_glossary_page,
    place_after_content,
)
from lessonkit.report.links import aside_html, page_report, section_headings

log = logging.getLogger("mkdocs.plugins.lessonkit")


@contextmanager
def _reported() -> Iterator[None]:
    """Turn lessonkit's problems into the error MkDocs reports (and a strict build fails on)."""
    try:
        yield
    except LessonError as error:
        raise PluginError(str(error)) from None


def _log(problems: Iterable[Problem], report: Callable[[str], None] = log.warning) -> None:
    for problem in problems:
        report(problem.format())


class LessonkitPlugin(BasePlugin[LessonkitConfig]):
    engine: Engine | None = None
    serving = False

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"  # defining on_startup keeps warm workers across serves

    def on_shutdown(self) -> None:
        self._close_engine()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.settings, self.lessons, self.figures = settings(self.config), {}, {}
        self.notebooks, self.deferred = Notebooks(), Deferred()
        self.root = Path(config.config_file_path or ".").resolve().parent
        add_missing_extensions(config.markdown_extensions)
        base = self.settings.assets_dir.strip("/")
        config.extra_css.append(f"{base}/lessonkit.css")
        config.extra_javascript.append(f"{base}/lessonkit.js")
        if self.settings.execute:
            docs, site = Path(config.docs_dir), Path(config.site_dir)
            self.engine = self.engine or site_engine(self.settings, self.root, docs, site)
            self.engine.forget()
            self.engine.warm_up_if_cold()
            self.execute = ExecuteExtension(engine=self.engine)
            config.markdown_extensions.append(self.execute)
        with _reported():
            self.glossary = SiteGlossary.of_site(self.settings, Path(config.docs_dir), self.root)
        if self.glossary:  # its links are absolute in the docs: MkDocs makes them relative
            config.markdown_extensions.append(self.glossary.extension())
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        add_assets(files, config, self.settings.assets_dir.strip("/"))
        for file in files.documentation_pages():
            if file.abs_src_path and file.src_uri.endswith(".md"):
                with _reported():
                    self._read(file, files, config)
        if self.glossary:
            add_glossary_page(files, config, self.glossary)
        docs = Path(config.docs_dir)
        known = [docs / f.src_uri for f in files.documentation_pages()]
        terms = self.glossary and self.glossary.glossary
        self.context = Context(docs, terms, known_pages=known)
        if self.engine:
            self.context.ran = self.engine.ran
        return files

    def on_pre_page(self, page: Page, /, *, config: MkDocsConfig, files: Files) -> Page:
        if lesson := self.lessons.get(page.file.src_uri):
            problems = check_page(lesson, self.context)
            if errors := [p for p in problems if p.severity == "error"]:
                raise PluginError(str(LessonError(errors)))
            _log(problems)
        return page

    @event_priority(-100)  # last: what the other plugins hand on is what runs and renders
    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, **_) -> str:
        if not (lesson := self.lessons.get(page.file.src_uri)):
            return markdown
        final = markdown + resources.section(lesson)
        if self.engine is None:
            return final
        program, text = lesson.program, lesson.text
        if markdown != lesson.body:  # another plugin changed the page: run what it now holds
            with _reported():
                program, text = parse_program(normalized(markdown), 0, lesson.path), markdown
        future = self.engine.submit(program, lesson.where, text)
        if not future.done() or not future.result().ok:  # converted in on_env, once it is done
            self.deferred.add(page, final, program, future)
            return ""
        self.execute.prepare(final, program, future.result())
        return final

    def on_page_content(self, html: str, /, *, page: Page, files: Files, **_) -> str:
        if self.glossary and (glossary := files.get_file_from_path(self.glossary.page)):
            html = resolve_links(html, get_relative_url(glossary.url, page.url))
        html, self.figures[page.file.src_uri] = figure_slots.cut(html)
        return html

    @event_priority(100)  # first: other plugins' on_env may read the pages' content
    def on_env(self, env: Environment, /, *, config: MkDocsConfig, files: Files) -> Environment:
        with _reported():
            if self.engine:
                self.deferred.convert(config, files, self.execute.prepare)
            self.notebooks.write(files, self._result, self.root)
        if self.glossary:  # every page is converted by now: fill the "used on" lists
            unused = finish_glossary_page(files, self.glossary)
            _log(unused, log.warning if self.glossary.unused == "warn" else log.info)
        return env

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        with _reported():
            if config.repo_url:  # "Report a mistake" links, after the page's content
                url = page.canonical_url or page.abs_url or page.url
                title, headings = unescape(page.title or ""), section_headings(page.toc)
                report = page_report(config.repo_url, title, url, headings)
                output = place_after_content(output, page.content or "", aside_html(report), page)
            figures = self.figures.pop(page.file.src_uri, [])
            return figure_slots.restore(output, figures, page.file.src_uri) if figures else output

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.serving:
            self._close_engine()

    def on_build_error(self, *, error: Exception) -> None:
        if not self.serving:
            self._close_engine()

    def _read(self, file: File, files: Files, config: MkDocsConfig) -> None:
        """Read a page once per build; start its code now, so pages run while others render."""
        lesson = Lesson.read(Path(file.abs_src_path or ""), file.src_uri, self._where(file))
        self.lessons[file.src_uri] = lesson
        with suppress(LessonError):  # wrong block options: reported by the page's checks
            if self.engine and lesson.program.steps:
                self.engine.submit(lesson.program, lesson.where, lesson.text)
        self.notebooks.add(lesson, files, config)

    def _result(self, lesson: Lesson) -> PageResult | None:
        """The page's result from this build's run (None when execution is off)."""
        return (
            self.engine.result(lesson.program, lesson.where, lesson.text) if self.engine else None
        )

    def _where(self, file: File | Path) -> str:
        """How messages name a file: relative to the folder of mkdocs.yml."""
        path = file if isinstance(file, Path) else Path(file.abs_src_path or file.src_uri)
        return os.path.relpath(path, self.root)

    def _close_engine(self) -> None:
        if self.engine:
            self.engine.close()
            self.engine = None
