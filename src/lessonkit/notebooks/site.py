"""A page's ``.ipynb`` download, for any host: whether it gets one, where, and its bytes.

A page asks for a notebook with ``notebook: true`` in its front matter (checked by
:mod:`.checks`); the notebook is written from the program and result of that same build.

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
    """Whether the page is a notebook lesson, or its front matter says ``notebook: true`` (read
    only when it may)."""
    if page.origins is not None:
        return True
    if not page.front_matter or "notebook" not in page.front_matter:
        return False  # most pages: no YAML read here (build speed)
    try:
        return page.meta.get("notebook") is True
    except LessonError:
        return False  # unreadable front matter fails the page's own check


def notebook_path(page: Page) -> str:
    """Where the notebook goes: beside the page, named after it, in the docs folder's terms. A
    notebook lesson's own ``x.ipynb`` is its source (Zensical publishes it as it is), so what
    the build ran is ``x.executed.ipynb`` on every host (a percent script's: ``x.ipynb``).

    >>> notebook_path(Page.from_text("", "a/b.md")), notebook_path(_lesson("b.ipynb"))
    ('a/b.ipynb', 'b.executed.ipynb')
    >>> notebook_path(_lesson("a/b.py"))
    'a/b.ipynb'
    """
    stem = posixpath.splitext(page.path)[0]
    own = page.origins is not None and page.file is not None and page.file.suffix == ".ipynb"
    return stem + (".executed.ipynb" if own else ".ipynb")


def download_name(page: Page) -> str:
    """The name a reader's browser saves the page's notebook as (its ``download`` attribute).

    >>> download_name(_lesson("a/b.ipynb")), download_name(Page.from_text("", "b.md"))
    ('b.ipynb', 'b.ipynb')
    """
    return posixpath.basename(posixpath.splitext(page.path)[0]) + ".ipynb"


def download_href(path: str, url: str) -> str:
    """The link from the page at ``url`` (in the site, as hosts write it) to the file at
    ``path`` (in the docs folder), as MkDocs makes a relative URL.

    >>> download_href("a/b.executed.ipynb", "a/b/"), download_href("x.ipynb", "")
    ('../b.executed.ipynb', 'x.ipynb')
    >>> download_href("a/b.ipynb", "a/b.html")
    'b.ipynb'
    """
    here = url if url.endswith("/") else posixpath.dirname(url)
    return posixpath.relpath(path, here.rstrip("/") or ".")


def _lesson(source: str) -> Page:
    """A notebook lesson read from ``source`` (for the examples above)."""
    page = Page.from_text("", posixpath.splitext(source)[0] + ".md", file=Path(source))
    page.origins = Origins(((1, 0),))
    return page


def download_html(href: str, name: str) -> str:
    """The download button a notebook lesson's page ends with, as a Markdown page writes it
    (``[...](x.ipynb){ .md-button download="x.ipynb" }``).

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
    """The notebook's bytes from the page's program and ``result`` (None: execution is off).

    LessonError when a Markdown page's code read files of the site (under ``root``, where
    paths are shown from): a notebook cannot carry them. What it read elsewhere (a library's
    data) the reader's installation has.
    """
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
    # Here, not at the top: only a site with notebooks writes one (build speed).
    from lessonkit.notebooks.writer import notebook_bytes, page_notebook

    name = PurePosixPath(notebook_path(page)).name
    notebook = page_notebook(page.markdown, page.program, result, title=title, url=url, name=name)
    return notebook_bytes(notebook)


def _problem(page: Page, message: str, hint: str) -> Problem:
    return page.problem(message, key_line(page.text, "notebook"), hint)
