"""Which files are lessons, and reading one: a Markdown file as it is, a notebook (``.ipynb``,
or a jupytext percent script) as the lesson Markdown it stands for (:mod:`.convert`, loaded
only when a site has a notebook lesson)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from lessonkit.core.page import Page
from lessonkit.core.source import read_source

PERCENT_HEADER = re.compile(r"\A(?:#!.*\n)?# ---\n(?:#.*\n)*?#\s+format_name: percent\n")
"""A jupytext percent script's YAML header (the ``format_name`` jupytext writes in it)."""


def is_notebook(path: Path, head: str | None = None) -> bool:
    """Whether the file at ``path`` is a notebook lesson: an ``.ipynb``, or a ``.py`` whose
    jupytext header says ``format_name: percent`` (``head``: its start, if already read).

    >>> is_notebook(Path("a.ipynb")), is_notebook(Path("a.md"))
    (True, False)
    >>> header = "# ---\\n# jupyter:\\n#   jupytext:\\n#     format_name: percent\\n"
    >>> is_notebook(Path("a.py"), header)
    True
    >>> is_notebook(Path("a.py"), "import numpy\\n")
    False
    """
    if path.suffix == ".ipynb":
        return True
    if path.suffix != ".py":
        return False
    if head is None:
        try:
            with path.open(encoding="utf-8") as file:
                head = file.read(4096)
        except (OSError, UnicodeDecodeError):
            return False
    return bool(PERCENT_HEADER.match(head))


def lesson_files(folder: Path) -> list[Path]:
    """Every lesson source under ``folder``: Markdown files and notebooks, sorted; none in a
    hidden folder (MkDocs leaves them out; Jupyter keeps ``.ipynb_checkpoints/`` there). A
    dangling symlink is one too (reading it fails, as it fails the build)."""
    found = [p for p in folder.rglob("*") if p.suffix in (".md", ".ipynb", ".py")]
    found = [p for p in found if p.is_file() or (p.is_symlink() and not p.exists())]
    shown = [p for p in found if not any(s.startswith(".") for s in p.relative_to(folder).parts)]
    return sorted(p for p in shown if p.suffix == ".md" or is_notebook(p))


def page_path(source: str) -> str:
    """The page (in the docs folder) a lesson's source file is: a notebook is its ``.md``
    (:mod:`lessonkit.notebooks.pages`)."""
    return posixpath.splitext(source)[0] + ".md"


def read_page(docs: Path, page: str) -> Page:
    """The lesson that is the page ``page`` (e.g. ``embeddings.md``) of the ``docs`` folder:
    that Markdown file, or else the notebook (``.ipynb``, or a percent ``.py``) it stands for.
    Code that reads another lesson (a home page listing its chapters) reads it through this."""
    file = docs / page
    if not file.exists():
        for source in (file.with_suffix(".ipynb"), file.with_suffix(".py")):
            if source.is_file() and is_notebook(source):
                return read_lesson(source, page, str(source))
    return read_lesson(file, page, str(file))


def read_lesson(file: Path, path: str, where: str) -> Page:
    """The lesson in ``file`` (``path`` in the docs folder, ``where`` as messages name it): a
    Markdown file as it is, a notebook as the Markdown it stands for, the page ``x.md`` it is
    (:func:`page_path`); LessonError if unreadable."""
    if not is_notebook(file):
        return Page.read(file, path, where)
    path = page_path(path)
    text = read_source(file, where)
    from lessonkit.notebooks.convert import convert, parse, script_starts

    percent = file.suffix == ".py"
    nb = parse(text, where, percent=percent)
    made = convert(nb)
    if percent and (starts := script_starts(text, nb)):
        made = made.in_script(starts)  # a script's problems name its own lines
    return Page(made.text, path, where, file, origins=made.origins, notes=made.placed(where))
