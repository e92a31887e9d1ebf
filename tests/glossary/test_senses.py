"""Senses: a definition that holds only on some pages is reported, at file:line, everywhere else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessonkit.checks.files import check_files
from lessonkit.checks.recipe import Context, check_text
from lessonkit.core.problems import LessonError
from lessonkit.glossary.checks import check, page_senses
from lessonkit.glossary.terms import load, parse

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

GLOSSARY = parse(
    "- term: attention\n"
    "  definition: Each token weighs the tokens before it.\n"
    "  senses: [causal]\n"
    "- term: token\n"
    "  definition: A piece of text.\n"
    "- term: query\n"
    "  definition: What a token looks for.\n",
    "docs/glossary.yml",
)
PAGE = (
    "---\ntitle: T\ndescription: D\n---\n\n# T\n\nAn encoder.\n\nIts attention looks both ways.\n"
)


def test_a_term_used_where_its_senses_are_not_declared_is_reported_at_the_page_line() -> None:
    context = Context(glossary=GLOSSARY)
    [problem] = check_text(PAGE + "More attention.\n", "docs/encoder.md", context=context)
    assert (problem.path, problem.line) == ("docs/encoder.md", 10)  # front matter counted
    assert problem.message == (
        "the definition of 'attention' does not hold on this page: it assumes 'causal', which "
        "the page does not declare (and 1 more use below)"
    )
    assert "docs/glossary.yml:1" in problem.hint and "[[!attention]]" in problem.hint


def test_a_page_that_declares_the_sense_passes() -> None:
    body = "<!-- glossary senses: causal, left-to-right -->\n\n# T\n\nIts attention looks back.\n"
    assert check(body, GLOSSARY) == []


@pytest.mark.parametrize(
    "text",
    [
        "# About attention\n",  # headings are never linked
        "```python\nattention = 1\n```\n",  # code
        "Some `attention` here.\n",
        "| attention | 1 |\n| --- | --- |\n",  # tables
        "See [attention](other.md).\n",  # link text
        "[[!attention]] is meant loosely here.\n",  # suppressed
        "/// quiz\nWhat does attention do?\n\n- [x] Weigh.\n- [ ] Nothing.\n///\n",
    ],
)
def test_uses_the_extension_never_links_are_not_reported(text: str) -> None:
    assert check(text, GLOSSARY) == []


def test_a_forced_link_is_reported_too() -> None:
    [problem] = check("Shown as [[attention|looking]].\n", GLOSSARY)
    assert problem.line == 1 and "'attention'" in problem.message


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("<!-- glossary senses: -->", "the page's senses marker names no sense"),
        ("<!-- glossary senses: Left to right -->", "sense 'Left' in the page's senses marker"),
    ],
)
def test_a_malformed_marker_is_reported_at_its_line(marker: str, message: str) -> None:
    problems = check(f"# T\n\n{marker}\n", GLOSSARY)
    assert problems and all(p.line == 3 for p in problems)
    assert problems[0].message.startswith(message)


def test_a_bad_sense_in_the_glossary_is_reported_at_its_line() -> None:
    with pytest.raises(LessonError) as error:
        parse("- term: a\n  definition: b.\n  senses:\n    - causal\n    - Left To Right\n")
    [problem] = error.value.problems
    assert problem.line == 5 and "sense 'Left To Right'" in problem.message
    with pytest.raises(LessonError) as error:
        parse("- term: a\n  definition: b.\n  sense: [causal]\n")
    assert "did you mean 'senses'?" in error.value.problems[0].hint


def test_the_sites_glossary_holds_on_every_page() -> None:
    report = check_files([DOCS], DOCS, DOCS / "glossary.yml", ["glossary.md"])
    assert [p.format() for p in report.problems if "senses" in p.message + p.hint] == []


def source_lines(where: str) -> list[str]:
    """The lines a problem's path names: a file's, or a notebook cell's (``x.ipynb:cell 4``)."""
    file, _, cell = where.partition(":cell ")
    if not cell:
        return Path(file).read_text(encoding="utf-8").splitlines()
    cells = json.loads(Path(file).read_text(encoding="utf-8"))["cells"]
    return "".join(cells[int(cell) - 1]["source"]).splitlines()


def test_the_old_left_to_right_definitions_would_be_caught(tmp_path: Path) -> None:
    """Issue 20's defect 5: attention, query and attention weights were defined over "earlier
    tokens" and shown on the encoder page. Marked with the sense they assume, the check finds
    every page where they are shown and that sense does not hold."""
    old = {
        "attention": "The mechanism that lets each token weigh all earlier tokens by relevance "
        "when computing its next representation.",
        "query": "The vector a token makes to say what it is looking for. Attention compares it "
        "with the key of every earlier token.",
        "attention weights": "The numbers softmax makes from one token's scores against earlier "
        "tokens: each between 0 and 1, together adding up to 1.",
    }
    lines = []
    for term in load(DOCS / "glossary.yml"):
        definition = old.get(term.name, term.definition)
        lines.append(f"- term: {term.name}\n  definition: >-\n    {definition}")
        for field in ("aliases", "ambiguous"):
            if getattr(term, field):
                lines.append(f"  {field}: [{', '.join(getattr(term, field))}]")
        if term.name in old:
            lines.append("  senses: [causal]")
    glossary = tmp_path / "glossary.yml"
    glossary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = check_files([DOCS], DOCS, glossary, ["glossary.md"], display=lambda p: str(p))
    flagged = {(Path(p.path).name, p.message.split("'")[1]) for p in report.problems}
    assert ("real-model-bank.md", "attention") in flagged
    assert ("real-model-bank.md", "attention weights") in flagged
    assert ("attention-in-numbers.md", "query") in flagged
    assert not any(page == "transformers-and-attention.md" for page, _ in flagged)
    for problem in report.problems:
        assert problem.line is not None
        source = source_lines(problem.path)
        name = problem.message.split("'")[1]
        assert name[:4] in source[problem.line - 1].lower(), problem.format()  # query: queries


def test_a_page_declares_senses_in_a_comment_of_lowercase_labels() -> None:
    senses, problems = page_senses("# A\n<!-- glossary senses: causal, left-to-right -->\n")
    assert (sorted(senses), problems) == (["causal", "left-to-right"], [])
    assert [p.message for p in page_senses("<!-- glossary senses: Causal -->")[1]] == [
        "sense 'Causal' in the page's senses marker must be lowercase words joined by hyphens"
    ]
