"""The learner's path: its pages, the data the reader's progress is kept against, and the
whole path as one printable page. The host hands over pages as plain data.

The path is every page under a nav section titled ``Learning path``, in nav order, and any
other page whose front matter says ``path: true``; ``path: false`` takes a page out.
"""
# ruff: noqa: F401 (this module re-exports its submodules' names)

from .lessons import (
    Lesson,
    nav_order,
    path_lessons,
    path_record,
    progress_json,
    progress_script,
    quiz_ids,
    read_record,
    reading_order,
    root_of,
)
from .printpage import (
    HOME,
    PRINT_PAGE,
    home_link,
    made_html,
    print_html,
    print_markdown,
    print_page_file,
)
