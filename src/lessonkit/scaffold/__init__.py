"""Scaffolding: ``lessonkit new`` writes a lesson from a template with every section and lists
it in ``mkdocs.yml``'s nav; ``lessonkit init DIR`` writes a working site from the template
``site/``. The nav is edited as text, one line inserted, so comments and formatting stay.

>>> sorted(p.as_posix() for p in site_files())[:4]
['README.md', 'docs/first-lesson.md', 'docs/glossary.yml', 'docs/index.md']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from lessonkit import __version__
from lessonkit.core.problems import LessonError
from lessonkit.core.project import load_config

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$")
DEFAULT_SECTION = "Learning path"
FIRST_LESSON = "docs/first-lesson.md"
TEMPLATE = Path(__file__).parent / "site"
MAX_NAME = 100  # file systems refuse names past 255 bytes


class ScaffoldError(Exception):
    """A lesson cannot be created; the message says why and what to do."""


def lesson_text(title: str) -> str:
    """The Markdown of a new lesson titled ``title``, from ``site/docs/first-lesson.md``."""
    text = (TEMPLATE / FIRST_LESSON).read_text(encoding="utf-8").replace("@@LESSON_TITLE@@", title)
    return text.replace("@@LESSON_TITLE_LINE@@", f"title: {yaml_text(title)}")


def default_title(slug: str) -> str:
    """A title from a slug: ``positional-encoding`` -> ``Positional encoding``.

    >>> default_title("building-blocks/positional-encoding")
    'Positional encoding'
    """
    words = slug.rsplit("/", 1)[-1].replace("-", " ")
    return words[:1].upper() + words[1:]


def yaml_text(text: str) -> str:
    """``text`` as a YAML scalar: plain when YAML reads it back unchanged, else double-quoted.

    >>> yaml_text("Attention"), yaml_text("Q: and A"), yaml_text("yes")
    ('Attention', '"Q: and A"', '"yes"')
    """
    try:
        plain = load_config(f"key: {text}") == {"key": text}
        plain = plain and load_config(f"{text}: v") == {text: "v"}
    except LessonError:
        plain = False
    if plain:
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def add_to_nav(config_text: str, title: str, page: str, section: str = DEFAULT_SECTION) -> str:
    """``mkdocs.yml`` with ``- title: page`` as the last entry of nav section ``section`` (else
    of ``nav:``; no ``nav:``: unchanged); ScaffoldError when the result would not list the page."""
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
    entry = f"{' ' * indent}- {yaml_text(title)}: {page}\n"
    if insert > 0 and not lines[insert - 1].endswith("\n"):
        lines[insert - 1] += "\n"
    lines.insert(insert, entry)
    result = "".join(lines)
    if (title, page) not in _entries(load_config(result).get("nav")):
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


def _entries(nav: object) -> Iterator[tuple[object, object]]:
    """Every ``(title, value)`` of the nav as loaded from YAML (title None for a bare page)."""
    if isinstance(nav, list):
        for item in nav:
            yield from _entries(item)
    elif isinstance(nav, dict):
        for title, value in nav.items():
            yield title, value
            yield from _entries(value)
    else:
        yield None, nav


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
    changed = all(value != page for _, value in _entries(load_config(config_text).get("nav")))
    new_config = add_to_nav(config_text, title, page, section) if changed else config_text
    changed = new_config != config_text
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:  # "x": never overwrite, even in a race
        out.write(lesson_text(title))
    if changed:
        config_file.write_text(new_config, encoding="utf-8")
    return path, changed


RENAMED = {"gitignore": ".gitignore", "github": ".github"}  # names packaging would drop
EXECUTABLE = {"scripts/build", "scripts/test"}


def site_files() -> list[Path]:
    """The template's files, relative to the template folder."""
    found = (p.relative_to(TEMPLATE) for p in TEMPLATE.rglob("*") if p.is_file())
    return sorted(p for p in found if "__pycache__" not in p.parts)


def init_site(
    folder: Path, name: str, repo_url: str | None = None, site_url: str | None = None
) -> list[Path]:
    """Write a new lesson site into ``folder`` (missing or empty); return the files written."""
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"{folder} is a file: name a new folder for the site")
    if folder.exists() and any(folder.iterdir()):
        raise ScaffoldError(
            f"{folder} is not empty: lessonkit init writes a site into a new folder"
        )
    values = {
        "@@SITE_NAME_LINE@@": f"site_name: {yaml_text(name)}",
        "@@TITLE_LINE@@": f"title: {yaml_text(name)}",
        "@@SITE_NAME@@": name,
        "@@VERSION@@": __version__,
        "@@SITE_URL_LINE@@": f"site_url: {yaml_text(site_url)}"
        if site_url
        else "# site_url: https://…",
        "@@REPO_LINES@@": (
            "# The one place naming the repository: report links and issue forms use it.\n"
            + f"repo_url: {yaml_text(repo_url)}"
            if repo_url
            else "# repo_url: https://github.com/you/lessons  (gives every page a report link)"
        ),
    }
    written = []
    for relative in site_files():
        text = (TEMPLATE / relative).read_text(encoding="utf-8")
        for marker, value in values.items():
            text = text.replace(marker, value)
        if relative.as_posix() == FIRST_LESSON:
            text = lesson_text("First lesson")
        parts = [RENAMED.get(relative.parts[0], relative.parts[0]), *relative.parts[1:]]
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        if relative.as_posix() in EXECUTABLE:
            target.chmod(0o755)
        written.append(target)
    return written
