"""The glossary page's Markdown, made from the glossary file."""

from __future__ import annotations

from lessonkit.glossary.site import page_markdown
from lessonkit.glossary.terms import Glossary, Term


def test_each_term_alphabetically_with_its_aliases_related_terms_and_used_on_place() -> None:
    glossary = Glossary(
        [
            Term("token", "A piece of *text*.", aliases=("sub-word",), related=("KV cache",)),
            Term("KV cache", "Stored keys."),
        ]
    )
    assert page_markdown(glossary, intro="Words.") == (
        "# Glossary\n\n<p>Words.</p>\n\n"
        "## KV cache {#kv-cache}\n\n"
        '<div class="lk-entry">\n<p>Stored keys.</p>\n<!-- lk-used-on:kv-cache -->\n</div>\n\n'
        "## token {#token}\n\n"
        '<div class="lk-entry">\n<p>A piece of <em>text</em>.</p>\n'
        '<p class="lk-entry__also">Also written: sub-word.</p>\n'
        '<p class="lk-entry__related">Related: <a href="#kv-cache">KV cache</a>.</p>\n'
        "<!-- lk-used-on:token -->\n</div>\n"
    )
