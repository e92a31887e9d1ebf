"""Check lesson sources without building the site: fast enough to run on every save.

What is checked, with the file's own line numbers: the front matter (valid YAML, a ``title``, a
``description``, well-formed ``resources``, a true or false ``notebook``); ``python exec`` block
options, and that every block, doctest example and inline value *compiles* (nothing is
executed); quiz blocks and glossary marks (with the features' own ``check`` functions); and that
relative links to other ``.md`` pages point at pages that exist. What only running the code can
reveal (exceptions, doctest output, a format spec that does not fit its value) is left to the
build.

>>> text = "---\\ntitle: T\\ndescription: D\\n---\\n# T\\n\\n```python exec\\nx = (1,\\n```\\n"
>>> print("\\n".join(p.format() for p in check_text(text, "t.md")))
t.md:8: error: SyntaxError: '(' was never closed
  line 8: x = (1,
  hint: fix the Python syntax in this block
"""

from __future__ import annotations

import difflib
import doctest
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import split_front_matter
from lessonkit.execute.program import Program, Step, parse_program
from lessonkit.glossary import check as glossary_check
from lessonkit.glossary.terms import Glossary, load
from lessonkit.resources.cards import check_resources

QuizCheck = Callable[[str], list[Problem]]


def _quiz_check() -> QuizCheck | None:
    """The quiz extension's ``check``, or None where the extension is not installed."""
    try:
        from lessonkit.quiz import check
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("lessonkit.quiz"):
            return None
        raise
    return check


FRONT_MATTER_HINT = (
    "begin the file with front matter: a line '---', then 'title: The title' and "
    "'description: One sentence.', then '---'"
)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(?P<target><[^>\n]*>|[^\s()<>]+)"
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(?P<target><[^>\n]*>|\S+)")


@dataclass
class Context:
    """What checking a page needs to know about the site it belongs to."""

    docs_dir: Path | None = None
    glossary: Glossary | None = None
    virtual_pages: frozenset[str] = frozenset()
    """Pages that exist without a file (e.g. the generated glossary), relative to ``docs_dir``."""
    quiz_check: QuizCheck | None = field(default_factory=_quiz_check)
    _pages: list[Path] | None = None
    _links: dict[Path, list[str]] = field(default_factory=dict)

    def pages(self) -> list[Path]:
        """Every Markdown page under ``docs_dir`` (for "did you mean" hints), listed once."""
        if self._pages is None:
            found = sorted(self.docs_dir.rglob("*.md")) if self.docs_dir else []
            self._pages = found + [self.docs_dir / p for p in self.virtual_pages if self.docs_dir]
        return self._pages

    def links_from(self, folder: Path) -> list[str]:
        """Every page as a relative link from a page in ``folder`` (computed once per folder)."""
        if folder not in self._links:
            self._links[folder] = [
                os.path.relpath(p, folder).replace(os.sep, "/") for p in self.pages()
            ]
        return self._links[folder]


def check_text(
    text: str, path: str = "<markdown>", file: Path | None = None, context: Context | None = None
) -> list[Problem]:
    """Every problem in one page's source, placed in ``path`` and sorted by line.

    ``file`` is where the page lives (needed to check its relative links).
    """
    context = context or Context()
    try:
        body, meta, offset = split_front_matter(text)
    except LessonError as error:
        return [p.at(path) for p in error.problems]
    problems = front_matter_problems(meta, text)
    page = ""
    if file is not None and context.docs_dir is not None:
        page = _relative(file, context.docs_dir)
    try:
        problems += compile_problems(parse_program(body, offset, page))
    except LessonError as error:
        problems += error.problems
    shifted: list[Problem] = []
    if context.quiz_check is not None:
        shifted += context.quiz_check(body)
    if context.glossary is not None:
        shifted += glossary_check(body, context.glossary)
    problems += [p.at(path, offset) for p in shifted]
    if file is not None:
        problems += link_problems(body, offset, file, context)
    return sorted((p.at(path) for p in problems), key=lambda p: (p.line or 0, p.message))


def front_matter_problems(meta: dict[str, Any], text: str) -> list[Problem]:
    """A missing or empty ``title`` (error), a missing ``description`` (warning), resources."""
    problems = []
    title = meta.get("title")
    if "title" not in meta:
        problems.append(
            Problem(
                "the page has no title in its front matter",
                1,
                FRONT_MATTER_HINT,
            )
        )
    elif not isinstance(title, str) or not title.strip():
        line = key_line(text, "title")
        problems.append(Problem("title must be non-empty text", line, "write title: The title"))
    if "title" in meta and not str(meta.get("description") or "").strip():
        problems.append(
            Problem(
                "the page has no description",
                key_line(text, "title"),
                "add description: one sentence saying what the reader learns (search results "
                "and link previews show it)",
                severity="warning",
            )
        )
    return problems + check_resources(meta, text) + notebook_problems(meta, text)


def notebook_problems(meta: dict[str, Any], text: str) -> list[Problem]:
    """``notebook`` must be true or false (a string such as "yes" would silently mean no).

    >>> [p.message for p in notebook_problems({"notebook": "yes"}, "notebook: 'yes'")]
    ["notebook must be true or false, not 'yes'"]
    """
    value = meta.get("notebook", False)
    if isinstance(value, bool):
        return []
    hint = "write notebook: true to offer the page as a Jupyter notebook (.ipynb) beside it"
    return [
        Problem(f"notebook must be true or false, not {value!r}", key_line(text, "notebook"), hint)
    ]


