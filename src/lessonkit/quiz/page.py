"""Page-wide quiz work: refuse unparsed or unclosed quizzes, add the result line, seal answers."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as etree
from collections.abc import Iterator
from itertools import takewhile

from lessonkit.core.problems import LessonError, Problem

from .check import RE_OPTIONS_LINE, header_problems
from .rules import PENDING, RULES, SEAL_TAG, opening, problem, quote, unsafe_link

RE_LEFTOVER = re.compile(r"(?m)^ {0,3}/{3,} *quiz(?![\w-]).*$", re.I)
RE_SEALED = re.compile(f'<{SEAL_TAG} data-lk-seal="([^"]+):([01])">(.*?)</{SEAL_TAG}>', re.S)
RE_QUIZ_HTML = re.compile(r'<div class="lk-quiz"[ >].*?</noscript>', re.S)
"""A finished quiz in a page's HTML, up to the end of its no-JavaScript answers."""
RE_URL = re.compile(r'\s(?:href|src)="([^"]*)"')
SKIP = frozenset({"pre", "code", "script", "style"})
LEFT = RULES["leftover"][0].partition("{")[0]


def seal(key: str, correct: bool, html: str) -> str:
    """An option's verdict and feedback XORed with a keystream of ``key``, in base64.

    Hides answers from a glance at the source, not from anyone: ``30-quiz.js`` decodes it.

    >>> sealed = seal("quiz-1a2b3c4d:2", True, "<p>Right: yes.</p>")
    >>> b"Right" in base64.b64decode(sealed), unseal("quiz-1a2b3c4d:2", sealed)
    (False, (True, '<p>Right: yes.</p>'))
    >>> seal("quiz-1a2b3c4d:1", True, "") != seal("quiz-1a2b3c4d:2", True, "")
    True
    """
    data = (("1" if correct else "0") + html).encode()
    return base64.b64encode(_xor(data, key)).decode("ascii")


def unseal(key: str, sealed: str) -> tuple[bool, str]:
    """The verdict and feedback HTML that :func:`seal` encoded under ``key``."""
    text = _xor(base64.b64decode(sealed), key).decode()
    return text[0] == "1", text[1:]


def keystream(key: str, length: int) -> bytes:
    """xorshift32 seeded by FNV-1a of ``key`` (mirrored in ``30-quiz.js``).

    >>> keystream("quiz-1a2b3c4d:1", 4).hex()
    '773c143c'
    """
    mask = 0xFFFFFFFF
    state = 0x811C9DC5
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


def finish_page(root: etree.Element, found: list[Problem]) -> None:
    """Raise LessonError for a ``/// quiz`` left as text or never closed, or for what the source
    check ``found``; else add the result line ("You got 0 of N right.") after the last quiz."""
    problems: list[Problem] = []
    quizzes = []
    for el in _walk(root):
        if el.get("class") == "lk-quiz":
            if PENDING in el.attrib:
                name, near = opening(el)
                problems.append(problem("unclosed", near=near, text=name))
            else:
                quizzes.append(el)
        problems += _leftover(el.text or "") + _leftover(el.tail or "")
    if found:  # a quiz left as text first, then each reason once
        left = [p for p in problems if p.message.startswith(LEFT)]
        raise LessonError({p.message: p for p in left + found}.values())
    if problems:
        raise LessonError(problems)
    if quizzes:
        last = quizzes[-1]
        parent = next(p for p in root.iter() if last in list(p))
        result = etree.Element("div", {"class": "lk-quiz-result", "hidden": "hidden"})
        score = etree.SubElement(result, "p", {"class": "lk-quiz-result__score"})
        score.text = f"You got 0 of {len(quizzes)} right."
        attrs = {"type": "button", "class": "lk-quiz-result__reset"}
        etree.SubElement(result, "button", attrs).text = "Reset answers"
        parent.insert(list(parent).index(last) + 1, result)


def _walk(el: etree.Element) -> Iterator[etree.Element]:
    """``el`` and every element under it outside code, scripts and styles, in document order."""
    yield el
    for child in el:
        if child.tag not in SKIP:
            yield from _walk(child)


def _leftover(text: str) -> list[Problem]:
    """Problems for a ``/// quiz`` line found in rendered text: the block was not parsed."""
    m = RE_LEFTOVER.search(text)
    if m is None:
        return []
    header, *rest = text[m.start() :].split("\n")
    near = header.strip()
    reasons = header_problems(header, list(takewhile(RE_OPTIONS_LINE.match, rest)), None)
    return [problem("leftover", near=near, text=quote(header))] + [
        r._replace(near=near) for r in reasons
    ]


def seal_options(text: str) -> str:
    """Seal each option's feedback in a page's final HTML; refuse a link in a quiz whose scheme
    a browser would run (the feedback is shown by script, in the reader's page).

    >>> seal_options('<div class="lk-quiz"><a href="JavaScript&#58;x">y</a></noscript>')
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: <markdown>: error: a quiz links to 'JavaScript&#58;x', \
a javascript: URL a browser would run
      hint: link with https://, mailto: or a path relative to the page
    """
    problems = [
        found
        for quiz in RE_QUIZ_HTML.finditer(text)
        for url in RE_URL.findall(quiz[0])
        if (found := unsafe_link(url))
    ]
    if problems:
        raise LessonError(dict.fromkeys(problems))

    def replace(m: re.Match[str]) -> str:
        value = seal(m[1], m[2] == "1", m[3].strip())
        return f'<data class="lk-quiz__seal" value="{value}"></data>'

    return RE_SEALED.sub(replace, text)
