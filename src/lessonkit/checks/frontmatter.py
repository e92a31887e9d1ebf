"""Check a lesson's front matter: a title, a description, each feature's keys, and no other key.

A key nothing reads is a typo until a site says otherwise (``notebok: true`` would silently give
no notebook, ``resource:`` no cards): the keys a page may have are lessonkit's, those MkDocs and
Material for MkDocs read (:data:`KNOWN_KEYS`), and the site's own ``front_matter_keys`` option.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lessonkit.core.fences import mask_code
from lessonkit.core.patterns import lazy
from lessonkit.core.problems import Problem
from lessonkit.core.source import key_line, split_source
from lessonkit.notebooks.checks import notebook_problems
from lessonkit.resources.cards import check_resources

_H1 = lazy(r"^ {0,3}#[ \t]+\S|^ {0,3}[^\s#].*\n {0,3}=+[ \t]*$", re.MULTILINE)
"""An ATX (``# Title``) or setext (``Title`` over ``===``) level-1 heading."""
KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "lessonkit": ("title", "description", "resources", "notebook", "path"),
    "MkDocs": ("template",),
    # Material for MkDocs: its templates, search, social cards, tags and the blog plugin's posts.
    "Material": (
        "hide",
        "icon",
        "status",
        "subtitle",
        "tags",
        "search",
        "social",
        "comments",
        "author",
        "authors",
        "date",
        "categories",
        "draft",
        "pin",
        "links",
        "readtime",
        "slug",
    ),
}
"""The front matter keys a page may have on any lessonkit site, by who reads them (``title``:
MkDocs and Material too; ``description``: Material's ``<meta>`` and search)."""
ALL_KNOWN = tuple(key for keys in KNOWN_KEYS.values() for key in keys)
_TOP_KEY = lazy(r"^(?P<key>[^\s#:'\"\[{&*!|>%@`-][^:#]*?|'[^']*'|\"[^\"]*\")[ \t]*:(?:\s|$)")
"""A top-level ``key:`` line of the front matter's YAML (at column 0)."""
FRONT_MATTER_HINT = (
    "begin the file with front matter: a line '---', then 'title: The title' and "
    "'description: One sentence.', then '---'"
)


def front_matter_problems(
    meta: dict[str, Any], text: str, body: str = "", extra_keys: Iterable[str] = ()
) -> list[Problem]:
    """A missing or empty ``title`` (error), a missing ``description`` (warning), resources,
    ``notebook``, and every key nothing reads (``extra_keys``: the site's own).

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
    problems += key_problems(meta, text, extra_keys)
    return problems + check_resources(meta, text) + notebook_problems(meta, text)


def key_problems(meta: dict[str, Any], text: str, extra_keys: Iterable[str] = ()) -> list[Problem]:
    """An error for each key that nothing reads, with the closest known key, and for each key
    given twice (YAML silently keeps the last).

    >>> text = "---\\ntitle: T\\nnotebok: true\\ntitle: U\\n---\\n"
    >>> for p in key_problems({"title": "U", "notebok": True}, text):
    ...     print(p.line, p.message, "/", p.hint.split("?")[0].split(":")[0])
    3 unknown front matter key 'notebok' / did you mean 'notebook'
    4 front matter key 'title' is given twice (first at line 2) / remove one of them
    >>> key_problems({"x-plugin": 1}, "---\\nx-plugin: 1\\n---\\n", extra_keys=["x-plugin"])
    []
    """
    allowed = {*ALL_KNOWN, *map(str, extra_keys)}
    problems = []
    for key in meta:
        if str(key) in allowed:
            continue
        import difflib  # only for a hint: most builds never need it

        close = difflib.get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        hint += (
            "The keys a page may have are lessonkit's (title, description, resources, notebook, "
            "path), those MkDocs and Material read (template, hide, icon, status, subtitle, tags, "
            "search, ...); a site allows others with the lessonkit option front_matter_keys"
        )
        message = f"unknown front matter key {str(key)!r}"
        problems.append(Problem(message, key_line(text, str(key)), hint))
    return problems + _repeated_keys(text)


def _repeated_keys(text: str) -> list[Problem]:
    """A problem for each top-level key written twice in the front matter of ``text`` (none
    without front matter: a page's code may say ``else:`` twice).

    >>> [p.line for p in _repeated_keys("---\\nt: 1\\nt: 2\\n---\\n")]
    [3]
    >>> _repeated_keys("else:\\nelse:\\n")
    []
    """
    if split_source(text).front_matter is None:
        return []
    seen: dict[str, int] = {}
    problems = []
    for number, line in enumerate(text.split("\n")[1:], 2):
        if line.rstrip() in ("---", "..."):
            break
        if not (m := _TOP_KEY.match(line)):
            continue
        key = m["key"].strip().strip("'\"")
        if key in seen:
            message = f"front matter key {key!r} is given twice (first at line {seen[key]})"
            hint = "remove one of them: YAML keeps only the last, silently"
            problems.append(Problem(message, number, hint))
        seen.setdefault(key, number)
    return problems
