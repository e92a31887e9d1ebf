"""Compile the theme's templates while the build waits for pages' code to finish.

MkDocs compiles each Jinja template the first time it renders one, after ``on_env``: Material
for MkDocs' ``base.html`` and its partials took 0.11 s of a 20-page build, after every page had
run. A first build waits in ``on_env`` for its pages' code, and while the workers' zygote
imports numpy and matplotlib the build's own process has nothing else to do. :class:`Ahead`
compiles, one at a time and only while no page's run has finished, the templates MkDocs will
render (``main.html``, the pages' own, the theme's static ones) and those they name as plain
strings (``{% include "partials/nav.html" %}``); Jinja keeps them in the environment's cache,
and MkDocs renders with them instead of compiling them.

A template is compiled the same way sooner or later, as long as the environment's settings are
the same: :meth:`Ahead.settle` (the last ``on_env``, after every plugin's) forgets what was
compiled ahead if a plugin changed them, so the site's bytes never depend on timing.

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
from collections.abc import Iterable

from jinja2 import Environment, TemplateError
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
)
"""What a compiled template depends on besides its source (with the extensions, filters and
tests it was checked against)."""


def _settings(env: Environment) -> tuple[object, ...]:
    return (
        *(getattr(env, name) for name in _SETTINGS),
        tuple(env.extensions),
        frozenset(env.filters),
        frozenset(env.tests),
        env.loader,
    )


class Ahead:
    """The templates a build will render, compiled one per :meth:`step`."""

    def __init__(self, env: Environment, names: Iterable[str]) -> None:
        self.env = env
        self.compiled: list[str] = []
        self._todo = list(names)[::-1]
        self._seen: set[str] = set()
        self._settings = _settings(env)

    def step(self) -> bool:
        """Compile the next template; False once there is none left."""
        while self._todo:
            name = self._todo.pop()
            if name in self._seen:
                continue
            self._seen.add(name)
            try:  # a template that cannot compile now compiles (or fails) where MkDocs renders
                source, _, _ = self.env.loader.get_source(self.env, name)  # type: ignore[union-attr]
                self.env.get_template(name)
            except TemplateError:
                continue
            self.compiled.append(name)
            self._todo.extend(match[2] for match in reversed(list(_NAMED.finditer(source))))
            return True
        return False

    def settle(self, env: Environment) -> None:
        """Forget what was compiled ahead if a plugin changed the environment's settings since
        (``env``: the environment MkDocs renders with, after every plugin's ``on_env``)."""
        if self.compiled and env is self.env and _settings(env) != self._settings:
            env.cache.clear()  # type: ignore[union-attr]  (Ahead is made only with a cache)


def rendered(config: MkDocsConfig, files: Files) -> list[str]:
    """The templates a build renders: the pages' (``main.html`` unless a page's ``template``
    says otherwise), the theme's static ones and the site's extra ones."""
    pages = [file.page for file in files.documentation_pages()]
    named = [page.meta.get("template") for page in pages if page is not None and page.meta]
    return list(
        dict.fromkeys(
            [
                "main.html",
                *(name for name in named if isinstance(name, str)),
                *config.theme.static_templates,
                *config.extra_templates,
            ]
        )
    )
