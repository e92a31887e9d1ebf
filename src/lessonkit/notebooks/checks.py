"""Note the notebooks that carry stored outputs (once, for ``lessonkit check``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path


def stored_cells(text: str) -> list[int]:
    """The cells (from 1) of the ``.ipynb`` JSON ``text`` with stored outputs or a count.

    >>> stored_cells('{"cells": [{"outputs": []}, {"execution_count": 3, "outputs": []}]}')
    [2]
    """
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return []
    return [
        number
        for number, cell in enumerate(cells, 1)
        if isinstance(cell, dict) and (cell.get("outputs") or cell.get("execution_count"))
    ]


def stored_outputs_note(files: Iterable[Path], display: Callable[[Path], str] = str) -> str:
    """One line for ``lessonkit check`` naming the notebooks with stored outputs (``""``:
    none): a note, not a problem (a page shows what the build computes).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.ipynb").write_text('{"cells": [{"execution_count": 1}]}')
    >>> print(stored_outputs_note([folder / "a.ipynb"], lambda p: p.name))
    note: 1 notebook carries stored outputs (a.ipynb): its page shows what the build computes, \
not them; lessonkit strip removes them (smaller diffs)
    """
    found = []
    for file in files:
        if file.suffix == ".ipynb":
            try:
                text = file.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                continue  # its own error says so
            if stored_cells(text):
                found.append(display(file))
    if not found:
        return ""
    many = len(found) > 1
    return (
        f"note: {len(found)} notebook{'s' * many} carr{'ies' if not many else 'y'} stored "
        f"outputs ({', '.join(found)}): {'their pages show' if many else 'its page shows'} what "
        "the build computes, not them; lessonkit strip removes them (smaller diffs)"
    )
