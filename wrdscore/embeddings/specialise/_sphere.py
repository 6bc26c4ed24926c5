"""Shared plumbing of the specialisation methods: unit vectors, pair arrays, norms back."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError

PairsLike = NDArray[np.integer] | Iterable[tuple[int, int]]


def unit_rows(w: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Rows scaled to unit length (zero rows stay zero) and the norms, shape (n, 1)."""
    norms = np.linalg.norm(w, axis=1, keepdims=True)
    safe = np.where(norms > 0, norms, 1.0)
    return w / safe, norms


@dataclass(frozen=True)
class Problem:
    """Vectors and constraints as the optimisers use them.

    Attributes
    ----------
    original : ndarray (n, d)
        The input vectors, float64.
    unit : ndarray (n, d)
        Their directions (the optimisers work on the unit sphere, as both papers do).
    norms : ndarray (n, 1)
        The input norms, put back at the end (WRDScore's ``norm`` weights).
    attract, repel : ndarray (k, 2) of int
        Valid pairs: in range, two different rows, no zero vector.
    touched : ndarray (n,) of bool
        Rows in at least one pair.
    """

    original: NDArray[np.float64]
    unit: NDArray[np.float64]
    norms: NDArray[np.float64]
    attract: NDArray[np.int64]
    repel: NDArray[np.int64]
    touched: NDArray[np.bool_]

    def finish(self, w: NDArray[np.float64], moved: NDArray[np.bool_] | None = None):
        """Directions of ``w`` at the original norms; rows that did not move, bit for bit."""
        x, _ = unit_rows(w)
        keep = self.touched if moved is None else moved
        return np.where(keep[:, None], x * self.norms, self.original)


def prepare(vectors: NDArray[np.floating], attract: PairsLike, repel: PairsLike) -> Problem:
    """Check and normalise the inputs of a specialisation method.

    Raises
    ------
    WrdscoreError
        If ``vectors`` is not 2-d or a pair refers to a row outside it.
    """
    original = np.asarray(vectors, dtype=np.float64)
    if original.ndim != 2:
        raise WrdscoreError("vectors must be a 2-d array")
    unit, norms = unit_rows(original)
    zero = norms[:, 0] == 0
    lists = []
    for pairs in (attract, repel):
        arr = np.asarray(pairs if isinstance(pairs, np.ndarray) else list(pairs))
        arr = arr.reshape(-1, 2).astype(np.int64)
        if len(arr) and (arr.min() < 0 or arr.max() >= len(original)):
            raise WrdscoreError("a constraint pair refers to a row outside the vectors")
        # A pair of identical or zero vectors has no direction to move.
        live = (arr[:, 0] != arr[:, 1]) & ~zero[arr].any(axis=1)
        lists.append(arr[live])
    touched = np.zeros(len(original), dtype=bool)
    for arr in lists:
        touched[arr.ravel()] = True
    return Problem(original, unit, norms, lists[0], lists[1], touched)
