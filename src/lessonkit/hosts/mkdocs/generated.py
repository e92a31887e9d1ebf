"""The files lessonkit adds to a MkDocs site (assets, glossary and print pages, notebooks)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, MutableMapping
from html import unescape
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkDocsPage
from mkdocs.utils import get_relative_url

from lessonkit.assets.bundle import bundle
from lessonkit.core.page import Page as Lesson
from lessonkit.core.prepared import mark, prepared_files, taken
from lessonkit.core.problems import LessonError, Problem
from lessonkit.execute.figure_slots import restore
from lessonkit.execute.results import PageResult
from lessonkit.glossary.site import SiteGlossary, finish_page, resolve_links
from lessonkit.hosts.mkdocs.problems import report
from lessonkit.notebooks.site import (
    clash,
    download_html,
    notebook_path,
    page_notebook_bytes,
    wants_notebook,
)
from lessonkit.path import (
    PRINT_PAGE,
    nav_order,
    path_lessons,
    print_html,
    print_markdown,
    progress_json,
    reading_order,
)
from lessonkit.path import Lesson as PathLesson
from lessonkit.report.links import aside_html, page_report, section_headings


def remove_prepared(files: Files, docs_dir: Path) -> None:
    """Leave out what ``lessonkit prepare`` wrote: the plugin makes those files."""
    for name in prepared_files(docs_dir):
        if file := files.get_file_from_path(name):
            files.remove(file)


def add_assets(files: Files, config: MkDocsConfig, folder: str) -> None:
    """lessonkit's stylesheet and script, in ``folder`` of the site."""
    for kind in ("css", "js"):
        files.append(File.generated(config, f"{folder}/lessonkit.{kind}", content=bundle(kind)))


def link_assets(config: MkDocsConfig, folder: str) -> None:
    """Load lessonkit's stylesheet and script on every page (unless the site lists them)."""
    for assets, kind in ((config.extra_css, "css"), (config.extra_javascript, "js")):
        if f"{folder}/lessonkit.{kind}" not in assets:
            assets.append(f"{folder}/lessonkit.{kind}")


def add_glossary_page(files: Files, config: MkDocsConfig, glossary: SiteGlossary) -> None:
    """The glossary YAML becomes a page whose "edit" link points at it."""
    _refuse_own(files, config, glossary.page)
    if yml := files.get_file_from_path(glossary.source):
        files.remove(yml)
    page = File.generated(config, glossary.page, content=glossary.page_markdown())
    page.edit_uri = glossary.source
    files.append(page)


def finish_glossary_page(
    files: Files, glossary: SiteGlossary, terms: Callable[[str], list[str]]
) -> list[Problem]:
    """Fill the glossary page's "used on" lists; return the unused-term warnings."""
    file = files.get_file_from_path(glossary.page)
    page = file.page if file else None
    pages = [f.page for f in files.documentation_pages() if f.page and f is not file]
    shown = [(p.title or p.file.src_uri, p.url, p.content or "") for p in pages]
    here = page.url if page else ""
    content = (page.content if page else None) or ""
    html, unused = finish_page(
        glossary.glossary, content, shown, lambda url: get_relative_url(url, here), terms
    )
    if page and content:
        page.content = html
    return unused


def link_glossary(html: str, page: MkDocsPage, files: Files, glossary: SiteGlossary | None) -> str:
    """``html`` with its glossary marks linked to the glossary page, relatively."""
    if glossary and (target := files.get_file_from_path(glossary.page)):
        return resolve_links(html, get_relative_url(target.url, page.url))
    return html


def add_print_page(files: Files, config: MkDocsConfig, meta: dict[str, dict]) -> list[str]:
    """The learning path's pages; the print page if there are any."""
    pages = (file.src_uri for file in files.documentation_pages())  # a site without a nav
    path = path_lessons(reading_order(nav_order(config.nav), pages), meta)
    if path:
        _refuse_own(files, config, PRINT_PAGE)
        files.append(File.generated(config, PRINT_PAGE, content=print_markdown()))
    return path


