"""The one recipe of page checks, run by ``lessonkit check`` and every host's build. Nothing
is executed: code is compiled; what only running it reveals is left to the build.

>>> text = "---\\ntitle: T\\ndescription: D\\n---\\n# T\\n\\n```python exec\\nx = (1,\\n```\\n"
>>> print("\\n".join(p.format() for p in check_text(text, "t.md")))
t.md:8: error: SyntaxError: '(' was never closed
  line 8: x = (1,
  hint: fix the Python syntax in this block
"""

from __future__ import annotations

import os
from pathlib import Path

from lessonkit import quiz
from lessonkit.checks.blocks import block_problems
from lessonkit.checks.context import Context
from lessonkit.checks.frontmatter import front_matter_problems
from lessonkit.checks.links import link_problems
from lessonkit.core.page import Page
from lessonkit.core.problems import LessonError, Problem
from lessonkit.execute.program import compile_problems
from lessonkit.glossary.checks import check as glossary_check


def check_page(page: Page, context: Context) -> list[Problem]:
    """Every problem in one page: front matter, program (options, near misses of ``python
    exec``, compiling), ``///`` lines, quizzes, glossary marks, links; placed, sorted by line."""
    notes = list(page.notes)
    try:
        meta = page.meta
    except LessonError as error:
        return notes + error.problems
    extra = context.settings.front_matter_keys
    found = front_matter_problems(meta, page.text, page.body, extra)
    problems = notes + page.place_all(found, body=False)
    try:
        if not context.ran(page.program):
            problems += page.place_all(compile_problems(page.program), body=False)
    except LessonError as error:
        problems += error.problems
    problems += page.place_all(block_problems(page.body, context.markdown.blocks))
    problems += page.place_all(quiz.check(page.body))
    if context.glossary is not None:
        problems += page.place_all(glossary_check(page.body, context.glossary))
    if page.file is not None:
        found = link_problems(page.body, page.offset, page.file, context, page.text)
        problems += page.place_all(found, body=False)
    return sorted(problems, key=_order)


def _order(problem: Problem) -> tuple[int, int, str]:
    """By cell (``docs/a.ipynb:cell 4``), then line, then message."""
    _, _, cell = problem.path.rpartition(":cell ")
    return int(cell) if cell.isdigit() else 0, problem.line or 0, problem.message


def check_text(
    text: str, path: str = "<markdown>", file: Path | None = None, context: Context | None = None
) -> list[Problem]:
    """:func:`check_page` for a page's ``text``, named ``path``; ``file`` is where it lives."""
    context = context or Context()
    page_path = path
    if file is not None and context.docs_dir is not None:
        page_path = os.path.relpath(file, context.docs_dir).replace(os.sep, "/")
    return check_page(Page.from_text(text, page_path, path, file), context)
