"""A notebook (``.ipynb``, or a jupytext percent script) as the lesson Markdown it stands for.

A first raw cell of ``---`` YAML is the front matter; a code cell becomes a ``python exec`` block
with the options its tags (:data:`TAGS`) and ``lessonkit`` metadata mean. Stored outputs are
never shown.

nbformat and jupytext are imported only when a site has a notebook lesson (about 0.3 s).
"""

from __future__ import annotations

import json
import re
import shlex
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lessonkit.core.page import Origins
from lessonkit.core.problems import LessonError, Problem
from lessonkit.execute.program import EXEC_OPTIONS
from lessonkit.notebooks.links import to_pages

TAGS: dict[str, tuple[dict[str, str] | None, str]] = {
    "hide-input": ({"source": "hide"}, 'the code is not shown, its output is (`source="hide"`)'),
    "remove-input": ({"source": "hide"}, "the same as `hide-input`"),
    "remove-output": ({"output": "none"}, 'the code is shown, its output is not (`output="none"`)'),
    "remove-cell": (
        {"source": "hide", "output": "none"},
        "the cell runs (its names are there for later cells), nothing of it is shown",
    ),
    "skip-execution": (None, "the code is shown and not run (a plain `python` code block)"),
    "raises-exception": (
        {"raises": "exception"},
        "the cell fails on purpose: its exception is shown; the build fails if it stops raising",
    ),
}
"""Each cell tag lessonkit reads: the block options it means, and what it does."""
REFUSED_TAGS = {
    "hide-output": "a page does not fold output: use remove-output, or show it",
    "hide-cell": "a page does not fold cells: use remove-cell or hide-input",
}
"""Tags the Jupyter world uses that a lesson cannot honour, with what to write instead."""
IGNORED_METADATA = frozenset(
    {"tags", "collapsed", "scrolled", "editable", "deletable", "execution", "ExecuteTime"}
    | {"vscode", "slideshow", "trusted", "id", "name", "jp-MarkdownHeadingCollapsed"}
    | {"lines_to_next_cell", "lines_to_end_of_cell_marker", "cell_marker", "region_name"}
)
"""Cell metadata editors and jupytext keep for themselves."""
JUPYTER_METADATA = {"source_hidden": {"source": "hide"}, "outputs_hidden": {"output": "none"}}
"""JupyterLab's collapsed input or output as block options."""


def parse(text: str, where: str, *, percent: bool = False) -> dict[str, Any]:
    """The notebook in ``text`` (``.ipynb`` JSON, or a percent script), checked against nbformat
    4's schema; LessonError naming ``where`` when it cannot be read."""
    if percent:
        return _read_script(text, where)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        message = f"the notebook is not valid JSON: {error.msg} (column {error.colno})"
        hint = "open it in Jupyter and save it again, or fix the JSON at that line"
        raise LessonError([Problem(message, error.lineno, hint, path=where)]) from None
    version = data.get("nbformat") if isinstance(data, dict) else None
    if version != 4:
        shown = "no nbformat" if version is None else f"nbformat {version}"
        message = f"{shown} is not a notebook lessonkit reads: it reads nbformat 4"
        hint = f"convert it: jupyter nbconvert --to notebook --nbformat 4 --inplace {where}"
        raise LessonError([Problem(message, hint=hint, path=where)])
    _validate(data, where)
    return data


_SCRIPT_HINT = (
    'a cell begins with a line "# %%", "# %% [markdown]" or "# %% tags=[\\"hide-input\\"]" '
    "(jupytext's percent format)"
)


def _read_script(text: str, where: str) -> dict[str, Any]:
    import jupytext

    lines = text.split("\n")
    first = 1 if lines[0].startswith("#!") else 0
    if lines[first].rstrip() == "# ---" and _header_end(lines, first) is None:
        message = "the script's header (from its first line, # ---) is never closed"
        hint = "end the header with a line # --- before the first cell"
        raise LessonError([Problem(message, first + 1, hint, path=where)])
    try:
        return json.loads(json.dumps(jupytext.reads(text, fmt="py:percent")))  # plain dicts
    except Exception as error:  # jupytext raises what its parsers (and nbformat) raise
        detail = str(error).strip().split("\n")[0][:100] or type(error).__name__
        line = _refused_at(lines)
        raise LessonError(
            [Problem(f"jupytext cannot read this cell: {detail}", line, _SCRIPT_HINT, path=where)]
        ) from None


def _header_end(lines: list[str], first: int) -> int | None:
    """The index of the line closing a ``# ---`` header opened at ``lines[first]``, or None."""
    for index in range(first + 1, len(lines)):
        line = lines[index]
        if line.rstrip() == "# ---":
            return index
        if not line.startswith("#") or _MARKER.match(line):
            return None
    return None


