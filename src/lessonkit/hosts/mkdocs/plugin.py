"""The MkDocs plugin: a thin adapter that wires lessonkit's build wing into MkDocs events."""

from __future__ import annotations

import logging
import os
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass
from html import unescape
from pathlib import Path, PurePosixPath

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.templates import TemplateContext

from lessonkit import quiz
from lessonkit.assets.bundle import bundle
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import normalized, read_front_matter, split_source
from lessonkit.execute.engine import Engine
from lessonkit.execute.extension import ExecuteExtension
from lessonkit.execute.program import Program, parse_program
from lessonkit.execute.results import PageResult
from lessonkit.glossary.checks import check
from lessonkit.glossary.extension import GlossaryExtension
from lessonkit.glossary.page import fill_used_on, page_markdown, pages_by_term
from lessonkit.glossary.terms import Glossary, load, unused
from lessonkit.hosts.mkdocs.config import LessonkitConfig
from lessonkit.report.links import page_report, section_headings
from lessonkit.resources.cards import check_resources, resources_html

log = logging.getLogger("mkdocs.plugins.lessonkit")

# Material's search plugin parses every page's content with Python's HTMLParser; an inline SVG
# figure is hundreds of tags (and its tick labels are no search terms). Figures leave the content
# while it is indexed and come back in the page's final HTML.
_FIGURE_SVG = '<figure class="lk-figure"><svg'


@dataclass
class _Source:
    """A page's source as read once per build, and what lessonkit made of it."""

    text: str
    where: str
    """The page's path as messages show it (relative to mkdocs.yml's folder)."""
    body: str
    """The Markdown after the front matter."""
    offset: int
    """How many lines the front matter took."""
    front_matter: str | None
    """The front matter's YAML, unread (MkDocs reads it); None when the page has none."""
    program: Program | None = None
    """What the page runs, parsed from the body as Python-Markdown will hold it; None when its
    block options are wrong."""


