"""Check a lesson's front matter: a title, a description, each feature's keys, and no other key.

The whole front matter is bounded once YAML's aliases are expanded (an alias bomb). A key
nothing reads is a typo (``notebok: true``) unless the site's ``front_matter_keys`` lists it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any

from lessonkit.core.fences import mask_code
from lessonkit.core.problems import Problem
from lessonkit.core.source import (
    SIZE_LIMIT,
    expanded_size,
    key_line,
    shown,
    split_source,
    text_problem,
)
from lessonkit.resources import check_resources

_H1 = re.compile(r"^ {0,3}#[ \t]+\S|^ {0,3}[^\s#].*\n {0,3}=+[ \t]*$", re.MULTILINE)
_MATERIAL = "hide icon status subtitle tags search social comments author authors date " + (
    "categories draft pin links readtime slug"  # templates, search, social cards, tags, blog
)
KNOWN_KEYS: dict[str, tuple[str, ...]] = {  # the keys any lessonkit page may have, by reader
    "lessonkit": ("title", "description", "resources", "notebook", "path"),
    "MkDocs": ("template",),
    "Material": tuple(_MATERIAL.split()),
}
TEXT_KEYS = {"title": 200, "description": 500}  # text keys and their length limits
FLAG_KEYS = {  # true-or-false keys, and what true does
    "notebook": "offer the page as a Jupyter notebook (.ipynb) beside it",
    "path": "put the page on the learning path (progress, the printable path)",
}
ALL_KNOWN = tuple(key for keys in KNOWN_KEYS.values() for key in keys)
_TOP_KEY = re.compile(r"^(?P<key>[^\s#:'\"\[{&*!|>%@`-][^:#]*?|'[^']*'|\"[^\"]*\")[ \t]*:(?:\s|$)")
FRONT_MATTER_HINT = (
    "begin the file with front matter: a line '---', then 'title: The title' and "
    "'description: One sentence.', then '---'"
)


def front_matter_problems(
    meta: dict[str, Any], text: str, body: str = "", extra_keys: Iterable[str] = ()
) -> list[Problem]:
    """Every front matter problem; ``extra_keys``: the site's own keys. A page without a
    ``title`` takes its first h1's (as MkDocs does)."""
    if too_large := size_problems(meta, text):
        return too_large  # nothing else may copy a value that large
    problems = []
    if "title" not in meta and not _H1.search(mask_code(body)):
        problems.append(Problem("the page has no title in its front matter", 1, FRONT_MATTER_HINT))
    for key, limit in TEXT_KEYS.items():
        value = meta.get(key)
        if value not in (None, "") and (found := text_problem(key, value, limit)):
            problems.append(found._replace(line=key_line(text, key)))
    title = meta.get("title", "-")
    if title is None or (isinstance(title, str) and not title.strip()):
        line = key_line(text, "title")
        problems.append(Problem("title must be non-empty text", line, "write title: The title"))
    if "title" in meta and meta.get("description") in (None, ""):
        hint = "add description: one sentence saying what the reader learns (search results and "
        hint += "link previews show it)"
        line = key_line(text, "title")
        problems.append(Problem("the page has no description", line, hint, "warning"))
    for key, does in FLAG_KEYS.items():
        if not isinstance(value := meta.get(key, False), bool):
            message = f"{key} must be true or false, not {shown(value)}"
            problems.append(Problem(message, key_line(text, key), f"write {key}: true to {does}"))
    problems += key_problems(meta, text, extra_keys)
    return problems + check_resources(meta, text)


def size_problems(meta: dict[str, Any], text: str) -> list[Problem]:
    """An error at the first key past :data:`~lessonkit.core.source.SIZE_LIMIT`, aliases expanded.

    >>> text = "---\\ntitle: T\\ntags: &a [*a]\\n---\\n"
    >>> tags: list = []
    >>> tags.append(tags)
    >>> [(p.line, p.message[:36]) for p in size_problems({"title": "T", "tags": tags}, text)]
    [(3, "front matter key 'tags' is too large")]
    """
    budget = SIZE_LIMIT
    for key, value in meta.items():
        budget -= expanded_size(value, budget)
        if budget < 0:
            message = (
                f"front matter key {shown(key)} is too large: more than {SIZE_LIMIT:,} values "
                "and characters once YAML's aliases (*name) are expanded"
            )
            hint = "write the values out; an alias that repeats others in turn repeats millions"
            return [Problem(message, key_line(text, str(key)), hint)]
    return []


def key_problems(meta: dict[str, Any], text: str, extra_keys: Iterable[str] = ()) -> list[Problem]:
    """An error for each key that nothing reads, and for each key given twice.

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
        close = difflib.get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        hint += (
            "The keys a page may have are lessonkit's (title, description, resources, notebook, "
            "path), those MkDocs and Material read (template, hide, icon, status, subtitle, tags, "
            "search, ...); a site allows others with the lessonkit option front_matter_keys"
        )
        message = f"unknown front matter key {shown(str(key))}"
        problems.append(Problem(message, key_line(text, str(key)), hint))
    return problems + _repeated_keys(text)


def _repeated_keys(text: str) -> list[Problem]:
    """A problem for each top-level key written twice in the front matter of ``text``.

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
