"""Finding a glossary's terms in text: any form, longest first, ambiguous ones only when marked."""

from __future__ import annotations

from lessonkit.glossary.terms import Glossary, Term


def test_lookup_takes_any_form_in_any_case() -> None:
    glossary = Glossary([Term("token", "A piece of text.")])
    assert glossary.lookup("Tokens").id == "token"
    assert glossary.lookup("tokenizer") is None


def test_find_takes_the_longest_form_and_leaves_ambiguous_forms() -> None:
    glossary = Glossary(
        [
            Term("attention", "x."),
            Term("attention weights", "y."),
            Term("weights", "z.", ambiguous=("weights",)),
        ]
    )
    text = "Attention weights, attention and weights."
    found = [(m.term.id, m.text) for m in glossary.find(text)]
    assert found == [("attention-weights", "Attention weights"), ("attention", "attention")]
