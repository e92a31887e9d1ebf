"""Every lessonkit feature of one page as one Markdown extension, for a host without plugins
(what the MkDocs plugin does with events, in the same order)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from html import unescape
from typing import Any
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from lessonkit import resources
from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import LessonError, Problem
from lessonkit.execute import figure_slots
from lessonkit.execute.extension import ExecuteExtension
from lessonkit.hosts import missing_extensions
from lessonkit.hosts.standalone.site import Site
from lessonkit.notebooks.links import LinksToPages
from lessonkit.notebooks.site import download_href, download_html, notebook_path
from lessonkit.path import HOME, PRINT_PAGE, home_link, made_html, progress_script, root_of
from lessonkit.report.links import aside_html, page_report, token_headings


def page_title(
    meta: Mapping[str, Any], toc: Iterable[Mapping[str, Any]], path: str, nav_title: str | None
) -> str:
    """A page's title as MkDocs gives it: ``nav``'s, the front matter's, the h1's, the file's."""
    if nav_title:
        return nav_title
    if isinstance(meta.get("title"), str):
        return meta["title"]
    h1 = next((t for t in toc if t["level"] == 1), None)
    if h1 is not None:
        return unescape(h1["name"])
    if path == "index.md":
        return "Home"
    name = path.rsplit("/", 1)[-1].removesuffix(".md").replace("-", " ").replace("_", " ")
    return name.capitalize() if name.lower() == name else name


class LessonPage(Extension):
    """The features of ``lesson`` at ``url``; a page of ``generated`` (prepare's) gets no checks or
    run; ``path``: the learner's path as prepare recorded it."""

    def __init__(
        self,
        site: Site,
        lesson: Lesson,
        url: str,
        *,
        generated: Iterable[str] = (),
        path: Mapping[str, Any] | None = None,
        warn: Callable[[list[Problem]], None] = lambda problems: None,
    ) -> None:
        super().__init__()
        self.site, self.lesson, self.url = site, lesson, url
        self.generated = frozenset(generated)
        self.is_lesson = lesson.path not in self.generated
        self.path, self.warn = path, warn
        self.execute: ExecuteExtension | None = None
        self.content = ""  # once converted, as MkDocs' page.content
        self.as_written = True  # no other extension changed the Markdown
        self.figures: list[str] = []  # cut out of the stashed HTML while the host reads it

    def extendMarkdown(self, md: Markdown) -> None:
        site, lesson, self.md = self.site, self.lesson, md
        if self.is_lesson:
            problems = site.check(lesson, self.generated)
            if errors := [p for p in problems if p.severity == "error"]:
                raise LessonError(errors)
            self.warn(problems)
        md.registerExtensions(missing_extensions(site.config.extensions), {})
        links = LinksToPages(site.sources.values(), lambda _: lesson.path)  # go to the pages
        features: list[Extension] = [links]
        if site.engine and self.is_lesson:
            self.execute = ExecuteExtension(engine=site.engine)
            features.append(self.execute)
        if glossary := site.glossary:  # linking to the glossary page relatively
            features.append(glossary.extension(href=glossary.link_from(lesson.path) + "#{id}"))
        md.registerExtensions(features, {})
        # Before whitespace normalisation (30): the Markdown as the host gave it.
        md.preprocessors.register(_Hook(md, self._preprocess), "lessonkit_page", 31)
        # Last: figures leave the HTML while Zensical's search index reads it; _finish restores.
        md.treeprocessors.register(_Hook(md, self._cut_figures), "lessonkit_cut_figures", -100)
        convert = md.convert

        def converted(source: str) -> str:
            try:
                html = convert(source)
                if lesson.path == PRINT_PAGE and not self.is_lesson:  # made whole by prepare
                    html = made_html(lesson.body)
                return self._finish(md, html)
            except LessonError as error:  # found while converting: placed in the lesson's file
                found = [
                    lesson.place(p) if p.path == "<markdown>" else lesson.locate(p)
                    for p in error.problems
                ]
                raise LessonError(found) from None

        md.convert = converted  # type: ignore[method-assign]

    def title(self, toc_tokens: Iterable[Mapping[str, Any]]) -> str:
        path = self.lesson.path
        return page_title(self.lesson.meta, toc_tokens, path, self.site.config.nav_titles.get(path))

    def _finish(self, md: Markdown, html: str) -> str:
        if self.figures:
            html = figure_slots.restore(html, self.figures, self.lesson.where)
        lesson = self.lesson
        if lesson.origins is not None and self.is_lesson:  # a notebook lesson: what the build ran
            html += download_html(lesson, download_href(notebook_path(lesson), self.url))
        self.content = html
        config = self.site.config
        if config.repo_url:
            tokens = getattr(md, "toc_tokens", [])
            url = config.canonical_url(self.url)
            html += aside_html(
                page_report(config.repo_url, self.title(tokens), url, token_headings(tokens))
            )
        if self.path and self.path.get("lessons"):  # outside the content, as under MkDocs
            html += progress_script(self.path, root_of(self.url))
        return html

    def _preprocess(self, lines: list[str]) -> list[str]:
        lesson = self.lesson
        if not self.is_lesson:
            return lines
        given = "\n".join(lines)  # a notebook lesson's page: its notebook as it is now
        self.as_written = lesson.origins is not None or as_written(given, lesson)
        body = lesson.body if self.as_written else given
        final = body + resources.section(lesson)
        if lesson.path == HOME and PRINT_PAGE in self.generated:  # the path has a print page
            final += home_link()
        engine = self.site.engine
        if self.execute is not None and engine is not None:
            program, text = lesson.program_of(body)
            self.execute.prepare(final, program, engine.result(program, lesson.where, text))
        return final.split("\n")

    def _cut_figures(self, root: Element) -> None:
        self.figures = []
        blocks = self.md.htmlStash.rawHtmlBlocks
        for number, block in enumerate(blocks):
            if isinstance(block, str) and block.startswith('<figure class="lk-figure">'):
                blocks[number], found = figure_slots.cut(block, first=len(self.figures))
                self.figures += found


def as_written(given: str, lesson: Lesson) -> bool:
    """Whether ``given`` is the page's own body."""
    return given.replace("\r\n", "\n").replace("\r", "\n").lstrip("\n") == lesson.body


class _Hook(Preprocessor):  # a pre- or tree-processor
    def __init__(self, md: Markdown, call: Callable[[Any], Any]) -> None:
        super().__init__(md)
        self.call = call

    def run(self, given: Any) -> Any:
        return self.call(given)