@dataclass
class _Run:
    """A page's program under way in the engine, and how to report it."""

    program: Program
    offset: int
    where: str
    future: Future[PageResult]


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
        self._sources: dict[str, _Source] = {}
        self._deferred: list[tuple[Page, str, _Run]] = []
        self._figures: dict[str, list[str]] = {}
        self._notebooks: dict[str, File] = {}
        """Pages whose front matter says ``notebook: true``, and their ``.ipynb`` files."""
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
        for file in files.documentation_pages():
            if file.abs_src_path and file.src_uri.endswith(".md"):
                source = self._read(file)
                if self.engine and source.program is not None:
                    # Start every page's code now, so pages run in parallel while others render.
                    self.engine.submit(source.program, source.where, source.text)
                if _wants_notebook(source):
                    self._notebooks[file.src_uri] = self._notebook_file(file, files, config)
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
        source = self._source(page.file)
        if source is None:
            return page  # not Markdown
        body = source.body
        found = quiz.check(body) + (check(body, self._glossary) if self._glossary else [])
        problems = [p.at(source.where, source.offset) for p in found]
        if problems:
            raise PluginError(str(LessonError(problems)))
        return page

    @event_priority(100)  # first: other plugins' on_env may read the pages' content
    def on_env(self, env: Environment, /, *, config: MkDocsConfig, files: Files) -> Environment:
        self._render_deferred(config, files)
        self._fill_notebooks(files)
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

    @event_priority(-100)  # last: what the other plugins hand on is what runs and renders
    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        source = self._source(page.file)
        if source and source.front_matter is not None and page.markdown == source.text:
            self._check_front_matter(source, page.file)  # MkDocs left the front matter in
        final = markdown + self._resources(page, source)
        if not (self.engine and source is not None):
            return final
        run = self._run(self.engine, page, source, markdown)
        if not run.future.done() or not run.future.result().ok:
            # Its code still runs (or failed): MkDocs converts the other pages meanwhile, this one
            # in on_env, where the failed pages are reported, all at once.
            self._deferred.append((page, final, run))
            self._execute.parsed = None
            return ""
        self._prepare(page, final, run)
        return final

    def _run(self, engine: Engine, page: Page, source: _Source, markdown: str) -> _Run:
        """Start (or find) the run of what ``markdown`` executes; report its bad block options."""
        text, offset, program = source.text, source.offset, source.program
        if source.body != markdown:  # another plugin changed the page: run what it now holds
            text, offset, program = markdown, 0, None
        if program is None:  # that, or the page's block options are wrong: report them
            try:
                program = parse_program(normalized(markdown), offset, page.file.src_uri)
            except LessonError as error:
                raise self._error(error, page.file) from None
        future = engine.submit(program, source.where, text)
        return _Run(program, offset, source.where, future)

    def _prepare(self, page: Page, markdown: str, run: _Run) -> None:
        """Fail on the run's errors, else set the extension up to render ``markdown`` with it."""
        result = run.future.result()
        if not result.ok:
            raise PluginError(str(LessonError(result.problems)))
        # MkDocs renders this page next, with the extension instance given in on_config.
        self._execute.setConfig("page", page.file.src_uri)
        self._execute.setConfig("display_path", run.where)
        self._execute.setConfig("line_offset", run.offset)
        self._execute.parsed = (normalized(markdown), run.program)

    def _render_deferred(self, config: MkDocsConfig, files: Files) -> None:
        """Convert the pages whose code was still running when MkDocs reached them.

        Each page converts as soon as its code is done, while later pages still run; every
        failed page is reported at once. A page converts exactly as it would have without waiting
        (same Markdown, same extensions), so the site's bytes do not depend on timing.
        """
        deferred, self._deferred = self._deferred, []
        problems = []
        for page, markdown, run in deferred:
            result = run.future.result()
            if not result.ok:
                problems += result.problems
            if problems:
                continue  # the build fails: only collect the other pages' problems
            self._prepare(page, markdown, run)
            page.markdown = markdown
            page.render(config, files)
            page.content = config.plugins.on_page_content(
                page.content, page=page, config=config, files=files
            )
        if problems:
            raise PluginError(str(LessonError(problems)))

    def _notebook_file(self, file: File, files: Files, config: MkDocsConfig) -> File:
        """The page's ``.ipynb`` beside it, empty until its result is known (see on_env)."""
        name = file.src_uri.removesuffix(".md") + ".ipynb"
        if files.get_file_from_path(name):
            message = f"the front matter asks for a notebook, but docs/{name} already exists"
            raise self._notebook_error(file, message, f"rename {name}, or drop notebook: true")
        notebook = File.generated(config, name, content=b"")
        files.append(notebook)
        return notebook

    def _fill_notebooks(self, files: Files) -> None:
        """Write each notebook from its page's program and result (nothing runs again)."""
        if not self._notebooks:
            return
        from lessonkit.notebooks.writer import notebook_bytes, page_notebook

        for src_uri, notebook in self._notebooks.items():
            source, file = self._sources[src_uri], files.get_file_from_path(src_uri)
            if file is None or file.page is None:  # another plugin took the page out
                files.remove(notebook)
                continue
            body = normalized(source.body)
            try:  # with execute: false, wrong block options are first found here
                program = source.program or parse_program(body, source.offset, src_uri)
            except LessonError as error:
                raise self._error(error, file) from None
            result = self.engine.result(program, source.where, source.text) if self.engine else None
            if result and not result.ok:  # the page ran other Markdown (another plugin's)
                raise PluginError(str(LessonError(result.problems)))
            if result and result.reads:
                read = ", ".join(sorted(os.path.relpath(r, self._config_dir) for r in result.reads))
                message = f"the page's code reads files a notebook cannot carry: {read}"
                hint = "drop notebook: true, or make the data in the page's code"
                raise self._notebook_error(file, message, hint)
            page = file.page
            notebook.content_bytes = notebook_bytes(
                page_notebook(
                    body,
                    program,
                    result,
                    title=page.title or "",
                    url=page.canonical_url or "",
                    name=PurePosixPath(notebook.src_uri).name,
                )
            )

    def _notebook_error(self, file: File, message: str, hint: str) -> PluginError:
        """An error about the page's ``notebook:`` line."""
        from lessonkit.core.source import key_line

        line = key_line(self._sources[file.src_uri].text, "notebook")
        return self._error(LessonError([Problem(message, line, hint)]), file)

    def _resources(self, page: Page, source: _Source | None) -> str:
        """The "Go deeper" cards from the page's front matter, appended to its Markdown."""
        if not page.meta.get("resources") or source is None:
            return ""
        problems = check_resources(page.meta, source.text)
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
        html, figures = _cut_figures(html)
        if figures:
            self._figures[page.file.src_uri] = figures
        return html

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        figures = self._figures.pop(page.file.src_uri, None)
        if not figures:
            return output
        missing = sum(_slot(number) not in output for number in range(len(figures)))
        if missing:
            raise PluginError(
                f"{page.file.src_uri}: {missing} of its {len(figures)} figures went missing "
                "between rendering and writing the page (did another plugin rewrite it?)"
            )
        for number, svg in enumerate(figures):
            output = output.replace(_slot(number), svg)
        return output

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.serving:
            self._close_engine()

    def on_build_error(self, *, error: Exception) -> None:
        if not self.serving:
            self._close_engine()

    def _read(self, file: File) -> _Source:
        """Read, split and parse a Markdown page once per build (problems wait for rendering)."""
        text = Path(file.abs_src_path or "").read_text(encoding="utf-8-sig")
        split = split_source(text)
        where = self._display_path(file)
        source = _Source(text, where, split.body, split.offset, split.front_matter)
        with suppress(LessonError):  # reported with file and line when the page is rendered
            source.program = parse_program(normalized(split.body), split.offset, file.src_uri)
        self._sources[file.src_uri] = source
        return source

    def _check_front_matter(self, source: _Source, file: File) -> None:
        """Fail on front matter MkDocs could not read (it would show the YAML as page text)."""
        try:
            read_front_matter(source.front_matter or "")
        except LessonError as error:
            raise self._error(error, file) from None

    def _source(self, file: File) -> _Source | None:
        """The page's source as read in on_files (a page added later is read now)."""
        if not (file.abs_src_path and file.src_uri.endswith(".md")):
            return None
        return self._sources.get(file.src_uri) or self._read(file)

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


