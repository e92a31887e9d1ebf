"""Checks that depend on the site: its front matter keys, its ``///`` blocks, its anchors.

``lessonkit check`` reads them from ``mkdocs.yml``, the build from MkDocs' own config, and both
hand them to the one recipe (:class:`lessonkit.checks.recipe.Context`): each case below is run
both ways and must fail (or pass) both, with the same first error.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lessonkit.checks.anchors import page_ids, text_ids
from lessonkit.checks.blocks import block_problems
from lessonkit.checks.frontmatter import ALL_KNOWN, KNOWN_KEYS, key_problems
from lessonkit.checks.markdown_setup import MarkdownSetup, extensions_of, registered_blocks
from lessonkit.cli import main
from lessonkit.core.problems import LessonError
from lessonkit.execute.program import near_miss, parse_program

PROBLEM = re.compile(r"(docs/\S+?:\d+: error: .*)")
OTHER = """\
---
title: Other
description: The page the lesson links to.
---

# Other

## A worked example

## Why scale? {#scaling}
"""
GLOSSARY = "- term: token\n  definition: A piece of text.\n"


def site(root: Path, page: str, options: str = "", extensions: str = "") -> Path:
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("---\ntitle: Lesson\ndescription: A lesson.\n" + page)
    (root / "docs" / "other.md").write_text(OTHER)
    (root / "docs" / "glossary.yml").write_text(GLOSSARY)
    plugin = "  - lessonkit:\n      workers: 1\n" + "".join(
        f"      {line}\n" for line in options.splitlines()
    )
    extensions = extensions or "[pymdownx.superfences, pymdownx.tasklist, lessonkit.quiz]"
    (root / "mkdocs.yml").write_text(
        f"site_name: t\nplugins:\n{plugin}markdown_extensions: {extensions}\n"
    )
    return root


def both(root: Path, mkdocs_build_shared, monkeypatch, capsys) -> tuple[list[str], list[str]]:
    """The errors ``lessonkit check`` prints and those the strict build logs."""
    monkeypatch.chdir(root)
    code = main(["check"])
    checked = PROBLEM.findall(capsys.readouterr().out)
    built = mkdocs_build_shared(root)
    assert (code == 0) == (built.returncode == 0), (checked, built.stderr)
    return checked, PROBLEM.findall(built.stderr)


CASES = [
    # front matter keys: a typo fails; the site's own key passes once the option lists it
    ("---\n\n# L\n\nText.\n", "", "", []),
    (
        "notebok: true\n---\n\n# L\n",
        "",
        "",
        ["docs/index.md:4: error: unknown front matter key 'notebok'"],
    ),
    ("difficulty: easy\n---\n\n# L\n", "front_matter_keys: [difficulty]", "", []),
    (
        "dificulty: easy\n---\n\n# L\n",
        "front_matter_keys: [difficulty]",
        "",
        ["docs/index.md:4: error: unknown front matter key 'dificulty'"],
    ),
    # blocks: what the site registers
    (
        "---\n\n# L\n\n/// note\nText.\n///\n",
        "",
        "",
        ["docs/index.md:8: error: unknown block `/// note`"],
    ),
    (
        "---\n\n# L\n\n/// note\nText.\n///\n",
        "",
        "[pymdownx.blocks.admonition, lessonkit.quiz]",
        [],
    ),
    (
        "---\n\n# L\n\n/// noet\nText.\n///\n",
        "",
        "[pymdownx.blocks.admonition, lessonkit.quiz]",
        ["docs/index.md:8: error: unknown block `/// noet`"],
    ),
    # anchors: another page's headings and {#ids}, the glossary page's terms
    (
        "---\n\n# L\n\nSee [it](other.md#a-worked-example), [why](other.md#scaling) and "
        "[the term](glossary.md#token).\n",
        "",
        "",
        [],
    ),
    (
        "---\n\n# L\n\nSee [it](other.md#a-worked-exmple).\n",
        "",
        "",
        [
            "docs/index.md:8: error: link to an anchor that other.md does not have: "
            "other.md#a-worked-exmple"
        ],
    ),
    (
        "---\n\n# L\n\nSee [the term](glossary.md#tokn).\n",
        "",
        "",
        [
            "docs/index.md:8: error: link to an anchor that glossary.md does not have: "
            "glossary.md#tokn"
        ],
    ),
    # a site with its own slugify: heading ids are not predictable, anchors are not checked
    (
        "---\n\n# L\n\nSee [it](other.md#a-worked-example).\n",
        "",
        "\n  - toc:\n      slugify: !!python/name:markdown.extensions.toc.slugify_unicode"
        "\n  - lessonkit.quiz",
        [],
    ),
]


@pytest.mark.parametrize(("page", "options", "extensions", "errors"), CASES)
def test_check_and_build_agree_on_what_the_site_allows(
    page: str,
    options: str,
    extensions: str,
    errors: list[str],
    tmp_path,
    mkdocs_build_shared,
    monkeypatch,
    capsys,
) -> None:
    root = site(tmp_path, page, options, extensions)
    checked, built = both(root, mkdocs_build_shared, monkeypatch, capsys)
    assert [e for e in checked if any(e.startswith(x) for x in errors)] == checked, checked
    assert len(checked) == len(errors) and all(
        any(c.startswith(e) for c in checked) for e in errors
    ), checked
    assert built == checked


def test_the_known_keys_are_listed_once_and_documented() -> None:
    assert len(ALL_KNOWN) == len(set(ALL_KNOWN))
    guide = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text()
    for keys in KNOWN_KEYS.values():
        for key in keys:
            assert f"`{key}`" in guide, key
    assert "front_matter_keys" in guide


def test_a_typo_gets_the_closest_key_and_a_repeat_its_first_line() -> None:
    text = "---\ntitle: T\nresource: []\ntitle: U\n---\n"
    found = key_problems({"title": "U", "resource": []}, text)
    assert [(p.line, p.message) for p in found] == [
        (3, "unknown front matter key 'resource'"),
        (4, "front matter key 'title' is given twice (first at line 2)"),
    ]
    assert found[0].hint.startswith("did you mean 'resources'?")


@pytest.mark.parametrize(
    ("info", "suggestion"),
    [
        ("py exec", "```python exec"),
        ("python3 exec", "```python exec"),
        ("Py3 exec", "```python exec"),
        ('python exec="1"', "```python exec"),
        ('python exec="true" source="hide"', '```python exec source="hide"'),
        ("{.python exec}", "```python exec"),
        ("{ .python .exec }", "```python exec"),
        ('python title="a.py" exec', '```python exec title="a.py"'),
        ("python EXEC", "```python exec"),
        ("python execute", "```python exec"),
        ("python exe", "```python exec"),
        ("python-exec", "```python exec"),
        ("pythonexec", "```python exec"),
    ],
)
def test_near_misses_of_python_exec_say_what_to_write(info: str, suggestion: str) -> None:
    message, hint = near_miss(info)
    assert message.startswith(f"```{info} does not run")
    assert hint == f"did you mean {suggestion}?"


@pytest.mark.parametrize(
    "info",
    ["python exec", 'python exec source="hide"', "Python exec", "python", "pycon", "text", "js"],
)
def test_what_runs_or_never_asked_to_is_no_near_miss(info: str) -> None:
    assert near_miss(info) is None


@pytest.mark.parametrize(
    ("option", "hint"),
    [("sorce", "did you mean source?"), ("hide", "options: source, output, alt, timeout, ")],
)
def test_an_unknown_block_option_names_the_close_one_or_all(option: str, hint: str) -> None:
    with pytest.raises(LessonError) as raised:
        parse_program(f'```python exec {option}="x"\nx = 1\n```\n')
    [problem] = raised.value.problems
    assert problem.message == f"unknown option {option!r} on a python exec block"
    assert problem.hint.startswith(hint)


def test_other_languages_and_pycon_are_told_what_runs() -> None:
    assert "only Python runs" in near_miss('bash exec="1"')[1]
    assert near_miss("pycon exec")[1] == (
        "a ```pycon block is a doctest and runs as it is: write ```pycon (or ```python exec)"
    )
    assert near_miss("python-exec")[1] == "did you mean ```python exec?"


def test_blocks_unknown_to_the_check_are_judged_only_when_near_lessonkits() -> None:
    assert block_problems("/// note\nText.\n///\n", None) == []
    [problem] = block_problems("/// quizz\nText.\n///\n", None)
    assert problem.hint.startswith("did you mean `/// quiz`?")
    assert block_problems("Prose // note.\n\n// TODO: later\n", frozenset({"quiz"})) == []
    assert block_problems("```\n/// nope\n```\n\n<!--\n/// nope\n-->\n", frozenset()) == []
    assert block_problems("/// note | Title\n///\n", frozenset({"note"})) == []


def test_the_site_markdown_setup_comes_from_mkdocs_yml_as_the_build_reads_it() -> None:
    config = {"markdown_extensions": [{"pymdownx.blocks.admonition": {"types": ["aside"]}}]}
    names, configs = extensions_of(config)
    setup = MarkdownSetup.of(names, configs)
    assert "aside" in setup.blocks and "quiz" in setup.blocks and setup.heading_ids
    assert registered_blocks([], {}) == frozenset({"quiz"})


def test_heading_ids_follow_the_toc_extension() -> None:
    ids = page_ids(
        "# A *worked* example\n\n## Q&A: `x` < y\n\n## Q&A: `x` < y\n\n### Custom {#mine}\n"
    )
    assert ids.complete
    assert ids.ids == {"a-worked-example", "qa-x-y", "qa-x-y_1", "mine"}
    generated = page_ids('# T\n\n```python exec output="markdown"\nprint("## H")\n```\n')
    assert not generated.complete


def test_a_page_listing_resources_has_the_go_deeper_sections_anchor() -> None:
    entry = "- {kind: Paper, title: T, author: A, url: 'https://example.org', note: N}"
    assert "resources" in text_ids(f"---\nresources:\n{entry}\n---\n# T\n").ids
    assert "resources" not in text_ids("---\nresources: []\n---\n# T\n").ids
    assert "resources" not in text_ids("# T\n").ids


def test_a_sites_blocks_are_those_its_block_extensions_register_and_quiz() -> None:
    setup = MarkdownSetup.of(["toc", "pymdownx.blocks.admonition", "lessonkit.quiz"], {})
    assert sorted(setup.blocks)[:4] == ["admonition", "attention", "caution", "danger"]
    assert setup.heading_ids
    assert not MarkdownSetup.of(["toc"], {"toc": {"slugify": None}}).heading_ids
    assert registered_blocks(["pymdownx.superfences", "lessonkit.quiz"], {}) == {"quiz"}
    assert registered_blocks(["pymdownx.blocks.html"], {}) == {"html", "quiz"}
    assert registered_blocks(["no.such.extension"], {}) is None
