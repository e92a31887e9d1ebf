"""A real ``mkdocs build`` of a tiny site: glossary mistakes fail it with ``file:line`` messages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFIG = """\
site_name: tiny
strict: true
nav:
  - Lesson: lesson.md
  - Glossary: glossary.md
plugins:
  - lessonkit:
      execute: false{glossary}
      glossary_unused: {unused}
markdown_extensions:
  - attr_list
"""
GLOSSARY = """\
- term: token
  definition: A piece of text.
- term: vector
  definition: An ordered list of numbers.
"""
TEMPLATE = """\
---
title: Lesson
description: A lesson that uses the glossary.
---

# Lesson

Text becomes tokens, then {vector}.
"""
LESSON = TEMPLATE.format(vector="vectors")


def build(
    tmp_path: Path,
    glossary: str = GLOSSARY,
    lesson: str = LESSON,
    unused: str = "info",
    option: str = "\n      glossary: glossary.yml",
):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(CONFIG.format(unused=unused, glossary=option))
    (tmp_path / "docs" / "glossary.yml").write_text(glossary)
    (tmp_path / "docs" / "lesson.md").write_text(lesson)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("option", ["\n      glossary: glossary.yml", ""])
def test_a_good_site_builds_with_its_glossary_page(tmp_path: Path, option: str) -> None:
    result = build(tmp_path, option=option)  # without the option, docs/glossary.yml is used
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "site" / "glossary" / "index.html").read_text()
    assert 'id="token"' in page and 'href="../lesson/">Lesson</a>' in page
    assert not (tmp_path / "site" / "glossary.yml").exists(), "the YAML is not published"


def test_unknown_forced_term_fails_with_the_page_line(tmp_path: Path) -> None:
    result = build(tmp_path, lesson=TEMPLATE.format(vector="[[vectr]]"))
    assert result.returncode != 0
    assert "docs/lesson.md:8: error: unknown glossary term 'vectr' in [[vectr]]" in result.stderr
    assert "did you mean 'vector'?" in result.stderr


def test_duplicate_term_fails_with_the_glossary_line(tmp_path: Path) -> None:
    result = build(tmp_path, glossary=GLOSSARY + "- term: Token\n  definition: Again.\n")
    assert result.returncode != 0
    assert "docs/glossary.yml:5: error: duplicate term 'Token'" in result.stderr


@pytest.mark.parametrize(("unused", "fails"), [("info", False), ("warn", True)])
def test_a_term_no_page_uses_is_reported_and_fails_only_when_asked(
    tmp_path: Path, unused: str, fails: bool
) -> None:
    result = build(tmp_path, lesson=TEMPLATE.format(vector="numbers"), unused=unused)
    assert "docs/glossary.yml:3: warning: term 'vector' is used on no page" in result.stderr
    assert (result.returncode != 0) is fails
