"""Authoring errors: each names the line of the glossary file or the page, and how to fix it."""

from __future__ import annotations

import pytest

from lessonkit.core.problems import LessonError, Problem
from lessonkit.glossary.checks import check
from lessonkit.glossary.terms import Glossary, Term, parse, unused


def problems_of(text: str) -> list[Problem]:
    with pytest.raises(LessonError) as error:
        parse(text, "docs/glossary.yml")
    return error.value.problems


def test_invalid_yaml_names_line_and_column() -> None:
    [problem] = problems_of("- term: token\n  definition: a: b: c\n")
    assert problem.path == "docs/glossary.yml"
    assert problem.line == 2
    assert "invalid YAML at column 16" in problem.message  # the second ':'


def test_duplicate_term_names_both_lines() -> None:
    [problem] = problems_of(
        "- term: token\n  definition: One.\n- term: vector\n  definition: Two.\n"
        "- term: Token\n  definition: Three.\n"
    )
    assert problem.line == 5
    assert "duplicate term 'Token'" in problem.message
    assert "'token' at line 1" in problem.message


def test_alias_that_another_term_already_uses_names_both_lines() -> None:
    [problem] = problems_of(
        "- term: token\n  definition: One.\n  aliases: [piece]\n"
        "- term: chunk\n  definition: Two.\n  aliases:\n    - part\n    - piece\n"
    )
    assert problem.line == 8
    assert "duplicate term or alias 'piece'" in problem.message
    assert "'token' at line 3" in problem.message


@pytest.mark.parametrize("definition", ["", "''", "'   '"])
def test_empty_definition_is_an_error_at_its_line(definition: str) -> None:
    [problem] = problems_of(f"- term: token\n  aliases: [tokens]\n  definition: {definition}\n")
    assert (problem.line, problem.message) == (3, "term 'token' has an empty definition")


def test_missing_definition_is_reported_at_the_entry() -> None:
    [problem] = problems_of("- term: vector\n  definition: Fine.\n- term: token\n")
    assert (problem.line, problem.message) == (3, "term 'token' has an empty definition")


def test_every_problem_is_reported_at_once_in_line_order() -> None:
    problems = problems_of(
        "- term: token\n  definiton: typo\n- term: vector\n  definition: ''\n"
        "- term: head\n  definition: One copy of attention.\n  related: [atention]\n"
    )
    assert [(p.line, p.message) for p in problems] == [
        (1, "term 'token' has an empty definition"),
        (2, "unknown field 'definiton'"),
        (4, "term 'vector' has an empty definition"),
        (7, "term 'head' is related to unknown term 'atention'"),
    ]
    assert problems[1].hint == "did you mean 'definition'?"


def test_definition_with_a_link_or_block_is_refused() -> None:
    [problem] = problems_of("- term: token\n  definition: See [this](https://example.com).\n")
    assert problem.line == 2
    assert "only *emphasis*, **strong** and `code` (found a)" in problem.message


def test_term_name_that_could_carry_markup_is_refused() -> None:
    [problem] = problems_of("- term: '<b>token</b>'\n  definition: One.\n")
    assert problem.line == 1
    assert "can't be a term name" in problem.message


def test_ambiguous_form_must_belong_to_the_term() -> None:
    [problem] = problems_of("- term: key\n  definition: One.\n  ambiguous: [keys, lock]\n")
    assert (problem.line, problem.message) == (3, "ambiguous form 'lock' is not a form of 'key'")


def test_not_a_list_is_refused() -> None:
    [problem] = problems_of("token: A piece of text.\n")
    assert problem.message == "the glossary must be a non-empty YAML list of terms"


def test_unused_term_is_a_warning_at_its_line() -> None:
    glossary = parse("- term: token\n  definition: One.\n- term: trace\n  definition: Two.\n")
    [problem] = unused(glossary, {"token"})
    assert (problem.severity, problem.line, problem.path) == ("warning", 3, "glossary.yml")


GLOSSARY = Glossary([Term("token", "One."), Term("tokenizer", "Two."), Term("vector", "Three.")])


def test_check_reports_unknown_forced_term_with_line_and_nearest_names() -> None:
    text = "# Title\n\nA [[token]] and [[!anything]].\n\nSee the\n[[tokeniser|splitter]].\n"
    [problem] = check(text, GLOSSARY)
    assert problem.line == 6
    assert problem.message == "unknown glossary term 'tokeniser' in [[tokeniser|splitter]]"
    assert problem.hint.startswith("did you mean 'tokenizer' or 'token'?")


def test_check_ignores_marks_in_code_and_escaped_brackets() -> None:
    text = "```python\nx = [[nope]]\n```\n\nInline `[[nope]]` and \\[[nope]].\n"
    assert check(text, GLOSSARY) == []


def test_check_reports_a_mark_that_is_never_closed() -> None:
    [problem] = check("Line one.\nA [[token that never closes.\n", GLOSSARY)
    assert (problem.line, problem.message) == (2, "'[[' starts no glossary mark")


def test_check_without_a_close_name_suggests_adding_the_term() -> None:
    [problem] = check("[[zebra]]", GLOSSARY)
    assert problem.hint.startswith("add 'zebra' to glossary.yml")
