"""The search index of a dirty rebuild, made whole again.

A search plugin indexes the pages built in its run: under ``mkdocs serve --dirty``, those a save
changed (Material keeps the previous run's entries for one page only). :func:`rewrite` writes
every page back, each with its entries from the last run that built it.
"""

from __future__ import annotations

import json
from pathlib import Path


def rewrite(
    site_dir: Path, urls: list[str], converted: list[str], remembered: dict[str, list[dict]]
) -> None:
    """Rewrite ``search/search_index.json`` with every page of ``urls``: see :func:`merge`."""
    path = site_dir / "search" / "search_index.json"
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no search plugin, or not one whose index this knows
    if not (isinstance(index, dict) and isinstance(index.get("docs"), list)):
        return
    index["docs"] = merge(index["docs"], urls, converted, remembered)
    path.write_text(json.dumps(index, separators=(",", ":"), default=str), encoding="utf-8")


def merge(
    entries: list[dict], urls: list[str], converted: list[str], remembered: dict[str, list[dict]]
) -> list[dict]:
    """``entries`` made whole: per page of ``urls``, this run's entries if ``converted``, else the
    ``remembered`` ones (updated here); then other pages' entries; pages gone left out.

    >>> old = {"a/": [{"location": "a/", "text": "old a"}], "b/": [{"location": "b/"}],
    ...        "gone/": [{"location": "gone/"}]}
    >>> new = [{"location": "a/", "text": "old a"}, {"location": "b/"}, {"location": "gone/"},
    ...        {"location": "glossary/"}, {"location": "a/", "text": "new a"},
    ...        {"location": "a/#x", "text": "new x"}, {"location": "glossary/"}]
    >>> [e["location"] for e in merge(new, ["a/", "b/"], ["a/"], old)]
    ['a/', 'a/#x', 'b/', 'glossary/']
    >>> [e.get("text") for e in old["a/"]], sorted(old)
    (['new a', 'new x'], ['a/', 'b/'])
    """
    by_page: dict[str, list[dict]] = {}
    for entry in entries:
        by_page.setdefault(str(entry.get("location", "")).split("#", 1)[0], []).append(entry)
    for url in set(remembered) - set(urls):  # deleted or renamed
        by_page.pop(url, None)
        del remembered[url]
    for url in converted:
        remembered[url] = _last_run(by_page.get(url, []))
    tracked = [entry for url in urls for entry in remembered.get(url, [])]
    others = [_last_run(found) for url, found in by_page.items() if url not in remembered]
    return tracked + [entry for found in others for entry in found]


def _last_run(entries: list[dict]) -> list[dict]:
    """A page's entries from this run: from its last page-level entry on."""
    starts = [i for i, e in enumerate(entries) if "#" not in str(e.get("location", ""))]
    return entries[starts[-1] :] if starts else entries
