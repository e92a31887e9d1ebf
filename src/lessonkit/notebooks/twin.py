"""A contributor's notebook chores: a Markdown lesson's notebook twin (``lessonkit notebook``;
read back, the same lesson), and stored outputs (noted by ``lessonkit check``, removed by
``lessonkit strip``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.source import split_source
from lessonkit.execute.program import parse_program
from lessonkit.notebooks.convert import TAGS
from lessonkit.notebooks.site import code, markdown, notebook, raw

_AS_TAG = {tuple(sorted(o.items())): t for t, (o, _) in reversed(TAGS.items()) if o}  # 1st wins
_SHOWN = {option for options in _AS_TAG for option in options}


def markdown_notebook(text: str, where: str) -> dict[str, Any]:
    """The notebook twin of the lesson ``text`` (LessonError: an exec block in a list)."""
    split = split_source(text)
    body_lines = split.body.split("\n")
    program = parse_program(split.body, split.offset)
    cells = [raw(f"---\n{split.front_matter}---")] if split.front_matter is not None else []
    problems, position = [], 0
    for step, span in zip(program.steps, program.spans, strict=True):
        if step.kind != "exec":
            continue
        if span.indent:
            message = "a python exec block inside a list or admonition cannot become a cell"
            hint = "move it to the top level of the page, or keep the lesson in Markdown"
            problems.append(Problem(message, step.header_line, hint, path=where))
            continue
        cells.append(markdown("\n".join(body_lines[position : span.start]).strip("\n")))
        options = dict(step.options)
        shown = tuple(sorted((k, v) for k, v in options.items() if (k, v) in _SHOWN))
        tag = _AS_TAG.get(shown)
        rest = {k: v for k, v in options.items() if not tag or (k, v) not in shown}
        cells.append(code(step.source, [tag] if tag else [], **rest))
        position = span.end
    if problems:
        raise LessonError(problems)
    cells.append(markdown("\n".join(body_lines[position:]).strip("\n")))
    return notebook(c for c in cells if c["cell_type"] != "markdown" or c["source"])


def strip_outputs(file: Path) -> bool:
    """Remove the stored outputs and counts, laid out as Jupyter does; whether it changed."""
    text = file.read_text(encoding="utf-8")
    data = json.loads(text)
    for cell in data.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    stripped = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if stripped == text:
        return False
    file.write_text(stripped, encoding="utf-8")
    return True


def stored_outputs_note(files: Iterable[Path], display: Callable[[Path], str] = str) -> str:
    """``lessonkit check``'s note naming the notebooks with stored outputs (``""``: none)."""
    found = [display(file) for file in files if file.suffix == ".ipynb" and _stored(file)]
    if not found:
        return ""
    many = len(found) > 1
    return (
        f"note: {len(found)} notebook{'s' * many} carr{'ies' if not many else 'y'} stored "
        f"outputs ({', '.join(found)}): {'their pages show' if many else 'its page shows'} what "
        "the build computes, not them; lessonkit strip removes them (smaller diffs)"
    )


def _stored(file: Path) -> bool:
    """Whether a code cell has stored outputs or a count (unreadable: no, its error says so)."""
    try:
        cells = json.loads(file.read_text(encoding="utf-8-sig")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return False
    return any(
        isinstance(c, dict) and (c.get("outputs") or c.get("execution_count")) for c in cells
    )
