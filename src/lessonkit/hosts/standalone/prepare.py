"""``lessonkit prepare``: the site-level outputs a host without plugins (Zensical) needs,
written into docs/ where changed, each marked (:mod:`lessonkit.core.prepared`), with a manifest
whose digest of every page's HTML makes a host watching docs/ convert its pages again."""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Collection, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from markdown import Markdown

from lessonkit.assets.bundle import bundle
from lessonkit.checks.files import site_problems
from lessonkit.core.page import Page as Lesson
from lessonkit.core.prepared import MANIFEST, inside, is_prepared, mark, prepared_files, taken
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.project import Project, entries, load_config
from lessonkit.execute.engine import CONFIG_FILES, warm_up_if_first_build
from lessonkit.execute.filewatch import FileWatch
from lessonkit.glossary.site import finish_page
from lessonkit.hosts import extension_name
from lessonkit.hosts.standalone.manifest import atomic_write, one_writer, sha256, write_manifest
from lessonkit.hosts.standalone.page import LessonPage
from lessonkit.hosts.standalone.records import Converted, Records, environment, key_of
from lessonkit.hosts.standalone.site import Site, SiteConfig, page_order
from lessonkit.notebooks.lesson import lesson_pages, nav_problems
from lessonkit.notebooks.site import clash, notebook_path, page_notebook_bytes, wants_notebook
from lessonkit.path import (
    PRINT_PAGE,
    path_lessons,
    path_record,
    print_html,
    print_page_file,
    reading_order,
)
from lessonkit.path import Lesson as PathLesson

RECORDS = "prepare/pages.records"  # in the cache folder, in a folder its pruning leaves alone


def host_problems(config: SiteConfig, *, prepared: bool = True) -> list[Problem]:
    """What a host without plugins lacks in ``mkdocs.yml`` (``prepared``: and from this step)."""
    problems = []
    docs = os.path.relpath(config.docs_dir, config.root)
    assets = config.assets()
    for kind, key in (("css", "extra_css"), ("js", "extra_javascript")):
        if assets[kind] not in getattr(config, key):
            message = f"the site does not load lessonkit's {kind.upper()}"
            hint = f"add {assets[kind]} to {key} in mkdocs.yml (lessonkit prepare writes it)"
            problems.append(Problem(message, hint=hint, path="mkdocs.yml"))
    if not _watched(config):
        message = "the docs folder is not watched: a page would keep a stale result"
        hint = f"add {docs} to watch: in mkdocs.yml (lessonkit prepare notes each new result there)"
        problems.append(Problem(message, hint=hint, path="mkdocs.yml"))
    if not prepared:  # prepare finds the rest itself (site_problems)
        return problems
    pages, _ = lesson_pages(config.docs_dir, prepared_files(config.docs_dir))
    problems += nav_problems((entry for entry, _ in config.nav), pages)
    if not (config.docs_dir / MANIFEST).is_file():
        message = f"lessonkit prepare has not run: {docs}/{MANIFEST} is missing"
        hint = "run `lessonkit prepare` before the build: it writes the glossary page, the print "
        hint += "page, notebooks and lessonkit's CSS and JS into the docs folder"
        problems.append(Problem(message, hint=hint, path="mkdocs.yml"))
    return problems


def _watched(config: SiteConfig) -> bool:
    docs, manifest = config.docs_dir.resolve(), (config.docs_dir / MANIFEST).resolve()
    watched = (config.root.joinpath(w).resolve() for w in config.watch)
    return any(w in (manifest, docs) or w in docs.parents for w in watched)


@dataclass
class Outcome:
    """What a run did, and every problem it found."""

    pages: int = 0
    ran: int = 0
    converted: int = 0  # the others' conversions came from their records
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)  # information only (unused terms)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]


def prepare_project(project: Project) -> Outcome:
    """Run and convert every page (every problem at once); write the outputs (one run at a time)."""
    text = project.config_file.read_text(encoding="utf-8")
    config = load_config(text, project.config_file.name, resolve=True)  # as MkDocs reads it
    site = Site(SiteConfig.of(config, project.config_file.parent, project.settings))
    try:
        with one_writer(site.config.docs_dir):
            return _prepare(site, *markdown_extensions(config.get("markdown_extensions") or []))
    finally:
        site.close()


