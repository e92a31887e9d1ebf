"""Editing a lesson's inputs changes every sentence that depends on them, and none becomes false.

Each test edits one input in a page's source (the trace's scores, the token example's word, the
key length, the input length, the invented vectors, the heads, the real model's controls),
renders the page as the build does, and checks each dependent sentence against numbers
recomputed here with plain numpy, math and tiktoken, not with the page's own code.
"""

from __future__ import annotations

import functools
import html
import itertools
import math
import re
import shutil
from decimal import Decimal
from pathlib import Path

import markdown
import numpy as np
import pytest

from lessonkit.core.source import split_front_matter
from lessonkit.execute.extension import ExecuteExtension
from lessonkit.lab.tokens import encoding
from lessonkit.lab.trace import softmax_trace
from lessonkit.notebooks.lesson import read_page

DOCS = Path(__file__).resolve().parents[1] / "docs"
LESSON = "transformers-and-attention.md"
NUMBERS = "building-blocks/attention-in-numbers.md"
REAL = "real-model-bank.md"
SEED_SCORES = "scores = [3, 1, 0]"


def _edited(page: str, edits: dict[str, str]) -> str:
    text = read_page(DOCS, page).text  # a notebook lesson: the Markdown it stands for
    for old, new in edits.items():
        assert text.count(old) == 1, f"{page} no longer writes {old!r} once: update this test"
        text = text.replace(old, new)
    return text


def render(page: str, edits: dict[str, str], folder: Path, monkeypatch) -> str:
    """The page's HTML, with ``edits`` (old -> new source text) applied, run in ``folder``.

    The edited page is written into ``folder`` (with the lesson beside it, which the real-model
    page quotes), so code that reads its own page reads the edited one.
    """
    text = _edited(page, edits)
    target = folder / page
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    if page != LESSON:
        shutil.copy(DOCS / LESSON, target.parent / LESSON)
    monkeypatch.chdir(target.parent)  # the page's `here`
    body, _, _ = split_front_matter(text)
    extensions = [ExecuteExtension(), "tables", "fenced_code", "md_in_html", "attr_list"]
    return markdown.Markdown(extensions=extensions).convert(body)


