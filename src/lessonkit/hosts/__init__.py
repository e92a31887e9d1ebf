"""Host adapters, which only wire: :mod:`.mkdocs` (MkDocs, ProperDocs), :mod:`.zensical`, and
:mod:`.standalone` (any host without plugins)."""

from __future__ import annotations

from collections.abc import Iterable

from markdown import Extension


def extension_name(extension: str | Extension) -> str:
    """How a site names an extension it lists: its dotted name, or its instance's module."""
    return extension if isinstance(extension, str) else type(extension).__module__


def missing_extensions(listed: Iterable[str | Extension]) -> list[str | Extension]:
    """What lessonkit's features render with that the site does not list (a listed one keeps
    the site's settings)."""
    from lessonkit.quiz import QuizExtension

    names = {extension_name(e) for e in listed}
    missing: list[str | Extension] = []
    if "lessonkit.quiz" not in names:
        missing.append(QuizExtension())
    if not names & {"pymdownx.superfences", "fenced_code", "markdown.extensions.fenced_code"}:
        missing.append("pymdownx.superfences")
    if not names & {"attr_list", "markdown.extensions.attr_list"}:
        missing.append("attr_list")
    return missing
