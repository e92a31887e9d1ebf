"""Read a lesson source as MkDocs and Python-Markdown do.

Front matter apart, and how many lines it took:

>>> body, meta, offset = split_front_matter("---\\ntitle: T\\n---\\n\\n# T\\n")
>>> body, meta, offset
('# T\\n', {'title': 'T'}, 4)

and the body as Python-Markdown's preprocessors receive it (tabs expanded, blank lines emptied):

>>> normalized("a\\tb\\n   \\nc")
'a   b\\n\\nc\\n\\n'
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import yaml
from markdown.preprocessors import NormalizeWhitespace

from lessonkit.build.problems import LessonError, Problem

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (about 10x faster), else pure Python."""
_NORMALIZE = NormalizeWhitespace(SimpleNamespace(tab_length=4))  # type: ignore[arg-type]
"""Python-Markdown's own first preprocessor, with its default tab length (MkDocs keeps it)."""
_FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)


def split_front_matter(text: str) -> tuple[str, dict[str, Any], int]:
    """Return the body, the front matter and how many lines precede the body in ``text``."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return text, {}, 0
    try:
        meta = yaml.load(match[1], Loader=_SAFE_LOADER) or {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark else 1
        raise LessonError(
            [Problem(f"invalid YAML front matter: {error}", line, "fix the YAML between ---")]
        ) from None
    if not isinstance(meta, dict):
        raise LessonError([Problem("front matter must be a mapping of keys to values", 2)])
    body = text[match.end() :].lstrip("\n")
    return body, meta, text[: len(text) - len(body)].count("\n")


def normalized(body: str) -> str:
    """``body`` as Python-Markdown hands it to the preprocessors after its own (priority 30)."""
    return "\n".join(_NORMALIZE.run(body.split("\n")))
