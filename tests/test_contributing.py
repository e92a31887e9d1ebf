"""CONTRIBUTING.md covers every authoring feature, and its examples are valid lesson syntax."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lessonkit.checks.recipe import check_text
from lessonkit.core.source import split_front_matter
from lessonkit.execute.program import EXEC_OPTIONS
from lessonkit.glossary.checks import check as glossary_check
from lessonkit.glossary.terms import parse
from lessonkit.quiz import check as quiz_check
from lessonkit.resources import check_resources

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^(`{3,})(\w*)\n(.*?)^\1$", re.MULTILINE | re.DOTALL)
EXAMPLES = [(m[2], m[3]) for m in FENCE.finditer(GUIDE)]


def examples(language: str, containing: str) -> list[str]:
    found = [body for lang, body in EXAMPLES if lang == language and containing in body]
    assert found, f"CONTRIBUTING.md has no {language} example containing {containing!r}"
    return found


@pytest.mark.parametrize(
    "heading",
    [
        "Front matter",
        "Executable blocks",
        "Inline values",
        "Doctests",
        "Figures",
        "Quiz",
        "Glossary terms",
        "Go deeper resources",
        "Checking your work",
        "What CI checks on a pull request",
    ],
)
def test_guide_has_a_section_for(heading: str) -> None:
    assert re.search(rf"^#{{2,3}} {re.escape(heading)}$", GUIDE, re.MULTILINE)


def test_guide_says_how_to_preview_check_and_install_hooks() -> None:
    for command in ("scripts/build --serve", "scripts/test", "lessonkit check", "lessonkit new"):
        assert command in GUIDE
    assert "pre-commit install" in GUIDE
    assert "Lesson code from forks runs at build time" in GUIDE
    assert "permissions: contents: read" in GUIDE


def test_guide_lists_exactly_the_exec_options_lessonkit_accepts() -> None:
    rows = re.findall(r"^\| `(\w+)` \|", GUIDE, re.MULTILINE)
    assert set(rows) == set(EXEC_OPTIONS)


def test_front_matter_and_resources_examples_are_valid() -> None:
    front = examples("yaml", "title:")[0]
    body, meta, _ = split_front_matter(front)
    assert body == "" and meta["title"] and meta["description"]
    assert check_resources(meta, front) == []
    snippets = [e for e in examples("yaml", "resources:") if not e.startswith("---")]
    assert snippets
    for snippet in snippets:
        assert check_resources(yaml.safe_load(snippet), snippet) == []


def test_quiz_example_passes_the_quiz_check() -> None:
    (quiz,) = examples("markdown", "/// quiz")
    assert quiz_check(quiz) == []


def test_glossary_example_is_a_valid_entry() -> None:
    (entry,) = examples("yaml", "- term: attention weights")
    text = entry + "- term: softmax\n  definition: Turns scores into weights.\n"
    term = parse(text)["attention-weights"]
    assert term.is_ambiguous("weights") and "attention weights" in term.forms


def test_senses_example_is_checked_as_the_guide_says() -> None:
    (entry,) = examples("yaml", "senses:")
    (marker,) = examples("markdown", "glossary senses:")
    glossary = parse(entry + "- term: key\n  definition: What a token contains.\n")
    assert glossary["kv-cache"].senses == ("causal",)
    page = "A KV cache keeps the keys.\n"
    [problem] = glossary_check(page, glossary)
    assert problem.line == 1 and "'causal'" in problem.message
    assert glossary_check(marker + "\n" + page, glossary) == []


def test_code_examples_compile_as_one_lesson() -> None:
    """The exec, figure, doctest and inline-value examples, put in one page, pass the check."""
    parts = [body for lang, body in EXAMPLES if lang == "markdown" and "/// quiz" not in body]
    parts = [p for p in parts if "```" in p or "{{" in p]
    assert len(parts) >= 4
    page = "---\ntitle: T\ndescription: D\n---\n# T\n\n" + "\n".join(parts)
    assert [p.format() for p in check_text(page, "guide.md")] == []


def test_readme_points_to_the_guide() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Writing a lesson", 1)[1].split("\n## ", 1)[0]
    assert "(CONTRIBUTING.md)" in section


def test_pre_commit_runs_ruff_and_lessonkit_check_from_the_pinned_venv() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff", "ruff-format", "lessonkit-check", "trailing-whitespace", "check-yaml"} <= set(
        hooks
    )
    assert hooks["lessonkit-check"]["entry"] == ".venv/bin/lessonkit check"
    assert hooks["ruff"]["entry"].startswith(".venv/bin/ruff check")
    assert hooks["ruff-format"]["entry"].startswith(".venv/bin/ruff format")
    for repo in config["repos"]:
        assert repo["repo"] == "local" or re.match(r"^v\d+\.\d+\.\d+$", repo["rev"])
