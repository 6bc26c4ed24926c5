"""Is system A better than system B? A paired bootstrap over the scored pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wrdscore.errors import WrdscoreError

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
#: The intervals' confidence unless asked otherwise (``compare``'s).
DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class BootstrapComparison:
    """Result of :func:`paired_bootstrap`.

    Attributes
    ----------
    mean_a, mean_b : float
        Mean per-pair score of each system.
    difference : float
        ``mean_a - mean_b``.
    ci_low, ci_high : float
        Percentile confidence interval of the difference.
    p_value : float
        Two-sided bootstrap p-value of "no difference".
    resamples, seed : int
        The bootstrap settings (in :attr:`signature` too).
    confidence : float
        Confidence level of the interval.
    """

    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    resamples: int
    seed: int
    confidence: float

    @property
    def signature(self) -> str:
        """``bootstrap|n:1000|seed:12345|ci:95%|paired:yes``."""
        return f"bootstrap|n:{self.resamples}|seed:{self.seed}|ci:{self.confidence:.0%}|paired:yes"


def _mean_difference(a: NDArray, b: NDArray, axis: int = -1) -> NDArray:
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def min_resamples(confidence: float) -> int:
    """The fewest bootstrap resamples a percentile interval of level ``confidence`` needs.

    Each end of the interval must be a resample: ``B (1 - confidence) / 2 >= 1``, so
    ``B >= 2 / (1 - confidence)`` (40 for 95%). Fewer is not a bootstrap: one resample
    gives an "interval" of one value, of zero width, that need not contain the estimate.

    Examples
    --------
    >>> min_resamples(0.95), min_resamples(0.9), min_resamples(0.99)
    (40, 20, 200)
    """
    if not 0 < confidence < 1:
        raise WrdscoreError("confidence must be between 0 and 1")
    return math.ceil(2 / (1 - confidence) - 1e-9)


def check_resamples(resamples: int, confidence: float, what: str = "resamples") -> None:
    """Refuse fewer than :func:`min_resamples` resamples with a one-line error.

    Examples
    --------
    >>> check_resamples(1, 0.95, "bootstraps")
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: bootstraps must be at least 40 for a 95% interval, got 1
    """
    least = min_resamples(confidence)
    if resamples < least:
        raise WrdscoreError(
            f"{what} must be at least {least} for a {confidence:.0%} interval, got {resamples}"
        )


def paired_bootstrap(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> BootstrapComparison:
    """Paired bootstrap of the difference of mean scores of two systems on the same pairs.

    Each of ``resamples`` resamples draws ``n`` pair indices with replacement (the
    same indices for both systems, so per-pair difficulty cancels) and computes
    :math:`d^*_b = \\bar a^*_b - \\bar b^*_b` (scipy's :func:`scipy.stats.bootstrap`,
    ``paired=True``). The interval is the percentile interval of the :math:`d^*_b`.
    The p-value tests :math:`d = 0` by shifting the bootstrap distribution to the
    null (Efron & Tibshirani 1993, sec. 16.4):

    .. math::
        p = \\frac{1 + \\#\\{b : |d^*_b - d| \\ge |d|\\}}{1 + B}

    so it is never 0 and it shrinks as the observed difference ``d`` stands out from
    its own resampling spread.

    Parameters
    ----------
    scores_a, scores_b : array_like of shape (n,)
        Per-pair scores of systems A and B on the same references, same order.
    resamples : int
        Number of bootstrap resamples ``B``; at least ``2 / (1 - confidence)`` (40 for
        a 95% interval), so that each end of the interval is one of the resamples.
    seed : int
        Seed of the resampling, so a comparison is reproducible.
    confidence : float
        Level of the confidence interval.

    Raises
    ------
    WrdscoreError
        Different lengths, fewer than 2 pairs, non-finite scores, bad settings.

    Examples
    --------
    >>> a = np.array([0.9, 0.8, 0.7, 0.9, 0.6, 0.8])
    >>> res = paired_bootstrap(a, a - 0.1)
    >>> round(res.difference, 6), round(res.ci_low, 6), round(res.ci_high, 6), res.p_value
    (0.1, 0.1, 0.1, 0.000999000999000999)
    """
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise WrdscoreError(
            f"paired scores need the same number of pairs, got {a.size} and {b.size}"
        )
    if a.size < 2:
        raise WrdscoreError("a bootstrap needs at least 2 pairs")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise WrdscoreError("scores must be finite numbers")
    check_resamples(resamples, confidence)  # and the confidence level
    from scipy.stats import bootstrap  # 0.3 s to import: only when a comparison runs

    res = bootstrap(
        (a, b),
        _mean_difference,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    d = float(_mean_difference(a, b))
    dist = res.bootstrap_distribution
    # Resampling a constant difference gives d exactly up to summation order; the
    # tolerance keeps that float noise from counting as "as extreme as d".
    extreme = np.abs(dist - d) >= np.abs(d) - 1e-12
    p = (1 + int(np.count_nonzero(extreme))) / (1 + resamples)
    # Percentiles of a distribution whose values differ only by float noise can come
    # out one ulp in the wrong order (0.8896765160354214 > ...213 for two identical
    # pairs); an interval's ends are put back in order.
    low, high = sorted((float(res.confidence_interval.low), float(res.confidence_interval.high)))
    return BootstrapComparison(
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        difference=d,
        ci_low=low,
        ci_high=high,
        p_value=min(p, 1.0),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )
