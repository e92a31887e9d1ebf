"""Check relative links: to ``.md`` pages that exist, and to anchors those pages have.

An anchor is checked against the ids the target page will have: its headings' ids as the
``toc`` extension makes them (its own slugify of the heading's rendered text, ``_1``, ``_2``...
for repeats), explicit ``{#id}`` attribute lists, and ``id``/``name`` attributes in raw HTML.
They are read from the page's source. Where only rendering can tell all of a page's ids (a
``python exec`` block whose output is Markdown or HTML, an inline value in a heading, included
snippets), only a near miss of an id the source does show is reported (``#a-worked-exmple``
when there is ``#a-worked-example``). Not checked at all: a site with its own ``toc`` slugify
(:attr:`~lessonkit.checks.markdown_setup.MarkdownSetup.heading_ids`), and ids other features
make (footnotes, quizzes, tooltips, tabs). The glossary page's ids are its terms'.
"""

from __future__ import annotations

import functools
import html
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

import markdown
from markdown.extensions.toc import slugify, strip_tags, unique

from lessonkit.core.fences import fences, mask_code
from lessonkit.core.patterns import lazy
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.records import Record
from lessonkit.core.source import split_source
from lessonkit.notebooks.lesson import read_lesson

if TYPE_CHECKING:
    from lessonkit.checks.recipe import Context

