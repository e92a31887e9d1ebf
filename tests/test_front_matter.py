"""One front matter schema, for ``lessonkit check`` and the build alike: lessonkit's keys have
their types and lengths, and no value (a Material key's too) grows past a bound through YAML
aliases. A build's broken corpus holds one case of each (tests/broken/front-matter-*.md)."""

from __future__ import annotations

import pytest

from lessonkit.checks.frontmatter import front_matter_problems
from lessonkit.checks.recipe import check_text

BOMB = "".join(
    f"  - &{name} [{', '.join([item] * 9)}]\n"
    for name, item in zip("abcdef", ["lol", "*a", "*b", "*c", "*d", "*e"], strict=True)
)


def problems(front_matter: str) -> list[str]:
    """The errors in a page with this front matter, after a title and a description unless it
    has its own."""
    given = {line.split(":")[0] for line in front_matter.splitlines()}
    base = "".join(f"{k}: {k[0].upper()}\n" for k in ("title", "description") if k not in given)
    text = f"---\n{base}{front_matter}---\n\n# T\n"
    return [p.format() for p in check_text(text, "a.md") if p.severity == "error"]


@pytest.mark.parametrize("key", ["tags", "notebook", "resources"])
def test_an_alias_bomb_is_one_short_error_at_its_key(key: str) -> None:
    assert len(BOMB) < 300
    [found] = problems(f"{key}:\n{BOMB}")
    assert found.startswith(f"a.md:4: error: front matter key '{key}' is too large")
    assert len(found) < 400


def test_an_alias_that_holds_itself_is_refused() -> None:
    [found] = problems("tags: &a [*a]\n")
    assert "front matter key 'tags' is too large" in found


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("title: 2024", "a.md:3: error: title must be text, not a number (2024)"),
        ("title: 2024-01-02", 'hint: put it in quotes, title: "2024-01-02", so YAML reads'),
        ("title: yes", "title must be text, not true or false (true)"),
        ("title: " + "x" * 201, "title is 201 characters long, more than 200"),
        ("description: {a: 1}", "a.md:3: error: description must be text, not a mapping"),
        ("description: 3.5", "description must be text, not a number (3.5)"),
        ("path: 'true'", "a.md:4: error: path must be true or false, not 'true'"),
        ("notebook: 1", "notebook must be true or false, not 1"),
    ],
)
def test_lessonkits_keys_have_types_and_lengths(line: str, message: str) -> None:
    found = problems(line + "\n")
    assert len(found) == 1 and message in found[0], found


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("title: 2024-05-01", "resource 1 title must be text, not a date (2024-05-01)"),
        ("author: [A, B]", "resource 1 author must be text, not a list"),
        ("note: " + "n" * 501, "resource 1 note is 501 characters long, more than 500"),
    ],
)
def test_resource_fields_have_types_and_lengths(entry: str, message: str) -> None:
    fields = {"kind": "Video", "title": "T", "author": "A", "url": "https://x.org", "note": "N"}
    fields[entry.split(":")[0]] = entry.split(": ", 1)[1]
    lines = "".join(f"    {k}: {v}\n" for k, v in fields.items()).replace("    kind", "  - kind")
    found = problems(f"resources:\n{lines}")
    assert len(found) == 1 and message in found[0], found


def test_a_page_has_at_most_fifty_resources() -> None:
    entry = "  - {kind: Video, title: T, author: A, url: 'https://x.org', note: N}\n"
    [found] = problems("resources:\n" + entry * 51)
    assert "a.md:4: error: resources has 51 entries, more than 50" in found
    assert problems("resources:\n" + entry * 50) == []


def test_a_page_without_a_title_takes_its_first_h1_but_not_a_comment_in_code() -> None:
    messages = [p.message for p in front_matter_problems({}, "Text.", "Text.")]
    assert messages == ["the page has no title in its front matter"]
    assert front_matter_problems({}, "# Title", "# Title") == []
    assert len(front_matter_problems({}, "", "```python\n# a comment\n```\n")) == 1
