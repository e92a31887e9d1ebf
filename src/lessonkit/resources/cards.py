""""Go deeper" cards from a lesson's front matter ``resources:`` list.

Each resource has ``kind`` (Video, Tool, Article, Paper, Book or Course), ``title``, ``author``,
``url`` and a one-line ``note``. The cards are plain HTML: the kind as a badge, the title as an
ordinary link (opens in the same tab) marked as leading to another site.

>>> print(resources_html([{"kind": "Paper", "title": "Attention Is All You Need",
...     "author": "Vaswani et al.", "url": "https://arxiv.org/abs/1706.03762",
...     "note": "The original transformer paper."}]))
<ul class="lk-resources">
<li class="lk-resource lk-resource--paper"><span class="lk-resource__kind">Paper</span> \
<a class="lk-resource__title" href="https://arxiv.org/abs/1706.03762" rel="external">\
Attention Is All You Need<span class="lk-visually-hidden"> (another site)</span></a> \
<span class="lk-resource__author">Vaswani et al.</span> \
<span class="lk-resource__note">The original transformer paper.</span></li>
</ul>
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import urlparse

from lessonkit.core.problems import Problem

KINDS = ("Video", "Tool", "Article", "Paper", "Book", "Course")
FIELDS = ("kind", "title", "author", "url", "note")


def check_resources(meta: dict[str, Any], source: str) -> list[Problem]:
    """Problems in ``meta["resources"]``; lines point at the ``resources:`` key in ``source``."""
    resources = meta.get("resources")
    if resources is None:
        return []
    line = next(
        (n for n, text in enumerate(source.splitlines(), 1) if text.startswith("resources:")), 1
    )
    example = "- kind: Video\n  title: ...\n  author: ...\n  url: https://...\n  note: ..."
    if not isinstance(resources, list):
        return [Problem("resources must be a list", line, f"write entries like:\n{example}")]
    problems = []
    for number, item in enumerate(resources, 1):
        where = f"resource {number}"
        if not isinstance(item, dict):
            problems.append(Problem(f"{where} is not a mapping", line, example))
            continue
        missing = [f for f in FIELDS if not str(item.get(f) or "").strip()]
        if missing:
            problems.append(
                Problem(f"{where} lacks {', '.join(missing)}", line, f"every resource has {FIELDS}")
            )
        unknown = sorted(set(item) - set(FIELDS))
        if unknown:
            problems.append(Problem(f"{where} has unknown keys {unknown}", line, f"use {FIELDS}"))
        if item.get("kind") and item["kind"] not in KINDS:
            hint = f"kind is one of {', '.join(KINDS)}"
            problems.append(Problem(f"{where} has kind {item['kind']!r}", line, hint))
        url = str(item.get("url") or "")
        if url and urlparse(url).scheme not in ("http", "https"):
            problems.append(Problem(f"{where} url {url!r} is not http(s)", line, "use https://"))
    return problems


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
