"""Scaffolding: ``lessonkit new`` (a lesson, listed in the nav) and ``lessonkit init`` (a site)."""

from lessonkit.scaffold.init import init_site
from lessonkit.scaffold.lesson import (
    DEFAULT_SECTION,
    ScaffoldError,
    add_to_nav,
    lesson_text,
    new_lesson,
)

__all__ = [
    "DEFAULT_SECTION",
    "ScaffoldError",
    "add_to_nav",
    "init_site",
    "lesson_text",
    "new_lesson",
]
