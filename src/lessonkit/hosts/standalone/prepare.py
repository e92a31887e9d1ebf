"""``lessonkit prepare``: the site-level outputs for a host without plugins, written into docs/.

A host such as Zensical converts pages with lessonkit's extension but runs no plugin, so nothing
of lessonkit's sees the whole site during its build. This step, run before the host's build,
does what the MkDocs plugin does around the pages:

- runs every page through the engine (in parallel; the cache makes this cheap) and converts
  it with the site's Markdown extensions and every lessonkit feature (:class:`LessonPage`), so
  every problem of every page is reported at once, with its file and line;
- writes into the docs folder, only where the content changed: the glossary page with its
  "used on" lists, each ``notebook: true`` page's ``.ipynb``, lessonkit's CSS and JS;
- records them in a manifest (``docs/.lessonkit-prepared.json``): the next run removes an
  output that is no longer made, the MkDocs plugin leaves them alone (it makes its own), and the
  manifest's digest of every page's HTML changes when a result does. A host that watches the
  docs folder (Zensical with ``watch: [docs]``) then converts its pages again: a lab edit
  leaves no stale number, though no page's own text changed.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import posixpath
import time
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from markdown import Markdown

from lessonkit import __version__
from lessonkit.assets.bundle import bundle
from lessonkit.core.page import Page as Lesson
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.project import Project
from lessonkit.glossary.site import finish_page
from lessonkit.hosts.standalone.page import LessonPage
from lessonkit.hosts.standalone.site import Site, SiteConfig, page_order
from lessonkit.notebooks.lesson import lesson_files
from lessonkit.notebooks.site import clash, notebook_path, page_notebook_bytes, wants_notebook

MANIFEST = ".lessonkit-prepared.json"
"""In the docs folder: what ``lessonkit prepare`` wrote there (git-ignore it with them)."""


def prepared_files(docs_dir: Path) -> dict[str, str]:
    """The files the last ``lessonkit prepare`` wrote into ``docs_dir``: path -> sha256."""
    try:
        files = json.loads((docs_dir / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


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
    problems += notebook_lessons(config)
    if prepared and not (config.docs_dir / MANIFEST).is_file():
        message = f"lessonkit prepare has not run: {docs}/{MANIFEST} is missing"
        hint = "run `lessonkit prepare` before the build: it writes the glossary page, notebooks "
        hint += "and lessonkit's CSS and JS into the docs folder"
        problems.append(Problem(message, hint=hint, path="mkdocs.yml"))
    return problems


def notebook_lessons(config: SiteConfig) -> list[Problem]:
    """An error for each notebook lesson in the docs (not a download this step wrote): Zensical
    0.0.57 makes pages of Markdown files only (a nav entry ``x.ipynb`` links to the file, copied
    as it is), so the lesson would be no page at all."""
    docs, made = config.docs_dir, set(prepared_files(config.docs_dir))
    found = (p.relative_to(docs).as_posix() for p in lesson_files(docs) if p.suffix != ".md")
    message = "a notebook lesson is no page under Zensical: it makes pages of .md files only"
    hint = "build the site with MkDocs or ProperDocs, or write the lesson in Markdown"
    where = [os.path.relpath(docs / p, config.root) for p in found if p not in made]
    return [Problem(message, hint=hint, path=path) for path in where]


def _watched(config: SiteConfig) -> bool:
    docs, manifest = config.docs_dir.resolve(), (config.docs_dir / MANIFEST).resolve()
    watched = (config.root.joinpath(w).resolve() for w in config.watch)
    return any(w in (manifest, docs) or w in docs.parents for w in watched)


@dataclass
class Outcome:
    """What a run did, and every problem it found (none written when one is an error)."""

    pages: int = 0
    ran: int = 0
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
    """Run and convert every page of ``site``; write the site-level outputs into its docs."""
    config, outcome = site.config, Outcome()
    outcome.problems += host_problems(config, prepared=False)
    docs, old = config.docs_dir, prepared_files(config.docs_dir)
    lessons = _read_all(site, _page_paths(docs, old), outcome)
    outcome.pages = len(lessons)
    engine = site.engine
    if engine:
        engine.warm_up_if_cold()
        for lesson in lessons:  # every page starts now: they run in parallel while others convert
            with suppress(LessonError):  # wrong block options: reported by the page's checks
                if lesson.program.steps:
                    engine.submit(lesson.program, lesson.where, lesson.text)
    made = _output_names(site, lessons)
    converted = {}
    for lesson in lessons:
        url = config.page_url(lesson.path)
        page = LessonPage(site, lesson, url, generated=made, warn=outcome.problems.extend)
        md = Markdown(extensions=[*extensions, page], extension_configs=dict(configs))
        try:
            html = md.convert(lesson.body)
        except LessonError as error:
            outcome.problems += error.problems
            continue
        converted[lesson.path] = (page.title(md.toc_tokens), url, html)
    outputs = _outputs(site, lessons, converted, old, outcome) if not outcome.errors else {}
    outcome.ran = engine.executed if engine else 0
    if outcome.errors:
        return outcome
    _write(docs, outputs, old, outcome)
    pages = {path: _sha256(html.encode()) for path, (_, _, html) in sorted(converted.items())}
    if _write_manifest(docs, outputs, pages):
        outcome.written.append(MANIFEST)
    if engine:  # every page was submitted: the cache keeps what this site uses, and no more
        site.close(prune=True)
    return outcome


def _page_paths(docs: Path, generated: Iterable[str]) -> list[str]:
    """Every Markdown page in the docs folder (not hidden, not one this step wrote), in the
    order MkDocs lists them (the glossary's "used on" lists follow it)."""
    skip = set(generated)
    paths = (p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))
    shown = (p for p in paths if p not in skip and not any(s.startswith(".") for s in p.split("/")))
    return sorted(shown, key=page_order)


