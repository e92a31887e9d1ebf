"""A page with thousands of glossary marks renders and checks in linear time.

Each forced mark gets its own tooltip id (``lk-tip-token``, ``lk-tip-token-2``...): finding the
next free number by counting up from 1 for every mark, and counting newlines from the top of the
page for every mark's line, made 10,000 marks take seconds. The tests time 10,000 marks, and
compare pages with four times as many marks as others.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import markdown

from lessonkit.glossary.checks import check
from lessonkit.glossary.extension import GlossaryExtension
from lessonkit.glossary.terms import parse

GLOSSARY = parse(
    """
- term: token
  definition: A piece of text.
- term: attention
  definition: Tokens weigh earlier tokens.
- term: softmax
  definition: Turns scores into weights.
"""
)
KINDS = ("[[token]]", "[[attention|Attention]]", "[[!softmax]]", "[[softmax]]")


def page(marks: int) -> str:
    """A page of ``marks`` marks, ten to a paragraph (Python-Markdown's own inline parsing is
    quadratic in a paragraph's length, whatever the extension; that is not what is measured)."""
    sentences = [f"A {KINDS[i % len(KINDS)]} here." for i in range(marks)]
    paragraphs = [" ".join(sentences[i : i + 10]) for i in range(0, marks, 10)]
    return "# Marks\n\nLead.\n\n" + "\n\n".join(paragraphs) + "\n"


def render(text: str) -> str:
    ext = GlossaryExtension(glossary=GLOSSARY, href="g.html#{id}")
    return markdown.markdown(text, extensions=[ext])


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The least CPU time ``work`` took in ``runs`` runs: this process's own seconds, which
    other work on a busy machine does not add to (the wall clock's do)."""
    times = []
    for _ in range(runs):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return min(times)


def ratio(small: Callable[[], object], large: Callable[[], object], runs: int = 3) -> float:
    """How much longer ``large`` takes than ``small``: each run in turn, the best of each (a
    machine busy with other work slows both alike)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        times[0].append(best_of(1, small))
        times[1].append(best_of(1, large))
    return min(times[1]) / min(times[0])


def test_ten_thousand_marks_render_with_unique_tooltip_ids() -> None:
    html = render(page(10_000))
    tips = re.findall(r'id="(lk-tip-[^"]+)"', html)
    assert len(tips) == len(set(tips)) == 7_500  # three forced marks in every four
    assert tips[:4] == ["lk-tip-token", "lk-tip-attention", "lk-tip-softmax", "lk-tip-token-2"]
    assert html.count("softmax") >= 2_500  # the suppressed ones stay plain words


def test_ten_thousand_marks_render_and_check_in_a_second_or_two() -> None:
    text = page(10_000)
    assert best_of(2, lambda: render(text)) < 3.0
    assert best_of(2, lambda: check(text, GLOSSARY)) < 0.5


def test_rendering_and_checking_marks_take_linear_time() -> None:
    """Four times the marks: linear work takes about 4 to 5 times as long (a page past the CPU's
    cache is a little slower per mark; up to 8.8 times by the wall clock on a machine loaded
    with other builds), quadratic work about 16 times (measured: 12 to 19)."""
    small, large = page(2_500), page(10_000)
    rendering = ratio(lambda: render(small), lambda: render(large))
    small, large = page(5_000), page(20_000)
    checking = ratio(lambda: check(small, GLOSSARY), lambda: check(large, GLOSSARY), runs=5)
    assert rendering < 10 and checking < 10, (rendering, checking)
