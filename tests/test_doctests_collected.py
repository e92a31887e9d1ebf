"""Every module whose docstrings hold examples has them collected by pytest (none silently skip).

A folder that pytest's defaults skip (``build/`` is in ``norecursedirs``), a module that fails to
import, or a ``testpaths`` that leaves a folder out would each drop doctests without a word.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pytest_collects_the_doctests_of_every_module_that_has_them() -> None:
    with_examples = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "src").rglob("*.py")
        if re.search(r"^\s*>>> ", path.read_text(encoding="utf-8"), re.M)
    }
    assert len(with_examples) > 30  # the glob found the package
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    collected = set(re.findall(r"^(src/\S+?\.py)::", listing.stdout, re.M))
    assert with_examples - collected == set(), listing.stdout[-2000:]
