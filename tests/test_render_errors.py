"""A problem found only while a page renders still names the lesson's file and line, without a
traceback: the quiz block, the glossary's marks and the execute extension raise inside
Python-Markdown, which keeps no line numbers, and the plugin places what they say.

The page checks find every such problem before rendering, so these sites make one the checks
cannot see: a hook (another plugin, as far as lessonkit knows) changes the Markdown after them.
"""

from __future__ import annotations

import re
from pathlib import Path

PAGE = """\
---
title: Render errors
description: A page another plugin changes after lessonkit checked it.
---

# Render errors

/// quiz
What do the attention weights of one token add up to?

- [x] Exactly 1, whatever the scores.

    Right: softmax divides each exponential by their total.

- [ ] The sum of the scores.

    Not quite. The scores can be any numbers.
///

A token is a piece of text.
"""
GLOSSARY = "- term: token\n  definition: A piece of text.\n"
CONFIG = """\
site_name: render errors
hooks: [hooks.py]
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [pymdownx.superfences, pymdownx.tasklist, lessonkit.quiz]
"""


def site(root: Path, hook: str) -> Path:
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text(PAGE)
    (root / "docs" / "glossary.yml").write_text(GLOSSARY)
    (root / "mkdocs.yml").write_text(CONFIG)
    (root / "hooks.py").write_text(
        f"def on_page_markdown(markdown, **kwargs):\n    return markdown.{hook}\n"
    )
    return root


def test_a_quiz_broken_after_the_checks_is_reported_at_its_line(
    tmp_path: Path, mkdocs_build_shared
):
    build = mkdocs_build_shared(
        site(tmp_path, "replace('    Not quite. The scores can be any numbers.', '')")
    )
    assert build.returncode != 0
    assert 'docs/index.md:15: error: wrong option "The sum of the scores." has no feedback' in (
        build.stderr
    ), build.stderr
    assert "hint:" in build.stderr
    assert "Traceback" not in build.stderr and "<markdown>" not in build.stderr


def test_a_glossary_mark_another_plugin_adds_names_the_file(tmp_path: Path, mkdocs_build_shared):
    build = mkdocs_build_shared(site(tmp_path, "replace('A token is', 'A [[tokn]] is')"))
    assert build.returncode != 0
    assert "docs/index.md: error: unknown glossary term 'tokn' in [[tokn]]" in build.stderr, (
        build.stderr
    )
    assert "Traceback" not in build.stderr and "<markdown>" not in build.stderr


ON_ENV = """\
def on_env(env, config, files, **kwargs):
    page = files.get_file_from_path("index.md").page
    page.markdown = page.markdown.replace("    Not quite. The scores can be any numbers.", "")
    page.render(config, files)
    return env
"""


def test_a_page_converted_after_lessonkit_let_go_of_it_names_the_file(
    tmp_path: Path, mkdocs_build_shared
):
    """A whole build lets go of each lesson once its page is converted; a plugin converting a
    page again later (in its ``on_env``) still gets the file named."""
    root = site(tmp_path, "strip() + '\\n'")
    (root / "hooks.py").write_text(ON_ENV)
    build = mkdocs_build_shared(root)
    assert build.returncode != 0
    wrong = 'error: wrong option "The sum of the scores." has no feedback'
    assert re.search(rf"docs/index\.md(:\d+)?: {re.escape(wrong)}", build.stderr), build.stderr
    assert "Traceback" not in build.stderr and "<markdown>" not in build.stderr


CODE = """
```python exec
import time

time.sleep(0.5)
print("slept")
```
"""


def test_a_page_converted_once_its_code_ran_is_reported_at_its_line(
    tmp_path: Path, mkdocs_build_shared
):
    """A page whose code is still running when MkDocs reaches it is converted once it ran
    (``hosts/mkdocs/runs.py``): its lesson is held until then, so a problem found while it
    renders still has its line."""
    root = site(tmp_path, "replace('    Not quite. The scores can be any numbers.', '')")
    page = root / "docs" / "index.md"
    page.write_text(page.read_text() + CODE)
    build = mkdocs_build_shared(root)
    assert build.returncode != 0
    assert 'docs/index.md:15: error: wrong option "The sum of the scores." has no feedback' in (
        build.stderr
    ), build.stderr
    assert "Traceback" not in build.stderr and "<markdown>" not in build.stderr
