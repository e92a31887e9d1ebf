"""Read a lesson source as MkDocs and Python-Markdown do.

>>> split_front_matter("---\\ntitle: T\\n---\\n\\n# T\\n")
('# T\\n', {'title': 'T'}, 4)
>>> split_source("---\\ntitle: [broken\\n---\\n\\n# T\\n")
Split(body='# T\\n', offset=4, front_matter='title: [broken\\n')
>>> normalized("a\\tb\\n   \\nc")
'a   b\\n\\nc\\n\\n'
"""

from __future__ import annotations

import datetime
import re
import reprlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

import yaml
from markdown.preprocessors import NormalizeWhitespace
from markdown.util import ETX, STX

from lessonkit.core.problems import LessonError, Problem

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's when there
_NORMALIZE = NormalizeWhitespace(SimpleNamespace(tab_length=4))  # type: ignore[arg-type]
_NORMALIZED_AWAY = (STX, ETX, "\r", "\t", " \n")  # what it changes (" \n": blank lines)
_FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)


class Split(NamedTuple):
    """A page's source cut at its front matter: ``offset`` lines precede the body;
    ``front_matter`` is the YAML unread, None when there is none."""

    body: str
    offset: int
    front_matter: str | None


def read_source(file: Path, where: str) -> str:
    """The UTF-8 text of ``file``; LessonError naming ``where`` and the first bad byte's line.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     file = Path(folder, "a.md")
    ...     _ = file.write_bytes(b"# Caf\\xc3\\xa9\\n\\nna\\xefve\\n")
    ...     read_source(file, "docs/a.md")
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: docs/a.md:3: error: the file is not UTF-8 text: byte \
0xef at column 3 of line 3 is not UTF-8
      hint: save the file as UTF-8 (in an editor: save with encoding UTF-8; or iconv -f latin1 \
-t utf-8 FILE)
    """
    try:
        data = file.read_bytes()
    except OSError as error:
        message = f"cannot read the file: {error.strerror or error}"
        raise LessonError([Problem(message, path=where)]) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[start : error.start].decode(errors="replace")) + 1
        message = (
            f"the file is not UTF-8 text: byte 0x{data[error.start]:02x} at column {column} of "
            f"line {line} is not UTF-8"
        )
        hint = (
            "save the file as UTF-8 (in an editor: save with encoding UTF-8; or iconv -f latin1 "
            "-t utf-8 FILE)"
        )
        raise LessonError([Problem(message, line, hint, path=where)]) from None


def split_source(text: str) -> Split:
    """Cut ``text`` where MkDocs does when its front matter reads as a mapping."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return Split(text, 0, None)
    body = text[match.end() :].lstrip("\n")
    return Split(body, text[: len(text) - len(body)].count("\n"), match[1])


def read_front_matter(yaml_text: str) -> dict[str, Any]:
    """The front matter's keys and values; LessonError (at its file line) unless a mapping.

    >>> read_front_matter("title: T\\n")
    {'title': 'T'}
    >>> read_front_matter("# a comment\\n")
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: <markdown>:2: error: front matter is empty
      hint: remove the --- lines, or write key: value lines between them, e.g. title: T
    >>> read_front_matter("title: T\\nsummary: 'never closed\\n")
    Traceback (most recent call last):
    lessonkit.core.problems.LessonError: <markdown>:4: error: invalid YAML front matter: found \
