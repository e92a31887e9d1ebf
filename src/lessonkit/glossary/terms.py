"""The glossary: load and validate ``glossary.yml`` (format in CONTRIBUTING.md); find its terms,
with inflections, in text. Every problem is reported at its YAML line, all at once.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lessonkit.core.problems import LessonError, Problem

FIELDS = ("term", "definition", "aliases", "related", "ambiguous", "senses", "id")
ID_RE = SENSE_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
"""An id, or a sense label: ``causal``, ``left-to-right``."""
NAME_RE = re.compile(r"^\w(?:[\w'.-]|\s(?=\w))*$")
"""A name or alias: words of letters, digits, hyphens, apostrophes and periods."""
INLINE_TAGS = frozenset({"em", "strong", "code"})
"""The only markup a definition may produce: it is shown inside a sentence and a tooltip."""


def slug(name: str) -> str:
    """The anchor of a term name.

    >>> slug("KV cache"), slug("feed-forward layer"), slug("dot product")
    ('kv-cache', 'feed-forward-layer', 'dot-product')
    """
    return "-".join(re.findall(r"[a-z0-9]+", name.casefold()))


def plural(form: str) -> str | None:
    """The regular English plural of a term's last word, or None when it may already be plural.

    >>> [plural(w) for w in ["token", "KV cache", "query", "key", "softmax", "weights"]]
    ['tokens', 'KV caches', 'queries', 'keys', 'softmaxes', None]
    """
    if not form or not form[-1].isalpha() or form.endswith("s"):
        return None
    if form.endswith(("x", "z", "ch", "sh")):
        return form + "es"
    if form.endswith("y") and len(form) > 1 and form[-2] not in "aeiou":
        return form[:-1] + "ies"
    return form + "s"


def normalize(text: str) -> str:
    """How forms are compared: case-folded, runs of whitespace as one space.

    >>> normalize("KV\\n  Caches")
    'kv caches'
    """
    return " ".join(text.split()).casefold()


def render_definition(text: str) -> str:
    """A definition's Markdown as inline HTML, raw HTML escaped; ValueError unless it is one
    paragraph of *emphasis*, **strong** and `code`.

    >>> render_definition("A *list* of `numbers` <script>alert(1)</script> & more")
    'A <em>list</em> of <code>numbers</code> &lt;script&gt;alert(1)&lt;/script&gt; &amp; more'
    """
    md = markdown.Markdown()
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(text.strip())
    body = re.fullmatch(r"<p>(.*)</p>", html, flags=re.DOTALL)
    tags = set(re.findall(r"</?([a-zA-Z][\w-]*)", body.group(1))) if body else {"p"}
    if not body or tags - INLINE_TAGS:
        raise ValueError(
            "a definition must be one short paragraph using only *emphasis*, **strong** and "
            f"`code` (found {', '.join(sorted(tags - INLINE_TAGS))})"
        )
    return body.group(1).replace("\n", " ")


@dataclass(frozen=True)
class Term:
    """One glossary entry; ``html`` is its definition rendered safely."""

    name: str
    definition: str
    aliases: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()  # forms with another sense too: linked only as [[form]]
    senses: tuple[str, ...] = ()  # the definition holds only on pages declaring all of these
    id: str = ""
    line: int | None = None  # of the entry in the glossary file
    html: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", self.id or slug(self.name))
        object.__setattr__(self, "html", render_definition(self.definition))

    @property
    def forms(self) -> tuple[str, ...]:
        """Name, aliases and their plurals, without repeats.

        >>> Term("KV cache", "Stored keys and values.", aliases=("key-value cache",)).forms
        ('KV cache', 'key-value cache', 'KV caches', 'key-value caches')
        """
        written = (self.name, *self.aliases)
        plurals = (p for p in map(plural, written) if p)
        return tuple(dict.fromkeys((*written, *plurals)))

    def is_ambiguous(self, form: str) -> bool:
        """Whether ``form`` is listed as ambiguous ("key" can be while "keys" is not)."""
        return normalize(form) in {normalize(a) for a in self.ambiguous}


@dataclass(frozen=True)
class Match:
    term: Term
    start: int
    end: int
    text: str


def _form_pattern(form: str) -> str:
    """A regex for one form: any whitespace between words; a lowercase first letter may be
    capitalised (at a sentence's start)."""
    words = [re.escape(w) for w in form.split()]
    first = form[0]
    if first.islower():
        words[0] = f"[{first}{first.upper()}]" + words[0][len(re.escape(first)) :]
    return r"\s+".join(words)


class Glossary:
    """An ordered, validated set of terms; finds them in text (longest form first)."""

    def __init__(self, terms: Iterable[Term], path: str = "glossary.yml") -> None:
        self.terms = tuple(terms)
        self.path = path
        self._by_id = {t.id: t for t in self.terms}
        self._by_form: dict[str, Term] = {}
        for term in self.terms:  # earlier terms keep a form two terms share (parse() forbids it)
            for form in term.forms:
                self._by_form.setdefault(normalize(form), term)
        auto = [
            form
            for form, term in self._by_form.items()
            if not term.is_ambiguous(form)  # ambiguous forms link only when marked [[...]]
        ]
        originals = {normalize(f): f for t in self.terms for f in reversed(t.forms)}
        alternatives = sorted((originals[f] for f in auto), key=lambda f: (-len(f), f))
        self._pattern = (
            re.compile(
                r"(?<![\w-])(?:" + "|".join(map(_form_pattern, alternatives)) + r")(?![\w-])"
            )
            if alternatives
            else None
        )

    def __iter__(self) -> Iterator[Term]:
        return iter(self.terms)

    def __len__(self) -> int:
        return len(self.terms)

    def __getitem__(self, term_id: str) -> Term:
        return self._by_id[term_id]

    def lookup(self, text: str) -> Term | None:
        """The term one of whose forms is ``text`` (any case), ambiguous forms included."""
        return self._by_form.get(normalize(text))

    def find(self, text: str) -> Iterator[Match]:
        """Every automatically linkable term in ``text``, left to right, longest form first."""
        if self._pattern is None:
            return
        for m in self._pattern.finditer(text):
            term = self._by_form[normalize(m.group(0))]
            yield Match(term, m.start(), m.end(), m.group(0))

    def suggest(self, text: str, n: int = 3) -> list[str]:
        """Names of the terms closest to ``text``, for 'did you mean' hints.

        >>> Glossary([Term("token", "t."), Term("tokenizer", "t.")]).suggest("tokeniser")
        ['tokenizer', 'token']
        """
        names = {normalize(f): t.name for t in self.terms for f in t.forms}
        close = difflib.get_close_matches(normalize(text), list(names), n=n * 3, cutoff=0.6)
        return list(dict.fromkeys(names[c] for c in close))[:n]


# --- loading and validation -------------------------------------------------------------------


def _line(node: Node) -> int:
    return node.start_mark.line + 1


@dataclass
class _Entry:
    line: int
    text: dict[str, str] = field(default_factory=dict)
    lists: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def items(self, key: str) -> list[tuple[str, int]]:
        return self.lists.get(key, [])

    def values(self, key: str) -> tuple[str, ...]:
        return tuple(value for value, _ in self.items(key))


def _strings(node: Node, key: str, problems: list[Problem]) -> list[tuple[str, int]]:
    """A YAML list of strings, each with its line."""
    if not isinstance(node, SequenceNode):
        hint = f"write {key}: [first, second]"
        problems.append(Problem(f"'{key}' must be a list", _line(node), hint))
        return []
    items = []
    for item in node.value:
        if isinstance(item, ScalarNode) and item.value.strip():
            items.append((" ".join(item.value.split()), _line(item)))
        else:
            problems.append(Problem(f"each entry of '{key}' must be non-empty text", _line(item)))
    return items


def _entry(node: Node, problems: list[Problem]) -> _Entry | None:
    if not isinstance(node, MappingNode):
        hint = "start the entry with '- term: name' and indent 'definition:' under it"
        problems.append(Problem("each glossary entry must be a mapping", _line(node), hint))
        return None
    entry = _Entry(_line(node))
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        key, line = str(key_node.value), _line(key_node)
        if key in seen:
            message = f"'{key}' is given twice in one entry (first at line {seen[key]})"
            problems.append(Problem(message, line))
            continue
        seen[key] = line
        if key not in FIELDS:
            close = difflib.get_close_matches(key, FIELDS, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"fields: {', '.join(FIELDS)}"
            problems.append(Problem(f"unknown field '{key}'", line, hint=hint))
            continue
        entry.lines[key] = _line(value_node)
        if key in ("aliases", "related", "ambiguous", "senses"):
            entry.lists[key] = _strings(value_node, key, problems)
        elif isinstance(value_node, ScalarNode):
            null = value_node.tag == "tag:yaml.org,2002:null"
            entry.text[key] = "" if null else value_node.value
        else:
            problems.append(Problem(f"'{key}' must be text, not a list or mapping", line))
    return entry


def parse(text: str, path: str = "glossary.yml") -> Glossary:
    """Validate a glossary's YAML text; raise :class:`LessonError` listing every problem by line.

    >>> parse("- term: token\\n  definition: A piece of text.\\n")["token"].line
    1
    >>> def problems(text):
    ...     try:
    ...         parse(text, "g.yml")
    ...     except LessonError as error:
    ...         return [(p.line, p.message) for p in error.problems]
    >>> problems("- term: a: b\\n")
    [(1, 'invalid YAML at column 10: mapping values are not allowed here')]
    >>> problems("- term: <b>x</b>\\n  definition: x.\\n  aliases: [ok, a*b]\\n")
    [(1, "'<b>x</b>' can't be a term name or alias"), (3, "'a*b' can't be a term name or alias")]
    >>> problems("- term: y\\n  definition: y.\\n  senses: [Left to right]\\n")
    [(3, "sense 'Left to right' must be lowercase words joined by hyphens")]
    >>> parse("- term: text\\n  definition: x.\\n  related: [tokenise]\\n- term: tokenizer\\n"
    ...       "  definition: t.\\n- term: token\\n  definition: t.\\n", "g.yml")
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: g.yml:3: error: term 'text' is related to unknown term \
'tokenise'
      hint: did you mean 'tokenizer' or 'token'?
    >>> parse("- term: token\\n  definition: ''\\n", "g.yml")
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: g.yml:2: error: term 'token' has an empty definition
      hint: write one short sentence after 'definition:'
    """
    problems: list[Problem] = []
    raw: list[tuple[Term, _Entry]] = []
    for node in _entry_nodes(_compose(text, path), path):
        entry = _entry(node, problems)
        if entry and (term := _term(entry, problems)):
            raw.append((term, entry))
    problems += _cross_check(raw)
    if problems:
        raise LessonError(
            sorted((p.at(path) for p in problems), key=lambda p: (p.line or 0, p.message))
        )
    return Glossary([term for term, _ in raw], path)


def _compose(text: str, path: str) -> Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at column {mark.column + 1}" if mark else ""
        message = f"invalid YAML{where}: {error.problem or error.context}"
        hint = "check the indentation, and quote text that contains ': ' or ' #'"
        line = mark.line + 1 if mark else None
        raise LessonError([Problem(message, line, hint, path=path)]) from None
    except yaml.YAMLError as error:
        raise LessonError([Problem(f"invalid YAML: {error}", path=path)]) from None


def _entry_nodes(root: Node | None, path: str) -> list[Node]:
    if isinstance(root, SequenceNode) and root.value:
        return root.value
    message = "the glossary must be a non-empty YAML list of terms"
    hint = "start each term with '- term: name' and give it a 'definition:'"
    line = _line(root) if root is not None else None
    raise LessonError([Problem(message, line, hint, path=path)])


def _term(entry: _Entry, problems: list[Problem]) -> Term | None:
    """The Term an entry describes, or None with its problems (only the first kind that fails)."""
    name = " ".join(entry.text.get("term", "").split())
    term_id = entry.text.get("id", "") or slug(name)
    definition_line = entry.lines.get("definition", entry.line)
    if not name:
        problems.append(Problem("entry has no 'term'", entry.line, "add 'term: name' to the entry"))
        return None
    if not entry.text.get("definition", "").strip():
        hint = "write one short sentence after 'definition:'"
        problems.append(Problem(f"term '{name}' has an empty definition", definition_line, hint))
        return None
    bad_forms = [
        Problem(
            f"'{form}' can't be a term name or alias",
            entry.lines.get("term", entry.line) if form == name else form_line,
            hint="use words of letters, digits, hyphens, apostrophes and periods",
        )
        for form, form_line in [(name, entry.line), *entry.items("aliases")]
        if not NAME_RE.match(form)
    ]
    bad_id = []
    if not ID_RE.match(term_id):
        message = f"term '{name}' has id '{term_id}', which can't be an anchor"
        hint = "use lowercase letters, digits and single hyphens, e.g. kv-cache"
        bad_id = [Problem(message, entry.lines.get("id", entry.line), hint)]
    bad_senses = [
        Problem(
            f"sense '{label}' must be lowercase words joined by hyphens",
            line,
            hint="e.g. senses: [causal] or senses: [left-to-right]",
        )
        for label, line in entry.items("senses")
        if not SENSE_RE.match(label)
    ]
    if found := bad_forms or bad_id or bad_senses:
        problems.extend(found)
        return None
    try:
        return Term(
            name=name,
            definition=entry.text.get("definition", "").strip(),
            aliases=entry.values("aliases"),
            related=entry.values("related"),
            ambiguous=entry.values("ambiguous"),
            senses=entry.values("senses"),
            id=term_id,
            line=entry.line,
        )
    except ValueError as error:
        problems.append(Problem(f"term '{name}': {error}", definition_line))
        return None


def _cross_check(raw: list[tuple[Term, _Entry]]) -> list[Problem]:
    """Ids and forms used twice; unknown related terms; stray ambiguous forms."""
    problems: list[Problem] = []
    ids: dict[str, Term] = {}
    written: dict[str, tuple[Term, int]] = {}  # a normalized form -> the first term and line
    for term, entry in raw:
        if term.id in ids:
            first = ids[term.id]
            message = f"duplicate term '{term.name}': id '{term.id}' is already used by "
            message += f"'{first.name}' at line {first.line}"
            hint = "merge the two entries, or give one of them another name"
            problems.append(Problem(message, term.line, hint))
            continue
        ids[term.id] = term
        for form, line in [(term.name, term.line), *entry.items("aliases")]:
            key = normalize(form)
            if key in written and written[key][0] is not term:
                other, other_line = written[key]
                message = f"duplicate term or alias '{form}': already used by '{other.name}' "
                hint = "each name or alias may belong to one term only"
                problems.append(Problem(message + f"at line {other_line}", line, hint))
            written.setdefault(key, (term, line))
    names = {normalize(t.name): t for t, _ in raw}
    for term, entry in raw:
        for name, line in entry.items("related"):
            if normalize(name) not in written:
                close = difflib.get_close_matches(normalize(name), list(names), n=2)
                hint = (
                    f"did you mean {' or '.join(repr(names[c].name) for c in close)}?"
                    if close
                    else "list names of other terms in this file"
                )
                message = f"term '{term.name}' is related to unknown term '{name}'"
                problems.append(Problem(message, line, hint))
        own = {normalize(f) for f in term.forms}
        problems += [
            Problem(
                f"ambiguous form '{form}' is not a form of '{term.name}'",
                line,
                hint="list its name, an alias or their plural; or add it to 'aliases'",
            )
            for form, line in entry.items("ambiguous")
            if normalize(form) not in own
        ]
    return problems


def load(path: str | Path, display_path: str | None = None) -> Glossary:
    """Read and validate a glossary file, named ``display_path`` in problems."""
    return parse(Path(path).read_text(encoding="utf-8"), display_path or str(path))


def unused(glossary: Glossary, used_ids: Iterable[str]) -> list[Problem]:
    """A warning for each term that no page uses, placed at the term's line.

    >>> g = Glossary([Term("token", "t.", line=1), Term("trace", "r.", line=4)], "g.yml")
    >>> print(unused(g, ["token"])[0].format())
    g.yml:4: warning: term 'trace' is used on no page
      hint: use it in a lesson (or link it as [[trace]]), or remove it from the glossary
    """
    used = set(used_ids)
    return [
        Problem(
            f"term '{t.name}' is used on no page",
            t.line,
            hint=f"use it in a lesson (or link it as [[{t.name}]]), or remove it from the glossary",
            severity="warning",
            path=glossary.path,
        )
        for t in glossary
        if t.id not in used
    ]
