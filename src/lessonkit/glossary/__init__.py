"""The glossary feature: terms from YAML, tooltips in prose, checks, and the glossary page.

- :mod:`.terms`: load and validate ``glossary.yml``; find terms (with inflections) in text;
- :mod:`.extension`: the Python-Markdown extension (``lessonkit.glossary`` in ``mkdocs.yml``)
  that links first uses with tooltips and adds the "Words on this page" box;
- :mod:`.checks`: problems with ``[[term]]`` marks in raw Markdown, with line numbers;
- :mod:`.page`: the glossary page's Markdown and its "used on" lists.
"""

from lessonkit.glossary.checks import check
from lessonkit.glossary.extension import GlossaryExtension, makeExtension
from lessonkit.glossary.page import fill_used_on, page_markdown, pages_by_term, used_term_ids
from lessonkit.glossary.terms import Glossary, Term, load, unused

__all__ = [
    "Glossary",
    "GlossaryExtension",
    "Term",
    "check",
    "fill_used_on",
    "load",
    "makeExtension",
    "page_markdown",
    "pages_by_term",
    "unused",
    "used_term_ids",
]
