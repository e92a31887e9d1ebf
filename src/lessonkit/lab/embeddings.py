"""Token embeddings: the rows of a learned table, and how alike two of them are.

A model turns each token id into a vector by looking up one row of its **embedding table**, a
``(vocab_size, d_model)`` array learned in training. Here the table is the real one of
all-MiniLM-L6-v2 (:mod:`lessonkit.lab.model`), with its ``(max_positions, d_model)`` table of
position vectors beside it.

>>> embedding_table().shape, position_table().shape  # (vocab_size, d_model), (positions, d_model)
((30522, 384), (512, 384))
>>> row = embedding_table()[token_id("river")]  # the lookup: one row, chosen by the id
>>> row.shape
(384,)
>>> [(piece, round(s, 2)) for piece, s in nearest("king", 3)]
[('kings', 0.69), ('queen', 0.63), ('monarch', 0.49)]
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

from lessonkit.lab.model import tokenizer, weights

__all__ = [
    "Projection",
    "cosine_matrix",
    "embedding_table",
    "is_special",
    "mean_cosine_at_distance",
    "nearest",
    "nearest_other",
    "pca",
    "position_table",
    "token_id",
    "vocabulary",
]

Array = NDArray[np.float64]


def embedding_table() -> Array:
    """The model's token embedding table, ``(vocab_size, d_model)``: row ``i`` is token id ``i``.

    Read-only, shared with the model: the very numbers the encoder starts from.
    """
    return weights()["embeddings.word_embeddings.weight"]


def position_table() -> Array:
    """The model's learned position vectors, ``(max_positions, d_model)``: row ``p`` is added to
    the token at position ``p`` (0 is ``[CLS]``)."""
    return weights()["embeddings.position_embeddings.weight"]


@functools.cache
def vocabulary() -> tuple[str, ...]:
    """Every word piece, in id order: ``vocabulary()[i]`` is the piece whose row is ``i``.

    >>> vocabulary()[101], vocabulary()[2314]
    ('[CLS]', 'river')
    """
    by_id = {i: piece for piece, i in tokenizer().get_vocab().items()}
    return tuple(by_id[i] for i in range(len(by_id)))


def token_id(piece: str) -> int:
    """The id of one word piece of the vocabulary (lower case, ``##`` for a word's later pieces).

    >>> token_id("river"), token_id("##bank")
    (2314, 9299)
    """
    found = tokenizer().token_to_id(piece)
    if found is None:
        raise ValueError(
            f"{piece!r} is not one piece of the model's vocabulary: write it in lower case, or "
            "split it first with lessonkit.lab.model.tokenize"
        )
    return found


def is_special(piece: str) -> bool:
    """Whether a piece is a special token such as ``[CLS]``, ``[PAD]`` or ``[unused7]``.

    >>> is_special("[CLS]"), is_special("[unused7]"), is_special("##bank")
    (True, True, False)
    """
    return piece.startswith("[") and piece.endswith("]")


def cosine_matrix(a: ArrayLike, b: ArrayLike | None = None) -> Array:
    """Cosine similarity of every row of ``a`` with every row of ``b`` (``a`` itself if omitted).

    Each row is divided by its length first, so only directions count: 1 is the same direction,
    0 perpendicular, -1 opposite.

    >>> cosine_matrix([[1.0, 0.0], [3.0, 3.0], [-2.0, 0.0]]).round(3)
    array([[ 1.   ,  0.707, -1.   ],
           [ 0.707,  1.   , -0.707],
           [-1.   , -0.707,  1.   ]])
    """
    a = _unit(np.atleast_2d(np.asarray(a, dtype=np.float64)))
    b = a if b is None else _unit(np.atleast_2d(np.asarray(b, dtype=np.float64)))
    with threadpool_limits(limits=1, user_api="blas"):  # the same sums in the same order
        return np.clip(a @ b.T, -1.0, 1.0)


def _unit(rows: Array) -> Array:
    lengths = np.linalg.norm(rows, axis=-1, keepdims=True)
    if np.any(lengths == 0):
        raise ValueError("a vector of zeros has no direction: its cosine is undefined")
    return rows / lengths


@functools.cache
def _unit_table() -> Array:
    """The embedding table with every row scaled to length 1, computed once."""
    unit = _unit(embedding_table())
    unit.flags.writeable = False
    return unit


def nearest(piece: str, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` pieces whose rows point most nearly the way ``piece``'s row does, with cosines.

    The piece itself and special tokens are left out; ties keep id order.

    >>> [(p, round(s, 2)) for p, s in nearest("river", 3)]
    [('rivers', 0.74), ('creek', 0.49), ('waterways', 0.47)]
    """
    if k < 1:
        raise ValueError(f"nearest needs k >= 1, got {k}")
    i = token_id(piece)
    with threadpool_limits(limits=1, user_api="blas"):
        sims = _unit_table() @ _unit_table()[i]  # (vocab_size,)
    found = []
    for j in np.argsort(-sims, kind="stable"):
        other = vocabulary()[j]
        if j != i and not is_special(other):
            found.append((other, float(sims[j])))
            if len(found) == k:
                break
    return found


def nearest_other(vectors: ArrayLike) -> list[int]:
    """For each row of ``vectors``, the index of the most similar *other* row (by cosine).

    >>> nearest_other([[1.0, 0.1], [1.0, 0.0], [0.0, 1.0]])
    [1, 0, 0]
    """
    sims = cosine_matrix(vectors)
    if len(sims) < 2:
        raise ValueError("nearest_other needs at least two vectors")
    np.fill_diagonal(sims, -np.inf)
    return [int(j) for j in np.argmax(sims, axis=1)]


def mean_cosine_at_distance(table: ArrayLike, distance: int) -> float:
    """The mean cosine of rows ``p`` and ``p + distance``, over every ``p`` the table has.

    For a position table: how alike the vectors of two positions ``distance`` apart are.

    >>> round(mean_cosine_at_distance([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], 1), 3)
    0.707
    """
    rows = np.asarray(table, dtype=np.float64)
    if not 0 < distance < len(rows):
        raise ValueError(f"distance must be between 1 and {len(rows) - 1}, got {distance}")
    unit = _unit(rows)
    return float(np.mean(np.sum(unit[:-distance] * unit[distance:], axis=1)))


@dataclass(frozen=True)
class Projection:
    """Vectors seen from ``n`` directions (principal components): what a flat picture can show."""

    points: Array  # (vectors, n): each vector's coordinate along each direction
    explained: Array  # (n,): the share of the vectors' total spread each direction keeps


def pca(vectors: ArrayLike, n: int = 2) -> Projection:
    """Project ``vectors`` onto the ``n`` directions along which they spread the most.

    Centre them, take the singular value decomposition, keep the first ``n`` directions. Each
    direction's sign is fixed (its largest coordinate is positive), so the picture is the same
    on every machine.

    >>> p = pca([[0.0, 0.0], [1.0, 0.1], [5.0, -0.1]], n=1)  # spread almost only along x
    >>> p.points.round(2).ravel().tolist(), round(float(p.explained[0]), 3)
    ([-2.0, -1.0, 3.0], 0.999)
    """
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or not 0 < n <= min(x.shape):
        raise ValueError(f"pca needs a 2-D array with at least {n} rows and columns")
    centred = x - x.mean(axis=0)
    _, s, directions = np.linalg.svd(centred, full_matrices=False)
    if not np.sum(s**2) > 0:
        raise ValueError("pca needs vectors that differ: these are all the same")
    points = centred @ directions[:n].T  # (vectors, n)
    signs = np.sign(points[np.argmax(np.abs(points), axis=0), np.arange(n)])
    explained = s[:n] ** 2 / np.sum(s**2)
    return Projection(points * np.where(signs == 0, 1.0, signs), explained)
