"""Compile the theme's templates while the build waits for pages' code to finish.

MkDocs compiles each Jinja template the first time it renders one, after ``on_env``: Material
for MkDocs' ``base.html`` and its partials took 0.11 s of a 20-page build, after every page had
run. A first build waits in ``on_env`` for its pages' code, and while the workers' zygote
imports numpy and matplotlib the build's own process has nothing else to do. :class:`Ahead`
compiles, one at a time and only while no page's run has finished, the templates MkDocs will
render (``main.html``, the pages' own, the theme's static ones) and those they name as plain
strings (``{% include "partials/nav.html" %}``); Jinja keeps them in the environment's cache,
and MkDocs renders with them instead of compiling them.

A template is compiled the same way sooner or later, as long as the environment is the same:
:meth:`Ahead.settle` (the last ``on_env``, after every plugin's) forgets what was compiled ahead
if a plugin changed its settings, filters or tests, or what a name finds, so the site's bytes
never depend on timing.

>>> from jinja2 import DictLoader, Environment
>>> env = Environment(loader=DictLoader({
...     "main.html": '{% extends "base.html" %}',
...     "base.html": '{% include "nav.html" %}{% include "icons/" ~ name ~ ".svg" %}',
...     "nav.html": "nav", "404.html": "gone", "unused.html": "x",
... }))
>>> ahead = Ahead(env, ["main.html", "404.html"])
>>> while ahead.step():
...     pass
>>> ahead.compiled
['main.html', 'base.html', 'nav.html', '404.html']
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from contextlib import suppress

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files

_NAMED = re.compile(
    r"""\{%-?\s*(?:extends|include|import|from)\s+(["'])([^"'{}]+)\1(?!\s*~)""",
)
"""A template named by a plain string (a name built with ``~`` is known only when rendering)."""

_SETTINGS = (
    "block_start_string",
    "block_end_string",
    "variable_start_string",
    "variable_end_string",
    "comment_start_string",
    "comment_end_string",
    "line_statement_prefix",
    "line_comment_prefix",
    "trim_blocks",
    "lstrip_blocks",
    "newline_sequence",
    "keep_trailing_newline",
    "autoescape",
    "optimized",
    "finalize",
    "undefined",
    "is_async",
    "newstyle_gettext",
    "loader",
    "globals",
)
"""What a compiled template depends on besides its source, each compared by identity
(``globals``: a template keeps the dictionary it was loaded with, and sees what is added to it
later)."""


def _settings(env: Environment) -> tuple[dict[str, object], ...]:
    """The environment's settings, and its filters, tests and extensions (which arguments a
    filter takes, and a filter of constants, are decided when a template compiles)."""
    settings = {name: getattr(env, name, None) for name in _SETTINGS}
    return settings, dict(env.filters), dict(env.tests), dict(env.extensions)


def _same(old: tuple[dict[str, object], ...], new: tuple[dict[str, object], ...]) -> bool:
    """Whether each name still stands for the very same object."""
    return all(
        a.keys() == b.keys() and all(a[name] is b[name] for name in a)
        for a, b in zip(old, new, strict=True)
    )


class Ahead:
    """The templates a build will render, compiled one per :meth:`step`."""

    def __init__(self, env: Environment, names: Iterable[str]) -> None:
        self.env = env
        self.compiled: list[str] = []
        self._todo = list(names)[::-1]
        self._seen: set[str] = set()
        self._settings = _settings(env)
        self._policies = dict(env.policies)
        self._sources: dict[str, tuple[str, str | None]] = {}
        self._added: list[object] = []  # the cache's keys for what was compiled here

    def step(self) -> bool:
        """Compile the next template; False once there is none left."""
        while self._todo:
            name = self._todo.pop()
            if name in self._seen:
                continue
            self._seen.add(name)
            key = (weakref.ref(self.env.loader), name)
            cached = key in self.env.cache  # type: ignore[operator]
            found = self._source(name)  # None: a name read in a comment, a file not UTF-8...
            if found is None:
                continue
            try:  # one that cannot compile now compiles (or fails) where MkDocs renders it
                self.env.get_template(name)
            except Exception:
                continue
            self.compiled.append(name)
            self._sources[name] = found
            if not cached:
                self._added.append(key)
            named = _NAMED.finditer(found[0])
            self._todo.extend(match[2] for match in reversed(list(named)))
            return True
        return False

    def settle(self, env: Environment) -> None:
        """Forget what was compiled here if a plugin changed the environment since (``env``:
        the one MkDocs renders with, after every plugin's ``on_env``): its settings, filters or
        tests, or what a template's name finds (a folder put first in the loader's path)."""
        if not self._added or env is not self.env or env.cache is None:
            return
        if (
            not _same(self._settings, _settings(env))
            or env.policies != self._policies
            or any(self._source(name) != found for name, found in self._sources.items())
        ):
            for key in self._added:
                with suppress(KeyError):
                    del env.cache[key]
        self._added = []

    def _source(self, name: str) -> tuple[str, str | None] | None:
        try:
            source, file, _ = self.env.loader.get_source(self.env, name)  # type: ignore[union-attr]
        except Exception:  # (gone, or unreadable: not what was compiled)
            return None
        return source, file


def rendered(config: MkDocsConfig, files: Files) -> list[str]:
    """The theme's templates a build renders: the pages' (``main.html`` unless a page's
    ``template`` says otherwise) and the static ones (MkDocs renders a site's extra templates
    from their own text, not from the theme)."""
    pages = [file.page for file in files.documentation_pages()]
    named = [page.meta.get("template") for page in pages if page is not None and page.meta]
    return list(
        dict.fromkeys(
            [
                "main.html",
                *(name for name in named if isinstance(name, str)),
                *config.theme.static_templates,
            ]
        )
    )
