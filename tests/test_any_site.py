"""A site that only says ``plugins: [lessonkit]`` gets every feature, right for its URLs.

No theme overrides, no extension list: the plugin brings its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

LESSON = """\
---
title: First lesson
description: A lesson in a sub-folder, with a term and a quiz.
path: true
---

# First lesson

Text becomes tokens.

```python exec
print(6 * 7)
```

/// quiz
What is six times seven?

- [x] 42

    Right.

- [ ] 41

    Not quite: count again.
///
"""
GLOSSARY = "- term: token\n  definition: A piece of text.\n"


@pytest.mark.parametrize("directory_urls", [True, False])
def test_a_bare_site_gets_quizzes_and_working_glossary_links(
    tmp_path: Path, directory_urls: bool, mkdocs_build_shared
) -> None:
    (tmp_path / "docs" / "course").mkdir(parents=True)
    home = "---\ntitle: Home\ndescription: Home.\n---\n# Home\n"
    (tmp_path / "docs" / "index.md").write_text(home)
    (tmp_path / "docs" / "course" / "first.md").write_text(LESSON)
    (tmp_path / "docs" / "glossary.yml").write_text(GLOSSARY)
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: any\nsite_url: https://example.org/sub/path/\n"
        "repo_url: https://github.com/someone/lessons\n"
        f"use_directory_urls: {str(directory_urls).lower()}\n"
        "plugins:\n  - lessonkit:\n      workers: 1\n"
    )
    done = mkdocs_build_shared(tmp_path)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    page = site / ("course/first/index.html" if directory_urls else "course/first.html")
    html = page.read_text()
    assert "/// quiz" not in html and 'class="lk-quiz' in html, "the quiz extension came along"
    assert "<code>42</code>" in html or "42\n" in html
    report = "https://github.com/someone/lessons/issues/new?template=mistake.yml"
    assert f'class="lk-report__link" data-lk-report-link href="{report}' in html, "report link"
    links = set(re.findall(r'href="([^"]*)#token"', html))
    assert links, "the term is linked"
    for link in links:  # every glossary link resolves to the generated glossary page
        target = (page.parent / link).resolve()
        target = target / "index.html" if target.is_dir() else target
        assert target.is_file(), f"{link} from {page.relative_to(site)} leads nowhere"
        assert 'id="token"' in target.read_text()
    path = json.loads(
        re.search(r'<script type="application/json" id="lk-path">(.*?)</script>', html)[1]
    )
    root = page.parent / path["root"]
    for url in [
        path["print"],
        *(lesson["url"] for lesson in path["lessons"]),
    ]:  # the learner's path
        target = (root / url).resolve()
        target = target / "index.html" if target.is_dir() else target
        assert target.is_file(), f"the path's {url} from {page.relative_to(site)} leads nowhere"
