"""``lessonkit prepare``: the site-level outputs for a host without plugins, written into docs/.

A host such as Zensical converts pages with lessonkit's extension but runs no plugin, so nothing
of lessonkit's sees the whole site during its build. This step, run before the host's build,
does what the MkDocs plugin does around the pages:

- runs every page through the engine (in parallel; the cache makes this cheap) and converts
  it with the site's Markdown extensions and every lessonkit feature (:class:`LessonPage`), so
  every problem of every page is reported at once, with its file and line; a page whose
  conversion's inputs did not change since the last run is not converted again (its record,
  :mod:`.records`), though its checks run;
- writes into the docs folder, only where the content changed: the glossary page with its
  "used on" lists, the learner's path's print page (:mod:`lessonkit.path`), each
  ``notebook: true`` page's ``.ipynb``, the page ``x.md`` each notebook lesson ``x.ipynb`` is
  (:mod:`lessonkit.notebooks.pages`; Zensical makes pages of ``.md`` files only) with its
  executed notebook, lessonkit's CSS and JS;
- marks each as its own (:mod:`lessonkit.core.prepared`): the next run removes an output that
  is no longer made, the MkDocs plugin and ``lessonkit check`` leave them alone, and a file of
  the site's own is never touched (a clash is an error); nothing is written outside the docs
  folder, one run at a time, each file whole;
- writes a manifest (:mod:`.manifest`, with the path's data every page carries) whose digest
  of every page's HTML changes when a result does. A host that watches the docs folder
  (Zensical with ``watch: [docs]``) then converts its pages again: a lab edit leaves no stale
  number, though no page's own text changed;
- after a whole run without errors, prunes the cache to the entries (and records) it used.
"""

from __future__ import annotations

import importlib
import json
import os
import posixpath
from collections.abc import Collection, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from markdown import Markdown

from lessonkit.assets.bundle import bundle
from lessonkit.checks.files import site_problems
from lessonkit.core.page import Page as Lesson
from lessonkit.core.prepared import MANIFEST, inside, is_prepared, mark, prepared_files, taken
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.project import Project
from lessonkit.execute.site import CONFIG_FILES, warm_up_if_first_build
from lessonkit.glossary.site import finish_page
from lessonkit.hosts.standalone.manifest import atomic_write, one_writer, sha256, write_manifest
from lessonkit.hosts.standalone.page import LessonPage
from lessonkit.hosts.standalone.records import (
    Converted,
    Records,
    environment,
    key_of,
    recording,
    result_digest,
)
from lessonkit.hosts.standalone.site import Site, SiteConfig, page_order
from lessonkit.notebooks.pages import lesson_pages, nav_problems
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

RECORDS = "prepare/pages.records"
"""In the cache folder: each page's conversion, kept for the next run (:mod:`.records`); in a
folder of its own, which the cache's pruning leaves alone."""


