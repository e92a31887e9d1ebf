"""``lessonkit prepare`` touches only the files it wrote, inside the docs folder, and a run that
went wrong (stopped, a full disk, two at once, a manifest deleted or made a folder) is put right
by the next one."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from lessonkit.cli import main
from lessonkit.core.prepared import MANIFEST, prepared_files
from lessonkit.core.problems import LessonError
from lessonkit.hosts.standalone.manifest import one_writer
from lessonkit.path import Lesson, print_html

SITE = """\
site_name: small
theme:
  name: material
  font: false
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [pymdownx.superfences, lessonkit.hosts.zensical]
extra_css: [assets/lessonkit/lessonkit.css]
extra_javascript: [assets/lessonkit/lessonkit.js]
watch: [docs]
nav:
  - Learning path:
      - index.md
      - other.md
"""
HOME = "---\ntitle: Home\ndescription: The home page.\n---\n\n# Home\n\nSee [other](other.md).\n"
OTHER = "---\ntitle: Other\ndescription: Another page.\n---\n\n# Other\n\nSome prose.\n"
OUTPUTS = {"print.md", "assets/lessonkit/lessonkit.css", "assets/lessonkit/lessonkit.js"}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(SITE)
    (root / "docs" / "index.md").write_text(HOME)
    (root / "docs" / "other.md").write_text(OTHER)
    return root


def prepare(site: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["-f", str(site / "mkdocs.yml"), "prepare"])
    out, err = capsys.readouterr()
    return code, out + err


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mkdocs_build(site: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=site,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def forge(site: Path, files: dict[str, str]) -> None:
    """A manifest as a pull request could commit it, naming ``files`` (path -> sha256)."""
    (site / "docs" / MANIFEST).write_text(json.dumps({"files": files}))


# --- class 1: only its own files, only inside docs/ -------------------------------------------


def test_a_committed_manifest_cannot_make_prepare_delete_files_outside_docs(
    site: Path, tmp_path: Path, capsys
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    config = site / "mkdocs.yml"
    forge(site, {"../mkdocs.yml": sha(config), str(victim): sha(victim)})
    code, output = prepare(site, capsys)
    assert code == 0, output
    assert "Traceback" not in output
    assert config.read_text() == SITE and victim.read_text() == "precious\n"


def test_a_committed_manifest_cannot_make_prepare_delete_an_authors_page(
    site: Path, capsys
) -> None:
    page = site / "docs" / "other.md"
    forge(site, {"other.md": sha(page)})
    code, output = prepare(site, capsys)
    assert code == 0, output
    assert page.read_text() == OTHER
    assert "other.md" not in prepared_files(site / "docs"), "a lesson, not prepare's"


def test_prepare_never_writes_through_a_symlink_out_of_docs(
    site: Path, tmp_path: Path, capsys
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (site / "docs" / "assets").symlink_to(outside, target_is_directory=True)
    code, output = prepare(site, capsys)
    assert code == 1, output
    assert "docs/assets/lessonkit/lessonkit.css: error:" in output, output
    assert not list(outside.iterdir()), "nothing written outside docs/"


def test_a_stale_manifest_hides_no_lesson_from_check_or_mkdocs(
    site: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    page = site / "docs" / "other.md"
    page.write_text(OTHER + "\nSee [nothing](missing.md).\n")
    forge(site, {"other.md": sha(page)})
    monkeypatch.chdir(site)
    code = main(["check"])
    output = "".join(capsys.readouterr())
    assert code == 1
    assert "docs/other.md:10: error: link to a page that does not exist" in output, output
    built = mkdocs_build(site, tmp_path / "out")
    assert "docs/other.md:10: error: link to a page that does not exist" in built.stderr


# --- class 5: a run that went wrong is put right by the next -----------------------------------


def leftovers(site: Path) -> list[str]:
    return [p.name for p in site.rglob("*.tmp")]


def test_a_rerun_after_the_manifest_was_deleted_recognises_prepares_own_files(
    site: Path, capsys
) -> None:
    assert prepare(site, capsys)[0] == 0
    (site / "docs" / MANIFEST).unlink()
    code, output = prepare(site, capsys)
    assert code == 0, output
    assert prepared_files(site / "docs") == OUTPUTS


def test_a_manifest_that_is_a_folder_is_one_error_and_leaves_nothing(site: Path, capsys) -> None:
    (site / "docs" / MANIFEST).mkdir()
    code, output = prepare(site, capsys)
    assert code == 1
    assert "Traceback" not in output
    assert f"docs/{MANIFEST}: error:" in output, output
    assert not leftovers(site) and not (site / "docs" / "print.md").exists()


def test_a_full_disk_is_one_error_and_the_next_run_finishes(
    site: Path, capsys, monkeypatch
) -> None:
    write = Path.write_bytes

    def full(path: Path, data: bytes) -> int:
        if "lessonkit.js" in path.name:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write(path, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    code, output = prepare(site, capsys)
    assert code == 1
    assert "lessonkit.js: error: lessonkit prepare cannot write" in output, output
    assert "No space left on device" in output and "Traceback" not in output
    assert not leftovers(site)
    monkeypatch.setattr(Path, "write_bytes", write)
    code, output = prepare(site, capsys)
    assert code == 0, output
    assert prepared_files(site / "docs") == OUTPUTS


def test_a_rerun_through_a_symlinked_folder_inside_docs_converges(site: Path, capsys) -> None:
    """Its files found by another name (a folder symlinked inside docs/; on a case-insensitive
    disk, a name in another case) are still prepare's: neither refused nor removed."""
    (site / "docs" / "static").mkdir()
    (site / "docs" / "assets").symlink_to("static", target_is_directory=True)
    assert prepare(site, capsys)[0] == 0
    code, output = prepare(site, capsys)
    assert code == 0, output
    for name in OUTPUTS:
        assert (site / "docs" / name).is_file(), f"{name} is still there"


