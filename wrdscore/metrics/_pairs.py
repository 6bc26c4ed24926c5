"""Shared driver of the embedding metrics that compare two arrays of token vectors.

The family metrics (BERTScore, WMD and its tempered variants, SBERT, CKA) are
functions of the unit token vectors of a pair. Scoring a batch runs them on stacks of
pairs: distinct pairs only, grouped by shape so that every group is one array
computation (:func:`shape_groups`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.metrics._centering import FloatArray, unit_rows
from wrdscore.metrics._result import Scored
from wrdscore.metrics.base import EmbeddingMetric, TokenBatch, Tokens

#: Similarities this close to 1 are one direction computed with rounding error.
ROUNDING = 1e-12


def snap_to_one(values: FloatArray) -> FloatArray:
    """Similarities with the rounding of a name compared with itself taken off.

    A unit vector's dot product with itself, or a normalised similarity of a name with
    itself, rounds to anything from ``1 - 1e-15`` to ``1 + 1e-15``; so that identical
    names score exactly 1, every value within ``ROUNDING`` = 1e-12 of 1 is set to 1.
    Vectors that close are one direction for any purpose: float32 vectors cannot tell
    them apart. Values further from 1 are kept, above 1 too (``trwmd`` exceeds 1 when a
    name repeats near-identical tokens). :func:`snap_one` does the same to one value.

    Examples
    --------
    >>> snap_to_one(np.array([0.9999999999999996, 1.0000000000000002, 0.5, 1.1])).tolist()
    [1.0, 1.0, 0.5, 1.1]
    """
    return np.where(np.abs(values - 1.0) <= ROUNDING, 1.0, values)


def snap_one(value: float) -> float:
    """:func:`snap_to_one` of a single similarity.

    Examples
    --------
    >>> snap_one(1.0000000000000002), snap_one(0.5)
    (1.0, 0.5)
    """
    return 1.0 if abs(value - 1.0) <= ROUNDING else value


@dataclass
class PairBatch:
    """The distinct (reference, prediction) pairs of a batch, with their names' vectors.

    Distinct names and pairs are found by object identity: ``Metric.score`` hands
    equal items over as one shared list, so no tokens are hashed; equal lists that
    are distinct objects are merely scored twice, with the same result.

    Attributes
    ----------
    batch : TokenBatch
        Vectors of the distinct names (of every name under batch centering).
    items : list of token lists
        The distinct names.
    ref_item, pred_item : ndarray of shape (u,)
        The distinct name (index into ``items``) of each distinct pair's two sides.
    ref_start, ref_len, pred_start, pred_len : ndarray of shape (u,)
        Where each distinct pair's vectors lie in ``batch.rows``.
    inverse : ndarray of shape (n,)
        The distinct pair of each pair.
    oov_count : int
        Unseen token occurrences of every pair's names (each copy of a name counted).
    """

    batch: TokenBatch
    items: list[Tokens]
    ref_item: NDArray[np.int64]
    pred_item: NDArray[np.int64]
    ref_start: NDArray[np.int64]
    ref_len: NDArray[np.int64]
    pred_start: NDArray[np.int64]
    pred_len: NDArray[np.int64]
    inverse: NDArray[np.int64]
    oov_count: int = 0


def embed_pairs(metric: EmbeddingMetric, refs: list[Tokens], preds: list[Tokens]) -> PairBatch:
    """Embed the distinct names of a batch and index its distinct pairs (:class:`PairBatch`).

    Names repeat a lot (get, size, toString...), and equal pairs get equal vectors
    whatever the centering (sentence centering depends on the name alone, batch
    centering on the whole batch), so each distinct name is embedded once and each
    distinct pair needs scoring once. Unseen tokens are still counted per occurrence.

    Examples
    --------
    >>> from wrdscore.metrics.base import get_metric
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> metric = get_metric("sbert", embeddings=TokenEmbeddings.from_vectors({"get": [1.0]}))
    >>> a, b = ["get"], ["get", "zz"]
    >>> pairs = embed_pairs(metric, [a, b, a], [b, a, b])
    >>> len(pairs.items), sorted(pairs.ref_len.tolist()), pairs.oov_count
    (2, [1, 2], 3)
    >>> bool(pairs.inverse[0] == pairs.inverse[2] != pairs.inverse[1])
    True
    """
    n = len(refs)
    every = [*refs, *preds]
    _, first_item, item_of = np.unique(
        np.fromiter(map(id, every), dtype=np.int64, count=2 * n),
        return_index=True,
        return_inverse=True,
    )
    items = [every[i] for i in first_item]
    _, first, inverse = np.unique(
        item_of[:n] * len(items) + item_of[n:], return_index=True, return_inverse=True
    )
    # Only batch centering needs every copy of a name (its mean counts them all).
    if metric.centering == "batch":
        batch = metric.embed(every)
        item_pos = first_item
        oov_count = batch.oov_count
    else:
        batch = metric.embed(items)
        item_pos = np.arange(len(items))
        # embed counted each distinct name's unseen tokens once; add the other copies
        # (looking at repeated names only: most names occur once).
        copies = np.bincount(item_of) - 1
        repeated = np.flatnonzero(copies)
        unseen = metric._unseen_counts([items[i] for i in repeated])
        oov_count = batch.oov_count + int(unseen @ copies[repeated])
    ref_item, pred_item = item_of[first], item_of[n + first]
    offsets = batch.offsets
    ref_start, pred_start = offsets[item_pos[ref_item]], offsets[item_pos[pred_item]]
    return PairBatch(
        batch=batch,
        items=items,
        ref_item=ref_item,
        pred_item=pred_item,
        ref_start=ref_start,
        ref_len=offsets[item_pos[ref_item] + 1] - ref_start,
        pred_start=pred_start,
        pred_len=offsets[item_pos[pred_item] + 1] - pred_start,
        inverse=inverse,
        oov_count=oov_count,
    )


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
    """An :class:`~wrdscore.metrics.EmbeddingMetric` defined by a function of two vector arrays.

    The batch's distinct names are embedded together (:func:`embed_pairs`, so batch
    centering sees every token), then :meth:`_score_group` runs on stacks of distinct
    pairs of one shape, each distinct pair once. A pair whose reference
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

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> Scored:
        pairs = embed_pairs(self, refs, preds)
        batch, rows = pairs.batch, pairs.batch.rows
        unit = unit_rows(batch.table)
        nonzero = np.any(batch.table != 0.0, axis=1)
        weights = self._row_weights(batch)
        u = len(pairs.ref_item)
        out = np.zeros((u, len(self.keys)))
        counts = np.bincount(pairs.inverse, minlength=u)
        active = (pairs.ref_len > 0) & (pairs.pred_len > 0)
        degenerate = ~active
        for nr, npred, group in shape_groups(pairs.ref_len, pairs.pred_len, active):
            ri = rows[pairs.ref_start[group, None] + np.arange(nr)]
            pi = rows[pairs.pred_start[group, None] + np.arange(npred)]
            ok = nonzero[ri].any(axis=1) & nonzero[pi].any(axis=1)
            degenerate[group[~ok]] = True
            group, ri, pi = group[ok], ri[ok], pi[ok]
            if len(group):
                wx, wy = (None, None) if weights is None else (weights[ri], weights[pi])
                out[group] = self._score_group(unit[ri], unit[pi], wx, wy)
            self._advance(int(counts[group].sum()))
        self._advance(int(counts[degenerate].sum()))
        values = {k: out[pairs.inverse, j] for j, k in enumerate(self.keys)}
        return batch.scored(values, degenerate[pairs.inverse], pairs.oov_count)


class SimilarityMetric(PairEmbeddingMetric):
    """A metric with one value per pair, ``score``, from :meth:`_similarities` of the vectors."""

    keys = ("score",)
    primary = "score"
    code_key = "score"

    @abstractmethod
    def _similarities(self, x: FloatArray, y: FloatArray) -> FloatArray:
        """Similarities, shape (G,), of stacked unit reference and predicted vectors."""

    def _score_group(
        self, x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None
    ) -> FloatArray:
        return self._similarities(x, y)[:, None]