unexpected end of stream (while scanning a quoted scalar that starts at line 3, column 10)
      hint: fix the YAML between ---
    """
    lines = "key: value lines between them, e.g. title: T"
    try:
        meta = yaml.load(yaml_text, Loader=_SAFE_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 2 if mark else 2
        message = f"invalid YAML front matter: {_yaml_message(error)}"
        raise LessonError([Problem(message, line, _FIX)]) from None
    except (yaml.YAMLError, ValueError) as error:  # ValueError: e.g. a date like 2024-02-30
        line = _unreadable_value_line(yaml_text)
        raise LessonError([Problem(f"invalid YAML front matter: {error}", line, _FIX)]) from None
    if meta is None:
        hint = f"remove the --- lines, or write {lines}"
        raise LessonError([Problem("front matter is empty", 2, hint)])
    if not isinstance(meta, dict):
        hint = f"write {lines.replace('them', 'the --- lines')}"
        raise LessonError([Problem("front matter must be a mapping of keys to values", 2, hint)])
    return meta


_FIX = "fix the YAML between ---"


def _yaml_message(error: yaml.MarkedYAMLError) -> str:
    """PyYAML's message, with the file's line numbers."""
    message = error.problem or error.context or "cannot read it"
    start, at = error.context_mark, error.problem_mark
    elsewhere = start and (at is None or (start.line, start.column) != (at.line, at.column))
    if error.context and error.problem and elsewhere:
        message += f" ({error.context} that starts at line {start.line + 2}, column "
        message += f"{start.column + 1})"
    return message


def _unreadable_value_line(yaml_text: str) -> int:
    """The file line of the first value YAML cannot make (2 if none is found).

    >>> _unreadable_value_line("title: T\\ndate: 2024-02-30\\n")
    3
    """
    loader = _SAFE_LOADER(yaml_text)
    try:
        nodes = [loader.get_single_node()]
        while nodes:
            node = nodes.pop(0)
            if isinstance(node, yaml.ScalarNode):
                try:
                    loader.construct_object(node)
                except ValueError:
                    return node.start_mark.line + 2
            elif isinstance(node, yaml.MappingNode):
                nodes[:0] = [n for pair in node.value for n in pair]
            elif isinstance(node, yaml.SequenceNode):
                nodes[:0] = node.value
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return 2


SIZE_LIMIT = 100_000  # values and characters, aliases expanded: stops an alias bomb
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 60


def shown(value: Any) -> str:
    """``value`` for a message: its ``repr``, cut short however large it is.

    >>> shown("x" * 100)[-8:], shown(list(range(100)))
    ("xxxxx...'", '[0, 1, 2, 3, 4, 5, ...]')
    """
    return _SHOWN.repr(value)


def expanded_size(value: Any, limit: int = SIZE_LIMIT) -> int:
    """Values and characters in ``value``, aliases counted where used; stops past ``limit``.

    >>> expanded_size({"title": "T", "tags": ["a", "bc"]})
    20
    >>> bomb = ["lol"] * 9
    >>> for _ in range(6):
    ...     bomb = [bomb] * 9
    >>> expanded_size(bomb) > SIZE_LIMIT
    True
    """
    size, stack = 0, [value]
    while stack and size <= limit:
        item = stack.pop()
        size += 1
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            size += len(item)
    return size


def text_problem(name: str, value: Any, limit: int) -> Problem | None:
    """Why ``value`` is not text of at most ``limit`` characters (line unset); None if it is.

    >>> print(text_problem("title", datetime.date(2024, 1, 2), 200).format())
    <markdown>: error: title must be text, not a date (2024-01-02)
      hint: put it in quotes, title: "2024-01-02", so YAML reads it as text
    >>> text_problem("note", "x" * 501, 500).message
    'note is 501 characters long, more than 500'
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return None
        hint = f"say it in at most {limit} characters"
        return Problem(f"{name} is {len(value)} characters long, more than {limit}", hint=hint)
    kinds = {bool: "true or false", int: "a number", float: "a number", list: "a list"}
    kinds |= {dict: "a mapping", datetime.date: "a date", datetime.datetime: "a date"}
    kind = kinds.get(type(value), type(value).__name__)
    if kind in ("true or false", "a number", "a date"):
        written = str(value).lower() if isinstance(value, bool) else str(value)
        hint = f'put it in quotes, {name}: "{written}", so YAML reads it as text'
        return Problem(f"{name} must be text, not {kind} ({written})", hint=hint)
    return Problem(f"{name} must be text, not {kind} {shown(value)}", hint="write one line of text")


def split_front_matter(text: str) -> tuple[str, dict[str, Any], int]:
    """Return the body, the front matter and how many lines precede the body in ``text``."""
    split = split_source(text)
    if split.front_matter is None:
        return text, {}, 0
    return split.body, read_front_matter(split.front_matter), split.offset


def normalized(body: str) -> str:
    """``body`` as Python-Markdown's NormalizeWhitespace hands it on; most pages need only the
    two newlines (~35 ms of a warm 200-page build, `scripts/benchmark.py --pages 200`)."""
    if not body.endswith(" ") and not any(mark in body for mark in _NORMALIZED_AWAY):
        return body + "\n\n"
    return "\n".join(_NORMALIZE.run(body.split("\n")))


def key_line(text: str, key: str) -> int:
    """The 1-based line of front matter key ``key`` in ``text`` (1 when it is not there)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    return next((n for n, line in enumerate(text.splitlines(), 1) if pattern.match(line)), 1)
