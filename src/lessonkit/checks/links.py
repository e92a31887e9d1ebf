"""Check that relative links to other ``.md`` pages point at pages that exist."""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem

if TYPE_CHECKING:
    from lessonkit.checks.recipe import Context

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(?P<target><[^>\n]*>|[^\s()<>]+)"
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(?P<target><[^>\n]*>|\S+)")


def link_problems(body: str, offset: int, file: Path, context: Context) -> list[Problem]:
    """An error for each relative link to a ``.md`` page that does not exist."""
    problems = []
    for number, line in enumerate(mask_code(body).split("\n"), offset + 1):
        targets = [m["target"] for m in _INLINE_LINK.finditer(line)]
        targets += [m["target"] for m in _REFERENCE.finditer(line)]
        for target in targets:
            if not _page_exists(target.strip("<>"), file, context):
                problems.append(_missing_page(target.strip("<>"), number, file, context))
    return problems


def _page_exists(target: str, file: Path, context: Context) -> bool:
    page = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
    if not page.endswith(".md") or _SCHEME.match(page) or page.startswith("//"):
        return True  # not a link to a page: anchors, other sites, images, files
    if page.startswith("/"):
        if context.docs_dir is None:
            return True
        resolved = context.docs_dir / page.lstrip("/")
    else:
        resolved = file.parent / page
    if resolved.is_file():
        return True
    if context.docs_dir is not None:
        return _relative(resolved, context.docs_dir) in context.virtual_pages
    return False


def _missing_page(target: str, line: int, file: Path, context: Context) -> Problem:
    page = re.split(r"[#?]", target, maxsplit=1)[0]
    close = difflib.get_close_matches(page, context.links_from(file.parent), n=1, cutoff=0.5)
    hint = (
        f"did you mean {close[0]}?"
        if close
        else "link to the other page's .md file, relative to this page"
    )
    return Problem(f"link to a page that does not exist: {target}", line, hint)


def _relative(path: Path, root: Path) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
