"""A link in a quiz (question, option or feedback, inline or by reference) whose scheme a
browser would run is refused, wherever the author hid its scheme; safe links pass."""

from __future__ import annotations

import markdown
import pytest

from lessonkit.core.problems import LessonError
from lessonkit.quiz import QuizExtension

QUIZ = """\
/// quiz
Which {q}?

- [x] A {a}

    Right. {f}

- [ ] B

    Not quite.
///

[r]: {r}
"""


def render(**links: str) -> str:
    fields = {"q": "", "a": "", "f": "", "r": "https://example.org", **links}
    md = markdown.Markdown(extensions=[QuizExtension(), "pymdownx.superfences"])
    return md.convert(QUIZ.format(**fields))


@pytest.mark.parametrize(
    "links",
    [
        {"f": "[demo](javascript:alert(1))"},
        {"f": "[demo](JavaScript&#58;alert(1))"},
        {"f": "[demo](java&#9;script:alert(1))"},
        {"f": "[demo][r]", "r": " javascript:alert(1)"},
        {"a": "[b](vbscript:x)"},
        {"q": "![i](data:text/html,<script>alert(1)</script>)"},
    ],
)
def test_an_unsafe_link_in_a_quiz_is_refused(links: dict[str, str]) -> None:
    with pytest.raises(LessonError) as error:
        render(**links)
    [found] = error.value.problems
    assert "URL a browser would run" in found.message and found.hint


def test_safe_links_in_a_quiz_pass() -> None:
    html = render(q="[a](https://x.org)", a="[b](../b/#c)", f="[c](mailto:me@x.org) [d][r]")
    assert html.count("<a href=") == 5  # question, option; in <noscript>: option, 2 feedback
