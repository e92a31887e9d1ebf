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

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lessonkit.checks.frontmatter import front_matter_problems
from lessonkit.checks.links import link_problems
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import split_front_matter
from lessonkit.execute.checks import compile_problems
from lessonkit.execute.program import parse_program
from lessonkit.glossary import check as glossary_check
from lessonkit.glossary.terms import Glossary, load

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