def _refused_at(lines: list[str]) -> int:
    """The file line of the first cell jupytext refuses."""
    import jupytext

    markers = [n for n, line in enumerate(lines) if _MARKER.match(line)]
    for start, end in zip([0, *markers], [*markers, len(lines)], strict=True):
        try:
            jupytext.reads("\n".join(lines[:end]), fmt="py:percent")
        except Exception:
            return start + 1
    return 1


def _validate(data: dict[str, Any], where: str) -> None:
    """nbformat's schema check; its first error at its cell."""
    import nbformat
    from nbformat.warnings import MissingIDFieldWarning

    try:
        with warnings.catch_warnings():  # cells without ids: Jupyter adds them, so may we
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            nbformat.validate(data, version=4)
    except nbformat.ValidationError as error:
        at = [str(step) for step in error.absolute_path]
        cell = at[:1] == ["cells"] and len(at) > 1 and at[1].isdigit()
        place = "/".join(at[2:] if cell else at)
        detail = error.message if len(error.message) <= 80 else "nbformat allows no such value"
        message = "the notebook does not follow nbformat 4" + (f" ({place})" if place else "")
        hint = "open it in Jupyter and save it again"
        path = f"{where}:cell {int(at[1]) + 1}" if cell else where
        raise LessonError([Problem(f"{message}: {detail}", hint=hint, path=path)]) from None


@dataclass
class Made:
    """A notebook's lesson Markdown, each line's (cell, line), and what converting found."""

    text: str
    origins: Origins
    problems: list[tuple[int, Problem]] = field(default_factory=list)  # (cell, problem)

    def placed(self, where: str) -> list[Problem]:
        """The problems, at ``where:cell N`` (cell 0: a file line)."""
        return [
            problem.at(f"{where}:cell {cell}" if cell else where) for cell, problem in self.problems
        ]

    def in_script(self, starts: list[int]) -> Made:
        """The same, placed in the script whose cell ``n`` begins at ``starts[n - 1]``."""

        def line(cell: int, within: int) -> int:
            return starts[cell - 1] + within - 1 if within else max(starts[cell - 1] - 1, 1)

        origins = Origins(tuple((0, line(c, n)) for c, n in self.origins.lines))
        problems = [(0, p._replace(line=line(c, 0))) for c, p in self.problems]
        return Made(self.text, origins, problems)


_MARKER = re.compile(r"# %%(?:\s|$)")  # a percent cell marker: # %%, # %% [markdown]...


def script_starts(text: str, nb: Mapping[str, Any]) -> list[int] | None:
    """The file line each cell of ``nb`` begins at in the percent script ``text`` (None: cells
    and markers do not pair up).

    >>> script = "# ---\\n# title: T\\n# ---\\n\\n# %% [markdown]\\n# Hi\\n\\n# %%\\nx = 1\\n"
    >>> script_starts(script, {"cells": [{"cell_type": "raw"}, {}, {}]})
    [1, 6, 9]
    >>> script_starts("import os\\n\\n# %%\\nx = 1\\n", {"cells": [{}, {}]})
    [1, 4]
    """
    lines = text.split("\n")
    markers = [n for n, line in enumerate(lines, 1) if _MARKER.match(line)]
    cells = list(nb.get("cells", []))
    end = _header_end(lines, 0) if lines[0].rstrip() == "# ---" else None
    header = bool(cells) and cells[0].get("cell_type") == "raw" and end is not None
    before = len(cells) - len(markers) - header  # a cell before the first marker, or none
    if before not in (0, 1):
        return None
    after = end + 1 if header and end is not None else 0
    stop = markers[0] - 1 if markers else len(lines)
    body = next((n for n in range(after, stop) if lines[n].strip()), after)
    return [1] * header + [body + 1] * before + [marker + 1 for marker in markers]


def convert(nb: Mapping[str, Any]) -> Made:
    """The lesson Markdown ``nb`` (an nbformat 4 notebook, as dicts) stands for."""
    lines: list[str] = []
    origins: list[tuple[int, int]] = []
    problems: list[tuple[int, Problem]] = []

    def add(cell: int, text: str, numbered: bool = True, first: int = 1) -> None:
        for n, line in enumerate(text.split("\n"), first):
            lines.append(line)
            origins.append((cell, n if numbered else 0))

    for number, cell in enumerate(nb.get("cells", []), 1):
        source = _source(cell)

        def problem(message: str, hint: str, cell: int = number) -> None:
            problems.append((cell, Problem(message, None, hint)))

        kind = cell.get("cell_type")
        tags, options, skip = _cell_options(cell, problem)
        if "remove-cell" in tags and kind != "code":
            continue
        body = source.rstrip("\n")
        if kind == "raw":
            top = body.lstrip("\n")
            if number == 1 and _FRONT_MATTER.fullmatch(top):
                add(number, top, first=1 + len(body) - len(top))
            else:
                problem(
                    "a raw cell is not part of a lesson (only a first raw cell of --- lines "
                    "holding YAML, the front matter)",
                    "make it a Markdown cell, or move the front matter into the first cell",
                )
        elif kind == "markdown" and body.strip():
            add(number, to_pages(_attached(body, cell.get("attachments") or {}, problem)))
        elif kind == "code" and body.strip():
            fence = "`" * max(3, _longest_backticks(body) + 1)
            info = "python" if skip else " ".join(["python exec", *_written(options)])
            add(number, fence + info, numbered=False)
            add(number, body)
            add(number, fence, numbered=False)
        if lines and lines[-1]:
            add(number, "", numbered=False)
    text = "\n".join(lines).rstrip("\n") + "\n"
    return Made(text, Origins(tuple(origins) or ((1, 0),)), problems)


