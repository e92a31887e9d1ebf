"""The MkDocs plugin: a thin adapter that wires lessonkit's build wing into MkDocs events."""

from __future__ import annotations

import logging
import os
import re
from html import unescape
from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.templates import TemplateContext

from lessonkit.build.assets import bundle
from lessonkit.build.engine import Engine
from lessonkit.build.extensions import quiz
from lessonkit.build.extensions.execute import ExecuteExtension
from lessonkit.build.extensions.glossary import GlossaryExtension, check
from lessonkit.build.glossary import Glossary, load, unused
from lessonkit.build.glossary_page import fill_used_on, page_markdown, pages_by_term
from lessonkit.build.problems import LessonError
from lessonkit.build.program import Program, parse_program
from lessonkit.build.report import page_report, section_headings
from lessonkit.build.resources import check_resources, resources_html
from lessonkit.build.source import split_front_matter
from lessonkit.config import LessonkitConfig

log = logging.getLogger("mkdocs.plugins.lessonkit")

# Material's search plugin parses every page's content with Python's HTMLParser; an inline SVG
# figure is hundreds of tags (and its tick labels are no search terms). Figures leave the content
# while it is indexed and come back in the page's final HTML.
_FIGURE_SVG = re.compile(r'(<figure class="lk-figure">)(<svg\b.*?</svg>)', re.DOTALL)
_FIGURE_SLOT = re.compile(r'<svg data-lk-figure="(\d+)"></svg>')


