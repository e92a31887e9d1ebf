"""The containers' content, dedented, with its lines: what the quiz and block checks read."""

from __future__ import annotations

import markdown
import pytest

from lessonkit.core.containers import regions
from lessonkit.quiz import QuizExtension, check

QUIZ = ["/// quiz", "Why?", "", "- [x] Because.", "- [ ] No.", "///"]
"""A quiz whose wrong option (line 5 of it) has no feedback."""
VALID = ["/// quiz", "Why?", "", "- [x] Because.", "- [ ] No.", "", "    Not quite. Yes.", "///"]


def indented(by: str = "    "):
    return lambda lines: [by + line if line else "" for line in lines]


def quoted(lines: list[str]) -> list[str]:
    return [f"> {line}" if line else ">" for line in lines]


CONTAINERS = {
    "admonition": (["!!! note", ""], indented(), ["admonition"]),
    "titled admonition": (['!!! tip "A tip"', ""], indented(), ["admonition"]),
    "details": (['??? note "More"', ""], indented(), ["pymdownx.details"]),
    "open details": (["???+ note", ""], indented(), ["pymdownx.details"]),
    "content tab": (['=== "Tab"', ""], indented(), ["pymdownx.tabbed"]),
    "bullet item": (["- An item.", ""], indented(), []),
    "numbered item": (["1. A step.", ""], indented(), []),
    "block quote": ([], quoted, []),
    "footnote": (["Text[^1].", "", "[^1]: A note.", ""], indented(), ["footnotes"]),
    "admonition in an item": (
        ["- An item.", "", "    !!! note", ""],
        indented("        "),
        ["admonition"],
    ),
}


@pytest.mark.parametrize("name", CONTAINERS)
def test_a_quiz_in_a_container_is_found_with_its_file_line(name: str) -> None:
    before, inside, _ = CONTAINERS[name]
    lines = ["# Page", "", *before, *inside(QUIZ), "", "After."]
    [problem] = check("\n".join(lines))
    assert problem.message == 'wrong option "No." has no feedback'
    assert problem.line == 2 + len(before) + 5


@pytest.mark.parametrize("name", CONTAINERS)
def test_python_markdown_reads_the_same_container_as_a_quiz(name: str) -> None:
    """The regions are not a guess: Python-Markdown, with the container's extension, renders a
    valid quiz there (so a check that passes means a quiz that renders)."""
    before, inside, extensions = CONTAINERS[name]
    text = "\n".join(["# Page", "", *before, *inside(VALID), "", "After."])
    assert check(text) == []
    html = markdown.markdown(
        text, extensions=[QuizExtension(), "pymdownx.superfences", *extensions]
    )
    assert 'class="lk-quiz"' in html and "/// quiz" not in html, html


def test_fenced_code_opens_no_container_and_every_line_is_in_one_region_only() -> None:
    lines = ["```", "!!! note", "    /// quiz", "```", "", "- a", "", "    b", "c", "", "> d"]
    found = regions(lines)
    assert [r.lines for r in found[1:]] == [["a", "", "b"], ["d"]]
    assert [r.numbers for r in found[1:]] == [[5, 6, 7], [10]]


def test_a_thematic_break_is_no_list_item() -> None:
    assert len(regions(["Text.", "", "- - -", "", "    code"])) == 1


def test_only_regions_with_the_needle_are_walked() -> None:
    lines = ["- a", "- b", "", "!!! note", "", "    /// quiz", "", "- c"]
    assert [r.lines for r in regions(lines, "///")] == [lines, ["", "/// quiz"]]
