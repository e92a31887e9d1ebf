"""The block diagram and parameter table come from the configuration; the layer steps add up."""

from __future__ import annotations

import dataclasses

import numpy as np

from lessonkit.lab.block import block_diagram, layer_parts, parameter_counts, stream_changes
from lessonkit.lab.model import config, encode, layer_norm, weights


def _texts(fig) -> str:
    return " ".join(t.get_text() for t in fig.axes[0].texts)


def test_the_diagram_shows_the_sizes_of_the_configuration_it_is_given():
    other = dataclasses.replace(config(), n_layers=24, d_model=1024, n_heads=16, d_ff=4096)
    text = _texts(block_diagram(other))
    assert "× 24 layers" in text
    assert "1024 → 4096 → 1024" in text
    assert "16 heads of 64" in text
    assert "× 6 layers" not in text


def test_parameter_counts_add_up_to_the_weights_in_the_file():
    counts = parameter_counts(config())
    w = weights()
    layer0 = sum(v.size for k, v in w.items() if k.startswith("encoder.layer.0."))
    assert counts["one layer"] == layer0
    assert counts["word embeddings"] == w["embeddings.word_embeddings.weight"].size


def test_each_layer_adds_its_changes_to_the_stream_before_the_norm():
    enc = encode("The bank approved my loan.")
    w = weights()
    for layer in range(config().n_layers):
        parts = layer_parts(enc.hidden[layer], layer)
        ln = f"encoder.layer.{layer}.output.LayerNorm"
        redo = layer_norm(
            parts.after_attention + parts.feed_forward, w[f"{ln}.weight"], w[f"{ln}.bias"], 1e-12
        )
        np.testing.assert_allclose(redo, parts.after)
        np.testing.assert_allclose(parts.after, enc.hidden[layer + 1], atol=1e-9)


def test_stream_changes_measure_the_token_asked_for():
    enc = encode("The bank approved my loan.")
    rows = stream_changes(enc, "loan")
    i = enc.position("loan")
    x, out = enc.hidden[0, i], enc.hidden[1, i]
    assert rows[0]["kept"] == np.float64(x @ out / np.linalg.norm(x) / np.linalg.norm(out))
