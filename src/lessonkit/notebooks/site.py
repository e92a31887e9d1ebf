"""A page's ``.ipynb`` download on any host: whether it gets one, where, and its bytes.

>>> from lessonkit.core.page import Origins, Page
>>> page = Page.from_text("---\\ntitle: T\\nnotebook: true\\n---\\n# T\\n", "a/b.md", "docs/a/b.md")
>>> wants_notebook(page), notebook_path(page)
(True, 'a/b.ipynb')
>>> print(clash(page).format())
docs/a/b.md:3: error: the front matter asks for a notebook, but docs/a/b.ipynb already exists
  hint: rename a/b.ipynb, or drop notebook: true
"""

from __future__ import annotations

import html
import os
import posixpath
from pathlib import Path, PurePosixPath

from lessonkit.core.page import Origins, Page
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import key_line
from lessonkit.execute.results import PageResult


def wants_notebook(page: Page) -> bool:
    """Whether the page is a notebook lesson, or its front matter says ``notebook: true``."""
    return page.origins is not None or page.valid_meta.get("notebook") is True


def notebook_path(page: Page) -> str:
    """Where the notebook goes, in the docs folder: beside the page; a notebook lesson's own
    ``x.ipynb`` is its source, so what the build ran is ``x.executed.ipynb``.

    >>> notebook_path(Page.from_text("", "a/b.md")), notebook_path(_lesson("b.ipynb"))
    ('a/b.ipynb', 'b.executed.ipynb')
    >>> notebook_path(_lesson("a/b.py"))
    'a/b.ipynb'
    """
    stem = posixpath.splitext(page.path)[0]
    own = page.origins is not None and page.file is not None and page.file.suffix == ".ipynb"
    return stem + (".executed.ipynb" if own else ".ipynb")


def download_name(page: Page) -> str:
    """The name a browser saves the page's notebook as.

    >>> download_name(_lesson("a/b.ipynb")), download_name(Page.from_text("", "b.md"))
    ('b.ipynb', 'b.ipynb')
    """
    return posixpath.basename(posixpath.splitext(page.path)[0]) + ".ipynb"


def download_href(path: str, url: str) -> str:
    """The relative link from the page at ``url`` to ``path`` (in the docs), as MkDocs makes it.

    >>> download_href("a/b.executed.ipynb", "a/b/"), download_href("x.ipynb", "")
    ('../b.executed.ipynb', 'x.ipynb')
    >>> download_href("a/b.ipynb", "a/b.html")
    'b.ipynb'
    """
    here = url if url.endswith("/") else posixpath.dirname(url)
    return posixpath.relpath(path, here.rstrip("/") or ".")


def _lesson(source: str) -> Page:
    """A notebook lesson read from ``source`` (for the examples)."""
    page = Page.from_text("", posixpath.splitext(source)[0] + ".md", file=Path(source))
    page.origins = Origins(((1, 0),))
    return page


def download_html(href: str, name: str) -> str:
    """The download button a notebook lesson's page ends with.

    >>> download_html("../b.ipynb", "b.ipynb")
    '<p><a class="md-button" download="b.ipynb" href="../b.ipynb">Download this lesson as a \
notebook (.ipynb)</a></p>'
    """
    href, name = html.escape(href), html.escape(name)
    link = "Download this lesson as a notebook (.ipynb)"
    return f'<p><a class="md-button" download="{name}" href="{href}">{link}</a></p>'


def clash(page: Page) -> Problem:
    """The error for a docs file that already has the notebook's name."""
    name = notebook_path(page)
    message = f"the front matter asks for a notebook, but docs/{name} already exists"
    return _problem(page, message, f"rename {name}, or drop notebook: true")


def page_notebook_bytes(
    page: Page, result: PageResult | None, *, title: str, url: str, root: Path
) -> bytes:
    """The notebook's bytes from the page's program and ``result`` (None: execution off);
    LessonError when the code read files of the site (under ``root``): a notebook lacks them."""
    if result and not result.ok:
        raise LessonError(result.problems)
    carried = [os.path.relpath(r, root) for r in result.reads] if result else []
    if page.origins is not None:  # a notebook lesson reads the files beside it, as in Jupyter
        carried = []
    if carried := [r for r in carried if not r.startswith("..")]:
        read = ", ".join(sorted(carried))
        message = f"the page's code reads files a notebook cannot carry: {read}"
        raise LessonError(
            [_problem(page, message, "drop notebook: true, or make the data in the page's code")]
        )
    from lessonkit.notebooks.writer import notebook_bytes, page_notebook

    name = PurePosixPath(notebook_path(page)).name
    notebook = page_notebook(page.markdown, page.program, result, title=title, url=url, name=name)
    return notebook_bytes(notebook)


def _problem(page: Page, message: str, hint: str) -> Problem:
    return page.problem(message, key_line(page.text, "notebook"), hint)