_SCHEME = lazy(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_INLINE_LINK = lazy(r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(?P<target><[^>\n]*>|[^\s()<>]+)")
_REFERENCE = lazy(r"^ {0,3}\[[^\]]+\]:\s*(?P<target><[^>\n]*>|\S+)")


def link_problems(
    body: str, offset: int, file: Path, context: Context, text: str | None = None
) -> list[Problem]:
    """An error for each relative link to a ``.md`` page that does not exist, or to an anchor
    that the page linked to (this one, for ``#anchor``) does not have. ``text``: the page's whole
    text, front matter included (its ``resources:`` add a section, and an id), when known."""
    problems: list[Problem] = []
    if "](" not in body and "]:" not in body:
        return problems  # no link at all (build speed): each expression below needs one of these
    for number, line in enumerate(mask_code(body).split("\n"), offset + 1):
        if "](" not in line and "]:" not in line:
            continue  # no link on this line (most lines)
        targets = [m["target"] for m in _INLINE_LINK.finditer(line)]
        targets += [m["target"] for m in _REFERENCE.finditer(line)]
        for target in targets:
            target = target.strip("<>")
            if notebook := _notebook_source(target, file, context):
                hint = f"name the page {notebook} (a notebook lesson is the page it stands for)"
                message = f"link to a notebook lesson's source, not its page: {target}"
                problems.append(Problem(message, number, hint))
            elif not _page_exists(target, file, context):
                problems.append(_missing_page(target, number, file, context))
            elif missing := _missing_anchor(target, text or body, file, context):
                problems.append(Problem(missing[0], number, missing[1]))
    return problems


_UNCHECKED_IDS = ("fn:", "fnref", "quiz-", "lk-", "__")
"""Ids that other features make (footnotes, quizzes, tooltips, content tabs): not checked."""


def _missing_anchor(target: str, text: str, file: Path, context: Context) -> tuple[str, str] | None:
    """The message and hint when ``target`` names an anchor its page does not have."""
    page, hash_, anchor = re.split(r"\?[^#]*", target, maxsplit=1)[0].partition("#")
    if not hash_ or not anchor or not context.markdown.heading_ids:
        return None
    if anchor.startswith(_UNCHECKED_IDS) or _SCHEME.match(page) or page.startswith("//"):
        return None
    if not page:
        ids = context.anchors.of_text(file, text, context.markdown.separator)
    elif page.endswith(".md"):
        ids = _page_ids(unquote(page), file, context)
    else:
        return None
    if ids is None or anchor in ids.ids or unquote(anchor) in ids.ids:
        return None
    import difflib  # only for a hint: most builds never need it

    close = difflib.get_close_matches(unquote(anchor), sorted(ids.ids), n=1, cutoff=0.6)
    if not ids.complete and not close:
        return None  # the page may have ids only its rendering makes: report sure cases only
    hint = (
        f"did you mean {page}#{close[0]}?"
        if close
        else "link to a heading of that page: its id is the heading's text in lowercase, "
        "with hyphens between the words (or give the heading one: ## Heading {#its-id})"
    )
    where = page or "this page"
    return f"link to an anchor that {where} does not have: {target}", hint


class PageIds(Record):
    """The ids a page's source shows; ``complete`` when its rendering can make no others."""

    ids: frozenset[str]
    complete: bool = True


def _resolved(page: str, file: Path, context: Context) -> Path | None:
    """The file a link from ``file`` to ``page`` names: ``/a.md`` from the docs folder (None
    without one), ``a.md`` from ``file``'s folder."""
    if page.startswith("/"):
        return None if context.docs_dir is None else context.docs_dir / page.lstrip("/")
    return file.parent / page


def _page_ids(page: str, file: Path, context: Context) -> PageIds | None:
    """The ids of the page ``page`` links to from ``file`` (None when they cannot be known)."""
    if (resolved := _resolved(page, file, context)) is None:
        return None
    if not resolved.is_file():
        if (notebook := context.notebook_of(resolved)) is not None:
            return context.anchors.of_lesson(notebook, context.markdown.separator)
        return _virtual_ids(resolved, context)
    return context.anchors.of_file(resolved, context.markdown.separator)


def _virtual_ids(resolved: Path, context: Context) -> PageIds | None:
    """The ids of a page that has no file: the glossary page's are its terms' (None for others)."""
    glossary, docs = context.glossary, context.docs_dir
    if glossary is None or docs is None:
        return None
    if _relative(resolved, docs) != context.settings.glossary_page:
        return None
    return PageIds(frozenset(t.id for t in glossary) | {"glossary"})


class Anchors:
    """The ids pages will have, read from their sources once per check (or build)."""

    def __init__(self) -> None:
        self._ids: dict[Path, PageIds | None] = {}

    def of_file(self, file: Path, separator: str = "-") -> PageIds | None:
        """The ids of the page in ``file`` (None if it cannot be read)."""
        key = file.resolve()
        if key not in self._ids:
            try:
                text = file.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                self._ids[key] = None
            else:
                self._ids[key] = text_ids(text, separator)
        return self._ids[key]

    def of_lesson(self, file: Path, separator: str = "-") -> PageIds | None:
        """The ids of the notebook lesson in ``file``: those of the Markdown it stands for."""
        key = file.resolve()
        if key not in self._ids:
            try:
                text = read_lesson(file, file.name, str(file)).text
            except LessonError:
                self._ids[key] = None
            else:
                self._ids[key] = text_ids(text, separator)
        return self._ids[key]

    def of_text(self, file: Path, text: str, separator: str = "-") -> PageIds:
        """The ids of the page ``file`` whose source is ``text`` (the page being checked)."""
        key = file.resolve()
        if self._ids.get(key) is None:
            self._ids[key] = text_ids(text, separator)
        return self._ids[key] or PageIds(frozenset())


def text_ids(text: str, separator: str = "-") -> PageIds:
    """The ids of a page whose whole source is ``text``: its body's, and those of what the host
    appends to it (the "Go deeper" section, when its front matter lists ``resources:``)."""
    split = split_source(text)
    ids = page_ids(split.body, separator)
    if split.front_matter and _lists_resources(split.front_matter):
        return PageIds(ids.ids | _section_ids(separator), ids.complete)
    return ids


def _lists_resources(front_matter: str) -> bool:
    """Whether front matter gives ``resources:`` entries (an empty list adds no section), read
    without YAML: a page only linked to need not be parsed (one id too many is harmless).

    >>> [_lists_resources(t) for t in ["resources:\\n- kind: x\\n", "resources: []\\n", "a: 1\\n"]]
    [True, False, False]
    """
    lines = front_matter.split("\n")
    for index, line in enumerate(lines):
        if m := re.match(r"resources[ \t]*:(.*)", line):
            rest = m[1].split(" #", 1)[0].strip()
            if rest not in ("", "null", "~"):
                return rest.replace(" ", "") != "[]"
            following = (t.strip() for t in lines[index + 1 :])
            return next((t for t in following if t and not t.startswith("#")), "").startswith("-")
    return False


@functools.lru_cache(maxsize=4)
def _section_ids(separator: str) -> frozenset[str]:
    """The ids of the "Go deeper" section the host appends, from the section itself."""
    from lessonkit import resources
    from lessonkit.core.page import Page

    entry = "{kind: Paper, title: T, author: A, url: 'https://example.org', note: N}"
    page = Page.from_text(f"---\nresources: [{entry}]\n---\n", "")
    return page_ids(resources.section(page), separator).ids


_ATX = lazy(r"^[ \t>]*(#{1,6})(?P<text>.*?)#*[ \t]*$")
"""An ATX heading, at any depth (in a container, behind a block quote's ``>``)."""
_SETEXT = lazy(r"^[ \t>]*(?:=+|-+)[ \t]*$")
_ATTRS = lazy(r"[ \t]*\{:?[ \t]*([^}\n]*?)[ \t]*\}[ \t]*$")
"""An attribute list at the end of a heading: ``{#id .class}`` (``attr_list``)."""
_EXPLICIT_ID = lazy(r"\{:?[^}\n]*?#([^\s}]+)[^}\n]*\}")
_HTML_ID = lazy(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
_MARKUP = lazy(r"[*_`\[<&\\!]")
_MARK = lazy(r"\[\[!?([^\[\]|]+?)(?:\|([^\[\]|]+?))?\]\]")
_UNKNOWABLE = lazy(
    r"""(?m)^[ \t>]*(`{3,}|~{3,})[ \t]*python[ \t]+exec\b.*\boutput=["']?(?:markdown|html)"""
    r"|--8<--|\{%"
)
"""What makes a page's ids unknowable from its source: output that Markdown or HTML code
prints, snippets and template includes."""


@functools.cache
def _headings_md() -> markdown.Markdown:
    """The Markdown that renders a heading with markup, made on first use: most pages' headings
    are plain text, and a warm build need not pay for it (build speed)."""
    return markdown.Markdown()


def page_ids(body: str, separator: str = "-") -> PageIds:
    """The ids a page's body shows, and whether it will have no others (see the module).

    >>> sorted(page_ids("# The `softmax` function\\n\\nText.\\n\\n## Why? {#why}\\n"
    ...                 "\\nAgain\\n-----\\n\\n## Again\\n\\n<a id='x'></a>\\n").ids)
    ['again', 'again_1', 'the-softmax-function', 'why', 'x']
    """
    complete = not _UNKNOWABLE.search(body)
    lines = body.split("\n")
    code = {i for f in fences(lines) for i in range(f.start, min(f.end + 1, len(lines)))}
    headings = []
    for index, line in enumerate(lines):
        if index in code:
            continue
        if m := _ATX.match(line):
            headings.append(m["text"])
        elif _SETEXT.match(line) and index > 0 and index - 1 not in code:
            previous = lines[index - 1].strip(" \t>")
            if previous and not previous.startswith(("#", "-", "*", "+")):
                headings.append(previous)
    # Ids written out: outside fenced code (in a code span too: one id too many is harmless).
    prose = "\n".join(line for i, line in enumerate(lines) if i not in code)
    ids: set[str] = set(_EXPLICIT_ID.findall(prose)) if "{" in prose else set()
    if "=" in prose:
        ids |= {next(g for g in m.groups() if g is not None) for m in _HTML_ID.finditer(prose)}
    for text in headings:
        if "{{" in text:
            complete = False  # an inline value: its text is known only once the code ran
            continue
        attrs = _ATTRS.search(text)
        if attrs:
            text = text[: attrs.start()]
            if explicit := re.search(r"#([^\s}]+)", attrs[1]):
                ids.add(explicit[1])
                continue
        ids.add(unique(slugify(html.unescape(_heading_text(text)), separator), ids))
    return PageIds(frozenset(ids), complete)


def _heading_text(text: str) -> str:
    """A heading's text as ``toc`` reads it: rendered, tags stripped, whitespace collapsed."""
    text = _MARK.sub(lambda m: m[2] or m[1], text.strip())
    if not _MARKUP.search(text):
        return " ".join(text.split())
    rendered = _headings_md().reset().convert("# " + text)
    inner = rendered[rendered.index(">") + 1 : rendered.rindex("<")]
    return strip_tags(inner)


def _notebook_source(target: str, file: Path, context: Context) -> str | None:
    """The link to the page ``target`` means, when it names a notebook lesson's source (its
    ``.ipynb`` or ``.py``) instead of its page (:mod:`lessonkit.notebooks.pages`)."""
    path, _, rest = unquote(target).partition("#")
    if not path.endswith((".ipynb", ".py")) or _SCHEME.match(path) or path.startswith("//"):
        return None
    if (resolved := _resolved(path, file, context)) is None:
        return None
    if context.notebook_page(resolved) is None:
        return None
    page = path[: -len(Path(path).suffix)] + ".md"
    return page + (f"#{rest}" if rest else "")


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
    if context.docs_dir is not None:  # a page the host makes (the glossary), known either way
        virtual = _relative(resolved, context.docs_dir) in context.virtual_pages
        return virtual or context.has_page(resolved)
    return False


def _missing_page(target: str, line: int, file: Path, context: Context) -> Problem:
    page = re.split(r"[#?]", target, maxsplit=1)[0]
    import difflib  # only for a hint: most builds never need it

    close = difflib.get_close_matches(page, context.links_from(file.parent), n=1, cutoff=0.5)
    hint = (
        f"did you mean {close[0]}?"
        if close
        else "link to the other page's .md file, relative to this page"
    )
    return Problem(f"link to a page that does not exist: {target}", line, hint)


def _relative(path: Path, root: Path) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
