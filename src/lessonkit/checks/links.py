"""Check relative links: to ``.md`` pages that exist, and to anchors those pages have.

Anchors are checked against the ids read from the target's source (:mod:`.anchors`); where
only rendering can tell them all, only a near miss is reported. Not checked: a site with its
own ``toc`` slugify, and ids other features make (footnotes, quizzes, tooltips, tabs).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from urllib.parse import unquote

from lessonkit.checks.anchors import PageIds
from lessonkit.checks.context import Context, docs_path
from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem
from lessonkit.notebooks.links import to_pages

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(?P<target><[^>\n]*>|[^\s()<>]+)"
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(?P<target><[^>\n]*>|\S+)")
_UNCHECKED_IDS = ("fn:", "fnref", "quiz-", "lk-", "__")  # ids other features make
_PAGE_HINT = "link to the other page's .md file, relative to this page"
_ANCHOR_HINT = (
    "link to a heading of that page: its id is the heading's text in lowercase, with hyphens "
    "between the words (or give the heading one: ## Heading {#its-id})"
)


def _external(link: str) -> bool:
    return bool(_SCHEME.match(link)) or link.startswith("//")


def link_problems(
    body: str, offset: int, file: Path, context: Context, text: str | None = None
) -> list[Problem]:
    """An error for each relative link to a ``.md`` page that does not exist, or to an anchor
    the page linked to does not have. ``text``: the page's whole text, when known."""
    problems: list[Problem] = []
    if "](" not in body and "]:" not in body:
        return problems
    for number, line in enumerate(mask_code(body).split("\n"), offset + 1):
        targets = [m["target"] for m in _INLINE_LINK.finditer(line)]
        targets += [m["target"] for m in _REFERENCE.finditer(line)]
        for target in targets:
            target = target.strip("<>")
            notebook = _notebook_source(target, file, context)
            if notebook and ".ipynb" not in target:
                hint = f"name the page {notebook} (a notebook lesson is the page it stands for)"
                message = f"link to a notebook lesson's source, not its page: {target}"
                problems.append(Problem(message, number, hint))
                continue
            if notebook:  # goes to the notebook's page (lessonkit.notebooks.links.to_pages)
                target = to_pages(f"]({target}")[2:]
            if not _page_exists(target, file, context):
                problems.append(_missing_page(target, number, file, context))
            elif missing := _missing_anchor(target, text or body, file, context):
                problems.append(Problem(missing[0], number, missing[1]))
    return problems


def _missing_anchor(target: str, text: str, file: Path, context: Context) -> tuple[str, str] | None:
    """The message and hint when ``target`` names an anchor its page does not have."""
    page, hash_, anchor = re.split(r"\?[^#]*", target, maxsplit=1)[0].partition("#")
    if not hash_ or not anchor or not context.markdown.heading_ids:
        return None
    if anchor.startswith(_UNCHECKED_IDS) or _external(page):
        return None
    if not page:
        ids = context.anchors.of(file, context.markdown.separator, text) or PageIds(frozenset())
    elif page.endswith(".md"):
        ids = _page_ids(unquote(page), file, context)
    else:
        return None
    if ids is None or anchor in ids.ids or unquote(anchor) in ids.ids:
        return None
    close = difflib.get_close_matches(unquote(anchor), sorted(ids.ids), n=1, cutoff=0.6)
    if not ids.complete and not close:
        return None  # ids only its rendering makes may exist: sure cases only
    hint = f"did you mean {page}#{close[0]}?" if close else _ANCHOR_HINT
    return f"link to an anchor that {page or 'this page'} does not have: {target}", hint


def _resolved(page: str, file: Path, context: Context) -> Path | None:
    """The file a link from ``file`` to ``page`` names (``/a.md``: None without docs folder)."""
    if page.startswith("/"):
        return None if context.docs_dir is None else context.docs_dir / page.lstrip("/")
    return file.parent / page


def _page_ids(page: str, file: Path, context: Context) -> PageIds | None:
    """The ids of the page ``file`` links to as ``page`` (None when they cannot be known)."""
    if (resolved := _resolved(page, file, context)) is None:
        return None
    if not resolved.is_file():
        if (notebook := context.notebook_of(resolved)) is not None:
            return context.anchors.of(notebook, context.markdown.separator)
        return _virtual_ids(resolved, context)
    return context.anchors.of(resolved, context.markdown.separator)


def _virtual_ids(resolved: Path, context: Context) -> PageIds | None:
    """The ids of a page without a file: the glossary page's are its terms'."""
    glossary, docs = context.glossary, context.docs_dir
    if glossary is None or docs is None:
        return None
    if docs_path(resolved, docs) != context.settings.glossary_page:
        return None
    return PageIds(frozenset(t.id for t in glossary) | {"glossary"})


def _notebook_source(target: str, file: Path, context: Context) -> str | None:
    """The link ``target`` means, when it names a notebook lesson's source, not its page."""
    path, _, rest = unquote(target).partition("#")
    if not path.endswith((".ipynb", ".py")) or _external(path):
        return None
    resolved = _resolved(path, file, context)
    if resolved is None or context.notebook_page(resolved) is None:
        return None
    page = path[: -len(Path(path).suffix)] + ".md"
    return page + (f"#{rest}" if rest else "")


def _page_exists(target: str, file: Path, context: Context) -> bool:
    page = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
    if not page.endswith(".md") or _external(page):
        return True  # not a link to a page: anchors, other sites, images, files
    resolved = _resolved(page, file, context)
    if resolved is None or resolved.is_file():
        return True
    if context.docs_dir is not None:  # a page the host makes (the glossary)
        virtual = docs_path(resolved, context.docs_dir) in context.virtual_pages
        return virtual or context.has_page(resolved)
    return False


def _missing_page(target: str, line: int, file: Path, context: Context) -> Problem:
    page = re.split(r"[#?]", target, maxsplit=1)[0]
    links = [docs_path(p, file.parent) for p in context.pages()]
    close = difflib.get_close_matches(page, links, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]}?" if close else _PAGE_HINT
    return Problem(f"link to a page that does not exist: {target}", line, hint)
