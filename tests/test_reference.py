"""The configuration reference lists every option and key the build validates, as built."""

from __future__ import annotations

from pathlib import Path

from lessonkit.checks.frontmatter import KNOWN_KEYS
from lessonkit.core.settings import OPTIONS
from lessonkit.execute.program import EXEC_OPTIONS


def test_the_reference_page_shows_every_option_key_and_block_option(built_site: Path) -> None:
    html = (built_site / "about" / "configuration" / "index.html").read_text()
    for option in OPTIONS:
        assert f"<code>{option.name}</code>" in html, option.name
    for keys in KNOWN_KEYS.values():
        for key in keys:
            assert f"<code>{key}</code>" in html, key
    for name in EXEC_OPTIONS:
        assert f"<code>{name}=</code>" in html, name
