"""The ``lessonkit`` command: ``init`` makes a site, ``new`` a lesson, ``check`` checks lessons,
``prepare`` writes what a host without plugins (Zensical) needs before it builds.

Each finds the site from ``mkdocs.yml`` in the current folder or a parent (or ``-f FILE``).
``check`` prints each problem as ``file:line: error: message`` with a hint, then a summary, and
exits 1 if any error was found (warnings alone exit 0).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lessonkit.checks.markdown_setup import MarkdownSetup, extensions_of
from lessonkit.checks.recipe import check_files
from lessonkit.core.problems import LessonError
from lessonkit.core.project import CONFIG_NAME, Project
from lessonkit.scaffold import DEFAULT_SECTION, ScaffoldError, init_site, new_lesson


def _display(path: Path) -> str:
    """``path`` relative to the current folder when it is below it, as editors expect."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def _project(config: str | None) -> Project | None:
    if config is None:
        return Project.find()
    path = Path(config)
    return Project.from_text(path.read_text(encoding="utf-8"), path.resolve())


def cmd_check(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    project = _project(args.config_file)
    if args.paths:
        paths = [Path(p) for p in args.paths]
    elif project is not None:
        paths = [project.docs_dir]
    else:
        print(
            f"lessonkit check: no {CONFIG_NAME} here or above; name the files to check",
            file=sys.stderr,
        )
        return 2
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"lessonkit check: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    report = check_files(
        paths,
        docs_dir=project.docs_dir if project else None,
        glossary=project.glossary if project else None,
        virtual_pages=project.virtual_pages if project else (),
        display=_display,
        settings=project.settings if project else None,
        markdown=MarkdownSetup.of(*extensions_of(project.config)) if project else None,
    )
    for problem in report.problems:
        print(problem.format())
    seconds = time.perf_counter() - started
    files = f"{report.files} file{'s' * (report.files != 1)}"
    print(
        f"lessonkit check: {files}, {report.errors} error(s), {report.warnings} warning(s) "
        f"in {seconds:.2f} s",
        file=sys.stderr,
    )
    return 1 if report.errors else 0


def cmd_prepare(args: argparse.Namespace) -> int:
    """Write the site-level outputs a host without plugins needs (Zensical) into the docs."""
    from lessonkit.hosts.standalone.prepare import prepare_project

    started = time.perf_counter()
    project = _project(args.config_file)
    if project is None:
        print(f"lessonkit prepare: no {CONFIG_NAME} here or above", file=sys.stderr)
        return 2
    outcome = prepare_project(project)
    for problem in outcome.notes + outcome.problems:
        print(problem.format(), file=sys.stderr)
    seconds = time.perf_counter() - started
    done = (
        f"{len(outcome.written)} file(s) written, {len(outcome.removed)} removed"
        if not outcome.errors
        else "nothing written"
    )
    print(
        f"lessonkit prepare: {outcome.pages} page(s), {outcome.ran} ran; {done}; "
        f"{len(outcome.errors)} error(s), {len(outcome.warnings)} warning(s) in {seconds:.2f} s",
        file=sys.stderr,
    )
    return 1 if outcome.errors or (args.strict and outcome.warnings) else 0


def cmd_new(args: argparse.Namespace) -> int:
    project = _project(args.config_file)
    if project is None:
        print(
            f"lessonkit new: no {CONFIG_NAME} here or above; run it in the site's folder",
            file=sys.stderr,
        )
        return 1
    try:
        path, in_nav = new_lesson(
            project.config_file, project.docs_dir, args.slug, args.title, args.section
        )
    except ScaffoldError as error:
        print(f"lessonkit new: error: {error}", file=sys.stderr)
        return 1
    print(f"Created {_display(path)}" + (f", listed in nav in {CONFIG_NAME}" if in_nav else ""))
    print(
        f"Preview it with: {_preview(project.config_file.parent)}    Check it with: lessonkit check"
    )
    return 0


def _preview(root: Path) -> str:
    """The site's own live-preview command: its scripts/build if it has one, else MkDocs'."""
    if (root / "scripts" / "build").is_file():
        return "scripts/build --serve"
    return (
        "mkdocs serve --dirty"
        if root.resolve() == Path.cwd().resolve()
        else f"mkdocs serve --dirty -f {_display(root / CONFIG_NAME)}"
    )


def cmd_init(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    name = args.name or folder.resolve().name.replace("-", " ").capitalize()
    try:
        init_site(folder, name, repo_url=args.repo_url, site_url=args.site_url)
    except ScaffoldError as error:
        print(f"lessonkit init: error: {error}", file=sys.stderr)
        return 1
    shown = _display(folder)
    print(f"Created a lesson site in {shown}. Next:")
    print(f"  cd {shown}")
    print("  scripts/build --serve   # set up .venv/, then preview on http://127.0.0.1:8000/")
    print("  scripts/test            # check every lesson and build strictly")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line: ``lessonkit {init,new,check,prepare}``."""
    main_parser = argparse.ArgumentParser(
        prog="lessonkit", description="Write and check lessons for a lessonkit site."
    )
    main_parser.add_argument(
        "-f", "--config-file", help=f"the site's {CONFIG_NAME} (default: found from here up)"
    )
    commands = main_parser.add_subparsers(dest="command", required=True)

    new = commands.add_parser("new", help="create a lesson from the template and list it in nav")
    new.add_argument("slug", help="the page's file name without .md, e.g. positional-encoding")
    new.add_argument("--title", help="the lesson's title (default: from the slug)")
    new.add_argument(
        "--section", default=DEFAULT_SECTION, help=f"nav section to add it to ({DEFAULT_SECTION})"
    )
    new.set_defaults(run=cmd_new)

    init = commands.add_parser("init", help="create a working lesson site in a new folder")
    init.add_argument("folder", help="where to create it (a new or empty folder)")
    init.add_argument("--name", help="the site's name (default: from the folder's name)")
    init.add_argument("--repo-url", help="its GitHub repository (pages get report links)")
    init.add_argument("--site-url", help="where it will be published")
    init.set_defaults(run=cmd_init)

    check = commands.add_parser("check", help="check lessons without building the site")
    check.add_argument("paths", nargs="*", help="files or folders (default: the docs folder)")
    check.set_defaults(run=cmd_check)

    prepare = commands.add_parser(
        "prepare",
        help="before a host without plugins builds (Zensical): run every page, write the "
        "glossary page, notebooks and lessonkit's CSS and JS into the docs folder",
    )
    prepare.add_argument("--strict", action="store_true", help="fail on warnings too")
    prepare.set_defaults(run=cmd_prepare)
    return main_parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except LessonError as error:  # e.g. a wrong lessonkit option in mkdocs.yml
        print(error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
