"""What a site's Markdown extensions mean for the checks: its ``///`` blocks, its heading ids.

Both hosts read it the same way from the same list: the build from MkDocs' validated
``markdown_extensions`` (and ``mdx_configs``), ``lessonkit check`` from ``mkdocs.yml``
(:func:`extensions_of`), so a check and a build agree on which blocks exist and whether heading
ids can be known without rendering.

>>> setup = MarkdownSetup.of(["toc", "pymdownx.blocks.admonition", "lessonkit.quiz"], {})
>>> sorted(setup.blocks)[:4], setup.heading_ids
(['admonition', 'attention', 'caution', 'danger'], True)
>>> MarkdownSetup.of(["toc"], {"toc": {"slugify": None}}).heading_ids
False
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from markdown import Extension, Markdown

TOC_NAMES = ("toc", "markdown.extensions.toc")


class MarkdownSetup(NamedTuple):
    """The facts about a site's Markdown that checks need."""

    blocks: frozenset[str] | None = None
    """The names of the ``///`` blocks the site's extensions register (lowercase, as
    pymdown-extensions compares them); None when they could not be found out."""
    heading_ids: bool = True
    """Whether headings get the ids of Python-Markdown's own ``toc`` slugify (the default):
    False when the site configures another ``slugify``, whose ids a check cannot predict."""
    separator: str = "-"
    """The ``toc`` extension's word separator in heading ids."""

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
    """The ``///`` block names that the pymdown-extensions blocks among ``extensions`` register.

    Each extension is built on a scratch Markdown instance, and only those that are block
    extensions are set up on it, with their configs; their registry is then read. Any failure
    (an extension that cannot be imported or built) gives None: the blocks are not known.
    lessonkit's own ``quiz`` is always among them (the plugin adds it when a site lists none).
    A block extension's module imports ``pymdownx.blocks``: when building the site's extensions
    did not, only the quiz is a block, and nothing loads pymdown's blocks (build speed).

    >>> sorted(registered_blocks(["pymdownx.superfences", "lessonkit.quiz"], {}))
    ['quiz']
    >>> sorted(registered_blocks(["pymdownx.blocks.html"], {}))
    ['html', 'quiz']
    >>> registered_blocks(["no.such.extension"], {}) is None
    True
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
            seen.add(type(extension))  # a site may list one twice
            if isinstance(listed, str):
                extension = md.build_extension(listed, dict(configs.get(listed) or {}))
            extension.extendMarkdown(md)
        processor = QuizExtension().blocks(md)
    except Exception:
        return None
    return frozenset(name.lower() for name in processor.blocks)


def extensions_of(config: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The extension names and their configs in a ``mkdocs.yml`` mapping, as MkDocs reads its
    ``markdown_extensions`` (a list of names and one-key mappings, or a mapping), with the
    extensions MkDocs always adds (``toc``, ``tables``, ``fenced_code``).

    >>> extensions_of({"markdown_extensions": ["admonition", {"toc": {"permalink": True}}]})
    (['toc', 'tables', 'fenced_code', 'admonition'], {'toc': {'permalink': True}})
    """
    names, configs = ["toc", "tables", "fenced_code"], {}
    raw = config.get("markdown_extensions") or []
    items = raw.items() if isinstance(raw, dict) else []
    if isinstance(raw, list):
        items = [next(iter(i.items())) if isinstance(i, dict) and i else (i, None) for i in raw]
    for name, options in items:
        if not isinstance(name, str):
            continue
        if name not in names:
            names.append(name)
        if isinstance(options, dict):
            configs[name] = options
    return names, configs
