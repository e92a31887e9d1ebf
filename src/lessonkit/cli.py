"""The ``lessonkit`` command (``init``, ``new``, ``check``, ``prepare``, ``strip``, ``notebook``):
each finds the site's ``mkdocs.yml`` here or above (or ``-f FILE``); every error is one line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lessonkit.checks.files import check_files, markdown_files, page_url, site_problems
from lessonkit.checks.markdown_setup import MarkdownSetup, extensions_of
from lessonkit.core.prepared import prepared_files
from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.project import CONFIG_NAME, Project
from lessonkit.notebooks.twin import stored_outputs_note
from lessonkit.path import nav_order
from lessonkit.scaffold import DEFAULT_SECTION, ScaffoldError, init_site, new_lesson


def _display(path: Path) -> str:
    """``path`` relative to the current folder, as editors expect."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def _project(config: str | None) -> Project | None:
    """The site of ``mkdocs.yml`` (``-f``, or found from here up); LessonError if unreadable."""
    if config is None:
        here = Path.cwd().resolve()
        found = (folder / CONFIG_NAME for folder in (here, *here.parents))
        if (path := next((f for f in found if f.is_file()), None)) is None:
            return None
    else:
        path = Path(config)
    where = _display(path)
    try:
        return Project.from_text(path.read_text(encoding="utf-8"), path.resolve(), where)
    except OSError as error:
        hint = f"name the site's {CONFIG_NAME} with -f"
        raise _error(f"cannot read it: {error.strerror or error}", hint, where) from None
    except UnicodeDecodeError as error:
        raise _error(f"cannot read it: {error}", "save it as UTF-8", where) from None


def _error(message: str, hint: str, where: str, line: int | None = None) -> LessonError:
    return LessonError([Problem(message, hint=hint, path=where, line=line)])


def _usage(message: str, code: int = 2) -> int:
    print(message, file=sys.stderr)
    return code