def test_an_output_the_author_edited_is_theirs(site: Path, capsys) -> None:
    assert prepare(site, capsys)[0] == 0
    printed = site / "docs" / "print.md"
    printed.write_text(printed.read_text() + "\nMy own words.\n")
    code, output = prepare(site, capsys)
    assert code == 1
    assert "docs/print.md: error: lessonkit makes print.md, but" in output, output
    assert printed.read_text().endswith("My own words.\n")


# --- class 6: every host refuses to replace an author's page -----------------------------------

GLOSSARY = "- term: token\n  definition: A piece of text.\n"


@pytest.mark.parametrize("name", ["print.md", "glossary.md"])
def test_no_host_replaces_an_authors_page_of_a_name_lessonkit_makes(
    name: str, site: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    (site / "docs" / "glossary.yml").write_text(GLOSSARY)
    own = "---\ntitle: Mine\ndescription: The author's page.\n---\n\n# Mine\n\nMy words.\n"
    (site / "docs" / name).write_text(own)
    expected = f"docs/{name}: error: lessonkit makes {name}, but the docs folder has a file"
    built = mkdocs_build(site, tmp_path / "out")
    assert built.returncode == 1 and expected in built.stderr, built.stderr
    monkeypatch.chdir(site)
    code, output = prepare(site, capsys)
    assert code == 1 and expected in output, output
    assert (site / "docs" / name).read_text() == own


# --- class 10: every command error is one line (and a hint), never a traceback -----------------

BAD_YAML = "site_name: small\nnav:\n  - Home: index.md\n   - Other: other.md\n"


def one_error(output: str, expected: str) -> None:
    """``output`` is one problem: ``expected`` on its first line, then a hint."""
    lines = [line for line in output.splitlines() if not line.startswith("lessonkit check:")]
    assert "Traceback" not in output, output
    assert len(lines) == 2 and expected in lines[0] and lines[1].startswith("  hint: "), output


@pytest.mark.parametrize("command", [["check"], ["prepare"], ["new", "tokens"], ["strip"]])
def test_invalid_yaml_in_mkdocs_yml_is_one_error_at_its_line(
    command: list[str], site: Path, capsys, monkeypatch
) -> None:
    (site / "mkdocs.yml").write_text(BAD_YAML)
    monkeypatch.chdir(site / "docs")
    assert main(command) != 0
    one_error("".join(capsys.readouterr()), "../mkdocs.yml:4: error: not valid YAML:")


@pytest.mark.parametrize("name", ["missing.yml", "docs"])
def test_f_naming_a_missing_file_or_a_folder_is_one_error(
    name: str, site: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(site)
    assert main(["-f", name, "check"]) != 0
    one_error("".join(capsys.readouterr()), f"{name}: error: cannot read it:")


def test_notebook_of_a_missing_lesson_is_one_error(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["notebook", "docs/missing.md"]) == 1
    one_error("".join(capsys.readouterr()), "docs/missing.md: error: no such file")


def test_init_onto_a_file_is_one_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["init", str(tmp_path / "notes.txt")]) == 1
    output = "".join(capsys.readouterr())
    assert "Traceback" not in output and "notes.txt is a file" in output, output
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_new_refuses_a_slug_no_file_system_takes(site: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(site)
    assert main(["new", "a" * 300]) == 1
    output = "".join(capsys.readouterr())
    assert "Traceback" not in output and "is not a valid lesson slug" in output, output
    assert "a" * 100 not in output, "the message stays one readable line"


@pytest.mark.parametrize("name", ["Attention: a course", "Lessons #1", "yes"])
def test_init_writes_a_mkdocs_yml_that_reads_back_the_name(tmp_path: Path, name: str) -> None:
    assert (
        main(["init", str(tmp_path / "s"), "--name", name, "--repo-url", "https://x.org/a#b"]) == 0
    )
    config = yaml.safe_load((tmp_path / "s" / "mkdocs.yml").read_text())
    assert config["site_name"] == name and config["repo_url"] == "https://x.org/a#b"


# --- classes 5 and 14: one run at a time; Ctrl-C is one line, and nothing is half-written ------

SLOW = """\
---
title: Slow
description: Slow.
---

# Slow

```python exec timeout=300
import time
from pathlib import Path

Path({started!r}).touch()
time.sleep(60)
```
"""


def test_a_second_prepare_is_refused_while_one_runs_and_ctrl_c_is_one_line(
    site: Path, capsys
) -> None:
    started = site.parent / "started"
    (site / "docs" / "slow.md").write_text(SLOW.format(started=str(started)))
    first = subprocess.Popen(
        [sys.executable, "-m", "lessonkit.cli", "prepare"],
        cwd=site,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches it
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.2)  # until the slow page runs: the first prepare holds the site
        code, output = prepare(site, capsys)
        assert code == 1, output
        assert "error: another lessonkit prepare is running for this site" in output, output
        os.killpg(first.pid, signal.SIGINT)
        _, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert first.returncode == 130, err
    assert err.strip() == "lessonkit prepare: interrupted; run it again to finish", err
    assert not leftovers(site) and not (site / "docs" / "print.md").exists()


def test_prepare_runs_where_the_cache_folder_cannot_be_made(site: Path, capsys) -> None:
    """The cache is an accident's miss, not a requirement (the MkDocs build warns and builds):
    one run at a time needs no file of its own there."""
    (site / ".lessonkit").write_text("not a folder")
    code, output = prepare(site, capsys)
    assert code == 0, output
    assert prepared_files(site / "docs") == OUTPUTS


def test_prepare_runs_on_a_file_system_without_locks(
    site: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some network file systems refuse flock (EBADF, ENOLCK, EOPNOTSUPP): no lock, then, as on
    Windows; never "another lessonkit prepare is running" when none is."""
    import fcntl

    def refused(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", refused)
    code, output = prepare(site, capsys)
    assert code == 0, output
    assert prepared_files(site / "docs") == OUTPUTS


HOLD = """\
import sys, time
from pathlib import Path
from lessonkit.hosts.standalone.manifest import one_writer
with one_writer(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_prepare_killed_outright_leaves_no_lock_behind(tmp_path: Path) -> None:
    """SIGKILL runs no cleanup: the lock is the kernel's (flock), and goes with the process."""
    lock = tmp_path / "docs"
    lock.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        busy = pytest.raises(LessonError, match="another lessonkit prepare is running")
        with busy, one_writer(lock):
            pass
    finally:
        holder.kill()
        holder.wait(timeout=30)
    with one_writer(lock):  # no stale lock to remove by hand
        pass
    assert [p.name for p in lock.iterdir()] == [], "and no file of its own in the docs"


# --- class 4: nothing from a page's file name or link becomes markup on the print page --------

EVIL = 'a"><img src=x onerror=alert(1)>'


class _Markup(HTMLParser):
    """The tags and attribute names of some HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs


def markup(html: str) -> _Markup:
    parser = _Markup()
    parser.feed(html)
    return parser


def test_the_print_page_escapes_file_names_titles_and_link_fragments() -> None:
    link = '<p><a href="../b/#x&quot; onmouseover=&quot;alert(1)">b</a></p>'
    lessons = [
        Lesson(f"{EVIL}.md", f"{EVIL} title", f"{EVIL}/", '<h1 id="t">T</h1>' + link),
        Lesson("b.md", "B", "b/", '<h1 id="b">B</h1>'),
    ]
    for site_url in ("", "https://s.io/"):
        found = markup(print_html(lessons, None, site_url))
        assert "img" not in found.tags, "the file name stays text"
        assert not [name for name, _ in found.attributes if name.startswith("on")]
        ids = [value for name, value in found.attributes if name == "id"]
        assert all(re.fullmatch(r"[\w-]+", value or "") for value in ids), ids


def test_prepare_writes_a_print_page_whose_file_names_stay_text(site: Path, capsys) -> None:
    (site / "docs" / f"{EVIL}.md").write_text(OTHER.replace("Other", "Evil"))
    config = site / "mkdocs.yml"
    config.write_text(config.read_text() + f"      - '{EVIL}.md'\n")
    code, output = prepare(site, capsys)
    assert code == 0, output
    found = markup((site / "docs" / "print.md").read_text().split("---", 2)[2])
    assert "img" not in found.tags and found.tags.count("section") == 3


# --- class 13: check, prepare and the build report the same problems --------------------------

NOTEBOOK = {
    "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Other\n"]}],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def two_sources(site: Path) -> str:
    (site / "docs" / "other.ipynb").write_text(json.dumps(NOTEBOOK))
    return "docs/other.ipynb: error: other.ipynb and other.md would both be the page other/"


def dangling(site: Path) -> str:
    (site / "docs" / "gone.md").symlink_to("nowhere.md")
    return "docs/gone.md: error: cannot read the file: No such file or directory"


def missing_in_nav(site: Path) -> str:
    config = site / "mkdocs.yml"
    config.write_text(config.read_text() + "      - missing.md\n")
    return "A reference to 'missing.md' is included in the 'nav' configuration, which is not found"


@pytest.mark.parametrize("case", [two_sources, dangling, missing_in_nav])
def test_check_prepare_and_the_build_report_the_same_site_problem(
    case, site: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    expected = case(site)
    built = mkdocs_build(site, tmp_path / "out")
    assert built.returncode == 1 and expected in built.stderr, built.stderr
    monkeypatch.chdir(site)
    assert main(["check"]) != 0 or case is missing_in_nav
    checked = "".join(capsys.readouterr())
    assert expected in checked, checked
    code, prepared = prepare(site, capsys)
    assert expected in prepared, prepared
    assert code == 1 or case is missing_in_nav
    assert main(["prepare", "--strict"]) == 1, "a warning fails a strict prepare"
