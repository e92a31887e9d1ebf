"""The glossary extension on bare Python-Markdown: exact HTML for each rule a reader relies on."""

from __future__ import annotations

import markdown
import pytest

from lessonkit.core.problems import LessonError
from lessonkit.glossary.extension import GlossaryExtension
from lessonkit.glossary.site import used_term_ids
from lessonkit.glossary.terms import parse

GLOSSARY = parse(
    """
- term: token
  definition: A piece of text.
- term: attention
  definition: Tokens weigh earlier tokens.
- term: attention weights
  definition: What softmax makes of the scores.
- term: weights
  definition: The learned numbers of a model.
  aliases: [model weights]
  ambiguous: [weights]
- term: KV cache
  definition: Stored keys and values.
- term: query
  definition: What a token looks for.
- term: key
  definition: What a token contains.
  ambiguous: [key]
- term: dot product
  definition: Multiply and add.
"""
)


def render(text: str, **options: object) -> str:
    options.setdefault("words_box", False)
    ext = GlossaryExtension(glossary=GLOSSARY, href="g/#{id}", **options)
    return markdown.markdown(text, extensions=[ext, "toc"])


def term(term_id: str, shown: str, definition: str, tip: str = "") -> str:
    """The expected markup of one linked term, written out independently of the code."""
    tip = tip or f"lk-tip-{term_id}"
    return (
        f'<span class="lk-term"><a aria-describedby="{tip}" class="lk-term__link" '
        f'data-lk-term="{term_id}" href="g/#{term_id}">{shown}</a><span class="lk-term__tip" '
        f'id="{tip}" role="tooltip">{definition}</span></span>'
    )


TOKEN = "A piece of text."


def test_links_only_the_first_use_of_a_term() -> None:
    html = render("A token, another token.\n\nMore tokens.")
    assert html == (
        f"<p>A {term('token', 'token', TOKEN)}, another token.</p>\n<p>More tokens.</p>"
    )


@pytest.mark.parametrize(
    ("text", "shown", "term_id"),
    [
        ("Split into tokens.", "tokens", "token"),
        ("Token counts matter.", "Token", "token"),
        ("Two KV caches here.", "KV caches", "kv-cache"),
        ("Many queries.", "queries", "query"),
        ("A KV\ncache across lines.", "KV\ncache", "kv-cache"),
    ],
)
def test_matches_inflections_capitals_and_line_breaks(text: str, shown: str, term_id: str) -> None:
    html = render(text)
    assert f'data-lk-term="{term_id}" href="g/#{term_id}">{shown}</a>' in html
    assert used_term_ids(html) == [term_id]


def test_does_not_match_inside_words_or_hyphenated_compounds() -> None:
    assert used_term_ids(render("Tokenization, detokens and token-level counts.")) == []


def test_skips_code_headings_and_links_then_links_the_next_prose_use() -> None:
    html = render(
        "# A token heading\n\n"
        "`token` in code, [a token link](x.html).\n\n"
        "    token in an indented code block\n\n"
        "Finally a token."
    )
    assert html == (
        '<h1 id="a-token-heading">A token heading</h1>\n'
        '<p><code>token</code> in code, <a href="x.html">a token link</a>.</p>\n'
        "<pre><code>token in an indented code block\n</code></pre>\n"
        f"<p>Finally a {term('token', 'token', TOKEN)}.</p>"
    )


def test_longest_match_wins() -> None:
    html = render("Attention weights come from attention.")
    assert used_term_ids(html) == ["attention-weights", "attention"]
    assert ">Attention weights</a>" in html


def test_ambiguous_forms_are_never_linked_automatically() -> None:
    html = render("The key idea: weights. The model weights are learned.")
    assert used_term_ids(html) == ["weights"]
    assert ">model weights</a>" in html


def test_forced_link_shows_other_words_and_stops_automatic_linking_of_that_term() -> None:
    html = render(
        "Softmax turns scores into [[attention weights|weights]]. Attention weights sum to 1."
    )
    definition = "What softmax makes of the scores."
    assert html == (
        f"<p>Softmax turns scores into {term('attention-weights', 'weights', definition)}. "
        "Attention weights sum to 1.</p>"
    )


def test_forced_link_moves_the_link_to_the_chosen_place() -> None:
    html = render("A token here.\n\nThe [[token]] is defined here.")
    linked = term("token", "token", TOKEN)
    assert html == f"<p>A token here.</p>\n<p>The {linked} is defined here.</p>"


def test_forced_ambiguous_form_links_the_term() -> None:
    html = render("The [[key]] says what it contains.")
    assert used_term_ids(html) == ["key"]


def test_forcing_a_term_twice_gives_each_tooltip_its_own_id() -> None:
    html = render("[[token]] and [[tokens]].")
    assert html == (
        f"<p>{term('token', 'token', TOKEN)} and "
        f"{term('token', 'tokens', TOKEN, tip='lk-tip-token-2')}.</p>"
    )


