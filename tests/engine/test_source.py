"""lessonkit reads a page as Python-Markdown will hold it, or it would run the page twice."""

from __future__ import annotations

import random
from types import SimpleNamespace

from markdown.preprocessors import NormalizeWhitespace

from lessonkit.core.source import normalized

MARKDOWN = NormalizeWhitespace(SimpleNamespace(tab_length=4))


def test_normalized_text_is_exactly_what_python_markdown_makes_of_the_page() -> None:
    pieces = ["a", "b c", " ", "  ", "\t", "\n", "\r\n", "\r", "\x02", "\x03", "```", "{{ x }}"]
    rng = random.Random(2026)
    texts = ["", "plain\n", "ends in a space ", " \n", "\n \n", "tab\there"]
    texts += ["".join(rng.choices(pieces, k=rng.randint(1, 24))) for _ in range(5000)]
    for text in texts:
        assert normalized(text) == "\n".join(MARKDOWN.run(text.split("\n"))), repr(text)
