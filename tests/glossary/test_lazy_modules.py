"""A site without a glossary pays nothing for the feature: its build imports none of its modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
HEAVY = ("lessonkit.glossary.terms", "lessonkit.glossary.checks", "lessonkit.glossary.extension")


def test_the_plugin_imports_no_glossary_module_until_a_site_has_a_glossary() -> None:
    code = (
        "import sys, lessonkit.hosts.mkdocs.plugin\n"
        f"print(*[m for m in {HEAVY!r} if m in sys.modules])\n"
        "from lessonkit.glossary import Glossary, check\n"  # a site with one: loaded on first use
        f"print(all(m in sys.modules for m in {HEAVY[:2]!r}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["", "True"]