class LessonkitPlugin(BasePlugin[LessonkitConfig]):
    """Wires lessonkit into MkDocs; the features live in the Markdown extensions."""

    engine: Engine | None = None
    serving = False

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup keeps this instance (and its warm workers) across serve rebuilds.
        self.serving = command == "serve"

    def on_shutdown(self) -> None:
        self._close_engine()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self._parsed: dict[str, tuple[str, str, Program]] = {}
        self._figures: dict[str, list[str]] = {}
        base = self.config.assets_dir.strip("/")
        config.extra_css.append(f"{base}/lessonkit.css")
        config.extra_javascript.append(f"{base}/lessonkit.js")
        self._config_dir = Path(config.config_file_path or ".").resolve().parent
        if self.config.execute:
            if self.engine is None:
                self.engine = Engine(
                    self._config_dir / self.config.cache_dir,
                    workers=self.config.workers or os.cpu_count() or 1,
                    timeout=float(self.config.timeout),
                    docs_dir=Path(config.docs_dir).resolve(),
                    protected=(Path(config.site_dir).resolve(),),
                )
            self.engine.forget()
            self.engine.warm_up_if_cold()
            self._execute = ExecuteExtension(engine=self.engine)
            config.markdown_extensions.append(self._execute)
        self._glossary = self._load_glossary(config)
        if self._glossary:
            href = f"/{self.config.glossary_page}#{{id}}"  # MkDocs makes it relative per page
            config.markdown_extensions.append(GlossaryExtension(glossary=self._glossary, href=href))
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        base = self.config.assets_dir.strip("/")
        for kind in ("css", "js"):
            files.append(File.generated(config, f"{base}/lessonkit.{kind}", content=bundle(kind)))
        if self.engine:
            # Start every page's code now, so pages run in parallel while others render.
            for file in files.documentation_pages():
                if file.abs_src_path and file.src_uri.endswith(".md"):
                    text = Path(file.abs_src_path).read_text(encoding="utf-8-sig")
                    program = self._program(file, text)
                    if program is not None:
                        self.engine.submit(program, self._display_path(file), text)
        if self._glossary:  # the YAML becomes a page, not a download; the page edits the YAML
            if yml := files.get_file_from_path(self._glossary_src):
                files.remove(yml)
            page = File.generated(
                config, self.config.glossary_page, content=page_markdown(self._glossary)
            )
            page.edit_uri = self._glossary_src
            files.append(page)
        return files

    def on_pre_page(self, page: Page, /, *, config: MkDocsConfig, files: Files) -> Page:
        if page.file.abs_src_path and page.file.src_uri.endswith(".md"):
            text = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig")
            try:
                body, _, offset = split_front_matter(text)
            except LessonError:
                return page  # reported with its line when the page is read
            where = self._display_path(page.file)
            found = quiz.check(body) + (check(body, self._glossary) if self._glossary else [])
            problems = [p.at(where, offset) for p in found]
            if problems:
                raise PluginError(str(LessonError(problems)))
        return page

    def on_env(self, env: Environment, /, *, config: MkDocsConfig, files: Files) -> Environment:
        # Every page is converted by now: fill the glossary page's "used on" lists.
        if not self._glossary:
            return env
        glossary = files.get_file_from_path(self.config.glossary_page)
        pages = [f.page for f in files.documentation_pages() if f.page and f is not glossary]
        used = pages_by_term((p, p.content or "") for p in pages)
        if glossary and glossary.page and glossary.page.content:
            here = glossary.page.url
            links = {
                term_id: [(p.title or p.file.src_uri, get_relative_url(p.url, here)) for p in ps]
                for term_id, ps in used.items()
            }
            glossary.page.content = fill_used_on(glossary.page.content, links)
        report = log.warning if self.config.glossary_unused == "warn" else log.info
        for problem in unused(self._glossary, used):
            report(problem.format())
        return env

    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        if self.engine and page.file.abs_src_path:
            text = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig")
            parsed = self._parsed.pop(page.file.src_uri, None)
            if parsed and parsed[:2] == (text, markdown):
                program = parsed[2]  # unchanged since on_files parsed it
            else:
                body, _, offset = split_front_matter(text)
                if body != markdown:  # another plugin changed the page: run what it now holds
                    text, offset = markdown, 0
                try:
                    program = parse_program(markdown, offset, page.file.src_uri)
                except LessonError as error:
                    raise self._error(error, page.file) from None
            result = self.engine.result(program, self._display_path(page.file), text)
            if not result.ok:
                raise PluginError(str(LessonError(result.problems)))
            # MkDocs renders this page next, with the extension instance given in on_config.
            self._execute.setConfig("page", page.file.src_uri)
            self._execute.setConfig("display_path", self._display_path(page.file))
        return markdown + self._resources(page)

    def _resources(self, page: Page) -> str:
        """The "Go deeper" cards from the page's front matter, appended to its Markdown."""
        if not page.meta.get("resources"):
            return ""
        text = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig")
        problems = check_resources(page.meta, text)
        if problems:
            raise self._error(LessonError(problems), page.file)
        cards = resources_html(page.meta["resources"])
        return f"\n\n## Go deeper {{ #resources }}\n\n{cards}\n"

    def on_page_context(
        self, context: TemplateContext, /, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        if config.repo_url:  # "Report a mistake" links (overrides/main.html shows them)
            url = page.canonical_url or page.abs_url or page.url
            title = unescape(page.title or "")
            headings = section_headings(page.toc)
            context["lessonkit_report"] = page_report(config.repo_url, title, url, headings)
        return context

    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        figures: list[str] = []

        def slot(match: re.Match[str]) -> str:
            figures.append(match[2])
            return f'{match[1]}<svg data-lk-figure="{len(figures) - 1}"></svg>'

        html = _FIGURE_SVG.sub(slot, html)
        if figures:
            self._figures[page.file.src_uri] = figures
        return html

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        figures = self._figures.pop(page.file.src_uri, None)
        if not figures:
            return output
        output, count = _FIGURE_SLOT.subn(lambda match: figures[int(match[1])], output)
        if count != len(figures):
            raise PluginError(
                f"{page.file.src_uri}: {len(figures) - count} of its {len(figures)} figures went "
                "missing between rendering and writing the page (did another plugin rewrite it?)"
            )
        return output

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.serving:
            self._close_engine()

    def on_build_error(self, *, error: Exception) -> None:
        if not self.serving:
            self._close_engine()

    def _program(self, file: File, text: str) -> Program | None:
        try:
            body, _, offset = split_front_matter(text)
            program = parse_program(body, offset, file.src_uri)
        except LessonError:
            return None  # reported with file and line when the page is rendered
        self._parsed[file.src_uri] = (text, body, program)
        return program

    def _display_path(self, file: File) -> str:
        return os.path.relpath(file.abs_src_path or file.src_uri, self._config_dir)

    def _error(self, error: LessonError, file: File) -> PluginError:
        return PluginError(str(LessonError(p.at(self._display_path(file)) for p in error.problems)))

    def _load_glossary(self, config: MkDocsConfig) -> Glossary | None:
        name = self.config.glossary
        if name is None:  # not set: the site's glossary.yml, if it has one
            name = "glossary.yml" if (Path(config.docs_dir) / "glossary.yml").is_file() else ""
        self._glossary_src = name
        if not name:
            return None
        path = Path(config.docs_dir) / name
        try:
            return load(path, os.path.relpath(path, self._config_dir))
        except LessonError as error:
            raise PluginError(str(error)) from None
        except OSError as error:
            raise PluginError(f"{path}: error: can't read the glossary: {error.strerror}") from None

    def _close_engine(self) -> None:
        if self.engine:
            self.engine.close()
            self.engine = None
