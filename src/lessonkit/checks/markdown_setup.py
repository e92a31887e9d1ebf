"""What a site's Markdown extensions mean for the checks: its ``///`` blocks, its heading ids
(the build and ``lessonkit check`` read them from the same list, so they agree).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from markdown import Extension, Markdown

from lessonkit.core.project import entries

TOC_NAMES = ("toc", "markdown.extensions.toc")


class MarkdownSetup(NamedTuple):
    """The site's ``///`` block names (lowercase; None when unknown), whether headings get
    ``toc``'s default slugify ids, and ``toc``'s word separator."""

    blocks: frozenset[str] | None = None
    heading_ids: bool = True
    separator: str = "-"

    @classmethod
    def of(cls, extensions: Iterable[str | Extension], configs: Mapping[str, Any]) -> MarkdownSetup:
        """Read a site's extensions (names or instances) and their configs by name."""
        extensions = list(extensions)
        toc = next((configs.get(n) for n in TOC_NAMES if isinstance(configs.get(n), dict)), {})
        separator = toc.get("separator", "-")
        return cls(
            blocks=registered_blocks(extensions, configs),
            heading_ids="slugify" not in toc,
            separator=separator if isinstance(separator, str) else "-",
        )


def registered_blocks(
    extensions: Iterable[str | Extension], configs: Mapping[str, Any]
) -> frozenset[str] | None:
    """The ``///`` block names the pymdown blocks among ``extensions`` register, ``quiz``
    always; None when an extension cannot be built.
    """
    md, extensions = Markdown(), list(extensions)
    try:
        built = [md.build_extension(e, {}) if isinstance(e, str) else e for e in extensions]
    except Exception:
        return None
    blocks = sys.modules.get("pymdownx.blocks")
    if blocks is None:
        return frozenset({"quiz"})
    from lessonkit.quiz import QuizExtension

    seen: set[type] = set()
    try:
        for listed, extension in zip(extensions, built, strict=True):
            if not isinstance(extension, blocks.BlocksExtension) or type(extension) in seen:
                continue
            seen.add(type(extension))
            if isinstance(listed, str):
                extension = md.build_extension(listed, dict(configs.get(listed) or {}))
            extension.extendMarkdown(md)
        processor = QuizExtension().blocks(md)
    except Exception:
        return None
    return frozenset(name.lower() for name in processor.blocks)


def extensions_of(
    config: Mapping[str, Any], defaults: tuple[str, ...] = ("toc", "tables", "fenced_code")
) -> tuple[list[str], dict[str, Any]]:
    """The extension names and configs of a ``mkdocs.yml`` mapping, after the host's
    ``defaults`` (MkDocs'; Zensical's are ``toc`` and ``tables``).

    >>> extensions_of({"markdown_extensions": ["admonition", {"toc": {"permalink": True}}]})
    (['toc', 'tables', 'fenced_code', 'admonition'], {'toc': {'permalink': True}})
    """
    names, configs = list(defaults), {}
    for name, options in entries(config.get("markdown_extensions")):
        if not isinstance(name, str):
            continue
        if name not in names:
            names.append(name)
        if isinstance(options, dict):
            configs[name] = options
    return names, configs
