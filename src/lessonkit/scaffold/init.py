"""``lessonkit init DIR``: a working lesson site in an empty folder.

It writes ``mkdocs.yml``, a home page, a first lesson that shows every authoring feature (the
template of ``lessonkit new``), a glossary, a README with the site's own two commands
(``scripts/build``, ``scripts/test``), ``requirements.txt``, the GitHub workflows (checks on
pull requests without secrets, a Pages deploy) and the "Report a mistake" issue form.

>>> names = sorted(p.as_posix() for p in site_files())
>>> names[:4]
['README.md', 'docs/glossary.yml', 'docs/index.md', 'github/ISSUE_TEMPLATE/config.yml']
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path, PurePosixPath

import yaml

from lessonkit import __version__
from lessonkit.scaffold.lesson import ScaffoldError, lesson_text

FIRST_LESSON = "docs/first-lesson.md"
RENAMED = {"gitignore": ".gitignore", "github": ".github"}
"""Template names that packaging would drop or hide, and the names they get in the site."""
EXECUTABLE = {"scripts/build", "scripts/test"}


def site_files(
    root: Traversable | None = None, prefix: PurePosixPath | None = None
) -> Iterator[PurePosixPath]:
    """The template's files, relative to the template folder."""
    root = root or resources.files("lessonkit.scaffold").joinpath("site")
    prefix = prefix or PurePosixPath()
    for item in sorted(root.iterdir(), key=lambda i: i.name):
        if item.name == "__pycache__":
            continue
        if item.is_dir():
            yield from site_files(item, prefix / item.name)
        else:
            yield prefix / item.name


def _line(key: str, value: str) -> str:
    """``key: value`` as a YAML line that reads back as ``value``, whatever it holds.

    >>> _line("site_name", "Attention: a course #1")
    "site_name: 'Attention: a course #1'"
    """
    return yaml.safe_dump({key: value}, allow_unicode=True, width=1 << 16).rstrip("\n")


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
        "@@SITE_NAME_LINE@@": _line("site_name", name),
        "@@TITLE_LINE@@": _line("title", name),
        "@@SITE_NAME@@": name,
        "@@VERSION@@": __version__,
        "@@SITE_URL_LINE@@": _line("site_url", site_url) if site_url else "# site_url: https://…",
        "@@REPO_LINES@@": (
            "# The one place naming the repository: report links and issue forms use it.\n"
            + _line("repo_url", repo_url)
            if repo_url
            else "# repo_url: https://github.com/you/lessons  (gives every page a report link)"
        ),
    }
    template = resources.files("lessonkit.scaffold").joinpath("site")
    written = []
    for relative in site_files():
        text = template.joinpath(*relative.parts).read_text(encoding="utf-8")
        for marker, value in values.items():
            text = text.replace(marker, value)
        parts = [RENAMED.get(relative.parts[0], relative.parts[0]), *relative.parts[1:]]
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        if relative.as_posix() in EXECUTABLE:
            target.chmod(0o755)
        written.append(target)
    lesson = folder / FIRST_LESSON
    lesson.write_text(lesson_text("First lesson"), encoding="utf-8")
    return [*written, lesson]
