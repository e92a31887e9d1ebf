""" "Go deeper": a lesson's ``resources:`` front matter (kind, title, author, url, note each)
becomes cards at its end, as plain HTML.
"""

from __future__ import annotations

from functools import cache
from html import escape
from typing import Any

import yaml

from lessonkit.core.page import Page
from lessonkit.core.problems import Problem
from lessonkit.core.source import key_line, shown, split_source, text_problem
from lessonkit.core.urls import scheme

KINDS = ("Video", "Tool", "Article", "Paper", "Book", "Course")
LIMITS = {"kind": 20, "title": 200, "author": 200, "url": 2000, "note": 500}
"""Each field of an entry, and how many characters its text may have."""
FIELDS = tuple(LIMITS)
MOST = 50
"""The most entries a page may have."""


def check_resources(meta: dict[str, Any], source: str) -> list[Problem]:
    """Problems in ``meta["resources"]``, each at its field's line in ``source`` (the page's
    text), else at its entry's.

    >>> text = "---\\nresources:\\n  - kind: Video\\n    url: ftp://x\\n---\\n"
    >>> for p in check_resources({"resources": [{"kind": "Video", "url": "ftp://x"}]}, text):
    ...     print(p.line, p.message)
    3 resource 1 lacks title, author, note
    4 resource 1 url 'ftp://x' is not http(s)
    """
    resources = meta.get("resources")
    if resources is None:
        return []
    key = key_line(source, "resources")
    example = "- kind: Video\n  title: ...\n  author: ...\n  url: https://...\n  note: ..."
    if not isinstance(resources, list):
        return [Problem("resources must be a list", key, f"write entries like:\n{example}")]
    if len(resources) > MOST:
        message = f"resources has {len(resources)} entries, more than {MOST}"
        return [Problem(message, key, "keep the few best for this lesson")]
    entry_lines = cache(lambda: _entry_lines(source))  # read only for a problem (~3 ms a page)

    def at(number: int, field: object = None) -> int:
        entries = entry_lines()
        if number > len(entries):
            return key
        line, fields = entries[number - 1]
        return fields.get(str(field), line)

    problems = []
    for number, item in enumerate(resources, 1):
        name = f"resource {number}"
        if not isinstance(item, dict):
            problems.append(Problem(f"{name} is not a mapping", at(number), example))
            continue
        missing = [f for f in FIELDS if item.get(f) is None or not str(item[f]).strip()]
        if missing:
            message = f"{name} lacks {', '.join(missing)}"
            problems.append(Problem(message, at(number), f"every resource has {FIELDS}"))
        unknown = sorted(set(item) - set(FIELDS), key=str)
        if unknown:
            message = f"{name} has unknown keys {shown(unknown)}"
            problems.append(Problem(message, at(number, unknown[0]), f"use {FIELDS}"))
        for field, limit in LIMITS.items():
            value = item.get(field)
            if field not in missing and (found := text_problem(f"{name} {field}", value, limit)):
                problems.append(found._replace(line=at(number, field)))
            elif field == "kind" and value and value not in KINDS:
                hint = f"kind is one of {', '.join(KINDS)}"
                problems.append(Problem(f"{name} has kind {shown(value)}", at(number, field), hint))
            elif field == "url" and value and scheme(value) not in ("http", "https"):
                message = f"{name} url {shown(value)} is not http(s)"
                problems.append(Problem(message, at(number, field), "use https://"))
    return problems


def _entry_lines(source: str) -> list[tuple[int, dict[str, int]]]:
    """For each entry of ``resources:``, its file line and the file line of each of its keys."""
    try:
        root = yaml.compose(split_source(source).front_matter or "", Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    first = 2  # the front matter's YAML starts on the file's second line, after ---
    value = next(
        (v for k, v in getattr(root, "value", []) if getattr(k, "value", None) == "resources"),
        None,
    )
    if not isinstance(value, yaml.SequenceNode):
        return []
    entries = []
    for node in value.value:
        pairs = node.value if isinstance(node, yaml.MappingNode) else []
        fields = {str(k.value): k.start_mark.line + first for k, _ in pairs}
        entries.append((node.start_mark.line + first, fields))
    return entries


def resources_html(resources: list[dict[str, str]]) -> str:
    """The cards as one ``<ul>``; every field escaped."""
    items = []
    for r in resources:
        kind = escape(r["kind"])
        items.append(
            f'<li class="lk-resource lk-resource--{kind.lower()}">'
            f'<span class="lk-resource__kind">{kind}</span> '
            f'<a class="lk-resource__title" href="{escape(r["url"])}" rel="external">'
            f"{escape(r['title'])}"
            '<span class="lk-visually-hidden"> (another site)</span></a> '
            f'<span class="lk-resource__author">{escape(r["author"])}</span> '
            f'<span class="lk-resource__note">{escape(r["note"])}</span></li>'
        )
    return '<ul class="lk-resources">\n' + "\n".join(items) + "\n</ul>"


def section(page: Page) -> str:
    """The "Go deeper" heading and cards to append to the page's Markdown ('' without any).

    >>> section(Page.from_text("---\\nresources: []\\n---\\n# T\\n", "t.md"))
    ''
    """
    resources = page.meta.get("resources")
    if not resources:
        return ""
    return f"\n\n## Go deeper {{ #resources }}\n\n{resources_html(resources)}\n"