def cmd_check(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    project = _project(args.config_file)
    if args.paths:
        paths = [Path(p).absolute() for p in args.paths]
    elif project is not None:
        paths = [project.docs_dir]
    else:
        return _usage(f"lessonkit check: no {CONFIG_NAME} here or above; name the files to check")
    if missing := [p for p in paths if not p.exists()]:
        return _usage(f"lessonkit check: no such file or folder: {_display(missing[0])}")
    prepared, site, options = _prepared(project), [], {}  # options: the site's, if any
    if project is not None:  # what lessonkit prepare wrote is lessonkit's, not the author's
        paths = [p for p in markdown_files(paths) if p not in set(prepared)]
        docs, config = project.docs_dir, project.config
        if not args.paths:  # the whole site: what its build finds in its files as a whole
            nav = (entry for entry, _ in nav_order(config.get("nav")))
            directory_urls = config.get("use_directory_urls", True) is not False
            names = [p.relative_to(docs).as_posix() for p in prepared]
            site = site_problems(
                docs,
                nav,
                names,
                project.virtual_pages,
                lambda path: _display(docs / path),
                lambda path: page_url(path, directory_urls),
                nav_sources="lessonkit.hosts.zensical" not in extensions_of(config)[0],
            )[1]
        options = {
            "docs_dir": docs,
            "glossary": project.glossary,
            "virtual_pages": project.virtual_pages,
            "settings": project.settings,
            "markdown": MarkdownSetup.of(*extensions_of(config)),
        }
    report = check_files(paths, display=_display, generated=prepared, **options)
    report.problems[:0] = site
    for problem in report.problems:
        print(problem.format())
    if note := stored_outputs_note(markdown_files(paths), _display):
        print(note)  # once, not a warning: a page shows what the build computes
    seconds = time.perf_counter() - started
    files = f"{report.files} file{'s' * (report.files != 1)}"
    summary = f"{report.errors} error(s), {report.warnings} warning(s) in {seconds:.2f} s"
    print(f"lessonkit check: {files}, {summary}", file=sys.stderr)
    return 1 if report.errors else 0


def _prepared(project: Project | None) -> list[Path]:
    """What ``lessonkit prepare`` wrote into the site's docs."""
    if project is None:
        return []
    return [project.docs_dir / name for name in prepared_files(project.docs_dir)]


def cmd_prepare(args: argparse.Namespace) -> int:
    from lessonkit.hosts.standalone.prepare import prepare_project

    started = time.perf_counter()
    if (project := _project(args.config_file)) is None:
        return _usage(f"lessonkit prepare: no {CONFIG_NAME} here or above")
    outcome = prepare_project(project)
    for problem in outcome.notes + outcome.problems:
        print(problem.format(), file=sys.stderr)
    seconds = time.perf_counter() - started
    done = f"{len(outcome.written)} file(s) written, {len(outcome.removed)} removed"
    done = "nothing written" if outcome.errors else done
    print(
        f"lessonkit prepare: {outcome.pages} page(s), {outcome.ran} ran; "
        f"{outcome.converted} converted; {done}; "
        f"{len(outcome.errors)} error(s), {len(outcome.warnings)} warning(s) in {seconds:.2f} s",
        file=sys.stderr,
    )
    return 1 if outcome.errors or (args.strict and outcome.warnings) else 0


def cmd_strip(args: argparse.Namespace) -> int:
    from lessonkit.notebooks.lesson import lesson_files
    from lessonkit.notebooks.twin import strip_outputs

    project = _project(args.config_file)
    paths = [Path(p) for p in args.paths] or ([project.docs_dir] if project else [])
    if not paths:
        return _usage(f"lessonkit strip: no {CONFIG_NAME} here or above; name the notebooks")
    made = {p.resolve() for p in _prepared(project)}  # the downloads prepare wrote: not lessons
    found = [f for p in paths for f in (lesson_files(p) if p.is_dir() else [p])]
    notebooks = [f for f in found if f.resolve() not in made]
    stripped = 0
    for notebook in (n for n in notebooks if n.suffix == ".ipynb"):
        try:
            changed = strip_outputs(notebook)
        except (OSError, ValueError) as error:
            print(f"{_display(notebook)}: error: cannot strip it: {error}", file=sys.stderr)
            return 1
        if changed:
            stripped += 1
            print(f"stripped {_display(notebook)}")
    print(f"lessonkit strip: {stripped} notebook(s) changed", file=sys.stderr)
    return 0


def cmd_notebook(args: argparse.Namespace) -> int:
    from lessonkit.notebooks.site import notebook_bytes
    from lessonkit.notebooks.twin import markdown_notebook

    source = Path(args.lesson)
    if not source.is_file():
        hint = "name a Markdown lesson, e.g. docs/embeddings.md"
        raise _error("no such file", hint, _display(source))
    target = Path(args.output) if args.output else source.with_suffix(".ipynb")
    if target.exists() and not args.force:
        return _usage(f"lessonkit notebook: {_display(target)} exists (--force replaces it)", 1)
    notebook = markdown_notebook(source.read_text(encoding="utf-8-sig"), _display(source))
    target.write_bytes(notebook_bytes(notebook))
    print(f"Wrote {_display(target)}; remove {_display(source)} if it takes its place in docs/")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    if (project := _project(args.config_file)) is None:
        return _usage(
            f"lessonkit new: no {CONFIG_NAME} here or above; run it in the site's folder", 1
        )
    try:
        path, in_nav = new_lesson(
            project.config_file, project.docs_dir, args.slug, args.title, args.section
        )
    except ScaffoldError as error:
        return _usage(f"lessonkit new: error: {error}", 1)
    print(f"Created {_display(path)}" + (f", listed in nav in {CONFIG_NAME}" if in_nav else ""))
    preview = _preview(project.config_file.parent)
    print(f"Preview it with: {preview}    Check it with: lessonkit check")
    return 0


def _preview(root: Path) -> str:
    """The site's own live-preview command: its scripts/build if it has one, else MkDocs'."""
    if (root / "scripts" / "build").is_file():
        return "scripts/build --serve"
    here = root.resolve() == Path.cwd().resolve()
    return "mkdocs serve --dirty" + ("" if here else f" -f {_display(root / CONFIG_NAME)}")


def cmd_init(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    name = args.name or folder.resolve().name.replace("-", " ").capitalize()
    try:
        init_site(folder, name, repo_url=args.repo_url, site_url=args.site_url)
    except ScaffoldError as error:
        return _usage(f"lessonkit init: error: {error}", 1)
    shown = _display(folder)
    print(f"Created a lesson site in {shown}. Next:")
    print(f"  cd {shown}")
    print("  scripts/build --serve   # set up .venv/, then preview on http://127.0.0.1:8000/")
    print("  scripts/test            # check every lesson and build strictly")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line: ``lessonkit {init,new,check,prepare,strip,notebook}``."""
    top = argparse.ArgumentParser(
        prog="lessonkit", description="Write and check lessons for a lessonkit site."
    )
    top.add_argument(
        "-f", "--config-file", help=f"the site's {CONFIG_NAME} (default: found from here up)"
    )
    commands = top.add_subparsers(dest="command", required=True)

    def command(name: str, run: object, about: str) -> argparse.ArgumentParser:
        made = commands.add_parser(name, help=about)
        made.set_defaults(run=run)
        return made

    new = command("new", cmd_new, "create a lesson from the template and list it in nav")
    new.add_argument("slug", help="the page's file name without .md, e.g. positional-encoding")
    new.add_argument("--title", help="the lesson's title (default: from the slug)")
    new.add_argument("--section", default=DEFAULT_SECTION, help=f"nav section ({DEFAULT_SECTION})")
    init = command("init", cmd_init, "create a working lesson site in a new folder")
    init.add_argument("folder", help="where to create it (a new or empty folder)")
    init.add_argument("--name", help="the site's name (default: from the folder's name)")
    init.add_argument("--repo-url", help="its GitHub repository (pages get report links)")
    init.add_argument("--site-url", help="where it will be published")
    check = command("check", cmd_check, "check lessons without building the site")
    check.add_argument("paths", nargs="*", help="files or folders (default: the docs folder)")
    about = "before a host without plugins builds (Zensical): run every page, write the glossary"
    about += " page, the print page, notebooks and lessonkit's CSS and JS into the docs folder"
    command("prepare", cmd_prepare, about).add_argument(
        "--strict", action="store_true", help="fail on warnings too"
    )
    about = "remove the outputs stored in notebook lessons (the build never shows them)"
    strip = command("strip", cmd_strip, about)
    strip.add_argument("paths", nargs="*", help="notebooks or folders (default: the docs folder)")
    notebook = command(
        "notebook", cmd_notebook, "write the notebook (.ipynb) twin of a Markdown lesson"
    )
    notebook.add_argument("lesson", help="the Markdown lesson, e.g. docs/embeddings.md")
    notebook.add_argument("-o", "--output", help="where to write it (default: beside it, .ipynb)")
    notebook.add_argument("--force", action="store_true", help="replace an existing notebook")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except LessonError as error:  # e.g. a wrong lessonkit option in mkdocs.yml
        print(error, file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # every file is written whole: the next run finishes the work
        print(f"lessonkit {args.command}: interrupted; run it again to finish", file=sys.stderr)
        return 130
    except OSError as error:  # a file named on the command line, a full disk
        where = error.filename or f"lessonkit {args.command}"
        print(f"{where}: error: {error.strerror or error}", file=sys.stderr)
        print("  hint: check the path and that the disk has room", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
