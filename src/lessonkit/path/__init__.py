"""The learner's path: which pages form it, the data a reader's progress is kept against, and
the whole path as one printable page. No MkDocs import: the host hands over pages as plain data.

Which pages: every page under a nav section titled ``Learning path``, in nav order, and any
other page whose front matter says ``path: true``; ``path: false`` takes a page out. Progress
itself is kept by the reader's browser (``assets/js/60-progress.js``), against the data
:func:`~lessonkit.path.lessons.progress_json` writes into every page.
"""

from .lessons import Lesson, nav_order, path_lessons, progress_json, quiz_ids
from .printpage import PRINT_PAGE, print_html, print_markdown

__all__ = [
    "PRINT_PAGE",
    "Lesson",
    "nav_order",
    "path_lessons",
    "print_html",
    "print_markdown",
    "progress_json",
    "quiz_ids",
]
