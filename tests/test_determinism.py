"""Two builds of the same sources give the same bytes, whether results came from cache or not."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_cold_build_equals_the_session_build_byte_for_byte(built_site: Path, tmp_path: Path):
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\n"
        f"docs_dir: {ROOT / 'docs'}\n"
        f"watch: [{ROOT / 'docs'}]\n"  # relative paths would start at this file's folder
        f"theme:\n  custom_dir: {ROOT / 'overrides'}\n"
        "plugins:\n  - search\n  - lessonkit:\n"
        "      glossary: glossary.yml\n"
        f"      cache_dir: {tmp_path / 'empty-cache'}\n"
    )
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "empty-cache").is_dir(), "the cold build did not use its own cache"
    compared = 0
    for page in [*built_site.rglob("*.html"), *built_site.rglob("*.ipynb")]:
        twin = site / page.relative_to(built_site)
        assert twin.read_bytes() == page.read_bytes(), f"{page.relative_to(built_site)} differs"
        compared += 1
    assert compared >= 2
