"""A one-layer, one-head left-to-right model trained in numpy: the lesson's story, tested.

token embedding + position → causal attention (W_Q, W_K, W_V), added to the residual stream →
unembedding → next-token scores. Gradients are written out by the chain rule (checked against
finite differences in the tests) and the weights move with Adam. Everything is seeded.

>>> corpus = ["the bank of the river was muddy", "the bank of the town was closed"]
>>> model = AttentionLM.create(vocabulary(corpus), max_len=8, d=8, seed=0)
>>> trained, losses = train(model, [model.ids(s) for s in corpus], steps=60)
>>> losses[-1] < 0.5 * losses[0]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from lessonkit.lab.attention import causal_mask, softmax
from lessonkit.lab.tiny_lm import vocabulary

__all__ = ["AttentionLM", "Forward", "train", "vocabulary"]

Array = NDArray[np.float64]
Ids = NDArray[np.int64]
NAMES = ("E", "P", "W_q", "W_k", "W_v", "U")


@dataclass(frozen=True)
class Forward:
    """One sentence through the model: every intermediate the gradients need."""

    ids: Ids
    x: Array  # (T, d): embedding + position, what attention reads
    weights: Array  # (T, T): attention weights, zero above the diagonal
    h: Array  # (T, d): x + attention's output (the residual stream after the layer)
    probs: Array  # (T, V): next-token probabilities after each token


@dataclass(frozen=True)
class AttentionLM:
    """The learned numbers; ``params[name]`` for name in :data:`NAMES`."""

    words: tuple[str, ...]
    params: dict[str, Array] = field(repr=False)

    @classmethod
    def create(cls, words: Sequence[str], max_len: int, d: int, seed: int = 0) -> AttentionLM:
        rng = np.random.default_rng(seed)
        v = len(words)
        shapes = {"E": (v, d), "P": (max_len, d), "W_q": (d, d), "W_k": (d, d)}
        shapes |= {"W_v": (d, d), "U": (d, v)}
        return cls(tuple(words), {n: rng.normal(0, 0.3, shapes[n]) for n in NAMES})

    def ids(self, text: str) -> Ids:
        try:
            return np.array([self.words.index(w) for w in text.split()], dtype=np.int64)
        except ValueError:
            raise ValueError(f"{text!r} has a word outside the vocabulary {self.words}") from None

    def forward(self, ids: Ids) -> Forward:
        p = self.params
        T, d = len(ids), p["E"].shape[1]
        x = p["E"][ids] + p["P"][:T]
        scores = (x @ p["W_q"]) @ (x @ p["W_k"]).T / np.sqrt(d)
        weights = softmax(np.where(causal_mask(T), scores, -np.inf))
        h = x + weights @ (x @ p["W_v"])  # the residual "add"
        return Forward(ids, x, weights, h, softmax(h @ p["U"]))

    def loss(self, sentences: Sequence[Ids]) -> float:
        """Mean cross-entropy of every next token in every sentence."""
        total, n = 0.0, 0
        for ids in sentences:
            f = self.forward(ids)
            total -= float(np.log(f.probs[np.arange(len(ids) - 1), ids[1:]]).sum())
            n += len(ids) - 1
        return total / n

    def gradients(self, sentences: Sequence[Ids]) -> dict[str, Array]:
        """d loss / d every parameter, by the chain rule, backwards through :meth:`forward`."""
        p = self.params
        grads = {n: np.zeros_like(p[n]) for n in NAMES}
        n_targets = sum(len(ids) - 1 for ids in sentences)
        d = p["E"].shape[1]
        for ids in sentences:
            f = self.forward(ids)
            T = len(ids)
            d_logits = f.probs.copy()
            d_logits[-1] = 0.0  # the last token has no next token to predict
            d_logits[np.arange(T - 1), ids[1:]] -= 1.0
            d_logits /= n_targets
            grads["U"] += f.h.T @ d_logits
            d_h = d_logits @ p["U"].T
            q, k, v = f.x @ p["W_q"], f.x @ p["W_k"], f.x @ p["W_v"]
            d_x = d_h.copy()  # through the residual path
            d_weights = d_h @ v.T
            d_v = f.weights.T @ d_h
            row = (d_weights * f.weights).sum(axis=1, keepdims=True)
            d_scores = f.weights * (d_weights - row) / np.sqrt(d)  # masked cells stay 0
            d_q, d_k = d_scores @ k, d_scores.T @ q
            grads["W_q"] += f.x.T @ d_q
            grads["W_k"] += f.x.T @ d_k
            grads["W_v"] += f.x.T @ d_v
            d_x += d_q @ p["W_q"].T + d_k @ p["W_k"].T + d_v @ p["W_v"].T
            np.add.at(grads["E"], ids, d_x)
            grads["P"][:T] += d_x
        return grads


def train(
    model: AttentionLM, sentences: Sequence[Ids], steps: int, lr: float = 0.05
) -> tuple[AttentionLM, list[float]]:
    """``steps`` full-batch Adam steps; the loss before the first step and after each one."""
    params = {n: a.copy() for n, a in model.params.items()}
    m = {n: np.zeros_like(a) for n, a in params.items()}
    s = {n: np.zeros_like(a) for n, a in params.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    losses = [model.loss(sentences)]
    for t in range(1, steps + 1):
        grads = replace(model, params=params).gradients(sentences)
        for n in NAMES:
            m[n] = b1 * m[n] + (1 - b1) * grads[n]
            s[n] = b2 * s[n] + (1 - b2) * grads[n] ** 2
            params[n] -= lr * (m[n] / (1 - b1**t)) / (np.sqrt(s[n] / (1 - b2**t)) + eps)
        losses.append(replace(model, params=params).loss(sentences))
    return replace(model, params=params), losses
