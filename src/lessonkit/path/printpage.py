"""The whole learning path as one page to print, made at build from the pages' own HTML.

Headings move one level down; ids get the lesson's prefix; links into the path stay inside the
page, other site links become absolute; quiz answers go to an appendix; the glossary comes last.
"""

from __future__ import annotations

import html as htmlmod
import posixpath
import re
from posixpath import normpath
from urllib.parse import urljoin, urlsplit

from .lessons import Lesson

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
