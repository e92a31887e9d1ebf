"""Glossary terms in prose: the first use of each term on a page becomes a tooltip link.

``[[term]]`` forces a link, ``[[term|shown]]`` shows other words, ``[[!word]]`` links nothing;
code, headings, links and elements of class ``lk-no-glossary`` are never linked. A "Words on this
page (N)" box follows the lead paragraph.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from pathlib import Path

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from lessonkit.core.problems import LessonError
from lessonkit.glossary.checks import MARK_RE, unknown_term
from lessonkit.glossary.terms import Glossary, Term, load

SKIP_TAGS = frozenset(
    {"a", "code", "pre", "kbd", "samp", "script", "style", "summary", "button", "abbr", "math"}
    | {"svg", "textarea", "select", "label", "h1", "h2", "h3", "h4", "h5", "h6"}
    | {"table"}  # Material scrolls tables in an overflow box, which would clip a tooltip
)
SKIP_CLASSES = frozenset(  # a quiz gets no links: a definition could give its answer away
    {"admonition-title", "arithmatex", "lk-term", "lk-words", "lk-no-glossary", "lk-quiz"}
)
MARKER = "data-lk-glossary"


class _MarkProcessor(InlineProcessor):
    """Turns ``[[...]]`` into a marker span the treeprocessor resolves in document order."""

    def __init__(self, md: Markdown, glossary: Glossary) -> None:
        super().__init__(MARK_RE, md)
        self.glossary = glossary

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[etree.Element, int, int]:
        suppress, target, shown = m.group(1), " ".join(m.group(2).split()), m.group(3)
        el = etree.Element("span")
        el.text = AtomicString(" ".join((shown or target).split()))
        if suppress:
            el.set(MARKER, "suppress")
            return el, m.start(0), m.end(0)
        term = self.glossary.lookup(target)
        if term is None:
            found = unknown_term(m.group(0), target, self.glossary)
            raise LessonError([found._replace(near=m.group(0))])  # placed by the page
        el.set(MARKER, "force")
        el.set("data-lk-id", term.id)
        return el, m.start(0), m.end(0)


class _TermTreeprocessor(Treeprocessor):
    """Links first uses, resolves forced and suppressed marks, adds the words box."""

    def __init__(self, md: Markdown, glossary: Glossary, href: str, words_box: bool) -> None:
        super().__init__(md)
        self.glossary, self.href, self.words_box = glossary, href, words_box

    def run(self, root: etree.Element) -> None:
        items: list[tuple[str, etree.Element, etree.Element | None]] = []
        unwrap: list[tuple[etree.Element, etree.Element]] = []
        self._collect(root, items, unwrap)
        forced = {el.get("data-lk-id") for kind, el, _ in items if kind == "force"}
        used: dict[str, Term] = {}  # by id, in order of first use (a dict: linear in marks)
        tips = _TipIds()
        for kind, el, parent in items:
            if kind == "force":
                term = self.glossary[el.get("data-lk-id", "")]
                self._make_term(el, term, el.text or term.name, tips)
                used.setdefault(term.id, term)
                continue
            text = el.text if kind == "text" else el.tail
            chosen = []
            for match in self.glossary.find(text or ""):
                if match.term.id not in forced and match.term.id not in used:
                    used[match.term.id] = match.term
                    chosen.append(match)
            if chosen:
                self._splice(el, kind, parent, text or "", chosen, tips)
        _unwrap_all(unwrap)
        if used and self.words_box:
            self._insert_box(root, list(used.values()))

    def _collect(self, parent: etree.Element, items: list, unwrap: list, link: bool = True) -> None:
        """Text nodes and marks in document order; ``link`` is False inside skipped elements."""
        if link and parent.text:
            items.append(("text", parent, None))
        for child in parent:
            mark = child.get(MARKER)
            if mark == "force" and link:
                items.append(("force", child, parent))
            elif mark:
                unwrap.append((child, parent))
            else:
                classes = set((child.get("class") or "").split())
                skip = child.tag in SKIP_TAGS or bool(classes & SKIP_CLASSES)
                self._collect(child, items, unwrap, link and not skip)
            if link and child.tail:
                items.append(("tail", child, parent))

    def _splice(self, el, kind, parent, text, matches, tips: _TipIds) -> None:
        """Replace each match in ``el``'s text (or tail) by a term element."""
        new = []
        for i, match in enumerate(matches):
            term_el = etree.Element("span")
            self._make_term(term_el, match.term, match.text, tips)
            end = matches[i + 1].start if i + 1 < len(matches) else len(text)
            term_el.tail = text[match.end : end]
            new.append(term_el)
        if kind == "text":
            el.text = text[: matches[0].start]
            el[0:0] = new
        else:
            el.tail = text[: matches[0].start]
            at = list(parent).index(el) + 1
            parent[at:at] = new

    def _make_term(self, el: etree.Element, term: Term, shown: str, tips: _TipIds) -> None:
        """Make ``el`` the tooltip trigger for ``term`` (keeping its tail)."""
        tip_id = tips.new(term.id)
        el.tag, el.text = "span", None
        el.attrib.clear()
        el.set("class", "lk-term")
        href = self.href.format(id=term.id)
        attrs = {"aria-describedby": tip_id, "class": "lk-term__link", "data-lk-term": term.id}
        etree.SubElement(el, "a", {**attrs, "href": href}).text = AtomicString(shown)
        tip = etree.SubElement(
            el, "span", {"class": "lk-term__tip", "id": tip_id, "role": "tooltip"}
        )
        tip.text = self.md.htmlStash.store(term.html)

    def _insert_box(self, root: etree.Element, used: list[Term]) -> None:
        """``<details>`` "Words on this page (N)" after the first paragraph after the h1."""
        children = list(root)
        h1 = next((i for i, c in enumerate(children) if c.tag == "h1"), -1)
        lead = next((i for i, c in enumerate(children) if i > h1 and c.tag == "p"), None)
        box = etree.Element("details", {"class": "lk-words abstract"})
        etree.SubElement(box, "summary").text = f"Words on this page ({len(used)})"
        dl = etree.SubElement(box, "dl")
        for term in used:
            link = etree.SubElement(
                etree.SubElement(dl, "dt"), "a", {"href": self.href.format(id=term.id)}
            )
            link.text = AtomicString(term.name)
            etree.SubElement(dl, "dd").text = self.md.htmlStash.store(term.html)
        root.insert(lead + 1 if lead is not None else h1 + 1, box)


