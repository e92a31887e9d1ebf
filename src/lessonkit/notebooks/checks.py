"""Check a page's ``notebook:`` front matter key."""

from __future__ import annotations

from typing import Any

from lessonkit.core.problems import Problem
from lessonkit.core.source import key_line


def notebook_problems(meta: dict[str, Any], text: str) -> list[Problem]:
    """``notebook`` must be true or false (a string such as "yes" would silently mean no).

    >>> [p.message for p in notebook_problems({"notebook": "yes"}, "notebook: 'yes'")]
    ["notebook must be true or false, not 'yes'"]
    """
    value = meta.get("notebook", False)
    if isinstance(value, bool):
        return []
    hint = "write notebook: true to offer the page as a Jupyter notebook (.ipynb) beside it"
    return [
        Problem(f"notebook must be true or false, not {value!r}", key_line(text, "notebook"), hint)
    ]
