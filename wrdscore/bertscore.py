"""BERTScore's greedy matching (Zhang et al. 2020) over static sub-token embeddings."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from wrdscore.centering import FloatArray, cosine_matrix
from wrdscore.overlap import PRF, f_measure


def _weighted_mean(values: FloatArray, weights: FloatArray | None) -> float:
    if weights is None:
        return float(values.mean())
    total = float(np.sum(weights))
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
    sim = cosine_matrix(reference, prediction)
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
