"""The configuration reference, made from each feature's own schema so it cannot drift.

>>> print(plugin_options().splitlines()[2])
| `assets_dir` | str | `'assets/lessonkit'` | Where lessonkit's CSS and JS are placed in the built site (loaded once, never inlined). |
>>> set(FRONT_MATTER) == set(KNOWN_KEYS["lessonkit"])
True
"""  # noqa: E501

from __future__ import annotations

from lessonkit.checks.frontmatter import KNOWN_KEYS
from lessonkit.core.settings import OPTIONS
from lessonkit.execute.program import EXEC_OPTIONS
from lessonkit.notebooks.convert import JUPYTER_METADATA, REFUSED_TAGS, TAGS
from lessonkit.quiz.check import TYPES

FRONT_MATTER = {
    "title": "The page's title (else its first h1); search results and the nav show it.",
    "description": "One sentence on what the reader learns; search results and link previews "
    "show it (a page with a title and none gets a warning).",
    "resources": 'The "Go deeper" cards: a list of entries with kind, title, author, url and note.',
    "notebook": "`true` offers the page as a Jupyter notebook (`.ipynb`) beside it, made from "
    "the build's own run.",
    "path": "`true` puts the page on the learning path (progress, the printable path) outside "
    'the nav section "Learning path"; `false` takes it off.',
}


def _row(*cells: str) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def plugin_options() -> str:
    """The ``lessonkit`` plugin's options in ``mkdocs.yml``: name, type, default, effect."""
    rows = [_row("option", "type", "default", "what it does"), _row("---", "---", "---", "---")]
    for option in OPTIONS:
        kinds = " or ".join(t.__name__ for t in option.types)
        if option.choices:
            kinds = " or ".join(f"`{c}`" for c in option.choices)
        rows.append(_row(f"`{option.name}`", kinds, f"`{option.default!r}`", option.help))
    return "\n".join(rows)


def front_matter_keys() -> str:
    """Every key a page's front matter may have, and who reads it."""
    rows = [_row("key", "read by", "what it does"), _row("---", "---", "---")]
    for key in KNOWN_KEYS["lessonkit"]:
        rows.append(_row(f"`{key}`", "lessonkit", FRONT_MATTER[key]))
    for reader, keys in KNOWN_KEYS.items():
        if reader != "lessonkit":
            rows.append(_row(", ".join(f"`{k}`" for k in keys), reader, f"see {reader}'s docs"))
    rows.append(
        _row("any other", "the site", "allowed when listed in the option front_matter_keys")
    )
    return "\n".join(rows)


def block_options() -> str:
    """The options of a ``python exec`` block and of a ``/// quiz`` block."""
    rows = [_row("block", "option", "what it does"), _row("---", "---", "---")]
    for name, help in EXEC_OPTIONS.items():
        rows.append(_row("`python exec`", f"`{name}=`", help))
    quiz_types = " or ".join(f"`{t}`" for t in TYPES)
    rows.append(
        _row(
            "`/// quiz`",
            "`type:`",
            f"{quiz_types}: radio buttons or checkboxes (default: multiple when several options "
            "are right)",
        )
    )
    return "\n".join(rows)


def notebook_cells() -> str:
    """What a notebook lesson's cell tags and metadata mean.

    >>> print(notebook_cells().splitlines()[2])
    | tag `hide-input` | the code is not shown, its output is (`source="hide"`) |
    """
    rows = [_row("in a code cell", "what it does"), _row("---", "---")]
    for tag, (_, help) in TAGS.items():
        rows.append(_row(f"tag `{tag}`", help))
    for name, options in JUPYTER_METADATA.items():
        written = " ".join(f'{k}="{v}"' for k, v in options.items())
        rows.append(
            _row(f"metadata `jupyter.{name}: true`", f"`{written}` (JupyterLab's collapse)")
        )
    rows.append(
        _row("metadata `lessonkit: {alt: ..., title: ...}`", "any block option above, by name")
    )
    for tag, instead in REFUSED_TAGS.items():
        rows.append(_row(f"tag `{tag}`", f"an error: {instead}"))
    rows.append(_row("any other tag or metadata key", "an error (editors' own keys are ignored)"))
    return "\n".join(rows)