def host_problems(config: SiteConfig, *, prepared: bool = True) -> list[Problem]:
    """What a host without plugins needs from ``mkdocs.yml`` (and ``prepared``: from this step)
    and does not have, each as an error saying what to add."""
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
    """What a run did, and every problem it found (none written when one is an error)."""

    pages: int = 0
    ran: int = 0
    converted: int = 0
    """How many pages were converted (the others' conversions were unchanged: their records)."""
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    """Problems shown for information only (unused terms, unless the site says ``warn``)."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]


def prepare_project(project: Project) -> Outcome:
    """:func:`prepare` for the site of ``project`` (its ``mkdocs.yml``)."""
    config = load_config(project.config_file)
    site_config = SiteConfig.of(config, project.config_file.parent, project.settings)
    extensions, configs = markdown_extensions(config.get("markdown_extensions") or [])
    site = Site(site_config)
    try:
        return prepare(site, extensions, configs)
    finally:
        site.close()


def prepare(site: Site, extensions: list[Any], configs: Mapping[str, Any]) -> Outcome:
    """Run and convert every page of ``site``; write the site-level outputs into its docs (one
    run at a time: LessonError while another holds the site)."""
    with one_writer(site.config.docs_dir):
        return _prepare(site, extensions, configs)


def _prepare(site: Site, extensions: list[Any], configs: Mapping[str, Any]) -> Outcome:
    config, outcome = site.config, Outcome()
    outcome.problems += host_problems(config, prepared=False)
    docs, old = config.docs_dir, prepared_files(config.docs_dir)
    virtual = {
        PRINT_PAGE,
        *config.assets().values(),
        *([site.glossary.page] if site.glossary else []),
    }
    nav = (entry for entry, _ in config.nav)
    pages, problems = site_problems(docs, nav, old, virtual, site.where, config.page_url)
    outcome.problems += problems
    site.sources = {page: source for page, source in pages.items() if page != source}
    lessons = _read_all(site, sorted(pages, key=page_order), outcome)
    outcome.pages = len(lessons)
    engine = site.engine
    if engine:
        warm_up_if_first_build(config.settings, config.root)
        for lesson in lessons:  # every page starts now: they run in parallel while others convert
            with suppress(LessonError):  # wrong block options: reported by the page's checks
                if lesson.program.steps:
                    engine.submit(lesson.program, lesson.where, lesson.text)
    meta = {lesson.path: lesson.valid_meta for lesson in lessons}
    path = path_lessons(reading_order(config.nav, (lesson.path for lesson in lessons)), meta)
    made = _output_names(site, lessons, path)
    converter = _Converter(site, extensions, configs, made, outcome)
    converted = {}
    for lesson in lessons:
        if (page := converter.page(lesson)) is not None:
            converted[lesson.path] = page
    outputs: dict[str, bytes] = {}
    record = None
    if not outcome.errors:
        outputs = _outputs(site, lessons, converted, outcome)
        if path:  # the learner's path: its print page, and the data every page carries
            printed, record = _print_page(site, converter, path, converted, outputs)
            outputs[PRINT_PAGE] = printed
        outcome.problems += _clashes(site, outputs)
    outcome.ran = engine.executed if engine else 0
    if outcome.errors:
        return outcome
    converter.records.save()
    _write(site, outputs, old, outcome)
    html = {path: sha256(page.html.encode()) for path, page in sorted(converted.items())}
    if write_manifest(docs, html, record, site.sources):
        outcome.written.append(MANIFEST)
    if engine:  # every page was submitted: the cache keeps what this site uses, and no more
        site.close(prune=True)
    return outcome


class _Converter:
    """Converts pages with the site's extensions and every lessonkit feature, through their
    records (:mod:`.records`): a page whose conversion's inputs did not change is not
    converted again (its checks run all the same)."""

    def __init__(
        self,
        site: Site,
        extensions: list[Any],
        configs: Mapping[str, Any],
        made: set[str],
        outcome: Outcome,
    ) -> None:
        self.site, self.extensions, self.configs = site, extensions, dict(configs)
        self.made, self.outcome = made, outcome
        config = site.config
        self.cache = config.root / config.settings.cache_dir
        self.records = Records(self.cache / RECORDS)
        names = [e for e in extensions if isinstance(e, str)]
        names += [type(e).__module__ for e in extensions if not isinstance(e, str)]
        files = [config.root / name for name in CONFIG_FILES]
        files += [config.docs_dir / site.glossary.source] if site.glossary else []
        self.environment = environment(names, files)
        options = json.dumps(self.configs, sort_keys=True, default=_named)
        self.site_key = (config, sorted(made), options)

    def page(self, lesson: Lesson) -> Converted | None:
        """``lesson`` converted (None, its problems in the outcome, when it cannot be)."""
        site, url = self.site, self.site.config.page_url(lesson.path)
        result = self._result(lesson)
        key = key_of(self.environment, self.site_key, lesson.path, url, lesson.text, result)
        if result is not None and (known := self.records.get(key)) is not None:
            if lesson.path not in self.made:  # the checks run every time
                problems = site.check(lesson, self.made)
                if errors := [p for p in problems if p.severity == "error"]:
                    self.outcome.problems += errors
                    return None
                self.outcome.problems += problems
            return known
        page = LessonPage(site, lesson, url, generated=self.made, warn=self.outcome.problems.extend)
        try:
            with recording(self.cache) as reads:
                md = Markdown(extensions=[*self.extensions, page], extension_configs=self.configs)
                html = md.convert(lesson.body)
                read = reads()
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
        result = engine.result(program, lesson.where, text)
        return result_digest(result) if result.ok else None


def _named(value: object) -> str:
    """An extension option that is a Python object (``!!python/name:``), by its name."""
    name = getattr(value, "__qualname__", type(value).__name__)
    return f"{getattr(value, '__module__', '')}.{name}"


def _print_page(
    site: Site,
    converter: _Converter,
    path: list[str],
    converted: Mapping[str, Converted],
    outputs: Mapping[str, bytes],
) -> tuple[bytes, dict[str, Any]]:
    """The print page's file (:mod:`lessonkit.path`) from the path's converted pages, and the
    path's record for the manifest."""
    config = site.config

    def lesson(src: str, page: Converted) -> PathLesson:
        return PathLesson(src, page.title, page.url, config.site_links(page.content, src))

    lessons = [lesson(p, converted[p]) for p in path if p in converted]
    words = None
    if site.glossary and site.glossary.page in outputs:
        name = site.glossary.page
        text = outputs[name].decode()
        page = converter.page(Lesson.from_text(text, name, site.where(name)))
        words = lesson(name, page) if page else None
    print_url = config.page_url(PRINT_PAGE)
    html = print_html(lessons, words, config.site_url, print_url)
    return print_page_file(html).encode(), path_record(lessons, print_url)


