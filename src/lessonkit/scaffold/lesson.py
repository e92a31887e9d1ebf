"""``lessonkit new``: a lesson from a template with every section, listed in ``mkdocs.yml``'s nav.

The nav is edited as text, one line inserted, so comments and formatting in ``mkdocs.yml`` stay
exactly as they were.

>>> config = "nav:\\n  - Home: index.md\\n  - Learning path:\\n      - A: a.md\\n  # the end\\n"
>>> print(add_to_nav(config, "Tokens: the basics", "tokens.md"), end="")
nav:
  - Home: index.md
  - Learning path:
      - A: a.md
      - "Tokens: the basics": tokens.md
  # the end
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from lessonkit.core.project import load_config

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$")
DEFAULT_SECTION = "Learning path"
MAX_NAME = 100
"""The longest file or folder name a slug may have (file systems refuse names past 255 bytes)."""


class ScaffoldError(Exception):
    """A lesson cannot be created; the message says why and what to do."""


TEMPLATE = """\
---
title: {title_yaml}
description: One sentence on what the reader will learn (search results and previews show it).
resources:
  - kind: Video
    title: Attention in transformers, step-by-step
    author: 3Blue1Brown
    url: https://www.3blue1brown.com/lessons/attention
    note: Replace these with the best resources for this lesson, each with one line on why.
  - kind: Article
    title: The Illustrated Transformer
    author: Jay Alammar
    url: https://jalammar.github.io/illustrated-transformer/
    note: A second resource of another kind (Video, Tool, Article, Paper, Book or Course).
---

# {title}

The lead paragraph: what this lesson teaches and why it matters, in two sentences. It is the
lesson's summary, so keep it short.

## The idea

Explain the idea in plain words before any math. A word from the glossary, such as token, links
to its definition on first use; write `[[!token]]` where the word means something else.

## A worked example

Every number in the prose comes from code that runs when the site is built. This block computes
them; `source="hide"` shows only what it prints or draws.

```python exec source="hide"
from lessonkit.lab.attention import softmax
from lessonkit.lab.trace import softmax_trace

scores = [2.0, 1.0, 0.1]
weights = softmax(scores)
trace = softmax_trace(scores, [10, 20, 30])
```

Quote computed numbers in the prose, never type them: softmax turns the scores
{{{{ scores }}}} into the weights {{{{ weights[0]:.2f }}}}, {{{{ weights[1]:.2f }}}} and
{{{{ weights[2]:.2f }}}}, which add up to {{{{ weights.sum():.0f }}}}.

A figure is drawn by a block; its `alt` text says what the figure shows.

```python exec source="hide" alt="Bar chart: the first of three scores gets most of the weight."
from lessonkit.lab.figures import softmax_bars

softmax_bars(trace)
```

A doctest shows code with its output; the build fails if the output ever changes.

```pycon
>>> round(float(weights.sum()), 6)
1.0
>>> int(weights.argmax())
0
```

## Check yourself

/// quiz
What do the attention weights of one token add up to?

- [x] Exactly 1, whatever the scores.

    Right: softmax divides each exponential by their total, so the weights always sum to 1.

- [ ] The sum of the scores.

    Not quite. The scores can be any numbers; softmax turns them into weights that sum to 1.