def _wants_notebook(source: _Source) -> bool:
    """Whether the page's front matter says ``notebook: true`` (read only when it may)."""
    if not source.front_matter or "notebook" not in source.front_matter:
        return False
    try:
        meta = read_front_matter(source.front_matter)
    except LessonError:
        return False  # unreadable front matter fails the page's own check
    from lessonkit.notebooks.checks import notebook_problems

    problems = [p.at(source.where) for p in notebook_problems(meta, source.text)]
    if problems:
        raise PluginError(str(LessonError(problems)))
    return meta.get("notebook", False)


def _cut_figures(html: str) -> tuple[str, list[str]]:
    """Take each figure's SVG out of ``html``, leaving a numbered slot (str.find: build speed).

    >>> html, figures = _cut_figures('<p>a</p><figure class="lk-figure"><svg><g/></svg></figure>')
    >>> html
    '<p>a</p><figure class="lk-figure"><svg data-lk-figure="0"></svg></figure>'
    >>> figures
    ['<svg><g/></svg>']
    """
    parts: list[str] = []
    figures: list[str] = []
    done = 0
    while (start := html.find(_FIGURE_SVG, done)) >= 0:
        start += len(_FIGURE_SVG) - len("<svg")
        end = html.find("</svg>", start)
        if end < 0:
            break
        end += len("</svg>")
        parts += [html[done:start], _slot(len(figures))]
        figures.append(html[start:end])
        done = end
    return "".join(parts) + html[done:], figures


def _slot(number: int) -> str:
    """What stands for a page's figure ``number`` while the page is indexed and templated."""
    return f'<svg data-lk-figure="{number}"></svg>'