def _read_all(site: Site, paths: list[str], outcome: Outcome) -> list[Lesson]:
    lessons = []
    for path in paths:
        try:
            lessons.append(site.read(path))
        except LessonError as error:
            outcome.problems += error.problems
    return lessons


def _output_names(site: Site, lessons: list[Lesson]) -> set[str]:
    names = set(site.config.assets().values())
    names |= {notebook_path(lesson) for lesson in lessons if wants_notebook(lesson)}
    return names | ({site.glossary.page} if site.glossary else set())


def _outputs(
    site: Site,
    lessons: list[Lesson],
    converted: dict[str, tuple[str, str, str]],
    old: Mapping[str, str],
    outcome: Outcome,
) -> dict[str, bytes]:
    """Every output's bytes by its path in the docs folder; a clash with a file of the site's own
    is an error."""
    config = site.config
    outputs = {name: bundle(kind) for kind, name in config.assets().items()}
    if site.glossary:
        outputs[site.glossary.page] = _glossary_page(site, converted, outcome)
    for lesson in lessons:
        if not wants_notebook(lesson) or lesson.path not in converted:
            continue
        name = notebook_path(lesson)
        if (config.docs_dir / name).exists() and name not in old:
            outcome.problems.append(clash(lesson))
            continue
        title, url, _ = converted[lesson.path]
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
    for name in outputs:
        if (config.docs_dir / name).exists() and name not in old and not name.endswith(".ipynb"):
            message = f"lessonkit prepare makes {name}, but the docs folder has a file of that name"
            hint = "rename or remove it (lessonkit's own file takes its place)"
            outcome.problems.append(Problem(message, hint=hint, path=site.where(name)))
    return outputs


FRONT_MATTER = """\
---
title: Glossary
description: Short definitions of the words the lessons use, and the pages that use them.
---

"""


def _glossary_page(
    site: Site, converted: dict[str, tuple[str, str, str]], outcome: Outcome
) -> bytes:
    """The glossary page's Markdown, its "used on" lists filled in from the converted pages,
    linking to each page as a Markdown link would (the host makes them URLs)."""
    glossary = site.glossary
    assert glossary is not None
    here = posixpath.dirname(glossary.page) or "."
    shown = [(title, path, html) for path, (title, _, html) in converted.items()]
    text, unused = finish_page(
        glossary.glossary, glossary.page_markdown(), shown, lambda p: posixpath.relpath(p, here)
    )
    (outcome.problems if glossary.unused == "warn" else outcome.notes).extend(unused)
    return (FRONT_MATTER + text).encode()


def _write(
    docs: Path, outputs: Mapping[str, bytes], old: Mapping[str, str], outcome: Outcome
) -> None:
    for name, data in sorted(outputs.items()):
        path = docs / name
        with suppress(OSError):
            if path.read_bytes() == data:
                continue
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
        outcome.written.append(name)
    for name in sorted(set(old) - set(outputs)):
        path = docs / name
        if path.is_file():
            path.unlink()
            outcome.removed.append(name)
        with suppress(OSError):  # an emptied folder goes too (not the docs folder itself)
            for parent in path.relative_to(docs).parents[:-1]:
                (docs / parent).rmdir()


def _write_manifest(docs: Path, outputs: Mapping[str, bytes], pages: Mapping[str, str]) -> bool:
    """Write the manifest when it changes (then True), its mtime at least a second past the last
    one's: a host that notes files by whole seconds (Zensical) sees each change."""
    manifest = {
        "about": "Written by `lessonkit prepare`: the files it made in this folder (git-ignore "
        "them and this file). `pages` changes when a page's HTML does.",
        "lessonkit": __version__,
        "files": {name: _sha256(data) for name, data in sorted(outputs.items())},
        "pages": _sha256(json.dumps(pages, sort_keys=True).encode()),
    }
    data = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    path = docs / MANIFEST
    try:
        if path.read_bytes() == data:
            return False
        before = path.stat().st_mtime
    except OSError:
        before = 0.0
    _atomic_write(path, data)
    now = max(time.time(), int(before) + 1.0)
    os.utime(path, (now, now))
    return True


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    return getattr(importlib.import_module(module), attribute)


_Loader.add_constructor("!ENV", _env)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", _python_name)
_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def load_config(config_file: Path) -> dict[str, Any]:
    """The site's ``mkdocs.yml`` as a mapping."""
    data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_Loader)  # a SafeLoader
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