///
"""


def lesson_text(title: str) -> str:
    """The Markdown of a new lesson titled ``title``."""
    return TEMPLATE.format(title=title, title_yaml=_yaml_text(title))


def default_title(slug: str) -> str:
    """A title from a slug: ``positional-encoding`` -> ``Positional encoding``.

    >>> default_title("building-blocks/positional-encoding")
    'Positional encoding'
    """
    words = slug.rsplit("/", 1)[-1].replace("-", " ")
    return words[:1].upper() + words[1:]


def _yaml_text(text: str) -> str:
    """``text`` as a YAML scalar: plain when YAML reads it back unchanged, else double-quoted.

    >>> _yaml_text("Attention"), _yaml_text("Q: and A"), _yaml_text("yes")
    ('Attention', '"Q: and A"', '"yes"')
    """
    try:
        plain = load_config(f"key: {text}") == {"key": text}
        plain = plain and load_config(f"{text}: v") == {text: "v"}
    except yaml.YAMLError:
        plain = False
    if plain:
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def add_to_nav(config_text: str, title: str, page: str, section: str = DEFAULT_SECTION) -> str:
    """``mkdocs.yml`` with ``- title: page`` added as the last entry of nav section ``section``.

    Without that section the entry goes at the end of ``nav:``. Without ``nav:`` MkDocs lists
    every page by itself, and the text is returned unchanged. Raises :class:`ScaffoldError` when
    the result would not list the page (an unusual layout): the author edits the nav by hand.
    """
    lines = config_text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.match(r"^nav:\s*(#.*)?$", line)), None)
    if start is None:
        if load_config(config_text).get("nav") is None:
            return config_text
        raise ScaffoldError(f"could not find nav: in mkdocs.yml; add the line '- {title}: {page}'")
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t"):
        end += 1
    heading = re.compile(rf"""^(\s*)-\s+["']?{re.escape(section)}["']?\s*:\s*(#.*)?$""")
    at = next((i for i in range(start + 1, end) if heading.match(lines[i])), None)
    if at is not None:
        insert, indent = _after_children(lines, at, end)
    else:
        items = [i for i in range(start + 1, end) if lines[i].lstrip().startswith("- ")]
        if not items:
            raise ScaffoldError("nav: in mkdocs.yml has no entries to add the page beside")
        insert, indent = _after_children(lines, start, end)
        indent = _indent(lines[items[0]])
    entry = f"{' ' * indent}- {_yaml_text(title)}: {page}\n"
    if insert > 0 and not lines[insert - 1].endswith("\n"):
        lines[insert - 1] += "\n"
    lines.insert(insert, entry)
    result = "".join(lines)
    if not _lists(load_config(result).get("nav"), title, page):
        raise ScaffoldError(
            f"could not add the page to nav: in mkdocs.yml; add the line '- {title}: {page}'"
        )
    return result


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _after_children(lines: list[str], parent: int, end: int) -> tuple[int, int]:
    """Where a new last child of the entry at ``parent`` goes, and its indentation."""
    own = _indent(lines[parent])
    last, child = parent, None
    for i in range(parent + 1, end):
        if not lines[i].strip():
            continue
        if _indent(lines[i]) <= own:
            break
        if child is None and lines[i].lstrip().startswith("- "):
            child = _indent(lines[i])
        last = i
    return last + 1, child if child is not None else own + 4


def _lists(nav: object, title: str, page: str) -> bool:
    """True if the nav (as loaded from YAML) has the entry ``{title: page}`` anywhere."""
    if isinstance(nav, list):
        return any(_lists(item, title, page) for item in nav)
    if isinstance(nav, dict):
        return nav.get(title) == page or any(_lists(v, title, page) for v in nav.values())
    return False


def _mentions(nav: object, page: str) -> bool:
    if isinstance(nav, list):
        return any(_mentions(item, page) for item in nav)
    if isinstance(nav, dict):
        return any(_mentions(v, page) for v in nav.values())
    return nav == page


def new_lesson(
    config_file: Path,
    docs_dir: Path,
    slug: str,
    title: str | None = None,
    section: str = DEFAULT_SECTION,
) -> tuple[Path, bool]:
    """Write ``docs_dir/slug.md`` and list it in the nav; return its path and whether the nav
    changed. Refuses (:class:`ScaffoldError`) a bad slug or a page that already exists."""
    if not SLUG.match(slug) or max(map(len, slug.split("/"))) > MAX_NAME:
        shown = slug if len(slug) <= 80 else slug[:77] + "..."
        raise ScaffoldError(
            f"'{shown}' is not a valid lesson slug: use lowercase words joined by hyphens, "
            f"at most {MAX_NAME} characters, e.g. positional-encoding (optionally in a folder: "
            "building-blocks/positional-encoding)"
        )
    path = docs_dir / f"{slug}.md"
    if path.exists():
        shown = (
            path.relative_to(config_file.parent)
            if path.is_relative_to(config_file.parent)
            else path
        )
        raise ScaffoldError(f"{shown} already exists: choose another slug, or edit that page")
    title = title.strip() if title and title.strip() else default_title(slug)
    config_text = config_file.read_text(encoding="utf-8")
    page = f"{slug}.md"
    changed = not _mentions(load_config(config_text).get("nav"), page)
    new_config = add_to_nav(config_text, title, page, section) if changed else config_text
    changed = new_config != config_text
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:  # "x": never overwrite, even in a race
        out.write(lesson_text(title))
    if changed:
        config_file.write_text(new_config, encoding="utf-8")
    return path, changed
