"""Shared driver of the embedding metrics that compare two arrays of token vectors.

The family metrics (BERTScore, WMD and its tempered variants, SBERT, CKA) are
functions of the unit token vectors of a pair. Scoring a batch runs them on stacks of
pairs: distinct pairs only, grouped by shape so that every group is one array
computation (:func:`shape_groups`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from wrdscore.base import EmbeddingMetric, TokenBatch, Tokens
from wrdscore.centering import FloatArray, unit_rows


def distinct_pairs(
    refs: list[Tokens], preds: list[Tokens]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The distinct (reference, prediction) pairs of a batch, found by object identity.

    ``Metric.score`` hands equal items over as one shared list, so identity finds
    them without hashing tokens; equal lists that are distinct objects are merely
    scored twice, with the same result.

    Returns
    -------
    item_of : ndarray of shape (2n,)
        A label per item of ``[*refs, *preds]``, equal for the same object.
    first : ndarray of shape (u,)
        The first pair index of each distinct pair.
    inverse : ndarray of shape (n,)
        The distinct pair of each pair (``first[inverse]`` is an equal pair).

    Examples
    --------
    >>> a, b = ["get"], ["size"]
    >>> item_of, first, inverse = distinct_pairs([a, b, a], [b, a, b])
    >>> first.tolist(), inverse.tolist()
    ([0, 1], [0, 1, 0])
    """
    n = len(refs)
    every = [*refs, *preds]
    _, item_of = np.unique(
        np.fromiter(map(id, every), dtype=np.int64, count=2 * n), return_inverse=True
    )
    _, first, inverse = np.unique(
        item_of[:n] * (int(item_of.max()) + 1) + item_of[n:],
        return_index=True,
        return_inverse=True,
    )
    return item_of, first, inverse


def shape_groups(
    len_r: NDArray[np.int64], len_p: NDArray[np.int64], active: NDArray[np.bool_]
) -> Iterator[tuple[int, int, NDArray[np.intp]]]:
    """``(l, m, indices)`` of the active pairs with ``l`` reference and ``m`` predicted rows.

    Examples
    --------
    >>> groups = shape_groups(np.array([1, 2, 1]), np.array([3, 1, 3]), np.array([1, 1, 0], bool))
    >>> [(l, m, g.tolist()) for l, m, g in groups]
    [(1, 3, [0]), (2, 1, [1])]
    """
    # One integer code per shape: np.unique over integers is far cheaper than over rows.
    width = int(len_p.max(initial=0)) + 1
    code = len_r * width + len_p
    for c in np.unique(code[active]):
        nr, npred = divmod(int(c), width)
        yield nr, npred, np.flatnonzero(active & (code == c))


class PairEmbeddingMetric(EmbeddingMetric):
    """An :class:`~wrdscore.base.EmbeddingMetric` defined by a function of two vector arrays.

    The whole batch is embedded at once (so batch centering sees every token), then
    :meth:`_score_group` runs on stacks of distinct pairs of one shape. Equal pairs
    get equal vectors under every centering (the means depend on the name itself or
    on the whole batch), so each distinct pair is scored once. A pair whose reference
    or prediction has no non-zero vector (every token unseen under ``oov="zero"``,
    dropped under ``oov="drop"``, or centered to zero) scores 0 on every value and is
    counted in ``degenerate_pairs``.
    """

    @abstractmethod
    def _score_group(
        self, x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None
    ) -> FloatArray:
        """Values of ``G`` pairs, shape (G, len(keys)), from their unit token vectors.

        ``x`` is (G, l, dim), ``y`` (G, m, dim); ``wx``/``wy`` are the token weights of
        :meth:`_row_weights`, stacked the same way, or None.
        """

    def _row_weights(self, batch: TokenBatch) -> FloatArray | None:
        """A weight per row of ``batch.table``, or None when the metric uses none."""
        return None

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, NDArray]:
        n = len(refs)
        batch = self.embed([*refs, *preds])
        _, first, inverse = distinct_pairs(refs, preds)
        rows, offsets = batch.rows, batch.offsets
        unit = unit_rows(batch.table)
        nonzero = np.any(batch.table != 0.0, axis=1)
        weights = self._row_weights(batch)
        starts_r, starts_p = offsets[first], offsets[n + first]
        len_r, len_p = offsets[first + 1] - starts_r, offsets[n + first + 1] - starts_p
        u = len(first)
        out = np.zeros((u, len(self.keys)))
        counts = np.bincount(inverse, minlength=u)
        active = (len_r > 0) & (len_p > 0)
        degenerate = ~active
        for nr, npred, group in shape_groups(len_r, len_p, active):
            ri = rows[starts_r[group, None] + np.arange(nr)]
            pi = rows[starts_p[group, None] + np.arange(npred)]
            ok = nonzero[ri].any(axis=1) & nonzero[pi].any(axis=1)
            degenerate[group[~ok]] = True
            group, ri, pi = group[ok], ri[ok], pi[ok]
            if len(group):
                wx, wy = (None, None) if weights is None else (weights[ri], weights[pi])
                out[group] = self._score_group(unit[ri], unit[pi], wx, wy)
            self._advance(int(counts[group].sum()))
        self._degenerate += int(counts[degenerate].sum())
        self._advance(int(counts[degenerate].sum()))
        return {k: out[inverse, j] for j, k in enumerate(self.keys)}


class SimilarityMetric(PairEmbeddingMetric):
    """A metric with one value per pair, ``score``, from :meth:`_similarities` of the vectors."""

    keys = ("score",)
    primary = "score"

    @abstractmethod
    def _similarities(self, x: FloatArray, y: FloatArray) -> FloatArray:
        """Similarities, shape (G,), of stacked unit reference and predicted vectors."""

    def _score_group(
        self, x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None
    ) -> FloatArray:
        return self._similarities(x, y)[:, None]
