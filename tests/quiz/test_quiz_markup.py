"""Raw HTML in a quiz is shown as text, everywhere the quiz puts its text; Markdown still works."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import markdown
import pytest

from lessonkit.quiz import QuizExtension, unseal
from lessonkit.quiz.escape import escape_quizzes

RE_SEAL = re.compile(r'<data class="lk-quiz__seal" value="([^"]+)"></data>')
RE_ID = re.compile(r'<div class="lk-quiz" data-lk-quiz="\w+" id="(quiz-[0-9a-f]{8})">')

HOSTILE = [
    "<script>alert(1)</script>",
    "</fieldset>",
    '<img src="x" onerror="alert(1)">',
    "<b>never closed",
    "</label></div>",
    "<div>",
    "<!-- an open comment",
    "</lk-sealed>",
    "<noscript>",
    "<a href='javascript:alert(1)'>x</a>",
]


def render(source: str, *extensions: object) -> str:
    md = markdown.Markdown(
        extensions=[QuizExtension(), "pymdownx.superfences", "pymdownx.tasklist", *extensions]
    )
    return md.convert(source)


def quiz(
    question: str = "Which one?", option: str = "This one.", feedback: str = "Because."
) -> str:
    return (
        f"/// quiz\n{question}\n\n"
        f"- [x] {option}\n\n    Right: {feedback}\n\n"
        "- [ ] The other one.\n\n    Not quite. It is not.\n///\n\nAfter the quiz.\n"
    )


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text inside each <label>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.labels: list[str] = []
        self._label: list[str] | None = None

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "label":
            self._label = []

    def handle_endtag(self, tag) -> None:
        if tag == "label" and self._label is not None:
            self.labels.append("".join(self._label))
            self._label = None

    def handle_data(self, data) -> None:
        if self._label is not None:
            self._label.append(data)


def parsed(html: str) -> _Tags:
    tags = _Tags()
    tags.feed(html)
    tags.close()
    return tags


def sealed_feedback(html: str) -> list[str]:
    [quiz_id] = RE_ID.findall(html)
    return [unseal(f"{quiz_id}:{n}", v)[1] for n, v in enumerate(RE_SEAL.findall(html), 1)]


def assert_contained(html: str) -> None:
    """Only the quiz's own markup: one fieldset, no script, no event handler, no stray tag."""
    tags = parsed(html)
    names = [tag for tag, _ in tags.tags]
    assert names.count("fieldset") == 1 and names.count("noscript") == 1, names
    assert "script" not in names and "img" not in names and "b" not in names, names
    assert not any(k.startswith("on") for _, attrs in tags.tags for k in attrs), tags.tags
    assert html.rstrip().endswith("<p>After the quiz.</p>"), html[-200:]
    for feedback in sealed_feedback(html):
        assert not set(re.findall(r"</?([a-zA-Z]+)", feedback)) - {"p", "code", "em"}, feedback


@pytest.mark.parametrize("markup", HOSTILE)
@pytest.mark.parametrize("where", ["question", "option", "feedback"])
def test_raw_html_anywhere_in_a_quiz_is_text(markup: str, where: str) -> None:
    html = render(quiz(**{where: f"Is {markup} text?"}))
    assert_contained(html)
    shown = markup.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if where == "option":  # the label and the no-JavaScript answer list
        assert html.count(f"Is {shown} text?") == 2, html
        assert parsed(html).labels[0] == f"Is {markup} text?"
    elif where == "question":
        assert f"<legend>Is {shown} text?</legend>" in html
    else:
        assert f"Is {shown} text?" in sealed_feedback(html)[0]
        assert f"Is {shown} text?" in html.split("<noscript", 1)[1]


@pytest.mark.parametrize("markup", ["<script>alert(1)</script>", "</fieldset>", "<div>"])
def test_an_html_block_in_a_quiz_is_text_too(markup: str) -> None:
    source = quiz().replace("Which one?\n", f"Which one?\n\n{markup}\n")
    html = render(source)
    assert_contained(html)
    assert markup.replace("<", "&lt;").replace(">", "&gt;") in html


def test_an_unclosed_div_does_not_swallow_the_end_of_the_quiz() -> None:
    html = render(quiz(feedback="<div class='x'>\n\n    more"))
    assert_contained(html)
    assert 'class="lk-quiz-result"' in html


def test_markdown_in_quiz_text_still_renders() -> None:
    html = render(
        quiz(
            question="Is `<b>` *bold*? See [the docs](x.md) or <https://example.org>.",
            option="Yes, **strong** and `a < b`.",
            feedback="1 < 2, and ~~~ is no fence.\n\n    ```html\n    <b>in code</b>\n    ```",
        )
    )
    assert (
        "<legend>Is <code>&lt;b&gt;</code> <em>bold</em>? See "
        '<a href="x.md">the docs</a> or <a href="https://example.org">https://example.org</a>.'
        "</legend>"
    ) in html
    assert "Yes, <strong>strong</strong> and <code>a &lt; b</code>.</label>" in html
    feedback = sealed_feedback(html)[0]
    assert "1 &lt; 2" in feedback
    assert '<span class="nt">b</span>' in feedback or "&lt;b&gt;in code" in feedback


def test_html_outside_quizzes_is_untouched() -> None:
    html = render("Before <b>bold</b>.\n\n" + quiz() + "\n<i>after</i>\n")
    assert "<b>bold</b>" in html and "<i>after</i>" in html


def test_a_quiz_in_an_admonition_is_escaped_too() -> None:
    body = quiz(option="A <script>x</script> here.")
    source = "!!! note\n\n" + "\n".join("    " + line if line else "" for line in body.split("\n"))
    html = render(source, "admonition")
    assert "<script>" not in html
    assert "A &lt;script&gt;x&lt;/script&gt; here." in html


def test_each_tag_opening_less_than_in_a_quiz_is_escaped_and_code_and_links_are_kept() -> None:
    page = [
        "/// quiz",
        "Is <b>this</b> bold? See `<b>` and <https://example.org>.",
        "",
        "- [x] No: <script>alert(1)</script>",
        "- [ ] Yes </fieldset>",
        "",
        "    Not quite. 1 < 2, and <img src=x onerror=alert(1)>.",
        "",
        "        <b>indented code</b>",
        "///",
        "Outside: <b>kept</b>",
    ]
    assert escape_quizzes(page) == [
        "/// quiz",
        "Is &lt;b>this&lt;/b> bold? See `<b>` and <https://example.org>.",
        "",
        "- [x] No: &lt;script>alert(1)&lt;/script>",
        "- [ ] Yes &lt;/fieldset>",
        "",
        "    Not quite. 1 < 2, and &lt;img src=x onerror=alert(1)>.",
        "",
        "        <b>indented code</b>",
        "///",
        "Outside: <b>kept</b>",
    ]
