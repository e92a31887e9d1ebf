"""The ``lessonkit`` command: ``new`` scaffolds a lesson that checks and builds; ``check`` finds
static mistakes with their file:line without building the site."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from lessonkit.checks.recipe import Context, check_text
from lessonkit.cli import main
from lessonkit.core.project import Project, load_config
from lessonkit.notebooks.lesson import lesson_files
from lessonkit.scaffold import ScaffoldError, add_to_nav

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "broken"
EXPECT = re.compile(r"<!-- expect: (\d+): (.+?) -->")
STATIC = [
    "bad-output",
    "bad-resource",
    "empty-value",
    "notebook-not-bool",
    "syntax",
    "unknown-option",
]
"""Broken lessons whose mistake shows without running code (the rest fail only when run)."""
QUIZ_BROKEN = sorted((ROOT / "tests" / "quiz" / "broken").glob("*.md"))


def run(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run ``lessonkit ARGS`` in ``cwd``; return its exit code and stdout + stderr."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(args)
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out + err


# --- lessonkit check -------------------------------------------------------------------------


@pytest.mark.parametrize("name", STATIC)
def test_check_finds_static_broken_lesson_at_its_line(name: str, capsys) -> None:
    case = BROKEN / f"{name}.md"
    line, text = EXPECT.search(case.read_text()).groups()
    code, output = run(["check", f"tests/broken/{name}.md"], ROOT, capsys)
    assert code == 1
    assert f"tests/broken/{name}.md:{line}: error: {text}" in output, output
    assert "hint:" in output


@pytest.mark.parametrize("case", QUIZ_BROKEN, ids=lambda p: p.stem)
def test_check_finds_broken_quizzes_at_their_line(case: Path, capsys) -> None:
    line, text = EXPECT.search(case.read_text()).groups()
    code, output = run(["check", str(case.relative_to(ROOT))], ROOT, capsys)
    assert code == 1
    where = f"{case.relative_to(ROOT)}:{line}: error: "
    assert any(row.startswith(where) and text in row for row in output.splitlines()), output


def test_check_reads_every_broken_lesson_without_crashing(capsys) -> None:
    code, output = run(["check", "tests/broken"], ROOT, capsys)
    assert code == 1
    cases = [*BROKEN.glob("*.md"), *(BROKEN / "notebooks").iterdir()]  # notebook lessons too
    assert f"lessonkit check: {len(cases)} files" in output


def test_check_passes_on_the_real_docs(capsys) -> None:
    code, output = run(["check"], ROOT, capsys)
    assert code == 0, output
    pages = len(lesson_files(ROOT / "docs"))  # Markdown and notebook lessons
    assert f"lessonkit check: {pages} files, 0 error(s)" in output


def test_check_of_one_file_knows_the_site_s_notebook_pages(capsys) -> None:
    # history.md links to embeddings.md, the page embeddings.ipynb stands for
    for cwd, path in ((ROOT, "docs/history.md"), (ROOT / "docs", "history.md")):
        code, output = run(["check", path], cwd, capsys)
        assert code == 0 and "1 file, 0 error(s)" in output, output


def test_check_names_a_missing_path(capsys) -> None:
    code, output = run(["check", "docs/no-such-lesson.md"], ROOT, capsys)
    assert code == 2
    assert "no such file or folder: docs/no-such-lesson.md" in output


LESSON = "---\ntitle: T\ndescription: D\n---\n# T\n\n"
"""A valid start of a page: the body begins on line 7."""


def problems(body: str, tmp_path: Path | None = None, **context: object) -> list[str]:
    """Formatted problems of a page whose body starts on line 7; links resolve in tmp_path."""
    file = None
    if tmp_path is not None:
        file = tmp_path / "docs" / "page.md"
        file.parent.mkdir(exist_ok=True)
        context.setdefault("docs_dir", tmp_path / "docs")
    found = check_text(LESSON + body, "page.md", file, Context(**context))
    return [f"{p.line}: {p.severity}: {p.message}" for p in found]


def test_check_reports_front_matter_problems() -> None:
    no_title = check_text("---\ndescription: D\n---\nText without a heading.\n")
    assert [(p.line, p.message) for p in no_title] == [
        (1, "the page has no title in its front matter")
    ]
    bad_yaml = check_text("---\ntitle: T\ndescription: [unclosed\n---\n# T\n")
    assert len(bad_yaml) == 1 and bad_yaml[0].message.startswith("invalid YAML front matter")
    assert bad_yaml[0].line in (3, 4)  # where PyYAML notices the unclosed list
    no_description = check_text("---\ntitle: T\n---\n# T\n")
    assert [(p.line, p.severity) for p in no_description] == [(2, "warning")]


def test_check_compiles_blocks_doctests_and_values_without_running_them() -> None:
    body = (
        "```python exec\nimport sys\nsys.exit('never run')\nreturn 1\n```\n\n"  # 7-11
        "```pycon\n>>> 1 + 1\n2\n>>> print((1,)\n```\n\n"  # 13-17
        "Value {{ x[ }} and {{ fine:.2f }}.\n"  # 19
    )
    assert problems(body) == [
        "10: error: SyntaxError: 'return' outside function",
        "16: error: SyntaxError: '(' was never closed",
        "19: error: SyntaxError in inline value {{ x[ }}: '[' was never closed",
    ]


def test_check_finds_links_to_missing_pages_but_not_other_links(tmp_path: Path) -> None:
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## Part\n")
    (tmp_path / "docs" / "sub" / "deep.md").write_text("# Deep\n")
    body = "\n".join(
        [
            "[ok](other.md#part) [ok](sub/deep.md) [ok](/other.md) [ok](glossary.md#token)",  # 7
            "[web](https://example.org/x.md) [anchor](#here) [file](data.csv) ![img](a.png){#here}",
            "`[code](nope.md)` and [typo](othr.md)",  # 9
            "```",
            "[in a fence](nope.md)",
            "```",
            "[ref]: sub/missing.md",  # 13
        ]
    )
    found = problems(body, tmp_path, virtual_pages=frozenset({"glossary.md"}))
    assert found == [
        "9: error: link to a page that does not exist: othr.md",
        "13: error: link to a page that does not exist: sub/missing.md",
    ]
    typo = check_text(
        LESSON + body,
        "p.md",
        tmp_path / "docs" / "page.md",
        Context(tmp_path / "docs", virtual_pages=frozenset({"glossary.md"})),
    )
    assert typo[0].hint == "did you mean other.md?"


# --- lessonkit new ---------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the real site (config, templates, docs) to add lessons to."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(ROOT / "mkdocs.yml", site)
    shutil.copytree(ROOT / "overrides", site / "overrides")
    shutil.copytree(ROOT / "docs", site / "docs")
    cache = ROOT / ".lessonkit" / "cache"
    if cache.is_dir():  # results of the existing lessons: only the new one runs
        shutil.copytree(cache, site / ".lessonkit" / "cache", ignore_dangling_symlinks=True)
    return site


TITLE = "Positional encoding: where am I?"


def test_new_lesson_checks_and_builds_strictly(project: Path, capsys) -> None:
    config_before = (project / "mkdocs.yml").read_text()
    code, output = run(["new", "positional-encoding", "--title", TITLE], project, capsys)
    assert code == 0, output
    page = project / "docs" / "positional-encoding.md"
    text = page.read_text()
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["title"] == TITLE
    assert meta["description"] and len(meta["resources"]) >= 1
    for part in ("\n# " + TITLE, "```python exec", "{{ weights[0]:.2f }}", "```pycon", "/// quiz"):
        assert part in text

    config_after = (project / "mkdocs.yml").read_text()
    added = [line for line in config_after.splitlines() if line not in config_before.splitlines()]
    assert added == [f'      - "{TITLE}": positional-encoding.md']
    assert [line for line in config_after.splitlines() if line not in added] == (
        config_before.splitlines()
    ), "every other line, comments included, is kept as it was"
    nav = load_config(config_after)["nav"]
    path = next(item["Learning path"] for item in nav if "Learning path" in item)
    assert path[-1] == {TITLE: "positional-encoding.md"}

    code, output = run(["check"], project, capsys)
    assert code == 0, output

    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(project / "out")],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    html = (project / "out" / "positional-encoding" / "index.html").read_text()
    scores = np.array([2.0, 1.0, 0.1])
    weights = np.exp(scores) / np.exp(scores).sum()
    assert f"into the weights {weights[0]:.2f}, {weights[1]:.2f} and" in html
    assert 'class="lk-quiz' in html and "lk-report" in html


def test_new_refuses_to_overwrite(project: Path, capsys) -> None:
    assert run(["new", "my-lesson"], project, capsys)[0] == 0
    page = project / "docs" / "my-lesson.md"
    page.write_text(page.read_text() + "\nMy own words.\n")
    config = (project / "mkdocs.yml").read_text()
    code, output = run(["new", "my-lesson", "--title", "Other"], project, capsys)
    assert code == 1
    assert "lessonkit new: error: docs/my-lesson.md already exists" in output
    assert page.read_text().endswith("My own words.\n")
    assert (project / "mkdocs.yml").read_text() == config
    assert config.count("my-lesson.md") == 1
    assert "- My lesson: my-lesson.md" in config


@pytest.mark.parametrize("slug", ["My Lesson", "../escape", "lesson.md", ""])
def test_new_refuses_a_bad_slug(slug: str, project: Path, capsys) -> None:
    code, output = run(["new", slug], project, capsys)
    assert code == 1
    assert "is not a valid lesson slug" in output
    assert sorted(p.name for p in (project / "docs").iterdir()) == sorted(
        p.name for p in (ROOT / "docs").iterdir()
    )


def test_nav_edit_without_the_section_appends_at_top_level() -> None:
    config = "site_name: x\nnav:\n  - Home: index.md\n  # a comment\n\nplugins: [search]\n"
    assert add_to_nav(config, "New", "new.md", section="Missing") == (
        "site_name: x\nnav:\n  - Home: index.md\n  # a comment\n  - New: new.md\n\n"
        "plugins: [search]\n"
    )
    assert add_to_nav("site_name: x\n", "New", "new.md") == "site_name: x\n"


def test_nav_edit_refuses_what_it_cannot_place() -> None:
    with pytest.raises(ScaffoldError, match="add the line"):
        add_to_nav("nav: [index.md]\n", "New", "new.md")


def test_console_script_runs(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lessonkit.cli", "check", str(BROKEN / "empty-value.md")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "tests/broken/empty-value.md:3: error: empty inline value" in result.stdout


def test_a_new_page_goes_last_in_its_nav_section_with_comments_kept() -> None:
    config = "nav:\n  - Home: index.md\n  - Learning path:\n      - A: a.md\n  # the end\n"
    assert add_to_nav(config, "Tokens: the basics", "tokens.md") == (
        "nav:\n  - Home: index.md\n  - Learning path:\n      - A: a.md\n"
        '      - "Tokens: the basics": tokens.md\n  # the end\n'
    )


def test_the_project_reads_its_docs_folder_and_glossary_option() -> None:
    text = "docs_dir: lessons\nplugins:\n  - lessonkit:\n      glossary: ''\n"
    project = Project.from_text(text, Path("/site/mkdocs.yml"))
    assert project.docs_dir == Path("/site/lessons")
    assert project.glossary is None and project.settings.glossary_page == "glossary.md"