class _TipIds:
    """Tooltip ids unique on the page; each term resumes its numbering (linear in marks).

    >>> tips = _TipIds()
    >>> [tips.new("a"), tips.new("a"), tips.new("a-2"), tips.new("a")]
    ['lk-tip-a', 'lk-tip-a-2', 'lk-tip-a-2-2', 'lk-tip-a-3']
    """

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.last: dict[str, int] = {}

    def new(self, term_id: str) -> str:
        n = self.last.get(term_id, 1)  # every number below it is taken already
        while (tip_id := f"lk-tip-{term_id}" + (f"-{n}" if n > 1 else "")) in self.taken:
            n += 1
        self.last[term_id] = n
        self.taken.add(tip_id)
        return tip_id


def _unwrap_all(marks: list[tuple[etree.Element, etree.Element]]) -> None:
    """Replace each mark element by its text; one pass over each parent (linear in marks)."""
    by_parent: dict[etree.Element, set[etree.Element]] = {}
    for el, parent in marks:
        by_parent.setdefault(parent, set()).add(el)
    for parent, gone in by_parent.items():
        kept: list[etree.Element] = []
        for child in list(parent):
            if child not in gone:
                kept.append(child)
                continue
            text = (child.text or "") + (child.tail or "")
            if kept:
                kept[-1].tail = (kept[-1].tail or "") + text
            else:
                parent.text = (parent.text or "") + text
        parent[:] = kept


class GlossaryExtension(Extension):
    """Link glossary terms on first use, with accessible tooltips and a per-page word list."""

    def __init__(self, **kwargs: object) -> None:
        self.config = {
            "glossary": ["", "a Glossary, or the path of a glossary YAML file"],
            "href": ["/glossary.md#{id}", "a term's link target; {id} becomes the term's id"],
            "words_box": [True, "add 'Words on this page (N)' after the lead paragraph"],
        }
        super().__init__(**kwargs)
        value = self.getConfig("glossary")
        if isinstance(value, Glossary):
            self.glossary = value
        elif isinstance(value, Path) or (isinstance(value, str) and value):
            self.glossary = load(value)
        else:
            raise TypeError("GlossaryExtension needs glossary=<Glossary or path to YAML>")

    def extendMarkdown(self, md: Markdown) -> None:
        md.inlinePatterns.register(_MarkProcessor(md, self.glossary), "lk_glossary", 175)
        # After 'inline' (20) so text is final; before prettify (10), attr_list (8), abbr (7).
        processor = _TermTreeprocessor(
            md, self.glossary, str(self.getConfig("href")), bool(self.getConfig("words_box"))
        )
        md.treeprocessors.register(processor, "lk_glossary", 15)
        md.registerExtension(self)


def makeExtension(**kwargs: object) -> GlossaryExtension:
    return GlossaryExtension(**kwargs)