def _read_all(site: Site, paths: list[str], outcome: Outcome) -> list[Lesson]:
    lessons = []
    for path in paths:
        try:
            lessons.append(site.read(path))
        except LessonError as error:
            outcome.problems += error.problems
    return lessons


def _output_names(site: Site, lessons: list[Lesson], path: list[str]) -> set[str]:
    names = set(site.config.assets().values())
    names |= {notebook_path(lesson) for lesson in lessons if wants_notebook(lesson)}
    names |= {PRINT_PAGE} if path else set()
    return names | ({site.glossary.page} if site.glossary else set())


def _outputs(
    site: Site,
    lessons: list[Lesson],
    converted: Mapping[str, Converted],
    outcome: Outcome,
) -> dict[str, bytes]:
    """Every output's bytes by its path in the docs folder (but the print page's)."""
    config = site.config
    outputs = {name: bundle(kind) for kind, name in config.assets().items()}
    if site.glossary:
        outputs[site.glossary.page] = _glossary_page(site, converted, outcome)
    for lesson in lessons:
        if lesson.path in site.sources:  # a notebook lesson: the page Zensical makes of it
            outputs[lesson.path] = lesson.text.encode()
        if not wants_notebook(lesson) or lesson.path not in converted:
            continue
        name = notebook_path(lesson)
        if os.path.lexists(config.docs_dir / name) and not is_prepared(config.docs_dir, name):
            outcome.problems.append(clash(lesson))
            continue
        title, url = converted[lesson.path].title, converted[lesson.path].url
        result = (
            site.engine.result(lesson.program, lesson.where, lesson.text) if site.engine else None
        )
        canonical = config.canonical_url(url) if config.site_url else ""
        try:
            outputs[name] = page_notebook_bytes(
                lesson, result, title=title, url=canonical, root=config.root
            )
        except LessonError as error:
            outcome.problems += error.problems
    return outputs


def _clashes(site: Site, outputs: Iterable[str]) -> list[Problem]:
    """An error for each output whose name a file of the site's own already has (a notebook's
    clash is its page's error, reported with the page), or whose path leaves the docs folder
    (through a symlink); and for a manifest that is not a file."""
    docs, problems = site.config.docs_dir, []
    for name in outputs:
        if not inside(docs, name):
            message = f"lessonkit prepare makes {name}, but that path leads out of the docs folder"
            hint = "replace the symlink on the way with a folder"
            problems.append(Problem(message, hint=hint, path=site.where(name)))
        elif name.endswith(".ipynb") or not os.path.lexists(docs / name):
            continue
        elif not is_prepared(docs, name):  # by its mark, whatever name it was found by
            problems.append(taken(name, site.where(name)))
    manifest = docs / MANIFEST
    if os.path.lexists(manifest) and (manifest.is_symlink() or not manifest.is_file()):
        message = "lessonkit prepare writes its manifest here, but it is not a file"
        hint = "remove it (lessonkit prepare makes it again)"
        problems.append(Problem(message, hint=hint, path=site.where(MANIFEST)))
    return problems


