"""Editing the trace's inputs in the lesson changes every number that depends on them."""

import re
from pathlib import Path

import markdown

from lessonkit.execute.extension import ExecuteExtension
from lessonkit.lab.trace import softmax_trace

LESSON = Path(__file__).resolve().parents[1] / "docs" / "transformers-and-attention.md"
SEED_SCORES = "scores = [3, 1, 0]"


def _render_trace_section(scores: list[int]) -> str:
    text = LESSON.read_text(encoding="utf-8")
    start = text.index("## A trace with small numbers")
    section = text[start : text.index("\n## ", start + 1)]
    assert SEED_SCORES in section, "the lesson no longer writes its scores once, as expected"
    section = section.replace(SEED_SCORES, f"scores = {scores}")
    md = markdown.Markdown(extensions=[ExecuteExtension(), "tables", "fenced_code"])
    return md.convert(section)


def _numbers(trace) -> set[str]:
    return {
        f"{trace.total:.1f}",
        *(f"{w:.2f}" for w in trace.weights),
        *(f"{w:.4f}" for w in trace.weights),
        f"{trace.output:.2f}",
        f"{trace.output_from_rounded_weights():.2f}",
    }


def test_new_scores_change_the_table_the_sentences_and_the_figure() -> None:
    seed, edited = _render_trace_section([3, 1, 0]), _render_trace_section([2, 1, 0])
    old, new = softmax_trace([3, 1, 0], [10, 20, 30]), softmax_trace([2, 1, 0], [10, 20, 30])
    prose = re.sub(r"<svg.*?</svg>", "", edited, flags=re.DOTALL)
    for number in _numbers(new):
        assert number in prose, f"{number} missing after the edit"
    for number in _numbers(old) - _numbers(new):
        assert number not in prose, f"{number} still shown after the edit"
    figures = [re.findall(r"<svg.*?</svg>", html, flags=re.DOTALL) for html in (seed, edited)]
    assert figures[0] and figures[1] and figures[0] != figures[1]
    assert f"{new.weights[0]:.2f}" in figures[1][-1]  # the bars' alt text quotes the weights