def test_suppressed_word_stays_plain_and_the_next_use_is_linked() -> None:
    html = render("The [[!token]] in a quote. Then a token.")
    assert html == f"<p>The token in a quote. Then a {term('token', 'token', TOKEN)}.</p>"


def test_marks_inside_code_stay_literal() -> None:
    assert render("`[[token]]`") == "<p><code>[[token]]</code></p>"


def test_unknown_forced_term_is_refused_with_the_text_and_a_suggestion() -> None:
    with pytest.raises(LessonError) as error:
        render("See [[tokns]].")
    assert "unknown glossary term 'tokns' in [[tokns]]" in str(error.value)
    assert "did you mean 'token'" in str(error.value)


def test_definitions_are_escaped_not_injected() -> None:
    glossary = parse(
        "- term: token\n  definition: 'A <script>alert(1)</script> & *piece* of `<b>`.'\n"
    )
    ext = GlossaryExtension(glossary=glossary, href="g/#{id}", words_box=False)
    html = markdown.markdown("A token.", extensions=[ext])
    definition = (
        "A &lt;script&gt;alert(1)&lt;/script&gt; &amp; <em>piece</em> of <code>&lt;b&gt;</code>."
    )
    assert html == f"<p>A {term('token', 'token', definition)}.</p>"


def test_words_box_follows_the_lead_paragraph_and_lists_terms_in_order_of_first_use() -> None:
    html = render(
        "# Title\n\nLead about a token.\n\n## Part\n\nA query meets a KV cache and tokens.",
        words_box=True,
    )
    assert html == (
        '<h1 id="title">Title</h1>\n'
        f"<p>Lead about a {term('token', 'token', TOKEN)}.</p>\n"
        '<details class="lk-words abstract">\n'
        "<summary>Words on this page (3)</summary>\n"
        "<dl>\n"
        '<dt><a href="g/#token">token</a></dt>\n'
        f"<dd>{TOKEN}</dd>\n"
        '<dt><a href="g/#query">query</a></dt>\n'
        "<dd>What a token looks for.</dd>\n"
        '<dt><a href="g/#kv-cache">KV cache</a></dt>\n'
        "<dd>Stored keys and values.</dd>\n"
        "</dl>\n"
        "</details>\n"
        '<h2 id="part">Part</h2>\n'
        f"<p>A {term('query', 'query', 'What a token looks for.')} meets a "
        f"{term('kv-cache', 'KV cache', 'Stored keys and values.')} and tokens.</p>"
    )


def test_page_without_terms_gets_no_box() -> None:
    assert render("# Title\n\nNothing here.", words_box=True) == (
        '<h1 id="title">Title</h1>\n<p>Nothing here.</p>'
    )


def test_state_does_not_leak_between_documents() -> None:
    md = markdown.Markdown(extensions=[GlossaryExtension(glossary=GLOSSARY, words_box=False)])
    first = md.convert("A token.")
    md.reset()
    assert md.convert("A token.") == first


def test_loads_a_glossary_by_path_when_configured_by_name(tmp_path) -> None:
    path = tmp_path / "glossary.yml"
    path.write_text("- term: token\n  definition: A piece of text.\n")
    html = markdown.markdown(
        "A token.",
        extensions=["lessonkit.glossary.extension"],
        extension_configs={"lessonkit.glossary.extension": {"glossary": str(path)}},
    )
    assert 'href="/glossary.md#token"' in html


def test_skips_admonition_titles_tables_quizzes_and_elements_marked_lk_no_glossary() -> None:
    ext = GlossaryExtension(glossary=GLOSSARY, href="g/#{id}", words_box=False)
    text = (
        '!!! note "About tokens"\n\n    Body.\n\n'
        "| token |\n| --- |\n| a token |\n\n"
        '<div class="lk-no-glossary" markdown>\nA token in a widget.\n</div>\n\n'
        '<div class="lk-quiz" markdown>\nWhat is a token?\n</div>\n\n'
        "Then a token."
    )
    html = markdown.markdown(text, extensions=[ext, "admonition", "md_in_html", "tables"])
    assert html == (
        '<div class="admonition note">\n<p class="admonition-title">About tokens</p>\n'
        "<p>Body.</p>\n</div>\n"
        "<table>\n<thead>\n<tr>\n<th>token</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n"
        "<td>a token</td>\n</tr>\n</tbody>\n</table>\n"
        '<div class="lk-no-glossary">\n<p>A token in a widget.</p>\n</div>\n'
        '<div class="lk-quiz">\n<p>What is a token?</p>\n</div>\n'
        f"<p>Then a {term('token', 'token', TOKEN)}.</p>"
    )
