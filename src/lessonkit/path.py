"""The learner's path: its pages, the data the reader's progress is kept against, and the
whole path as one printable page. The host hands over pages as plain data.

The path is every page under a nav section titled ``Learning path``, in nav order, and any
other page whose front matter says ``path: true``; ``path: false`` takes a page out. The print
page is made at build from the pages' own HTML: headings move one level down, ids get the
lesson's prefix, links into the path stay inside the page, other site links become absolute,
quiz answers go to an appendix, the glossary comes last.
"""

from __future__ import annotations

import html as htmlmod
import json
import posixpath
import re
from collections.abc import Iterable, Mapping
from posixpath import normpath
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

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
    """(file, section titles) of each page of a ``nav:`` (MkDocs' or Zensical's form)."""
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
    """The site's pages in reading order: its nav's, else ``pages`` in the host's order."""
    return list(nav) or [(page, ()) for page in pages]


def path_lessons(
    nav: Iterable[tuple[str, tuple[str, ...]]], meta: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """The pages of the path in nav order: in :data:`SECTION`, or ``path: true``."""
    chosen = []
    for src_uri, sections in nav:
        wanted = (meta.get(src_uri) or {}).get("path")
        in_path = wanted is True or (wanted is not False and SECTION in sections)
        if in_path and src_uri not in chosen:
            chosen.append(src_uri)
    return chosen


def path_record(lessons: list[Lesson], print_url: str | None) -> dict[str, Any]:
    """What every page carries of the path (URLs from the site's root)."""
    lessons_data = [{"url": x.url, "title": x.title, "quizzes": x.quizzes} for x in lessons]
    return {"print": print_url, "lessons": lessons_data}


def read_record(data: Any) -> dict[str, Any] | None:
    """A :func:`path_record` read back from JSON; None unless it has its shape."""
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
    """JSON ``text`` no HTML parser ends early (``</script>``) or runs on (``<!--<script>``):
    ``<``, ``>``, ``&``, U+2028 and U+2029 written as JSON's escapes.

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


# --- the print page ----------------------------------------------------------------------------

PRINT_PAGE = "print.md"
TITLE = "The whole path, to print"
TOP = "the-whole-path-to-print"  # the title's id, as toc makes it

FRONT_MATTER = f"""---
title: {TITLE}
description: >-
  Every lesson of the learning path on one page, with its quiz answers and the glossary,
  to print or save as PDF.
search:
  exclude: true
hide:
  - toc
---
"""
PRINT_MARKDOWN = f"""{FRONT_MATTER}
# {TITLE}

Every lesson of the learning path, made when the site is built.
"""

_HEADERLINK = re.compile(r'<a class="headerlink" href="[^"]*" title="Permanent link">[^<]*</a>')
_HEADING = re.compile(r"<(/?)h([1-5])\b")
_ID = re.compile(r'(\s(?:id|for))="([^"]+)"')
_IDREFS = re.compile(r'(\saria-(?:describedby|labelledby|controls))="([^"]+)"')
_FRAGMENT = re.compile(r'((?:\s|xlink:)href)="#([^"]*)"')
_URL_REF = re.compile(r"url\(#([^)]+)\)")
_LINK = re.compile(r'(\s(?:href|src))="([^"#][^"]*)"')
_QUIZ = re.compile(r'<div class="lk-quiz" [^>]*\bid="[^"]*">(.*?)</noscript>\s*</div>', re.S)
_RESULT = re.compile(r'<div class="lk-quiz-result".*?</button>\s*</div>', re.S)
_NOT_ID = re.compile(r"[^\w-]+")
_USED_ON = re.compile(r'<p class="lk-entry__used">.*?</p>', re.S)


HOME = "index.md"  # the page that links to the print page


def home_link(home: str = HOME) -> str:
    """The home page's link to the print page, appended by every host.

    >>> "[the whole path on one page](print.md)" in home_link()
    True
    """
    target = posixpath.relpath(PRINT_PAGE, posixpath.dirname(home) or ".")
    return (
        f"\n\nTo read the path offline or on paper, open [the whole path on one page]({target}): "
        "every lesson in order, the quiz answers in an appendix and the glossary, ready for your "
        'browser\'s print dialog or "Save as PDF".\n'
    )


def print_markdown() -> str:
    """The print page's Markdown: a title the host converts; :func:`print_html` fills it."""
    return PRINT_MARKDOWN


def print_page_file(html: str) -> str:
    """The print page as a file of the docs, for a host without plugins."""
    return f"{FRONT_MATTER}\n{html}\n"


def made_html(body: str) -> str:
    """The content of a :func:`print_page_file`, from the file's body."""
    return body.strip("\n")


def slug_of(url: str) -> str:
    """An id prefix for a page's URL: letters, digits, ``_`` and ``-`` only.

    >>> slug_of("building-blocks/attention-in-numbers/"), slug_of(""), slug_of('a"><b>/')
    ('building-blocks-attention-in-numbers', 'home', 'a-b')
    """
    return _NOT_ID.sub("-", url.replace(".html", "")).strip("-") or "home"


def print_html(
    lessons: list[Lesson], glossary: Lesson | None, site_url: str, print_url: str = "print/"
) -> str:
    """The print page's content: a contents list, every lesson, the answers, the glossary."""
    inside = {_path(x.url): slug_of(x.url) for x in [*lessons, *([glossary] if glossary else [])]}
    answers: list[str] = []
    parts = []
    for lesson in lessons:
        slug = slug_of(lesson.url)
        body = _page_body(lesson, slug, inside, site_url, print_url)
        body = _cut_quizzes(body, lesson.title, answers)
        parts.append(f'<section class="lk-print__lesson" id="{slug}">\n{body}\n</section>')
    contents = [(slug_of(x.url), x.title) for x in lessons]
    if answers:
        contents.append(("answers", "Quiz answers and explanations"))
        parts.append(
            '<section class="lk-print__answers" id="answers">\n'
            "<h2>Quiz answers and explanations</h2>\n" + "\n".join(answers) + "\n</section>"
        )
    if glossary:  # without its "used on" lists
        words = glossary._replace(html=_USED_ON.sub("", glossary.html))
        body = _page_body(words, "glossary", inside, site_url, print_url)
        parts.append(f'<section class="lk-print__glossary" id="glossary">\n{body}\n</section>')
        contents.append(("glossary", glossary.title))
    items = "".join(f'<li><a href="#{s}">{htmlmod.escape(t)}</a></li>' for s, t in contents)
    toc = f'<nav class="lk-print__contents" aria-label="Contents"><ol>{items}</ol></nav>'
    head = (
        f'<h1 id="{TOP}">{TITLE}</h1>\n<p class="lk-print__intro">Every lesson of the learning '
        "path in order, then the quiz answers and the glossary. Print this page or save it as "
        "PDF from your browser's print dialog; each link's address is printed after it.</p>"
    )
    return "\n".join([head, toc, *parts])


def _path(url: str) -> str:
    return "/" + url.lstrip("/")


def _page_body(
    page: Lesson, slug: str, inside: dict[str, str], site_url: str, print_url: str
) -> str:
    """A page's HTML with its ids, headings and links made to live in the print page."""
    html = _HEADERLINK.sub("", page.html)
    html = _RESULT.sub("", html)
    html = _HEADING.sub(lambda m: f"<{m[1]}h{int(m[2]) + 1}", html)
    html = _ID.sub(lambda m: f'{m[1]}="{slug}--{m[2]}"', html)
    html = _IDREFS.sub(
        lambda m: m[1] + '="' + " ".join(f"{slug}--{i}" for i in m[2].split()) + '"', html
    )
    html = _FRAGMENT.sub(lambda m: f'{m[1]}="#{slug}--{m[2]}"', html)
    html = _URL_REF.sub(lambda m: f"url(#{slug}--{m[1]})", html)
    here = _path(page.url)
    return _LINK.sub(
        lambda m: m[1] + '="' + _link(m[2], here, inside, site_url, print_url) + '"', html
    )


def _link(href: str, here: str, inside: dict[str, str], site_url: str, print_url: str) -> str:
    """Where a link of a page points from the print page.

    >>> inside = {"/a/": "a"}
    >>> _link("../a/#x", "/b/", inside, "https://s.io/site/", "print/")
    '#a--x'
    >>> _link("../c/", "/b/", inside, "https://s.io/site/", "print/")
    'https://s.io/site/c/'
    >>> _link("https://e.org/", "/b/", inside, "", "print/")
    'https://e.org/'
    >>> _link("../c/", "/b/", inside, "", "print/")
    '../c/'
    """
    parts = urlsplit(htmlmod.unescape(href))
    if parts.scheme or parts.netloc or href.startswith("mailto:"):
        return href
    target = normpath(urljoin(here, parts.path)) + ("/" if parts.path.endswith("/") else "")
    target = target.replace("//", "/")
    if target in inside:
        slug = inside[target]
        return htmlmod.escape(f"#{slug}--{parts.fragment}" if parts.fragment else f"#{slug}")
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    if site_url:
        return htmlmod.escape(urljoin(site_url, target.lstrip("/")) + fragment)
    up = "../" * print_url.strip("/").count("/") + ("../" if print_url.strip("/") else "")
    return htmlmod.escape(up + target.lstrip("/") + fragment)


def _cut_quizzes(html: str, title: str, answers: list[str]) -> str:
    """Each quiz as its question and options; its answers appended to ``answers``."""

    def cut(m: re.Match[str]) -> str:
        n = len(answers) + 1
        inner = m[1]
        legend = _between(inner, "<legend>", "</legend>")
        context = _between(inner, "</legend>", '<div class="lk-quiz__option">')
        labels = re.findall(r'<label for="[^"]*">(.*?)</label>', inner, re.S)
        answer_list = _between(inner, "</summary>", "</details>")
        options = "".join(f"<li>{label}</li>" for label in labels)
        answers.append(
            f'<section class="lk-print__answer" id="answer-{n}">\n'
            f"<h3>Question {n}: {htmlmod.escape(title)}</h3>\n<p>{legend}</p>\n{answer_list}"
            "\n</section>"
        )
        return (
            f'<div class="lk-print__quiz">\n<p class="lk-print__question"><strong>Question '
            f'{n}.</strong> {legend}</p>\n{context}\n<ol type="a">{options}</ol>\n'
            f'<p class="lk-print__see">Answer and explanations: <a href="#answer-{n}">'
            f"question {n} in the appendix</a>.</p>\n</div>"
        )

    return _QUIZ.sub(cut, html)


def _between(text: str, start: str, end: str) -> str:
    """The text between the first ``start`` and the next ``end`` ('' if either is missing)."""
    a = text.find(start)
    if a < 0:
        return ""
    a += len(start)
    b = text.find(end, a)
    return text[a:b].strip() if b >= 0 else ""
