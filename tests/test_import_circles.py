"""No import circles: a module a newcomer reads depends on others, never back on itself through
them (any import counts, one inside a function or under ``TYPE_CHECKING`` too)."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ["lessonkit.hosts", "lessonkit.quiz", "lessonkit.checks", "lessonkit.glossary"]


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports (a package's own submodules left out)."""
    name = _name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            base = ".".join(filter(None, [base if node.level else "", node.module or ""]))
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    near = {m if m in modules else m.rpartition(".")[0] for m in found}
    return {m for m in near if m in modules and m != name and not m.startswith(name + ".")}


@pytest.mark.parametrize("package", PACKAGES)
def test_the_package_s_modules_import_no_circle(package: str) -> None:
    files = [p for p in SRC.rglob("*.py") if _name(p).startswith(package)]
    modules = {_name(p) for p in files}
    graph = {_name(p): _imports(p, modules) for p in files}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        pytest.fail(f"import circle: {' -> '.join(error.args[1])}")