def _prepare(site: Site, extensions: list[Any], configs: Mapping[str, Any]) -> Outcome:
    config, outcome = site.config, Outcome()
    outcome.problems += host_problems(config, prepared=False)
    docs, old = config.docs_dir, prepared_files(config.docs_dir)
    glossary = [site.glossary.page] if site.glossary else []
    virtual = {PRINT_PAGE, *config.assets().values(), *glossary}
    nav = (entry for entry, _ in config.nav)
    pages, problems = site_problems(docs, nav, old, virtual, site.where, config.page_url)
    outcome.problems += problems
    site.sources = {page: source for page, source in pages.items() if page != source}
    lessons = []
    for name in sorted(pages, key=page_order):
        try:
            lessons.append(site.read(name))
        except LessonError as error:
            outcome.problems += error.problems
    outcome.pages = len(lessons)
    if engine := site.engine:
        warm_up_if_first_build(config.settings, config.root)
        for lesson in lessons:  # every page starts now: they run in parallel while others convert
            with suppress(LessonError):  # wrong block options: reported by the page's checks
                if lesson.program.steps:
                    engine.submit(lesson.program, lesson.where, lesson.text)
    meta = {lesson.path: lesson.valid_meta for lesson in lessons}
    path = path_lessons(reading_order(config.nav, (lesson.path for lesson in lessons)), meta)
    made = {*config.assets().values(), *glossary, *([PRINT_PAGE] if path else [])}
    made |= {notebook_path(lesson) for lesson in lessons if wants_notebook(lesson)}
    run = _Run(site, extensions, configs, made, outcome)
    run.converted = {x.path: page for x in lessons if (page := run.page(x)) is not None}
    outputs: dict[str, bytes] = {}
    record = None
    if not outcome.errors:
        outputs = run.outputs(lessons)
        if path:  # the learner's path: its print page, and the data every page carries
            outputs[PRINT_PAGE], record = run.print_page(path, outputs)
        outcome.problems += run.clashes(outputs)
    outcome.ran = engine.executed if engine else 0
    if outcome.errors:
        return outcome
    run.records.save()
    run.write(outputs, old)
    html = {path: sha256(page.html.encode()) for path, page in sorted(run.converted.items())}
    if write_manifest(docs, html, record, site.sources):
        outcome.written.append(MANIFEST)
    if engine:  # every page was submitted: the cache keeps what this site uses, and no more
        site.close(prune=True)
    return outcome


GLOSSARY_FRONT_MATTER = """\
---
title: Glossary
description: Short definitions of the words the lessons use, and the pages that use them.
---

"""


