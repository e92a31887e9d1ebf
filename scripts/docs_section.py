"""Replace one ``## `` section of a Markdown page, keeping the rest of the page as it is.

The benchmark and the quality report write their latest numbers into BENCHMARKS.md, each into
its own section.

>>> page = "# T\\n\\n## A\\n\\nold a\\n\\n## B\\n\\nb\\n"
>>> print(replaced(page, "## A", "## A\\n\\nnew a\\n"))
# T
<BLANKLINE>
## A
<BLANKLINE>
new a
<BLANKLINE>
## B
<BLANKLINE>
b
<BLANKLINE>
>>> replaced("# T\\n", "## C", "## C\\n\\nc\\n")
'# T\\n\\n## C\\n\\nc\\n'
"""

from __future__ import annotations

import re
from pathlib import Path


def replaced(page: str, heading: str, section: str) -> str:
    """``page`` with the section under ``heading`` (to the next ``## ``) replaced by ``section``.

    A page without that heading gets the section appended.
    """
    start = page.find(f"{heading}\n")
    if start < 0:
        return page.rstrip("\n") + "\n\n" + section
    after = start + len(heading)
    following = re.search(r"^## ", page[after:], flags=re.M)
    if following is None:
        return page[:start] + section
    return page[:start] + section + "\n" + page[after + following.start() :]


def write_section(path: Path, heading: str, section: str) -> None:
    """Replace (or append) the section under ``heading`` of the Markdown page at ``path``."""
    path.write_text(replaced(path.read_text(encoding="utf-8"), heading, section), encoding="utf-8")
