"""Which pages form the learning path, and the data each page carries for the reader's progress."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

SECTION = "Learning path"  # the nav section whose pages are the path
_QUIZ_ID = re.compile(r'<div class="lk-quiz" [^>]*\bid="(quiz-[0-9a-f]{8})"')


class Lesson(NamedTuple):
    """One page of the path: its source, title, URL from the site's root, and HTML."""

    src_uri: str
    title: str
    url: str
    html: str

    @property
    def quizzes(self) -> str:
        """The page's quiz ids: saved progress holds while they stay the same."""
        return " ".join(quiz_ids(self.html))


def quiz_ids(html: str) -> list[str]:
    """The ids of the quizzes in a page's HTML, in order.

    >>> quiz_ids('<div class="lk-quiz" data-lk-quiz="single" id="quiz-0123abcd">')
    ['quiz-0123abcd']
    """
    return _QUIZ_ID.findall(html)


def nav_order(nav: Any, sections: tuple[str, ...] = ()) -> Iterable[tuple[str, tuple[str, ...]]]:
    """(file, section titles) of each page of a ``nav:`` (MkDocs' or Zensical's form).

    >>> list(nav_order([{"Home": "index.md"}, {"Learning path": ["a.md", {"B": "b.md"}]}]))
    [('index.md', ()), ('a.md', ('Learning path',)), ('b.md', ('Learning path',))]
    >>> list(nav_order([{"title": "Learning path", "url": None, "children": [
    ...     {"title": "A", "url": "a.md", "children": []}]}]))
    [('a.md', ('Learning path',))]
    """
    for item in nav or []:
        if isinstance(item, str):
            if "://" not in item:
                yield item.strip(), sections
        elif isinstance(item, Mapping) and "children" in item and "url" in item:  # Zensical
            if isinstance(item["url"], str):
                yield from nav_order([item["url"]], sections)
            yield from nav_order(item["children"], (*sections, str(item.get("title"))))
        elif isinstance(item, Mapping):
            for title, value in item.items():
                if isinstance(value, str):
                    yield from nav_order([value], sections)
                else:
                    yield from nav_order(value, (*sections, str(title)))


def reading_order(
    nav: Iterable[tuple[str, tuple[str, ...]]], pages: Iterable[str]
) -> list[tuple[str, tuple[str, ...]]]:
    """The site's pages in reading order: its nav's, else ``pages`` in the host's order.

    >>> reading_order([], ["index.md", "a.md"])
    [('index.md', ()), ('a.md', ())]
    >>> reading_order([("a.md", ("Learning path",))], ["index.md", "a.md"])
    [('a.md', ('Learning path',))]
    """
    return list(nav) or [(page, ()) for page in pages]


def path_lessons(
    nav: Iterable[tuple[str, tuple[str, ...]]], meta: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """The pages of the path in nav order: in :data:`SECTION`, or ``path: true``.

    >>> nav = [("index.md", ()), ("a.md", ("Learning path",)), ("b.md", ("More",))]
    >>> path_lessons(nav, {"b.md": {"path": True}})
    ['a.md', 'b.md']
    >>> path_lessons(nav, {"a.md": {"path": False}})
    []
    """
    chosen = []
    for src_uri, sections in nav:
        wanted = (meta.get(src_uri) or {}).get("path")
        in_path = wanted is True or (wanted is not False and SECTION in sections)
        if in_path and src_uri not in chosen:
            chosen.append(src_uri)
    return chosen


def path_record(lessons: list[Lesson], print_url: str | None) -> dict[str, Any]:
    """What every page carries of the path (URLs from the site's root).

    >>> path_record([Lesson("a.md", "A", "a/", "")], "print/")
    {'print': 'print/', 'lessons': [{'url': 'a/', 'title': 'A', 'quizzes': ''}]}
    """
    lessons_data = [{"url": x.url, "title": x.title, "quizzes": x.quizzes} for x in lessons]
    return {"print": print_url, "lessons": lessons_data}


def read_record(data: Any) -> dict[str, Any] | None:
    """A :func:`path_record` read back from JSON; None unless it has its shape.

    >>> read_record({"print": "p/", "lessons": [{"quizzes": "", "title": "A", "url": "a/"}]})
    {'print': 'p/', 'lessons': [{'url': 'a/', 'title': 'A', 'quizzes': ''}]}
    >>> read_record({"lessons": [1]}) is None
    True
    """
    try:
        lessons = [{k: str(x[k]) for k in ("url", "title", "quizzes")} for x in data["lessons"]]
        return {"print": data.get("print"), "lessons": lessons}
    except (KeyError, TypeError, AttributeError):
        return None


def progress_script(record: Mapping[str, Any], root: str) -> str:
    """The JSON a page carries for the progress script; ``root``: the site's root from the
    page, so progress is keyed by where the site is served.

    >>> progress_script({"print": None, "lessons": []}, "../")
    '<script type="application/json" id="lk-path">{"root":"../","print":null,"lessons":[]}</script>'
    """
    data = {"root": root, "print": record.get("print"), "lessons": record.get("lessons", [])}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f'<script type="application/json" id="lk-path">{_script_safe(text)}</script>'


def _script_safe(text: str) -> str:
    """JSON ``text`` that no HTML parser ends early or swallows the page after: no ``<``, ``>``
    or ``&`` (a title with ``</script>`` ends the element; one with ``<!--<script>`` makes the
    real ``</script>`` part of it), nor U+2028 and U+2029, written as JSON's escapes.

    >>> _script_safe('"<!--<script> & </script>"')
    '"\\\\u003c!--\\\\u003cscript\\\\u003e \\\\u0026 \\\\u003c/script\\\\u003e"'
    """
    for char, code in _SCRIPT_ESCAPES:
        text = text.replace(char, code)
    return text


_SCRIPT_ESCAPES = [(c, f"\\u{ord(c):04x}") for c in "<>&\u2028\u2029"]


def progress_json(lessons: list[Lesson], root: str, print_url: str | None) -> str:
    """:func:`progress_script` of the path ``lessons``, for a page whose root is ``root``."""
    return progress_script(path_record(lessons, print_url), root)


def root_of(url: str) -> str:
    """The site's root relative to the page at ``url``, as MkDocs writes it.

    >>> root_of(""), root_of("a/"), root_of("a/b/"), root_of("a.html"), root_of("a/b.html")
    ('./', '../', '../../', './', '../')
    """
    depth = url.count("/")
    return "../" * depth if depth else "./"