def _refuse_own(files: Files, config: MkDocsConfig, name: str) -> None:
    """An error where the site has its own ``name``."""
    if (file := files.get_file_from_path(name)) and not file.generated_by:
        root = Path(config.config_file_path or ".").parent
        report([taken(name, os.path.relpath(file.abs_src_path or name, root))])


def finish_path(
    files: Files,
    config: MkDocsConfig,
    path: list[str],
    glossary: str | None,
    figures: Mapping[str, list[str]],
) -> list[PathLesson]:
    """The path's converted pages (figures in place); the print page filled from them."""

    def lesson(src_uri: str) -> PathLesson | None:
        file = files.get_file_from_path(src_uri)
        if not (file and file.page):
            return None
        page, html = file.page, file.page.content or ""
        html = restore(html, figures.get(src_uri, []), src_uri) if src_uri in figures else html
        return PathLesson(src_uri, unescape(page.title or src_uri), page.url, html)

    lessons = [x for x in map(lesson, path) if x]
    printed = files.get_file_from_path(PRINT_PAGE)
    if printed and printed.page and lessons:
        words = lesson(glossary) if glossary else None
        printed.page.content = print_html(lessons, words, config.site_url or "", printed.url)
    return lessons


class Notebooks:
    """The ``.ipynb`` beside each page that asks for one, written once its result is known."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[Lesson, File]] = {}

    def add(self, lesson: Lesson, files: Files, config: MkDocsConfig) -> None:
        """Reserve the page's notebook file (empty until :meth:`write`)."""
        if not wants_notebook(lesson):
            return
        name = notebook_path(lesson)
        if files.get_file_from_path(name):
            raise LessonError([clash(lesson)])
        notebook = File.generated(config, name, content=b"")
        self._files[lesson.path] = (lesson, notebook)
        files.append(notebook)

    def wants(self, src_uri: str) -> bool:
        return src_uri in self._files

    def write(
        self, files: Files, result: Callable[[Lesson], PageResult | None], root: Path
    ) -> None:
        for src_uri, (lesson, notebook) in self._files.items():
            file = files.get_file_from_path(src_uri)
            if file is None or file.page is None:  # another plugin took the page out
                files.remove(notebook)
                continue
            title, url = file.page.title or "", file.page.canonical_url or ""
            made = page_notebook_bytes(lesson, result(lesson), title=title, url=url, root=root)
            notebook.content_bytes = mark(notebook.src_uri, made)  # as prepare writes it

    def download(self, html: str, page: MkDocsPage) -> str:
        """A notebook lesson's page ends with its download button."""
        if not (found := self._files.get(page.file.src_uri)) or found[0].origins is None:
            return html
        return html + download_html(found[0], get_relative_url(found[1].url, page.url))


def finish_output(
    output: str,
    page: MkDocsPage,
    config: MkDocsConfig,
    lessons: list[PathLesson],
    figures: MutableMapping[str, list[str]],
) -> str:
    """A page as written: report links after its content, the path's data, its figures back."""
    if config.repo_url:  # a theme that rewrites page.content leaves the box no place
        url = page.canonical_url or page.abs_url or page.url
        title, headings = unescape(page.title or ""), section_headings(page.toc)
        box = aside_html(page_report(config.repo_url, title, url, headings))
        content = page.content or ""
        at = output.find(content) if content else -1
        if at < 0:
            message = "the theme does not show the page's content as rendered: no place for "
            message += "its 'Report a mistake' links"
            hint = "use a theme that renders {{ page.content }}, or remove repo_url from mkdocs.yml"
            raise LessonError([Problem(message, hint=hint, path=page.file.src_uri)])
        output = output[: at + len(content)] + box + output[at + len(content) :]
    if lessons and (at := output.rfind("</body>")) >= 0:  # the path's data, for its script
        root = get_relative_url(".", page.url).rstrip("/") + "/"
        print_url = File(PRINT_PAGE, "", "", page.file.use_directory_urls).url  # print/, print.html
        output = output[:at] + progress_json(lessons, root, print_url) + output[at:]
    waiting = figures.pop(page.file.src_uri, [])
    return restore(output, waiting, page.file.src_uri) if waiting else output
