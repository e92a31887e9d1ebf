"""Editing the transformer chapters' invented inputs changes every sentence that depends on
them, and none becomes false (as tests/test_lesson_inputs.py does for the lesson).

Each test edits one input in a page's source, renders the page as the build does, and checks
the dependent sentences against numbers recomputed here with plain numpy."""

from __future__ import annotations

import html
import itertools
import math
import re
from pathlib import Path

import markdown
import numpy as np
import pytest

from lessonkit.core.source import split_front_matter
from lessonkit.execute.extension import ExecuteExtension

DOCS = Path(__file__).resolve().parents[1] / "docs"


def render(page: str, edits: dict[str, str], folder: Path, monkeypatch) -> str:
    """The page's text, with ``edits`` (old -> new source text) applied, tags removed."""
    text = (DOCS / page).read_text(encoding="utf-8")
    for old, new in edits.items():
        assert text.count(old) == 1, f"{page} no longer writes {old!r} once: update this test"
        text = text.replace(old, new)
    (folder / page).write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    body, _, _ = split_front_matter(text)
    extensions = [ExecuteExtension(), "tables", "fenced_code", "md_in_html", "attr_list"]
    out = markdown.Markdown(extensions=extensions).convert(body)
    out = re.sub(r"<svg.*?</svg>", " ", out, flags=re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", out)).split())


@pytest.mark.parametrize("p", ["0.5", "0.75", "0.99"])
def test_top_p_sentence_follows_p_and_the_logits(tmp_path, monkeypatch, p):
    logits = [2.0, 1.9, 1.0, 0.5, 0.4, 0.0, -1.0, -2.0]
    text = render(
        "the-output-end.md",
        {
            "LOGITS = [3.1, 2.8, 2.2, 1.9, 1.2, 0.9, 0.3, -0.5]": f"LOGITS = {logits}",
            "K, P = 3, 0.9": f"K, P = 3, {p}",
        },
        tmp_path,
        monkeypatch,
    )
    e = np.exp(np.array(logits) - max(logits))
    probs = np.sort(e / e.sum())[::-1]
    n = int(np.searchsorted(np.cumsum(probs), float(p)) + 1)
    before, total = probs[: n - 1].sum(), probs[:n].sum()
    assert f"Top-p with p = {float(p):g} keeps {n} words here" in text
    assert f"add up to only {before:.3f}, so word {n} joins" in text
    assert f"the total to {total:.3f}" in text


def test_training_sentences_follow_the_corpus(tmp_path, monkeypatch):
    corpus = ["the cat sat", "the cat ran", "the dog sat", "the bank was closed", "the dog ran"]
    old = (
        '    "the river bank was muddy",\n    "the money bank was closed",\n'
        '    "the river was wide",\n    "the bank was closed",\n    "the money was gone",\n'
    )
    new = "".join(f'    "{line}",\n' for line in corpus)
    # "bank" after "river" is read by the page: keep a "river bank" pair in the new text.
    new += '    "the river bank sat",\n'
    corpus.append("the river bank sat")
    text = render("training.md", {old: new}, tmp_path, monkeypatch)
    vocab = list(dict.fromkeys(w for line in corpus for w in line.split()))
    pairs = [(a, b) for line in corpus for a, b in itertools.pairwise(line.split())]
    assert f"Its vocabulary is the {len(vocab)} words of {len(corpus)} short sentences" in text
    assert f"{len(pairs)} pairs here" in text
    assert f"ln({len(vocab)}) = {math.log(len(vocab)):.2f}" in text
    after_the = [b for a, b in pairs if a == "the"]
    counts = {w: after_the.count(w) for w in dict.fromkeys(after_the)}
    floor = 0.0
    for a in {a for a, _ in pairs}:
        nexts = [b for x, b in pairs if x == a]
        for b in set(nexts):
            floor -= nexts.count(b) * math.log(nexts.count(b) / len(nexts))
    floor /= len(pairs)
    assert f"can reach is {floor:.3f}" in text
    for word, n in counts.items():
        said = {1: "once", 2: "twice"}.get(n, f"{n} times")
        assert f"“{word}” {said}" in text
    starters = {a for a, _ in pairs}
    enders = [w for w in vocab if w not in starters]
    assert f"{len(starters)} of {len(vocab)}" in text
    assert all(f"“{w}”" in text for w in enders)
