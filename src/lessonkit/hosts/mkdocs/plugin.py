"""The MkDocs (and ProperDocs) plugin: it only wires MkDocs' events to lessonkit's features."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import Environment
from markdown import Markdown
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from lessonkit import resources
from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.checks.recipe import Context, check_page
from lessonkit.core.problems import LessonError
from lessonkit.core.settings import Settings
from lessonkit.execute import figure_slots
from lessonkit.glossary.site import SiteGlossary
from lessonkit.hosts import missing_extensions
from lessonkit.hosts.mkdocs import generated  # the pages, assets and output lessonkit adds
from lessonkit.hosts.mkdocs.config import LessonkitConfig, root_of, settings
from lessonkit.hosts.mkdocs.figures import Waiting
from lessonkit.hosts.mkdocs.notebook_pages import NotebookFile, adopt_notebooks, lesson_files
from lessonkit.hosts.mkdocs.problems import log_again, report, reported, reported_while_rendering
from lessonkit.hosts.mkdocs.runs import Runs
from lessonkit.hosts.mkdocs.serve import Preview
from lessonkit.notebooks.lesson import read_lesson
from lessonkit.notebooks.links import LinksToPages
from lessonkit.path import HOME, PRINT_PAGE, home_link

if TYPE_CHECKING:  # only MkDocs' serve imports it (and the file watcher and HTTP server)
    from mkdocs.livereload import LiveReloadServer


class LessonkitPlugin(BasePlugin[LessonkitConfig]):
    preview = Preview(active=False)  # a serve or a dirty build makes an active one

    def __init__(self) -> None:
        super().__init__()
        self.runs = Runs()  # the lessons' code: lessonkit.hosts.mkdocs.runs

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.runs.serving = command == "serve"  # defining on_startup keeps workers across serves
        self.preview = Preview(active=dirty)  # a kept plugin's next command starts afresh
        self.runs.warm_up(self.config)  # a first build starts its workers now, not at on_config

    def on_shutdown(self) -> None:
        self.runs.close()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.settings, self.lessons = settings(self.config), {}
        self.figures = Waiting()  # from on_page_content until on_post_page
        self.notebooks = generated.Notebooks()
        self.root = root_of(config)
        config.markdown_extensions.extend(missing_extensions(config.markdown_extensions))
        self.links = LinksToPages((), _converted_page)  # links to notebooks: to their pages
        config.markdown_extensions.append(self.links)
        generated.link_assets(config, self.settings.assets_dir.strip("/"))
        keep, kept = self.preview.active, self.notebooks.wants
        self.runs.configure(config, self.settings, self.root, keep_current=keep, kept=kept)
        with reported():
            self.glossary = SiteGlossary.of_site(self.settings, Path(config.docs_dir), self.root)
        if self.glossary:  # its links are absolute in the docs: MkDocs makes them relative
            config.markdown_extensions.append(self.glossary.extension())
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        generated.remove_prepared(files, Path(config.docs_dir))  # lessonkit prepare's: made here
        generated.add_assets(files, config, self.settings.assets_dir.strip("/"))
        problems = adopt_notebooks(files, self._where, config)  # x.ipynb: the page x.md
        self.links.notebooks = frozenset(f.edit_uri for f in files if isinstance(f, NotebookFile))
        self.preview.mark_stale(files, config, self.runs.engine, self.glossary)
        pages, unread = list(lesson_files(files)), {}
        for file in pages:
            try:
                self._read(file, files, config)
            except LessonError as error:
                unread[file.src_uri] = error.problems
        meta = {src_uri: lesson.valid_meta for src_uri, lesson in self.lessons.items()}
        self.path = generated.add_print_page(files, config, meta)  # the learner's path
        if self.glossary:
            generated.add_glossary_page(files, config, self.glossary)
        context = site_context(files, config, self.settings, self.glossary, bool(self.path))
        if self.runs.engine:  # a good run in the cache: its code compiles
            context.ran = self.runs.engine.held
        for file in pages:  # every page's problems in one error, as lessonkit check reports them
            if self.preview.active and not file.is_modified():
                continue  # a preview checks the pages it converts, as a save must stay quick
            lesson = self.lessons.get(file.src_uri)
            problems += check_page(lesson, context) if lesson else unread[file.src_uri]
        report(problems)
        return files

    def on_page_read_source(self, /, *, page: Page, config: MkDocsConfig) -> str | None:
        lesson = self.lessons.get(page.file.src_uri)  # a notebook: the Markdown it stands for
        return lesson.text if lesson and lesson.origins else None

    @event_priority(-100)  # last: what the other plugins hand on is what runs and renders
    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, **_) -> str:
        if not (lesson := self.lessons.get(page.file.src_uri)):
            return markdown
        reported_while_rendering(page, lesson)
        final = markdown + resources.section(lesson)
        if self.path and lesson.path == HOME:  # the learner's path: a link to its print page
            final += home_link()
        return self.runs.convert(page, lesson, markdown, final)  # or in on_env, once it ran

    def on_page_content(self, html: str, /, *, page: Page, files: Files, **_) -> str:
        self.lessons.pop(page.file.src_uri, None)  # rendered: a page waiting for its run holds it
        html = generated.link_glossary(html, page, files, self.glossary)
        html, self.figures[page.file.src_uri] = figure_slots.cut(html)
        return self.notebooks.download(html, page)

    @event_priority(100)  # first: other plugins' on_env may read the pages' content
    def on_env(self, env: Environment, /, *, config: MkDocsConfig, files: Files) -> Environment:
        with reported():
            self.preview.compile_with(env)  # serve --dirty: templates compiled last time
            self.runs.finish(config, files)  # the pages that waited for their code
            self.preview.restore(files, self.figures)
            self.notebooks.write(files, self.runs.result, self.root)
        self.lessons = {}  # every page is converted: a build need not hold what is left
        if self.glossary:  # every page is converted by now: fill the "used on" lists
            unused = generated.finish_glossary_page(files, self.glossary, self.preview.terms)
            report(unused, self.glossary.unused)
        words = self.glossary.page if self.glossary else None  # the path's pages, the print page
        self.path_lessons = generated.finish_path(files, config, self.path, words, self.figures)
        self.preview.settle(files)
        return env

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        with reported():  # "Report a mistake" links, progress data, the page's figures
            return generated.finish_output(output, page, config, self.path_lessons, self.figures)

    def on_serve(self, server: LiveReloadServer, /, **_) -> LiveReloadServer:
        self.preview.serving(server, self.runs.engine, self.runs.modules())  # lab edits rebuild
        return server

    @event_priority(-100)  # last: the search plugin has written its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self.preview.finish(config.site_dir)
        self.runs.built()

    def on_build_error(self, *, error: Exception) -> None:
        log_again(error)  # under serve: the next build still broken says why again
        self.preview.failed()
        self.runs.failed()

    def _read(self, file: File, files: Files, config: MkDocsConfig) -> None:
        """Read a page once per build and start its code now, so pages run while others render."""
        path, where = Path(file.abs_src_path or ""), self._where(file)
        lesson = self.preview.read(file, lambda: read_lesson(path, file.src_uri, where))
        self.lessons[file.src_uri] = lesson
        self.runs.start(lesson, changed=file.is_modified())  # (dirty: changed since the last)
        self.notebooks.add(lesson, files, config)

    def _where(self, file: File) -> str:
        """How messages name a file: relative to the folder of mkdocs.yml."""
        return os.path.relpath(file.abs_src_path or file.src_uri, self.root)


def site_context(
    files: Files,
    config: MkDocsConfig,
    settings: Settings,
    glossary: SiteGlossary | None,
    printed: bool,
) -> Context:
    """The site as a page's checks know it (``printed``: it has a print page)."""
    docs = Path(config.docs_dir)
    return Context(
        docs,
        glossary.glossary if glossary else None,
        known_pages=[docs / f.src_uri for f in files.documentation_pages()],
        virtual_pages=frozenset([PRINT_PAGE] if printed else []),
        settings=settings,
        markdown=MarkdownSetup.of(config.markdown_extensions, config.mdx_configs),
    )


def _converted_page(md: Markdown) -> str:
    """The page ``md`` converts, as MkDocs' own link processor (``relpath``) holds it."""
    if "relpath" not in md.treeprocessors:
        return ""
    return getattr(getattr(md.treeprocessors["relpath"], "file", None), "src_uri", "")
