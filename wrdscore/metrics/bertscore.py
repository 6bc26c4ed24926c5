"""BERTScore's greedy matching (Zhang et al. 2020) over static sub-token embeddings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.metrics._centering import FloatArray, cosine_matrix
from wrdscore.metrics._pairs import PairEmbeddingMetric, snap_to_one
from wrdscore.metrics.base import TokenBatch, check_flag, register
from wrdscore.metrics.overlap import PRF, f_measure
from wrdscore.metrics.wrd import f1_score


def _weighted_mean(values: FloatArray, weights: FloatArray | None) -> float:
    if weights is None:
        return float(values.mean())
    # The total is the same dot product with ones, so that all values 1 give exactly 1.
    total = float(np.ones_like(values) @ weights)
    return float(values @ weights / total) if total > 0 else 0.0


def bertscore(
    reference: FloatArray,
    prediction: FloatArray,
    reference_weights: ArrayLike | None = None,
    prediction_weights: ArrayLike | None = None,
    clip: bool = True,
) -> PRF:
    """Greedy max-cosine matching of reference and predicted token vectors.

    Every predicted token is matched to its most similar reference token (precision),
    every reference token to its most similar predicted token (recall):

    .. math::

        P = \\frac{\\sum_j w^p_j \\max_i \\cos(r_i, p_j)}{\\sum_j w^p_j}, \\quad
        R = \\frac{\\sum_i w^r_i \\max_j \\cos(r_i, p_j)}{\\sum_i w^r_i}, \\quad
        F = \\frac{2PR}{P + R}

    with uniform weights by default or IDF weights (BERTScore's importance
    weighting). Cosines can be negative; like WRDScore, each maximum is clipped at 0
    by default so scores lie in [0, 1] (``clip=False`` keeps them, P and R then lie
    in [-1, 1] and F is 0 when ``P + R <= 0``). A zero vector (unseen token) has
    cosine 0 with everything; an empty side scores 0.

    Parameters
    ----------
    reference, prediction : ndarray of shape (l, dim) and (m, dim)
        Token vectors (already centered if centering is wanted).
    reference_weights, prediction_weights : array_like, optional
        Non-negative weight per token, e.g. IDF.
    clip : bool
        Clip each best cosine at 0.

    Returns
    -------
    (precision, recall, f1) : tuple of float

    Examples
    --------
    >>> r = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> p = np.array([[1.0, 0.0]])
    >>> bertscore(r, p)
    (1.0, 0.5, 0.6666666666666666)
    """
    if len(reference) == 0 or len(prediction) == 0:
        return 0.0, 0.0, 0.0
    sim = snap_to_one(cosine_matrix(reference, prediction))
    best_for_pred = sim.max(axis=0)
    best_for_ref = sim.max(axis=1)
    if clip:
        best_for_pred = np.maximum(best_for_pred, 0.0)
        best_for_ref = np.maximum(best_for_ref, 0.0)
    wp = None if prediction_weights is None else np.asarray(prediction_weights, dtype=np.float64)
    wr = None if reference_weights is None else np.asarray(reference_weights, dtype=np.float64)
    p = _weighted_mean(best_for_pred, wp)
    r = _weighted_mean(best_for_ref, wr)
    return p, r, f_measure(p, r)


def _weighted_mean_many(values: FloatArray, weights: FloatArray | None) -> FloatArray:
    if weights is None:
        return values.mean(axis=1)
    dot = np.einsum("gi,gi->g", values, weights)
    # The total is the same product with ones, so that all values 1 give exactly 1.
    total = np.einsum("gi,gi->g", np.ones_like(values), weights)
    return np.divide(dot, total, out=np.zeros_like(dot), where=total > 0)


def _bertscore_many(
    x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None, clip: bool
) -> FloatArray:
    """:func:`bertscore` of stacks of unit token vectors; (G, 3) of P, R, F1."""
    sim = snap_to_one(np.matmul(x, y.transpose(0, 2, 1)))
    best_for_pred, best_for_ref = sim.max(axis=1), sim.max(axis=2)
    if clip:
        best_for_pred = np.maximum(best_for_pred, 0.0)
        best_for_ref = np.maximum(best_for_ref, 0.0)
    p = _weighted_mean_many(best_for_pred, wy)
    r = _weighted_mean_many(best_for_ref, wx)
    return np.stack([p, r, f1_score(p, r)], axis=1)


@register
class BERTScore(PairEmbeddingMetric):
    """BERTScore precision, recall and F1 on sub-token embeddings (:func:`bertscore`).

    Parameters
    ----------
    embeddings, oov, centering
        As for every embedding metric (:class:`~wrdscore.metrics.base.EmbeddingMetric`).
    idf : bool
        Weight tokens by the model's IDF (:meth:`TokenEmbeddings.idf`); needs a model
        with document frequencies.
    clip : bool
        Clip each best cosine at 0 so scores lie in [0, 1].

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> BERTScore(emb).score(["size"], ["count"]).f1.round(6).tolist()
    [0.8]
    """

    name = "bertscore"
    code_key = "precision"

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        idf: bool = False,
        clip: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(embeddings, **options)
        check_flag("idf", idf)
        check_flag("clip", clip)
        if idf and not self.embeddings.has_df:
            # Fail before scoring anything, with the embeddings' own explanation.
            self.embeddings.idf([])
        self.idf = idf
        self.clip = clip

    def _uses_idf(self) -> bool:
        return self.idf

    def _signature_fields(self) -> dict[str, str]:
        return {
            **super()._signature_fields(),
            "idf": "yes" if self.idf else "no",
            "clip": "yes" if self.clip else "no",
        }

    def _row_weights(self, batch: TokenBatch) -> FloatArray | None:
        # IDF is a function of the token alone, so it is looked up once per table row;
        # tokens dropped under oov="drop" have no row, so they get no weight either.
        return self.embeddings.idf(batch.tokens) if self.idf else None

    def _score_group(
        self, x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None
    ) -> FloatArray:
        return _bertscore_many(x, y, wx, wy, self.clip)