FRONT_MATTER = """\
---
title: Glossary
description: Short definitions of the words the lessons use, and the pages that use them.
---

"""


def _glossary_page(site: Site, converted: Mapping[str, Converted], outcome: Outcome) -> bytes:
    """The glossary page's Markdown, its "used on" lists filled in from the converted pages,
    linking to each page as a Markdown link would (the host makes them URLs)."""
    glossary = site.glossary
    assert glossary is not None
    here = posixpath.dirname(glossary.page) or "."
    shown = [(page.title, path, page.html) for path, page in converted.items()]
    text, unused = finish_page(
        glossary.glossary, glossary.page_markdown(), shown, lambda p: posixpath.relpath(p, here)
    )
    (outcome.problems if glossary.unused == "warn" else outcome.notes).extend(unused)
    return (FRONT_MATTER + text).encode()


def _write(
    site: Site, outputs: Mapping[str, bytes], old: Collection[str], outcome: Outcome
) -> None:
    """Write each output (marked as prepare's) where it changed; remove each of prepare's files
    no longer made, but never one an output now is (found by another name: through a symlinked
    folder, or in another case on a case-insensitive disk). LessonError naming the file when one
    cannot be written (a full disk): each file is whole, and the next run finishes the work."""
    docs = site.config.docs_dir
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
            raise LessonError([Problem(message, hint=hint, path=site.where(name))]) from None
        outcome.written.append(name)
    made = {_identity(docs / name) for name in outputs}
    for name in sorted(set(old) - set(outputs)):
        path = docs / name
        # as written (a file of the site's own in its place stays), and no output's other name
        if is_prepared(docs, name) and _identity(path) not in made:
            with suppress(OSError):
                path.unlink()
                outcome.removed.append(name)
        with suppress(OSError):  # an emptied folder goes too (not the docs folder itself)
            for parent in path.relative_to(docs).parents[:-1]:
                (docs / parent).rmdir()


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` is (None if there is none)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


# --- the site's Markdown extensions, as its hosts read mkdocs.yml ---------------------------


class _Loader(yaml.SafeLoader):
    """``mkdocs.yml`` as MkDocs and Zensical read it: ``!ENV`` and ``!!python/name:`` resolved
    (an extension's option may name a function), other tags read as None."""


def _env(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """MkDocs' ``!ENV NAME`` or ``!ENV [NAME, OTHER, default]``."""
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    else:
        *names, default = loader.construct_sequence(node)  # type: ignore[arg-type]
    return next((os.environ[n] for n in names if n in os.environ), default)


def _python_name(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    module, _, attribute = suffix.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError, ValueError) as error:
        raise yaml.MarkedYAMLError(
            problem=f"cannot import {suffix}: {error}", problem_mark=node.start_mark
        ) from None


_Loader.add_constructor("!ENV", _env)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", _python_name)
_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def load_config(config_file: Path) -> dict[str, Any]:
    """The site's ``mkdocs.yml`` as a mapping (LessonError at the line it cannot be read)."""
    try:
        data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_Loader)  # a SafeLoader
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else None
        hint = "fix that line (MkDocs cannot read it either)"
        problem = Problem(str(error.problem), hint=hint, path=config_file.name, line=line)
        raise LessonError([problem]) from None
    return data if isinstance(data, dict) else {}


def markdown_extensions(listed: list[Any]) -> tuple[list[str], dict[str, Any]]:
    """``markdown_extensions`` (a list of names or ``{name: options}``, or a mapping) as
    Python-Markdown takes them, with the two Zensical always adds (``toc``, ``tables``).

    >>> markdown_extensions(["abbr", {"toc": {"permalink": True}}])
    (['toc', 'tables', 'abbr'], {'toc': {'permalink': True}})
    """
    items = list(listed.items()) if isinstance(listed, dict) else listed
    names, configs = ["toc", "tables"], {}
    for item in items:
        if isinstance(item, tuple):
            name, options = item
        elif isinstance(item, dict):
            name, options = next(iter(item.items()))
        else:
            name, options = item, None
        if name not in names:
            names.append(name)
        if options:
            configs[name] = options
    return names, configs
