"""What a MkDocs build's page checks know of the site (:class:`lessonkit.checks.recipe.Context`)."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files

from lessonkit.checks.markdown_setup import MarkdownSetup
from lessonkit.checks.recipe import Context
from lessonkit.core.settings import Settings
from lessonkit.execute.engine import Engine
from lessonkit.glossary.site import SiteGlossary
from lessonkit.path import PRINT_PAGE


def site_context(
    files: Files,
    config: MkDocsConfig,
    settings: Settings,
    glossary: SiteGlossary | None,
    *,
    printed: bool,
    engine: Engine | None,
) -> Context:
    """The site as a page's checks know it: its pages (generated ones too), terms, options
    and extensions; with ``engine``, code that ran is not compiled again."""
    docs = Path(config.docs_dir)
    context = Context(
        docs,
        glossary.glossary if glossary else None,
        known_pages=[docs / f.src_uri for f in files.documentation_pages()],
        virtual_pages=frozenset([PRINT_PAGE] if printed else []),
        settings=settings,
        markdown=MarkdownSetup.of(config.markdown_extensions, config.mdx_configs),
    )
    if engine:
        context.ran = engine.ran
    return context
