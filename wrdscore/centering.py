"""Centering and normalising token vectors before the embedding metrics compare them.

Chen et al. (2020), "Improving Text Generation Evaluation with Batch Centering and
Tempered Word Mover Distance", show that subtracting a mean vector before taking
inner products of unit vectors removes the common direction word embeddings share
(so unrelated words stop looking similar). The modes, applied to every token vector
``x`` of a pair before it is scaled to unit length:

* ``"none"``: ``x``;
* ``"dimension"``: ``x - mean_k(x_k)``, the mean of the vector's own dimensions;
* ``"sentence"``: ``x - mean(X)``, the mean of the token vectors of its own name;
* ``"corpus"``: ``x - mu``, the embedding model's vocabulary mean weighted by token
  frequency (:meth:`~wrdscore.embeddings.TokenEmbeddings.mean_vector`);
* ``"batch"``: ``x - mean(B)``, the mean of every token vector of every reference and
  prediction in the batch being scored; a score then depends on its batch, which
  the metric's signature records.

An all-zero row is an unseen token under ``oov="zero"``: it carries no information,
so centering leaves it zero and the means above are taken over non-zero rows only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError

CENTERING_MODES = ("none", "dimension", "sentence", "corpus", "batch")

FloatArray = NDArray[np.float64]


def _known(x: FloatArray) -> NDArray[np.bool_]:
    return np.any(x != 0.0, axis=1)


def unit_rows(x: FloatArray) -> FloatArray:
    """Scale every row to unit Euclidean length; zero rows stay zero.

    .. math:: \\hat x_i = x_i / \\lVert x_i \\rVert_2 \\quad (x_i \\ne 0)

    Examples
    --------
    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def cosine_matrix(x: FloatArray, y: FloatArray) -> FloatArray:
    """Cosine of every row of ``x`` with every row of ``y``; 0 where a row is zero.

    .. math:: S_{ij} = \\frac{\\langle x_i, y_j \\rangle}{\\lVert x_i \\rVert \\lVert y_j \\rVert}

    Examples
    --------
    >>> cosine_matrix(np.array([[1.0, 0.0]]), np.array([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 0.0]]
    """
    return unit_rows(x) @ unit_rows(y).T


def batch_mean(sets: Sequence[FloatArray]) -> FloatArray | None:
    """Mean of the non-zero rows of all ``sets`` (the batch-centering vector).

    Returns ``None`` when the batch has no non-zero row.

    Examples
    --------
    >>> batch_mean([np.array([[1.0, 0.0]]), np.array([[0.0, 3.0], [0.0, 0.0]])]).tolist()
    [0.5, 1.5]
    """
    total, count = None, 0
    for x in sets:
        rows = x[_known(x)]
        if len(rows):
            s = rows.sum(axis=0)
            total = s if total is None else total + s
            count += len(rows)
    return None if total is None else total / count


def center(x: FloatArray, mode: str, mean: FloatArray | None = None) -> FloatArray:
    """Center the token vectors of one name (see the module docstring for the modes).

    Parameters
    ----------
    x : ndarray of shape (k, dim)
        Token vectors of one name; all-zero rows (unseen tokens) stay zero.
    mode : {"none", "dimension", "sentence", "corpus", "batch"}
        Centering mode.
    mean : ndarray of shape (dim,), optional
        The vector to subtract for ``"corpus"`` and ``"batch"`` (the vocabulary mean,
        or :func:`batch_mean` of the batch); required by those modes.

    Returns
    -------
    ndarray of shape (k, dim), float64
        A new array; ``x`` is not modified.

    Examples
    --------
    >>> x = np.array([[1.0, 3.0], [3.0, 5.0], [0.0, 0.0]])
    >>> center(x, "sentence").tolist()
    [[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]]
    >>> center(x, "dimension").tolist()
    [[-1.0, 1.0], [-1.0, 1.0], [0.0, 0.0]]
    """
    if mode not in CENTERING_MODES:
        raise WrdscoreError(
            f"unknown centering {mode!r}; choose one of {', '.join(CENTERING_MODES)}"
        )
    x = np.array(x, dtype=np.float64)
    if mode == "none" or len(x) == 0:
        return x
    known = _known(x)
    if mode == "dimension":
        x -= x.mean(axis=1, keepdims=True)
        return x
    if mode == "sentence":
        if known.any():
            x[known] -= x[known].mean(axis=0)
        return x
    if mean is None:
        raise WrdscoreError(f"centering {mode!r} needs a mean vector")
    x[known] -= np.asarray(mean, dtype=np.float64)
    return x
