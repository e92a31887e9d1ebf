"""``lessonkit init`` makes a site that builds strictly with every feature, and says how."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lessonkit.cli import main
from lessonkit.core.prepared import MANIFEST, prepared_files


def test_init_makes_a_site_that_builds_strictly_with_every_feature(
    tmp_path: Path, mkdocs_build, lesson_features, monkeypatch, capsys
) -> None:
    site = tmp_path / "my-lessons"
    code = main(["init", str(site), "--repo-url", "https://github.com/me/my-lessons"])
    out = capsys.readouterr().out
    assert code == 0
    assert "scripts/build --serve" in out and "scripts/test" in out
    assert os.access(site / "scripts" / "build", os.X_OK)
    for workflow in (site / ".github" / "workflows").glob("*.yml"):
        assert not re.search(r"\$\{\{[^}]*\bsecrets\.", workflow.read_text()), "no secrets"
    assert yaml.safe_load((site / ".github" / "ISSUE_TEMPLATE" / "mistake.yml").read_text())
    built = mkdocs_build(site)
    assert built.returncode == 0, built.stderr
    html = (site / "site" / "first-lesson" / "index.html").read_text()
    found = lesson_features(html)
    assert found == dict.fromkeys(found, True), found
    monkeypatch.chdir(site)
    assert main(["check"]) == 0, capsys.readouterr()
    assert main(["new", "second-lesson"]) == 0
    assert "Preview it with: scripts/build --serve" in capsys.readouterr().out


def test_an_init_site_builds_with_zensical_as_its_readme_says(
    tmp_path: Path, mkdocs_build, lesson_features
) -> None:
    """The README's Zensical line, run as written: every feature, the print page, the progress
    data; what prepare wrote is git-ignored; MkDocs then builds the same folder."""
    site = tmp_path / "my-lessons"
    assert main(["init", str(site), "--repo-url", "https://github.com/me/my-lessons"]) == 0
    readme = (site / "README.md").read_text()
    command = "lessonkit prepare --strict && zensical build --strict"
    assert f"`{command}`" in readme
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PATH": f"{Path(sys.executable).parent}"}
    env["PATH"] += os.pathsep + os.environ.get("PATH", "")
    built = subprocess.run(command, shell=True, cwd=site, capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stdout + built.stderr
    for page in ("first-lesson/index.html", "index.html", "print/index.html"):
        assert (site / "site" / page).is_file(), page
    html = (site / "site" / "first-lesson" / "index.html").read_text()
    found = lesson_features(html)
    assert found == dict.fromkeys(found, True), found
    assert 'id="lk-path"' in html, "the page carries the path's data for the progress script"
    home = (site / "site" / "index.html").read_text()
    assert '<a href="print/">the whole path on one page</a>' in home
    printed = (site / "site" / "print" / "index.html").read_text()
    assert printed.count('<section class="lk-print__lesson"') == 1
    subprocess.run(["git", "init", "-q"], cwd=site, check=True)
    made = [f"docs/{name}" for name in sorted([*prepared_files(site / "docs"), MANIFEST])]
    ignored = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        input="\n".join(made),
        cwd=site,
        capture_output=True,
        text=True,
    )
    assert len(made) > 4 and ignored.stdout.split() == made, "prepare's files are git-ignored"
    with_mkdocs = mkdocs_build(site)
    assert with_mkdocs.returncode == 0, with_mkdocs.stderr
    found = lesson_features((site / "site" / "first-lesson" / "index.html").read_text())
    assert found == dict.fromkeys(found, True), found


def test_init_refuses_a_folder_that_is_not_empty(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["init", str(tmp_path)]) == 1
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_new_names_mkdocs_serve_where_the_site_has_no_scripts(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: s\nnav:\n  - Home: index.md\n")
    monkeypatch.chdir(tmp_path)
    assert main(["new", "tokens"]) == 0
    assert "Preview it with: mkdocs serve --dirty " in capsys.readouterr().out


@pytest.mark.parametrize("name", ["Transformers: a path", "Attention"])
def test_the_site_name_is_quoted_where_yaml_needs_it(tmp_path: Path, name: str) -> None:
    from lessonkit.scaffold import init_site

    init_site(tmp_path / "s", name)
    front = (tmp_path / "s" / "docs" / "index.md").read_text().split("---")[1]
    assert yaml.safe_load(front)["title"] == name
