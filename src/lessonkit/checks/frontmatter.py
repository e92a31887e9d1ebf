"""Check a lesson's front matter: a title, a description, and each feature's keys."""

from __future__ import annotations

from typing import Any

from lessonkit.core.problems import Problem
from lessonkit.core.source import key_line
from lessonkit.notebooks.checks import notebook_problems
from lessonkit.resources.cards import check_resources

FRONT_MATTER_HINT = (
    "begin the file with front matter: a line '---', then 'title: The title' and "
    "'description: One sentence.', then '---'"
)


def front_matter_problems(meta: dict[str, Any], text: str) -> list[Problem]:
    """A missing or empty ``title`` (error), a missing ``description`` (warning), resources."""
    problems = []
    title = meta.get("title")
    if "title" not in meta:
        problems.append(
            Problem(
                "the page has no title in its front matter",
                1,
                FRONT_MATTER_HINT,
            )
        )
    elif not isinstance(title, str) or not title.strip():
        line = key_line(text, "title")
        problems.append(Problem("title must be non-empty text", line, "write title: The title"))
    if "title" in meta and not str(meta.get("description") or "").strip():
        problems.append(
            Problem(
                "the page has no description",
                key_line(text, "title"),
                "add description: one sentence saying what the reader learns (search results "
                "and link previews show it)",
                severity="warning",
            )
        )
    return problems + check_resources(meta, text) + notebook_problems(meta, text)