def key_line(text: str, key: str) -> int:
    """The 1-based line of front matter key ``key`` in ``text`` (1 when it is not there)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    return next((n for n, line in enumerate(text.splitlines(), 1) if pattern.match(line)), 1)


def compile_problems(program: Program) -> list[Problem]:
    """A SyntaxError for each exec block, doctest example or inline value that does not compile.

    >>> from lessonkit.execute.program import parse_program
    >>> [p.message for p in compile_problems(parse_program("```pycon\\n>>> 1 +\\n```\\n"))]
    ['SyntaxError: invalid syntax']
    """
    problems = []
    for step in program.steps:
        if step.kind == "exec":
            problems += _compile(step.source, step.line, "exec")
        elif step.kind == "doctest":
            problems += _compile_doctest(step)
        else:
            found = _compile(step.source, step.line, "eval")
            problems += [
                Problem(
                    f"SyntaxError in inline value {{{{ {step.source} }}}}: "
                    + p.message.removeprefix("SyntaxError: "),
                    step.line,
                    "write a Python expression between {{ and }}, e.g. {{ total:.2f }}",
                )
                for p in found
            ]
    return problems


def _compile(source: str, first_line: int, mode: str) -> list[Problem]:
    try:
        compile(source, "<lesson>", mode, dont_inherit=True)
    except SyntaxError as error:
        line = first_line + (error.lineno or 1) - 1
        return [
            Problem(
                f"SyntaxError: {error.msg}",
                line,
                "fix the Python syntax in this block",
                details=f"line {line}: {(error.text or '').strip()}",
            )
        ]
    return []


def _compile_doctest(step: Step) -> list[Problem]:
    try:
        examples = doctest.DocTestParser().get_examples(step.source)
    except ValueError as error:
        message = re.sub(r"^line \d+ of the docstring for \S+ ", "", str(error))
        hint = "write each example as '>>> code', continuation lines as '... ', then its output"
        return [Problem(f"cannot read the doctest: {message}", step.header_line, hint)]
    problems = []
    for example in examples:
        problems += _compile(example.source, step.line + example.lineno, "single")
    return problems


def link_problems(body: str, offset: int, file: Path, context: Context) -> list[Problem]:
    """An error for each relative link to a ``.md`` page that does not exist."""
    problems = []
    for number, line in enumerate(_without_code(body.split("\n")), offset + 1):
        targets = [m["target"] for m in _INLINE_LINK.finditer(line)]
        targets += [m["target"] for m in _REFERENCE.finditer(line)]
        for target in targets:
            if not _page_exists(target.strip("<>"), file, context):
                problems.append(_missing_page(target.strip("<>"), number, file, context))
    return problems


def _page_exists(target: str, file: Path, context: Context) -> bool:
    page = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
    if not page.endswith(".md") or _SCHEME.match(page) or page.startswith("//"):
        return True  # not a link to a page: anchors, other sites, images, files
    if page.startswith("/"):
        if context.docs_dir is None:
            return True
        resolved = context.docs_dir / page.lstrip("/")
    else:
        resolved = file.parent / page
    if resolved.is_file():
        return True
    if context.docs_dir is not None:
        return _relative(resolved, context.docs_dir) in context.virtual_pages
    return False


def _missing_page(target: str, line: int, file: Path, context: Context) -> Problem:
    page = re.split(r"[#?]", target, maxsplit=1)[0]
    close = difflib.get_close_matches(page, context.links_from(file.parent), n=1, cutoff=0.5)
    hint = (
        f"did you mean {close[0]}?"
        if close
        else "link to the other page's .md file, relative to this page"
    )
    return Problem(f"link to a page that does not exist: {target}", line, hint)


def _without_code(lines: list[str]) -> Iterable[str]:
    """``lines`` with fenced code blanked and code spans replaced by spaces (same count)."""
    fence = ""
    for line in lines:
        match = _FENCE.match(line)
        if fence:
            closes = match and match[1][0] == fence[0] and len(match[1]) >= len(fence)
            if closes and not line.strip()[len(match[1]) :].strip():
                fence = ""
            yield ""
        elif match:
            fence = match[1]
            yield ""
        else:
            yield _CODE_SPAN.sub(lambda m: " " * len(m[0]), line)


def _relative(path: Path, root: Path) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


# --- many files --------------------------------------------------------------------------------


@dataclass
class Report:
    """The outcome of checking some files."""

    files: int
    problems: list[Problem]

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == "warning" for p in self.problems)


def markdown_files(paths: Iterable[Path]) -> list[Path]:
    """The ``.md`` files among ``paths``, folders searched recursively, each once, in order."""
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            found.update(dict.fromkeys(sorted(path.rglob("*.md"))))
        else:
            found[path] = None
    return list(found)


def check_files(
    paths: Iterable[Path],
    docs_dir: Path | None = None,
    glossary: Path | None = None,
    virtual_pages: Iterable[str] = (),
    display: Callable[[Path], str] = str,
) -> Report:
    """Check every Markdown file in ``paths`` (files or folders) against one site's context.

    The glossary file is validated once; its problems come first.
    """
    problems: list[Problem] = []
    loaded = None
    if glossary is not None:
        try:
            loaded = load(glossary, display(glossary))
        except LessonError as error:
            problems += error.problems
    context = Context(docs_dir, loaded, frozenset(virtual_pages))
    files = markdown_files(paths)
    for file in files:
        try:
            text = file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(Problem(f"cannot read the file: {error}", path=display(file)))
            continue
        problems += check_text(text, display(file), file, context)
    return Report(len(files), problems)