def prose(page_html: str) -> str:
    """The page's text, tags and figures removed, whitespace as single spaces."""
    text = re.sub(r"<svg.*?</svg>", " ", page_html, flags=re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def shown(x: float, decimals: int = 2) -> str:
    return f"{x:.{decimals}f}"


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --- the trace: scores -------------------------------------------------------------------------


def _render_trace_section(scores: list[int]) -> str:
    text = (DOCS / LESSON).read_text(encoding="utf-8")
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
    text = re.sub(r"<svg.*?</svg>", "", edited, flags=re.DOTALL)
    for number in _numbers(new):
        assert number in text, f"{number} missing after the edit"
    for number in _numbers(old) - _numbers(new):
        assert number not in text, f"{number} still shown after the edit"
    figures = [re.findall(r"<svg.*?</svg>", html, flags=re.DOTALL) for html in (seed, edited)]
    assert figures[0] and figures[1] and figures[0] != figures[1]
    assert f"{new.weights[0]:.2f}" in figures[1][-1]  # the bars' alt text quotes the weights


def _trace_claims(scores: list[float], values: list[float], d_k: int) -> list[str]:
    """Every sentence of the trace section that depends on the inputs, as it must read."""
    exps = [math.exp(s) for s in scores]
    total = sum(exps)
    w = [e / total for e in exps]
    out = sum(a * b for a, b in zip(w, values, strict=True))
    claims = [f"a token looks at {len(scores)} token{'' if len(scores) == 1 else 's'}"]
    claims += [
        f"e^{s:g} is {'exactly' if s == 0 else 'about'} {e:.1f}"
        for s, e in zip(scores, exps, strict=True)
    ]
    claims.append(f"the total is {'exactly' if total.is_integer() else 'about'} {total:.1f}")
    claims.append("rounded to two decimals, the weights are " + _listed(shown(x) for x in w))
    by_hand = sum(float(f"{x:.4f}") * v for x, v in zip(w, values, strict=True))
    claims.append(f"{'=' if shown(by_hand) == shown(out) else '≈'} {shown(out)}.")
    redone = sum(float(shown(x)) * v for x, v in zip(w, values, strict=True))
    again = "again" if shown(redone) == shown(out) else "instead"
    claims.append(f"rounded to two decimals you get {shown(redone)} {again}")
    rounded_total = sum(Decimal(shown(x)) for x in w)
    if rounded_total == 1:
        claims.append("the rounded weights add up to 1.00 here")
    else:
        claims.append(f"the rounded weights add up to {rounded_total:.2f}, not 1: rounding")
    top = max(w)
    claims += _explorer_claims(scores, w, [x * v for x, v in zip(w, values, strict=True)])
    scaled = [s / math.sqrt(d_k) for s in scores]
    ws = softmax(np.array(scaled))
    out_s = float(ws @ np.array(values, dtype=float))
    claims.append(f"with keys of {d_k} number{'' if d_k == 1 else 's'} the scores become")
    claims.append(_listed(f"{s:g}" for s in scaled))
    if d_k == 1:
        claims.append("the weights stay at " + _listed(shown(x) for x in ws))
    elif shown(ws.max()) != shown(top):
        claims.append("the weights soften to " + _listed(shown(x) for x in ws))
    if out_s == out:
        claims.append(f"the output stays at {shown(out_s)}")
    elif shown(out_s) != shown(out):
        claims.append(f"the output {'rises' if out_s > out else 'falls'} to {shown(out_s)}")
    return claims


def _explorer_claims(scores: list[float], w: list[float], products: list[float]) -> list[str]:
    """The explorer's sentence: the scores decide the weight, weight × value the output."""
    tied = [str(i + 1) for i, s in enumerate(scores) if s == max(scores)]
    if len(tied) == len(scores):
        claims = [f"All {len(scores)} tokens tie for the highest score"]
    elif len(tied) > 1:
        claims = [f"Tokens {_listed(tied)} tie for the highest score"]
    else:
        amount = "most of the weight" if max(w) > 0.5 else "the largest weight"
        claims = [f"Token {tied[0]} gets {amount} ({shown(max(w))})"]
    sizes = [abs(p) for p in products]
    out = shown(math.fsum(products))
    lead = sizes.index(max(sizes))
    if not any(sizes):
        claims.append(f"Every weight × value is 0, so the output is {out}.")
    elif min(products) < 0 < max(products):
        claims.append(f"partly cancel: the largest is {shown(products[lead])}, from token")
        claims.append(f"the output is {out}.")
    else:
        amount = "ost of the output" if max(sizes) > sum(sizes) / 2 else "he largest part of"
        claims.append(f"{amount}")
        claims.append(f"{shown(products[lead])} of {out}, comes from token {lead + 1}")
        if w[lead] != max(w):
            claims.append("weight × value counts, not weight alone.")
    return claims


def _listed(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


@pytest.mark.parametrize(
    "scores",
    [[3, 1, 0], [2, 1, 0], [1, 1, 0], [0, 0, 0], [5, 0, 0], [0, 3, 1], [1, 0, 0], [0.5, 0, 0]],
)
def test_every_trace_sentence_holds_for_other_scores(scores, tmp_path, monkeypatch) -> None:
    page = prose(render(LESSON, {SEED_SCORES: f"scores = {scores}"}, tmp_path, monkeypatch))
    for claim in _trace_claims(scores, [10, 20, 30], 4):
        assert claim in page, f"scores {scores}: expected {claim!r}"
    assert ("not 1: rounding" in page) != ("add up to 1.00 here" in page)


@pytest.mark.parametrize("d_k", [1, 4, 9, 16])
def test_the_scaling_sentence_follows_the_key_length(d_k, tmp_path, monkeypatch) -> None:
    page = prose(render(LESSON, {"d_k = 4\n": f"d_k = {d_k}\n"}, tmp_path, monkeypatch))
    for claim in _trace_claims([3, 1, 0], [10, 20, 30], d_k)[-4:]:
        assert claim in page, f"d_k {d_k}: expected {claim!r}"


@pytest.mark.parametrize(
    "values", [[30, 20, 10], [0, 20, 30], [-10, 20, 30], [0, 0, 0], [5, 5, 5], [100, -100, 0]]
)
def test_new_values_change_the_weighted_average(values, tmp_path, monkeypatch) -> None:
    """Every sentence follows the values too: the largest weight on a value of 0 is not the
    largest part of the output."""
    edits = {"values = [10, 20, 30]": f"values = {values}"}
    page = prose(render(LESSON, edits, tmp_path, monkeypatch))
    for claim in _trace_claims([3, 1, 0], values, 4):
        assert claim in page, f"values {values}: expected {claim!r}"
    assert f"the weighted average of the values, {_listed(str(v) for v in values)}" in page


# --- the token example: the word ---------------------------------------------------------------


def _pieces(text: str) -> list[str]:
    enc = encoding()
    return [enc.decode_single_token_bytes(t).decode("utf-8") for t in enc.encode_ordinary(text)]


def _split(pieces: list[str], text: str) -> str:
    if len(pieces) == 1:
        return f'keeps "{text}" whole, as 1 token'
    shown_pieces = " | ".join(p.replace(" ", "␣") for p in pieces)
    return f'splits "{text}" into {len(pieces)} pieces, {shown_pieces}'


@pytest.mark.parametrize(
    ("word", "letter"),
    [("strawberry", "r"), ("blueberry", "r"), ("banana", "a"), ("xqzv", "q"), ("raspberry", "p")],
)
def test_the_token_example_says_what_the_tokenizer_does_with_any_word(
    word, letter, tmp_path, monkeypatch
) -> None:
    edits = {'word, letter = "strawberry", "r"': f'word, letter = "{word}", "{letter}"'}
    page = prose(render(LESSON, edits, tmp_path, monkeypatch))
    start = page.index("Attention can only mix information")
    paragraph = page[start : page.index("A different failure", start)]
    assert f'how many "{letter}" letters are in "{word}" (the answer is {word.count(letter)})' in (
        paragraph
    )
    assert _split(_pieces(word), word) in paragraph
    assert _split(_pieces(" " + word), " " + word) in paragraph
    hidden = any(len(p.strip()) > 1 for p in _pieces(" " + word))
    assert ("does not see the letters one by one" in paragraph) == hidden
    assert ("every letter is a token of its own" in paragraph) == (not hidden)
    if word != "strawberry":
        assert "strawberry" not in paragraph and "str | aw" not in paragraph


# --- the grid: the invented vectors -----------------------------------------------------------


def _grid(page_html: str) -> tuple[str, dict[str, list[float]]]:
    """The grid's caption and, per row word, the weights it shows (earlier words and itself)."""
    grid = re.search(r'<div class="lk-attn".*?</table>', page_html, flags=re.DOTALL).group(0)
    caption = html.unescape(re.search(r"<caption>(.*?)</caption>", grid).group(1))
    rows = {}
    for row in re.findall(r'<tr data-row="\d+".*?</tr>', grid, flags=re.DOTALL):
        word = html.unescape(re.search(r"<th[^>]*>(.*?)</th>", row).group(1))
        rows[word] = [float(v) for v in re.findall(r"<td style=[^>]*>([\d.]+)</td>", row)]
    return caption, rows


def _bank_weights(query_scale: float) -> tuple[list[str], np.ndarray]:
    """The lesson's invented example, recomputed: causal softmax of Q K^T / sqrt(3)."""
    keys = np.array(
        [[0, 0, 2], [2, 0, 0], [0, 0, 2], [0, 0, 2], [2, 2, 0], [0, 0, 1], [1, 2, 0], [0, 0, 1]]
    )
    queries = query_scale * np.array(
        [[0, 0, 1], [0, 0, 1], [1, 0, 0], [0, 0, 1], [2, 1, 0], [2, 0, 0], [1, 2, 0], [1, 1, 0]]
    )
    scores = queries @ keys.T / math.sqrt(3)
    scores = np.where(np.tril(np.ones((8, 8), dtype=bool)), scores, -np.inf)
    return ["The", "bank", "of", "the", "river", "was", "muddy", "."], softmax(scores)


@pytest.mark.parametrize("query_scale", [1, 5])
def test_the_grid_caption_and_sentence_say_what_the_grid_shows(
    query_scale, tmp_path, monkeypatch
) -> None:
    edits = (
        {} if query_scale == 1 else {"queries = np.array(": f"queries = {query_scale} * np.array("}
    )
    page_html = render(LESSON, edits, tmp_path, monkeypatch)
    caption, rows = _grid(page_html)
    words, weights = _bank_weights(query_scale)
    for i, word in enumerate(words):
        assert rows[word] == [float(shown(x)) for x in weights[i, : i + 1]], word
    sums = sorted({round(sum(r), 2) for r in rows.values()})
    if sums == [1.0]:
        assert "Each row adds up to 1. Hatched" in caption
    else:
        span = shown(sums[0]) if len(sums) == 1 else f"{shown(sums[0])} to {shown(sums[-1])}"
        assert f"rounded to 2 decimals, the rows shown add up to {span}." in caption
    river = words.index("river")
    earlier = weights[river, :river]
    top = int(np.argmax(earlier))
    runner = np.delete(earlier, top).max()
    if shown(earlier[top]) == shown(runner):
        relation = "about as much as" if earlier[top] != runner else "as much as"
    else:
        relation = "more than"
    ceiling = math.ceil(Decimal(repr(float(runner))) * 100) / 100
    expected = (
        f'the row for "river" gives "{words[top]}" {shown(earlier[top])} of its weight, '
        f"{relation} any other earlier word ({ceiling:.2f} at most each), and "
        f"{shown(weights[river, river])} to itself"
    )
    assert expected in prose(page_html)


# --- sizes: the input length -------------------------------------------------------------------


@pytest.mark.parametrize("n", [1_000, 10, 1])
def test_the_cost_sentence_follows_the_input_length(n, tmp_path, monkeypatch) -> None:
    page = prose(render(LESSON, {"n = 1_000\n": f"n = {n}\n"}, tmp_path, monkeypatch))
    before, after = n * (n + 1) // 2, 2 * n * (2 * n + 1) // 2
    ratio = after / before
    grows = "nearly quadruples" if f"{ratio:.1f}" == "4.0" else "multiplies"
    tokens = f"{n:,} token{'' if n == 1 else 's'}"
    assert f"doubling the input {grows} this part of the cost: a prompt of {tokens} needs" in page
    times = f"{ratio:g}" if ratio.is_integer() else f"{ratio:.3f}"
    assert f"{2 * n:,} tokens need {after:,}, {times} times as many" in page


@pytest.mark.parametrize("lengths", [[500, 1_000, 2_000, 4_000], [5, 10, 20, 40]])
def test_the_history_cost_sentence_follows_its_table(lengths, tmp_path, monkeypatch) -> None:
    edits = {"lengths = [500, 1_000, 2_000, 4_000]": f"lengths = {lengths}"}
    page = prose(render("history.md", edits, tmp_path, monkeypatch))
    n = lengths[1]
    ratio = (2 * n) * (2 * n + 1) / (n * (n + 1))
    near = "just under" if f"{ratio:.2f}" == "4.00" else "under"
    assert f"{ratio:.3f} times as many: {near} 4, because" in page
    assert "doubling gives exactly 4 times as many" in page
    for before, after in itertools.pairwise(lengths):
        assert f"{after * (after + 1) / (before * (before + 1)):.3f}" in page


# --- Attention in numbers: sizes and heads -----------------------------------------------------


def _table(page_html: str, corner: str) -> np.ndarray:
    table = re.search(rf"<th>{re.escape(corner)}</th>.*?</table>", page_html, re.DOTALL).group(0)
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.DOTALL)  # the body: after the corner
    return np.array([[float(c) for c in re.findall(r"<td[^>]*>([-\d.]+)</td>", r)] for r in rows])


SEED_Q = "Q = np.array([[1, 0, 1, 0], [0, 2, 0, 1], [1, 1, 0, 2]])"
SEED_K = "K = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [2, 1, 0, 1]])"
SEED_V = "V = np.array([[1, 0], [0, 1], [2, 2]])"


@pytest.mark.parametrize(
    "edits",
    [
        {},
        {SEED_V: "V = np.array([[1, 0, 1], [0, 1, 0], [2, 2, 1]])"},
        {SEED_Q: "Q = np.array([[1, 0], [0, 2], [1, 1]])", SEED_K: "K = np.eye(3, 2)"},
        {"n_heads = 2\n": "n_heads = 4\n"},
        {"n_heads = 2\n": "n_heads = 1\n"},
    ],
    ids=["seed", "values of 3", "keys of 2", "4 heads", "1 head"],
)
def test_attention_in_numbers_says_its_sizes(edits, tmp_path, monkeypatch) -> None:
    page_html = render(NUMBERS, edits, tmp_path, monkeypatch)
    page = prose(page_html)
    q, v = _table(page_html, "Q"), _table(page_html, "V")
    d_k, d_v = q.shape[1], v.shape[1]
    assert f"Here d_k is {d_k}, and each value has {d_v} number{'s' if d_v > 1 else ''}." in page
    assert f"√{d_k} = {math.sqrt(d_k):g}" in page
    weights = _table(page_html, "weights")
    sums = sorted({f"{sum(Decimal(f'{x:.3f}') for x in row):.3f}" for row in weights})
    assert f"rounded like that its rows add up to {_listed(sums)};" in page
    x = _table(page_html, "X")
    heads = int(re.search(r"n_heads = (\d+)", _edited(NUMBERS, edits)).group(1))
    d_head = x.shape[1] // heads
    noun = f"{heads} head{'s' if heads > 1 else ''}"
    columns = f"{d_head} column{'s' if d_head > 1 else ''}"
    assert f"there {'are' if heads > 1 else 'is'} {noun}, so each head works with {columns}:" in (
        page
    )
    for h in range(heads):
        cols = _listed([str(c + 1) for c in range(h * d_head, (h + 1) * d_head)])
        assert f"head {h + 1} reads column{'s' if d_head > 1 else ''} {cols}" in page
        shown_row = _table(page_html, f"head {h + 1} weights")[2]
        best = [j for j, w in enumerate(shown_row) if w == shown_row.max()]
        tokens = ["the", "cat", "sat"]
        if len(best) == 1:
            assert (
                f'head {h + 1} puts the most weight, {shown_row.max():.3f}, on "{tokens[best[0]]}"'
                in page
            )
    assert f"divides its scores by √{d_head}, the square root of its own {columns}" in page
    assert ("nothing to compare" in page) == (heads == 1)


# --- the real model: controls -------------------------------------------------------------------


def _lean_counts(control: list[str]) -> tuple[list[int], list[int]]:
    """Per layer 1..L, how many water-sense and money-sense "banks" lean past the control."""
    from lessonkit.lab.model import encode  # the model itself; the verdict logic is redone here

    water_words = ["shore", "lake", "creek", "coast", "pond", "beach"]
    money_words = ["money", "cash", "finance", "credit", "payment", "profit"]
    words = {w: encode(w).hidden[:, 1] for w in water_words + money_words}

    def lean(e):
        v = e.hidden[:, e.tokens.index("bank")]  # (L + 1, d)
        unit = lambda a: a / np.linalg.norm(a, axis=-1, keepdims=True)  # noqa: E731
        sim = {w: (unit(v) * unit(words[w])).sum(axis=-1) for w in words}
        return np.mean([sim[w] for w in water_words], 0) - np.mean([sim[w] for w in money_words], 0)

    river = [
        "The bank of the river was muddy.",
        "We sat on the grassy bank and watched the water flow by.",
        "The river overflowed its bank after the storm.",
        "Fish gathered near the bank of the stream.",
    ]
    money = [
        "The bank approved my loan.",
        "I deposited my salary at the bank.",
        "The bank raised its interest rates.",
        "She opened a savings account at the bank.",
    ]
    c = np.mean([lean(encode(s)) for s in control], axis=0)
    water = np.array([lean(encode(s)) for s in river])
    cash = np.array([lean(encode(s)) for s in money])
    layers = range(1, water.shape[1])
    return [int((water[:, i] > c[i]).sum()) for i in layers], [
        int((cash[:, i] < c[i]).sum()) for i in layers
    ]


def _after(counts: list[int], n: int) -> str:
    found = [i + 1 for i, k in enumerate(counts) if k == n]
    if len(found) == len(counts):
        return "every layer"
    if not found:
        return "no layer"
    return f"layer{'s' if len(found) > 1 else ''} {_listed([str(f) for f in found])} only"


def _of(k: int, n: int) -> str:
    if k == n:
        return "both" if n == 2 else f"all {n}"
    return f"none of the {n}" if k == 0 else f"{k} of the {n}"


# The controls are redefined right after the page defines them (robust to how it formats them).
AFTER_CONTROLS = "# Words standing for each sense; none of them appears in the sentences above."


@pytest.mark.parametrize(
    ("control", "fillers"),
    [
        (None, None),
        (["bank"], ["house", "thing"]),
        (["We walked to the bank.", "Look at the bank."], ["table", "box"]),
        (["This is the bank."], ["pond", "table"]),
    ],
    ids=[
        "seed",
        "bank alone, two weak fillers",
        "other control, two strong fillers",
        "a water noun among the fillers",
    ],
)
def test_the_real_model_verdicts_follow_their_controls(
    control, fillers, tmp_path, monkeypatch
) -> None:
    edits = {}
    if control is not None:
        edits[AFTER_CONTROLS] = f"CONTROL = {control!r}\nFILLERS = {fillers!r}\n{AFTER_CONTROLS}"
    page = prose(render(REAL, edits, tmp_path, monkeypatch))
    water, money = _lean_counts(
        control
        or ["The bank was there.", "I saw the bank.", "This is the bank.", "There is a bank."]
    )
    assert (
        f'All 4 water-sense "banks" lean more toward the water-words than the control after '
        f"{_after(water, 4)}; after the last layer, {_of(water[-1], 4)} do"
    ) in page
    assert (
        f'All 4 money-sense "banks" lean more toward the money-words than the control after '
        f"{_after(money, 4)}; after the last layer, {_of(money[-1], 4)} do"
    ) in page
    verdict = {4: "supports", 0: "does not support"}
    assert (
        f"for the water sense the model {verdict.get(water[-1], 'only partly supports')} this"
        in page
    )
    assert (
        f"For the money sense the model {verdict.get(money[-1], 'only partly supports')} it" in page
    )
    # Single heads: the head that looks hardest at "river" (or "loan"), and the same head with a
    # filler in the same place: the same-head control.
    from lessonkit.lab.model import encode

    def head_to(sentence: str, word: str, head: tuple[int, int] | None = None):
        e = encode(sentence)
        to = e.attention[:, :, e.tokens.index("bank"), e.tokens.index(word)]  # (L, heads)
        layer, h = head or np.unravel_index(int(np.argmax(to)), to.shape)
        return float(to[layer, h]), (layer, h)

    r, r_head = head_to("The bank of the river was muddy.", "river")
    m, m_head = head_to("The bank approved my loan.", "loan")
    names = fillers or [
        "table",
        "box",
        "door",
        "window",
        "car",
        "house",
        "room",
        "floor",
        "paper",
        "story",
        "thing",
        "tree",
    ]
    r_top = max(head_to(f"The bank of the {f} was muddy.", f, r_head)[0] for f in names)
    m_top = max(head_to(f"The bank approved my {f}.", f, m_head)[0] for f in names)
    single = "supports" if r > r_top and m > m_top else "does not support"
    assert f"A single head singles out the word. The model {single} this." in page
    assert (
        f'"river" gets {shown(r)} against at most {shown(r_top)}, "loan" {shown(m)} against at '
        f"most {shown(m_top)}."
    ) in page


# --- embeddings: the real table -----------------------------------------------------------------

EMBEDDINGS = "embeddings.md"


@functools.cache
def _raw_model() -> tuple[dict[str, np.ndarray], object]:
    """The model's tables and tokenizer read straight from its files, not through the lab."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from lessonkit.lab.model import model_dir  # only where the files are

    tables = load_file(str(model_dir() / "model.safetensors"))
    return tables, Tokenizer.from_file(str(model_dir() / "tokenizer.json"))


def _raw_cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize(
    "sentence",
    ["Embeddings turn tokens into vectors.", "Cats read books.", "Unbelievably long words."],
)
def test_the_tokenizer_sentences_follow_the_sentence(sentence, tmp_path, monkeypatch) -> None:
    edits = {
        'sentence = "Embeddings turn tokens into vectors."': f"sentence = {sentence!r}",
    }
    page = prose(render(EMBEDDINGS, edits, tmp_path, monkeypatch))
    _, tokenizer = _raw_model()
    tokenizer.no_padding()
    word = sentence.split()[0]
    pieces = tokenizer.encode(word).tokens[1:-1]
    if len(pieces) == 1:
        assert f'lower-cases the text and keeps "{word}" whole' in page
    else:
        assert f'cuts "{word}" into {len(pieces)} pieces, {" | ".join(pieces)}' in page
    theirs = len(encoding().encode_ordinary(sentence))
    ours = len(tokenizer.encode(sentence).tokens) - 2
    assert f"cuts the same sentence into {theirs} token{'s' * (theirs != 1)};" in page
    assert f"this model's tokenizer made {ours} piece{'s' * (ours != 1)} of it" in page


@pytest.mark.parametrize(
    "pairs",
    [None, [("three", "four"), ("cat", "river"), ("loan", "money")]],
    ids=["seed", "other pairs"],
)
def test_the_pair_sentence_names_the_most_and_least_similar_pair(
    pairs, tmp_path, monkeypatch
) -> None:
    edits = {}
    if pairs is not None:
        edits["pair_cosines = {"] = f"PAIRS = {pairs!r}\npair_cosines = {{"
    page = prose(render(EMBEDDINGS, edits, tmp_path, monkeypatch))
    tables, tokenizer = _raw_model()
    table = tables["embeddings.word_embeddings.weight"]
    seed = [
        ("cat", "dog"),
        ("cat", "kitten"),
        ("river", "lake"),
        ("money", "cash"),
        ("cat", "money"),
        ("river", "money"),
        ("blue", "loan"),
    ]
    sims = {
        (a, b): _raw_cosine(table[tokenizer.token_to_id(a)], table[tokenizer.token_to_id(b)])
        for a, b in pairs or seed
    }
    (top_a, top_b), top = max(sims.items(), key=lambda item: item[1])
    (low_a, low_b), low = min(sims.items(), key=lambda item: item[1])
    assert (
        f'"{top_a}" and "{top_b}" have the most similar rows of these pairs ({shown(top)}), and '
        f'"{low_a}" and "{low_b}" the least similar ({shown(low)})'
    ) in page


@pytest.mark.parametrize("distances", [[1, 10, 100], [1, 2, 5], [100, 1]])
def test_the_position_sentence_follows_its_distances(distances, tmp_path, monkeypatch) -> None:
    edits = {"DISTANCES = [1, 10, 100]": f"DISTANCES = {distances!r}"}
    page = prose(render(EMBEDDINGS, edits, tmp_path, monkeypatch))
    positions = _raw_model()[0]["embeddings.position_embeddings.weight"].astype(np.float64)
    unit = positions / np.linalg.norm(positions, axis=1, keepdims=True)
    means = [float(np.mean(np.sum(unit[:-d] * unit[d:], axis=1))) for d in distances]
    closer = all(a > b for a, b in itertools.pairwise(means))
    verdict = "have more similar" if closer else "do not always have more similar"
    assert f"positions close together {verdict} vectors than positions far apart" in page
    pairs = zip(distances, means, strict=True)
    listed = _listed(f"{shown(m)} for positions {d} apart" for d, m in pairs)
    assert f"on average, {listed}." in page
