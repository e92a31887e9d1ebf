"""The "Go deeper" feature: a lesson's ``resources:`` front matter becomes cards at its end."""

from __future__ import annotations

from lessonkit.core.page import Page
from lessonkit.resources.cards import check_resources, resources_html

__all__ = ["check_resources", "resources_html", "section"]


def section(page: Page) -> str:
    """The "Go deeper" heading and cards to append to the page's Markdown ('' without any).

    >>> section(Page.from_text("---\\nresources: []\\n---\\n# T\\n", "t.md"))
    ''
    """
    resources = page.meta.get("resources")
    if not resources:
        return ""
    return f"\n\n## Go deeper {{ #resources }}\n\n{resources_html(resources)}\n"
