"""``lessonkit init DIR``: a working lesson site in an empty folder, from the template ``site/``.

>>> names = sorted(p.as_posix() for p in site_files())
>>> names[:4]
['README.md', 'docs/first-lesson.md', 'docs/glossary.yml', 'docs/index.md']
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path, PurePosixPath

from lessonkit import __version__
from lessonkit.scaffold.lesson import FIRST_LESSON, ScaffoldError, lesson_text, yaml_text

RENAMED = {"gitignore": ".gitignore", "github": ".github"}  # names packaging would drop
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
    template = resources.files("lessonkit.scaffold").joinpath("site")
    written = []
    for relative in site_files():
        text = template.joinpath(*relative.parts).read_text(encoding="utf-8")
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
