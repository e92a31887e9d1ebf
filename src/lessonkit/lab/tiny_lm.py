"""A tiny next-token model trained in numpy: the loss, its gradient, and what a step changes.

The model is as small as a language model gets: each token's embedding (a row of ``E``) times
an unembedding matrix ``U`` gives scores for the next token. It has no attention, so it can
learn only which word tends to follow which; that is enough to show the training loop every
transformer uses. Everything is seeded, so every build trains the same model.

>>> corpus = ["the river bank was muddy", "the money bank was closed"]
>>> lm = TinyLM.create(vocabulary(corpus), d=4, seed=0)
>>> x, y = pairs(lm, corpus)
>>> round(lm.loss(x, y), 2)  # near ln(7): an untrained model's guesses are almost even
1.95
>>> trained, losses = train(lm, x, y, steps=200, lr=0.5)
>>> losses[-1] < losses[0] / 2
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from lessonkit.lab.attention import softmax

__all__ = ["TinyLM", "lowest_loss", "pairs", "train", "vocabulary"]

Array = NDArray[np.float64]
Ids = NDArray[np.int64]


def vocabulary(corpus: Sequence[str]) -> tuple[str, ...]:
    """Every word of ``corpus`` once, in order of first appearance.

    >>> vocabulary(["a b", "b c"])
    ('a', 'b', 'c')
    """
    return tuple(dict.fromkeys(w for line in corpus for w in line.split()))


@dataclass(frozen=True)
class TinyLM:
    """Embeddings ``E`` (V, d) and unembedding ``U`` (d, V): the model's learned numbers."""

    words: tuple[str, ...]
    E: Array
    U: Array

    @classmethod
    def create(cls, words: Sequence[str], d: int, seed: int = 0) -> TinyLM:
        """Small random starting numbers, the same for the same seed."""
        rng = np.random.default_rng(seed)
        v = len(words)
        return cls(tuple(words), rng.normal(0, 0.1, (v, d)), rng.normal(0, 0.1, (d, v)))

    def ids(self, text: str) -> Ids:
        try:
            return np.array([self.words.index(w) for w in text.split()], dtype=np.int64)
        except ValueError:
            raise ValueError(f"{text!r} has a word outside the vocabulary {self.words}") from None

    def probabilities(self, x: Ids) -> Array:
        """``(len(x), V)``: the next-token probabilities after each input token."""
        return softmax(self.E[x] @ self.U)

    def loss(self, x: Ids, y: Ids) -> float:
        """Cross-entropy: the mean of ``-ln p(right next token)``."""
        p = self.probabilities(x)
        return float(-np.log(p[np.arange(len(y)), y]).mean())

    def gradients(self, x: Ids, y: Ids) -> tuple[Array, Array]:
        """d loss / d E and d loss / d U, by the chain rule (softmax + cross-entropy:
        the gradient of the scores is ``p - one_hot(y)``, over the number of examples)."""
        p = self.probabilities(x)  # (n, V)
        d_scores = p.copy()
        d_scores[np.arange(len(y)), y] -= 1.0
        d_scores /= len(y)
        h = self.E[x]  # (n, d)
        d_u = h.T @ d_scores  # (d, V)
        d_h = d_scores @ self.U.T  # (n, d)
        d_e = np.zeros_like(self.E)
        np.add.at(d_e, x, d_h)  # only the rows of tokens that occur get a gradient
        return d_e, d_u

    def step(self, x: Ids, y: Ids, lr: float) -> TinyLM:
        """One gradient step: every number moves a little against its gradient."""
        d_e, d_u = self.gradients(x, y)
        return replace(self, E=self.E - lr * d_e, U=self.U - lr * d_u)


def pairs(lm: TinyLM, corpus: Sequence[str]) -> tuple[Ids, Ids]:
    """(input, next token) for every adjacent pair of words in each line.

    >>> lm = TinyLM.create(("a", "b", "c"), d=2)
    >>> pairs(lm, ["a b c"])
    (array([0, 1]), array([1, 2]))
    """
    xs, ys = [], []
    for line in corpus:
        ids = lm.ids(line)
        xs.append(ids[:-1])
        ys.append(ids[1:])
    return np.concatenate(xs), np.concatenate(ys)


def train(lm: TinyLM, x: Ids, y: Ids, steps: int, lr: float) -> tuple[TinyLM, list[float]]:
    """``steps`` full-batch gradient steps; the loss before each step, and after the last."""
    losses = [lm.loss(x, y)]
    for _ in range(steps):
        lm = lm.step(x, y, lr)
        losses.append(lm.loss(x, y))
    return lm, losses


def lowest_loss(x: Ids, y: Ids) -> float:
    """The smallest loss any model that sees only the current token can reach on these pairs:
    predict each next token with its share among the pairs that start with the same token.

    >>> round(lowest_loss(np.array([0, 0]), np.array([1, 2])), 4)  # a coin flip: ln 2
    0.6931
    """
    loss = 0.0
    for token in np.unique(x):
        _, counts = np.unique(y[x == token], return_counts=True)
        loss -= float((counts * np.log(counts / counts.sum())).sum())
    return loss / len(x)