_FRONT_MATTER = re.compile(r"---[ \t]*\n.*?\n?(?:---|\.\.\.)[ \t]*", re.DOTALL)
_ATTACHMENT = re.compile(r"attachment:([^\s)\"'>]+)")  # Jupyter's pasted images


def _attached(text: str, attachments: Mapping[str, Any], problem: Any) -> str:
    """``text`` with each ``attachment:NAME`` link a data URL of the attached image."""

    def data_url(m: re.Match[str]) -> str:
        from urllib.parse import unquote

        bundle = attachments.get(unquote(m[1]))
        images = [(k, v) for k, v in (bundle or {}).items() if str(k).startswith("image/")]
        if not images:
            held = ", ".join(map(str, attachments)) or "none"
            problem(
                f"the cell links to the attachment {m[1]!r}, which it does not hold "
                f"(it holds: {held})",
                "paste the image into the cell again in Jupyter",
            )
            return m[0]
        mime, data = images[0]
        data = "".join(data) if isinstance(data, list) else str(data)
        if mime == "image/svg+xml":  # a text type: nbformat keeps it as text, not base64
            import base64

            data = base64.b64encode(data.encode()).decode("ascii")
        return f"data:{mime};base64,{data.strip()}"

    return _ATTACHMENT.sub(data_url, text)


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else str(source)
    return text.replace("\r\n", "\n")


def _longest_backticks(text: str) -> int:
    return max((len(m) for m in re.findall(r"`{3,}", text)), default=0)


def _cell_options(cell: Mapping[str, Any], problem: Any) -> tuple[list[str], dict[str, str], bool]:
    """A cell's tags, the block options they and its metadata mean, and whether it is not run;
    ``problem(message, hint)`` hears of each tag or key that means nothing here."""
    metadata = cell.get("metadata") or {}
    tags = [str(t) for t in metadata.get("tags") or []]
    options: dict[str, str] = {}
    code = cell.get("cell_type") == "code"
    for tag in tags:
        if tag in REFUSED_TAGS:
            problem(f"cell tag {tag!r} has no meaning in a lesson", REFUSED_TAGS[tag])
        elif tag not in TAGS:
            known = ", ".join(TAGS)
            problem(f"unknown cell tag {tag!r}", f"lessonkit reads these tags: {known}")
        elif not code and tag != "remove-cell":
            problem(f"cell tag {tag!r} is for code cells", "remove it from this Markdown cell")
        else:
            options.update(TAGS[tag][0] or {})
    for key, value in metadata.items():
        if key in IGNORED_METADATA:
            continue
        if key == "incorrectly_encoded_metadata":  # a "# %%" line's text jupytext cannot read
            message = f"the metadata on the cell's # %% line cannot be read: {value}"
            problem(message[:200], _SCRIPT_HINT)
        elif key == "jupyter" and isinstance(value, Mapping):
            for name, on in value.items():
                if name in JUPYTER_METADATA and code:
                    options.update(JUPYTER_METADATA[name] if on else {})
                elif name not in JUPYTER_METADATA:
                    problem(f"unknown cell metadata jupyter.{name}", _METADATA_HINT)
        elif key == "lessonkit" and isinstance(value, Mapping) and code:
            for name, option in value.items():
                if name not in EXEC_OPTIONS:
                    known = ", ".join(EXEC_OPTIONS)
                    problem(
                        f"unknown option {name!r} in the cell's lessonkit metadata",
                        f"the block options are: {known}",
                    )
                else:
                    options[name] = str(option)
        else:
            problem(f"unknown cell metadata {key!r}", _METADATA_HINT)
    return tags, options, code and "skip-execution" in tags


_METADATA_HINT = (
    "a code cell's lessonkit metadata holds its block options (e.g. alt); remove other keys "
    "(jupyter nbconvert --ClearMetadataPreprocessor.enabled=True --inplace NOTEBOOK)"
)


def _written(options: Mapping[str, str]) -> list[str]:
    return [
        f'{name}="{value}"' if not set(value) & set('"\\') else f"{name}={shlex.quote(value)}"
        for name, value in sorted(options.items())
    ]