class _Run:
    """One run's conversions (an unchanged page's from its record) and the outputs made of them."""

    def __init__(
        self,
        site: Site,
        extensions: list[Any],
        configs: Mapping[str, Any],
        made: set[str],
        outcome: Outcome,
    ) -> None:
        self.site, self.config, self.made, self.outcome = site, site.config, made, outcome
        self.extensions, self.configs = extensions, dict(configs)
        self.converted: dict[str, Converted] = {}
        self.cache = self.config.root / self.config.settings.cache_dir
        self.records = Records(self.cache / RECORDS)
        files = [self.config.root / name for name in CONFIG_FILES]
        files += [self.config.docs_dir / site.glossary.source] if site.glossary else []
        options = json.dumps(self.configs, sort_keys=True, default=_named)
        names = map(extension_name, extensions)
        self.site_key = (environment(names, files), self.config, sorted(made), options)

    def page(self, lesson: Lesson) -> Converted | None:
        """``lesson`` converted (None, its problems in the outcome, when it cannot be)."""
        url, result = self.config.page_url(lesson.path), self._result(lesson)
        key = key_of(self.site_key, lesson.path, url, lesson.text, result)
        if result is not None and (known := self.records.get(key)) is not None:
            if lesson.path not in self.made:  # the checks run every time
                problems = self.site.check(lesson, self.made)
                if errors := [p for p in problems if p.severity == "error"]:
                    self.outcome.problems += errors
                    return None
                self.outcome.problems += problems
            return known
        page = LessonPage(
            self.site, lesson, url, generated=self.made, warn=self.outcome.problems.extend
        )
        try:
            watch = FileWatch(own_folder=self.cache)
            with watch.active():
                md = Markdown(extensions=[*self.extensions, page], extension_configs=self.configs)
                html = md.convert(lesson.body)
                read = watch.reads()
        except LessonError as error:
            self.outcome.problems += error.problems
            return None
        self.outcome.converted += 1
        converted = Converted(page.title(md.toc_tokens), url, html, page.content)
        if result is not None and page.as_written:  # its result is the one keyed
            self.records.put(key, converted, read)
        return converted

    def _result(self, lesson: Lesson) -> str | None:
        """A digest of the page's result (None when it has no usable one: then no record)."""
        engine = self.site.engine
        if engine is None or lesson.path in self.made:
            return ""
        try:
            program, text = lesson.program_of(lesson.body)
        except LessonError:
            return None
        result = engine.result(program, lesson.where, text)  # its steps' outputs and problems
        return sha256(json.dumps(result.steps, sort_keys=True).encode()) if result.ok else None

    def print_page(self, path: list[str], outputs: Mapping[str, bytes]) -> tuple[bytes, dict]:
        """The print page's file from the path's converted pages, and the path's record."""
        site, config, converted = self.site, self.config, self.converted

        def lesson(src: str, page: Converted) -> PathLesson:
            return PathLesson(src, page.title, page.url, config.site_links(page.content, src))

        lessons = [lesson(p, converted[p]) for p in path if p in converted]
        words = None
        if site.glossary and (name := site.glossary.page) in outputs:
            page = self.page(Lesson.from_text(outputs[name].decode(), name, site.where(name)))
            words = lesson(name, page) if page else None
        print_url = config.page_url(PRINT_PAGE)
        html = print_html(lessons, words, config.site_url, print_url)
        return print_page_file(html).encode(), path_record(lessons, print_url)

    def outputs(self, lessons: list[Lesson]) -> dict[str, bytes]:
        """Every output's bytes by its path in docs/ (but the print page's)."""
        site, config, engine = self.site, self.config, self.site.engine
        outputs = {name: bundle(kind) for kind, name in config.assets().items()}
        if glossary := site.glossary:  # "used on" lists link each page as Markdown does
            here = posixpath.dirname(glossary.page) or "."
            shown = [(page.title, path, page.html) for path, page in self.converted.items()]
            link = partial(posixpath.relpath, start=here)
            text, unused = finish_page(glossary.glossary, glossary.page_markdown(), shown, link)
            warned = glossary.unused == "warn"
            (self.outcome.problems if warned else self.outcome.notes).extend(unused)
            outputs[glossary.page] = (GLOSSARY_FRONT_MATTER + text).encode()
        for lesson in lessons:
            if lesson.path in site.sources:  # a notebook lesson: the page Zensical makes of it
                outputs[lesson.path] = lesson.text.encode()
            if not wants_notebook(lesson) or (page := self.converted.get(lesson.path)) is None:
                continue
            name = notebook_path(lesson)
            if os.path.lexists(config.docs_dir / name) and not is_prepared(config.docs_dir, name):
                self.outcome.problems.append(clash(lesson))
                continue
            result = engine.result(lesson.program, lesson.where, lesson.text) if engine else None
            url = config.canonical_url(page.url) if config.site_url else ""
            try:
                outputs[name] = page_notebook_bytes(
                    lesson, result, title=page.title, url=url, root=config.root
                )
            except LessonError as error:
                self.outcome.problems += error.problems
        return outputs

    def clashes(self, outputs: Iterable[str]) -> list[Problem]:
        """An error for each output a file of the site's own holds (a notebook's: with its page)
        or whose path leaves docs/, and for a manifest that is not a file."""
        docs, where, problems = self.config.docs_dir, self.site.where, []
        for name in outputs:
            if not inside(docs, name):
                message = (
                    f"lessonkit prepare makes {name}, but that path leads out of the docs folder"
                )
                hint = "replace the symlink on the way with a folder"
                problems.append(Problem(message, hint=hint, path=where(name)))
            elif name.endswith(".ipynb") or not os.path.lexists(docs / name):
                continue
            elif not is_prepared(docs, name):  # by its mark, whatever name it was found by
                problems.append(taken(name, where(name)))
        manifest = docs / MANIFEST
        if os.path.lexists(manifest) and (manifest.is_symlink() or not manifest.is_file()):
            message = "lessonkit prepare writes its manifest here, but it is not a file"
            hint = "remove it (lessonkit prepare makes it again)"
            problems.append(Problem(message, hint=hint, path=where(MANIFEST)))
        return problems

    def write(self, outputs: Mapping[str, bytes], old: Collection[str]) -> None:
        """Write each changed output, marked; remove prepare's files no longer made, unless an
        output is that file by another name (a symlinked folder, a case-insensitive disk)."""
        docs, outcome = self.config.docs_dir, self.outcome
        for name, data in sorted(outputs.items()):
            path, data = docs / name, mark(name, data)
            with suppress(OSError):
                if path.read_bytes() == data:
                    continue
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, data)
            except OSError as error:
                message = f"lessonkit prepare cannot write {name}: {error.strerror or error}"
                hint = "make room on the disk (or fix the folder's permissions), then run it again"
                raise LessonError(
                    [Problem(message, hint=hint, path=self.site.where(name))]
                ) from None
            outcome.written.append(name)
        made = {_identity(docs / name) for name in outputs}
        for name in sorted(set(old) - set(outputs)):
            path = docs / name
            if is_prepared(docs, name) and _identity(path) not in made:
                with suppress(OSError):
                    path.unlink()
                    outcome.removed.append(name)
            with suppress(OSError):  # an emptied folder goes too (not the docs folder itself)
                for parent in path.relative_to(docs).parents[:-1]:
                    (docs / parent).rmdir()


def _named(value: object) -> str:
    """An extension option that is a Python object (``!!python/name:``), by its name."""
    name = getattr(value, "__qualname__", type(value).__name__)
    return f"{getattr(value, '__module__', '')}.{name}"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def markdown_extensions(listed: list[Any]) -> tuple[list[str], dict[str, Any]]:
    """``markdown_extensions`` as Python-Markdown takes them, with Zensical's ``toc``, ``tables``.

    >>> markdown_extensions(["abbr", {"toc": {"permalink": True}}])
    (['toc', 'tables', 'abbr'], {'toc': {'permalink': True}})
    """
    names, configs = ["toc", "tables"], {}
    for name, options in entries(listed):
        if name not in names:
            names.append(name)
        if options:
            configs[name] = options
    return names, configs
