"""Check a lesson's front matter: a title, a description, and each feature's keys."""

from __future__ import annotations

import re
from typing import Any

from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem
from lessonkit.core.source import key_line
from lessonkit.notebooks.checks import notebook_problems
from lessonkit.resources.cards import check_resources

_H1 = re.compile(r"^ {0,3}#[ \t]+\S|^ {0,3}[^\s#].*\n {0,3}=+[ \t]*$", re.MULTILINE)
"""An ATX (``# Title``) or setext (``Title`` over ``===``) level-1 heading."""
FRONT_MATTER_HINT = (
    "begin the file with front matter: a line '---', then 'title: The title' and "
    "'description: One sentence.', then '---'"
)


def front_matter_problems(meta: dict[str, Any], text: str, body: str = "") -> list[Problem]:
    """A missing or empty ``title`` (error), a missing ``description`` (warning), resources.

    A page without a ``title`` key takes its title from its first h1 (as MkDocs does); only a
    page with neither has no title.

    >>> [p.message for p in front_matter_problems({}, "Text.", "Text.")]
    ['the page has no title in its front matter']
    >>> front_matter_problems({}, "# Title", "# Title")
    []
    >>> len(front_matter_problems({}, "", "```python\\n# a comment\\n```\\n"))
    1
    """
    problems = []
    title = meta.get("title")
    if "title" not in meta and not _H1.search(mask_code(body)):
        problems.append(
            Problem(
                "the page has no title in its front matter",
                1,
                FRONT_MATTER_HINT,
            )
        )
    elif "title" in meta and (not isinstance(title, str) or not title.strip()):
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
