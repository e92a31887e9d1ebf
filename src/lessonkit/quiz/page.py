"""Page-wide quiz work: refuse unparsed or unclosed quizzes, add the result line, seal answers."""

from __future__ import annotations

import base64
import html
import re
import xml.etree.ElementTree as etree
from collections.abc import Iterator
from itertools import takewhile

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.urls import HINT, unsafe_scheme

from .check import RE_OPTIONS_LINE, header_problems
from .rules import NO_QUESTION, PENDING, SEAL_TAG, first_line, problem, quote, text_of

RE_LEFTOVER = re.compile(r"(?m)^ {0,3}/{3,} *quiz(?![\w-]).*$", re.I)
RE_SEALED = re.compile(f'<{SEAL_TAG} data-lk-seal="([^"]+):([01])">(.*?)</{SEAL_TAG}>', re.S)
RE_QUIZ_HTML = re.compile(r'<div class="lk-quiz"[ >].*?</noscript>', re.S)
"""A finished quiz in a page's HTML: its question, options and (in <noscript>) all feedback."""
RE_URL = re.compile(r'\s(?:href|src)="([^"]*)"')
SKIP = frozenset({"pre", "code", "script", "style"})


def seal(key: str, correct: bool, html: str) -> str:
    """Encode an option's verdict and feedback HTML under ``key`` (the option's id), in base64.

    The bytes are XORed with a keystream that depends on ``key`` (xorshift32 seeded by FNV-1a of
    ``key``), so equal feedback or equal verdicts do not look alike across options. This hides
    answers from a glance at the page source; it is not encryption: ``lessonkit.js`` decodes it
    the same way, and anyone can.

    >>> sealed = seal("quiz-1a2b3c4d:2", True, "<p>Right: yes.</p>")
    >>> b"Right" in base64.b64decode(sealed)
    False
    >>> seal("quiz-1a2b3c4d:1", True, "") != seal("quiz-1a2b3c4d:2", True, "")
    True
    >>> unseal("quiz-1a2b3c4d:2", sealed)
    (True, '<p>Right: yes.</p>')
    """
    data = (("1" if correct else "0") + html).encode()
    return base64.b64encode(_xor(data, key)).decode("ascii")


def unseal(key: str, sealed: str) -> tuple[bool, str]:
    """The verdict and feedback HTML that :func:`seal` encoded under ``key``."""
    text = _xor(base64.b64decode(sealed), key).decode()
    return text[0] == "1", text[1:]


def keystream(key: str, length: int) -> bytes:
    """``length`` pseudo-random bytes determined by ``key`` (mirrored in ``30-quiz.js``).

    >>> keystream("quiz-1a2b3c4d:1", 4).hex()
    '773c143c'
    """
    mask = 0xFFFFFFFF
    state = 0x811C9DC5  # FNV-1a offset basis
    for byte in key.encode():
        state = ((state ^ byte) * 0x01000193) & mask
    state = state or 1
    out = bytearray()
    for _ in range(length):
        state ^= (state << 13) & mask
        state ^= state >> 17
        state ^= (state << 5) & mask
        out.append(state & 0xFF)
    return bytes(out)


def _xor(data: bytes, key: str) -> bytes:
    return bytes(a ^ b for a, b in zip(data, keystream(key, len(data)), strict=True))


def finish_page(root: etree.Element) -> None:
    """Raise LessonError for a ``/// quiz`` left as text or never closed; else add the result
    line ("You got 0 of N right.", hidden until JavaScript runs) after the page's last quiz."""
    if not any(_may_matter(el) for el in root.iter()):
        return  # no quiz and no "///" anywhere: nothing to check or add
    problems: list[Problem] = []
    quizzes = []
    for el in _walk(root):
        if el.get("class") == "lk-quiz":
            if PENDING in el.attrib:
                first = next(el.iter("p"), None)
                name = NO_QUESTION if first is None else quote(text_of(first))
                near = "" if first is None else first_line(first.text or "")
                problems.append(problem("unclosed", near=near, text=name))
            else:
                quizzes.append(el)
        for text in (el.text, el.tail):
            if text and "///" in text:  # what a leftover line starts with (build speed)
                problems += _leftover(text)
    if problems:
        raise LessonError(problems)
    if quizzes:
        parents = {child: parent for parent in root.iter() for child in parent}
        last = quizzes[-1]
        parent = parents[last]
        parent.insert(list(parent).index(last) + 1, result_line(len(quizzes)))


def result_line(total: int) -> etree.Element:
    """The page's score and reset button, hidden until JavaScript keeps them up to date."""
    result = etree.Element("div", {"class": "lk-quiz-result", "hidden": "hidden"})
    score = etree.SubElement(result, "p", {"class": "lk-quiz-result__score"})
    score.text = f"You got 0 of {total} right."
    reset = etree.SubElement(result, "button", {"type": "button", "class": "lk-quiz-result__reset"})
    reset.text = "Reset answers"
    return result


def _may_matter(el: etree.Element) -> bool:
    """Whether ``el`` is a quiz or holds text a leftover ``/// quiz`` line could be in (a quick
    test over every element, code included, before the walk that skips code)."""
    return el.get("class") == "lk-quiz" or "///" in (el.text or "") or "///" in (el.tail or "")


def _walk(el: etree.Element) -> Iterator[etree.Element]:
    """Every element under ``el`` (itself included) outside code, scripts and styles, in
    document order (a stack, not nested generators: a warm build walks every page)."""
    stack = [el]
    while stack:
        el = stack.pop()
        yield el
        stack += [child for child in reversed(el) if child.tag not in SKIP]


def _leftover(text: str) -> list[Problem]:
    """Problems for a ``/// quiz`` line found in rendered text: the block was not parsed."""
    m = RE_LEFTOVER.search(text)
    if m is None:
        return []
    header, *rest = text[m.start() :].split("\n")
    options = list(takewhile(RE_OPTIONS_LINE.match, rest))
    reasons = header_problems(header, options, None)
    near = header.strip()
    reasons = [r._replace(near=near) for r in reasons]
    return [problem("leftover", near=near, text=quote(header)), *reasons]


def seal_options(text: str) -> str:
    """Replace each option's feedback placeholder in a page's final HTML by
    ``<data class="lk-quiz__seal" value=…>``; raise LessonError for a link in a quiz whose
    scheme a browser would run (:mod:`lessonkit.core.urls`): a quiz's feedback is shown by
    script, where a ``javascript:`` link would run in the reader's page.

    >>> seal_options('<div class="lk-quiz"><a href="JavaScript&#58;x">y</a></noscript>')
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: <markdown>: error: a quiz links to 'JavaScript&#58;x', \
a javascript: URL a browser would run
      hint: link with https://, mailto: or a path relative to the page
    """
    problems = [
        Problem(f"a quiz links to {url!r}, a {found}: URL a browser would run", hint=HINT, near=url)
        for quiz in RE_QUIZ_HTML.finditer(text)
        for url in RE_URL.findall(quiz[0])
        if (found := unsafe_scheme(html.unescape(url)))
    ]
    if problems:
        raise LessonError(dict.fromkeys(problems))

    def replace(m: re.Match[str]) -> str:
        value = seal(m[1], m[2] == "1", m[3].strip())
        return f'<data class="lk-quiz__seal" value="{value}"></data>'

    return RE_SEALED.sub(replace, text)
