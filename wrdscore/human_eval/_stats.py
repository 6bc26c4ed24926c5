"""Statistics of agreement between a metric and human scores.

Everything here works on plain arrays: ``metric`` and ``human`` hold one score per pair
on the same 0-1 scale, ``indices`` holds the bootstrap resamples (one row per resample).
All metrics of a study are resampled with the *same* indices, so their bootstrap samples
are paired and comparable.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from wrdscore.errors import WrdscoreError

CORRELATIONS = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


@dataclass(frozen=True)
class Interval:
    """A bootstrap estimate: the mean over resamples and a percentile interval.

    ``point`` is the same statistic on the full data, without resampling.
    """

    point: float
    mean: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        """Plain-dict form for JSON."""
        return asdict(self)


@dataclass(frozen=True)
class Correlation:
    """A correlation on the full data, its p-value and a bootstrap percentile interval.

    Any field is ``None`` where the statistic is undefined (a constant input); ``n_defined``
    counts the resamples where it was defined, which the interval is taken over.
    """

    value: float | None
    p_value: float | None
    low: float | None
    high: float | None
    n_defined: int

    def as_dict(self) -> dict[str, float | int | None]:
        """Plain-dict form for JSON."""
        return asdict(self)


@dataclass(frozen=True)
class Comparison:
    """Is a metric closer to people than a baseline, in one error measure?

    ``improvement_pct`` is the relative improvement of the bootstrap means;
    ``p_bootstrap`` is the paper's two-sample (Welch) t-test on the two metrics' bootstrap
    errors; ``p_paired_t`` and ``p_wilcoxon`` test the per-pair errors, which are paired
    because both metrics score the same pairs. A p-value is ``None`` where the test is
    undefined: identical errors, and for the paired t-test also errors that differ by the
    same amount on every pair (Welch's test: two constant bootstrap samples); "the same"
    means up to float noise, a spread of 1e-12 of the values.
    """

    improvement_pct: float
    p_bootstrap: float | None
    p_paired_t: float | None
    p_wilcoxon: float | None

    def as_dict(self) -> dict[str, float | None]:
        """Plain-dict form for JSON."""
        return asdict(self)


def _as_scores(values: ArrayLike, name: str) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise WrdscoreError(f"{name} must be one score per pair, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise WrdscoreError(f"{name} contains NaN or infinite scores")
    return array


def _pair(metric: ArrayLike, human: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    m, h = _as_scores(metric, "metric scores"), _as_scores(human, "human scores")
    if m.shape != h.shape:
        raise WrdscoreError(f"{m.size} metric scores but {h.size} human scores")
    return m, h


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def check_seed(seed: object) -> int:
    """``seed`` as a seed of :func:`numpy.random.default_rng`, or an error saying why not.

    numpy refuses negative seeds with a ``ValueError``; checking first gives the user a
    one-line error before any scoring or drawing.

    Examples
    --------
    >>> check_seed(3)
    3
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: the seed must be a whole number >= 0, not -1
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise WrdscoreError(f"the seed must be a whole number >= 0, not {seed!r}")
    return int(seed)


def bootstrap_indices(n_pairs: int, resamples: int, seed: int) -> NDArray[np.intp]:
    """Resamples of ``n_pairs`` pairs with replacement, one row per resample.

    Parameters
    ----------
    n_pairs : int
        Number of pairs (at least 2).
    resamples : int
        Number of resamples B (at least 1).
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same resamples.

    Returns
    -------
    ndarray of int, shape (resamples, n_pairs)

    Examples
    --------
    >>> bootstrap_indices(4, 2, seed=0).shape
    (2, 4)
    """
    if n_pairs < 2:
        raise WrdscoreError(f"need at least 2 rated pairs for statistics, got {n_pairs}")
    if resamples < 1:
        raise WrdscoreError(f"the number of resamples must be at least 1, got {resamples}")
    size = (resamples, n_pairs)
    return np.random.default_rng(check_seed(seed)).integers(0, n_pairs, size=size)


def percentile_interval(samples: ArrayLike, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap samples.

    The interval is ``[q_{(1-level)/2}, q_{(1+level)/2}]`` of the samples (numpy's linear
    interpolation between order statistics).

    Examples
    --------
    >>> percentile_interval([0.0, 1.0, 2.0, 3.0, 4.0], level=0.5)
    (1.0, 3.0)
    """
    if not 0.0 < level < 1.0:
        raise WrdscoreError(f"the interval level must be between 0 and 1, got {level}")
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(np.asarray(samples, dtype=np.float64), [tail, 100.0 - tail])
    return float(low), float(high)


def error_samples(
    metric: ArrayLike, human: ArrayLike, indices: NDArray[np.intp]
) -> dict[str, NDArray[np.float64]]:
    """Bootstrap samples of the mean squared and mean absolute error.

    For resample ``b`` with pair indices ``I_b``:
    ``MSE_b = mean_i (m[I_bi] - h[I_bi])^2`` and ``MAE_b = mean_i |m[I_bi] - h[I_bi]|``.

    Examples
    --------
    >>> s = error_samples([1.0, 0.0], [0.5, 0.0], np.array([[0, 0], [1, 1]]))
    >>> s["mse"].tolist(), s["mae"].tolist()
    ([0.25, 0.0], [0.5, 0.0])
    """
    m, h = _pair(metric, human)
    error = (m - h)[indices]
    return {"mse": np.mean(error**2, axis=1), "mae": np.mean(np.abs(error), axis=1)}


def error_intervals(
    metric: ArrayLike, human: ArrayLike, indices: NDArray[np.intp], level: float = 0.95
) -> dict[str, Interval]:
    """MSE and MAE: on the full data, as the bootstrap mean, and its percentile interval.

    Examples
    --------
    >>> idx = bootstrap_indices(3, 50, seed=0)
    >>> est = error_intervals([1.0, 0.5, 0.0], [1.0, 0.0, 0.0], idx)
    >>> round(est["mae"].point, 4)
    0.1667
    """
    m, h = _pair(metric, human)
    full = {"mse": float(np.mean((m - h) ** 2)), "mae": float(np.mean(np.abs(m - h)))}
    out = {}
    for measure, samples in error_samples(m, h, indices).items():
        low, high = percentile_interval(samples, level)
        out[measure] = Interval(full[measure], float(samples.mean()), low, high)
    return out


def _correlation(kind: str, x: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float]:
    # A constant input has no correlation; scipy would warn and return NaN.
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan
    result = CORRELATIONS[kind](x, y)
    return float(result.statistic), float(result.pvalue)


def correlation_intervals(
    metric: ArrayLike, human: ArrayLike, indices: NDArray[np.intp], level: float = 0.95
) -> dict[str, Correlation]:
    """Pearson, Spearman and Kendall (tau-b) correlations with bootstrap intervals.

    The value and p-value come from :mod:`scipy.stats` on the full data; the interval is
    the percentile interval over the resamples where the correlation is defined.

    Examples
    --------
    >>> idx = bootstrap_indices(4, 20, seed=0)
    >>> c = correlation_intervals([0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.6, 1.0], idx)
    >>> c["spearman"].value
    1.0
    """
    m, h = _pair(metric, human)
    out = {}
    for kind in CORRELATIONS:
        value, p_value = _correlation(kind, m, h)
        samples = np.array([_correlation(kind, m[row], h[row])[0] for row in indices])
        defined = samples[np.isfinite(samples)]
        low, high = percentile_interval(defined, level) if defined.size else (math.nan, math.nan)
        out[kind] = Correlation(
            _finite_or_none(value),
            _finite_or_none(p_value),
            _finite_or_none(low),
            _finite_or_none(high),
            int(defined.size),
        )
    return out


def relative_improvement(baseline: float, value: float) -> float:
    """Relative improvement of an error over a baseline error, in percent.

    ``100 * (baseline - value) / baseline``: positive when ``value`` is the smaller error.

    Examples
    --------
    >>> round(relative_improvement(0.0817, 0.0678), 2)
    17.01
    """
    if baseline <= 0:
        raise WrdscoreError("the baseline error is 0: a relative improvement is undefined")
    return 100.0 * (baseline - value) / baseline


def compare_errors(
    metric: ArrayLike, baseline: ArrayLike, human: ArrayLike, indices: NDArray[np.intp]
) -> dict[str, Comparison]:
    """Test whether ``metric`` is closer to the human scores than ``baseline``, per measure.

    For MSE the per-pair errors are ``(m_i - h_i)^2``, for MAE ``|m_i - h_i|``. Three
    p-values (two-sided): Welch's t-test on the B bootstrap errors of each metric (the
    paper's test), the paired t-test and the Wilcoxon signed-rank test on the per-pair
    errors.

    Examples
    --------
    >>> idx = bootstrap_indices(4, 30, seed=1)
    >>> c = compare_errors([0.9, 0.1, 0.5, 0.6], [1.0, 0.0, 0.0, 1.0], [0.8, 0.2, 0.5, 0.5], idx)
    >>> c["mae"].improvement_pct > 0
    True
    """
    m, h = _pair(metric, human)
    b, _ = _pair(baseline, human)
    m_boot, b_boot = error_samples(m, h, indices), error_samples(b, h, indices)
    per_pair = {
        "mse": ((m - h) ** 2, (b - h) ** 2),
        "mae": (np.abs(m - h), np.abs(b - h)),
    }
    out = {}
    for measure, (m_err, b_err) in per_pair.items():
        out[measure] = Comparison(
            relative_improvement(float(b_boot[measure].mean()), float(m_boot[measure].mean())),
            _welch_p(m_boot[measure], b_boot[measure]),
            *_paired_p(m_err, b_err),
        )
    return out


# Errors are a few float operations on scores of the 0-1 scale, so two errors that are equal
# in exact arithmetic differ by a few units in the last place (about 1e-16 of their size).
# A spread of at most 1e-12 of the values' size (at least 1) is that noise, four orders of
# magnitude above it and far below any difference between scores or ratings that means
# something. It is also above scipy's own "nearly identical" test (a spread under 10 machine
# epsilons of the mean, where its moments warn of precision loss), so every sample passed on
# to scipy has a real spread and no warning can reach the user.
_FLOAT_NOISE = 1e-12


def _scale(*arrays: NDArray[np.float64]) -> float:
    """The size float noise is relative to: the largest magnitude, at least 1."""
    return max(1.0, *(float(np.abs(a).max()) for a in arrays))


def _constant(values: NDArray[np.float64]) -> bool:
    """Whether ``values`` are all equal, up to float noise (see ``_FLOAT_NOISE``)."""
    return bool(np.ptp(values) <= _FLOAT_NOISE * _scale(values))


def _identical(a: NDArray[np.float64], b: NDArray[np.float64]) -> bool:
    """Whether ``a`` and ``b`` are equal element by element, up to float noise."""
    return bool(np.abs(a - b).max() <= _FLOAT_NOISE * _scale(a, b))


def _welch_p(a: NDArray[np.float64], b: NDArray[np.float64]) -> float | None:
    """Welch's two-sided t-test p-value; ``None`` for identical or two constant samples."""
    a_constant, b_constant = _constant(a), _constant(b)
    if _identical(a, b) or (a_constant and b_constant):
        return None
    # With one sample constant Welch's t is the one-sample t of the other against that
    # constant (its variance term is 0 and the Welch-Satterthwaite df is n - 1); testing
    # it so keeps scipy from estimating a variance of pure float noise.
    if a_constant:
        return _finite_or_none(float(stats.ttest_1samp(b, float(a.mean())).pvalue))
    if b_constant:
        return _finite_or_none(float(stats.ttest_1samp(a, float(b.mean())).pvalue))
    return _finite_or_none(float(stats.ttest_ind(a, b, equal_var=False).pvalue))


def _paired_p(
    m_err: NDArray[np.float64], b_err: NDArray[np.float64]
) -> tuple[float | None, float | None]:
    """Paired t-test and Wilcoxon signed-rank p-values of two metrics' per-pair errors.

    Both are ``None`` where the errors are identical (up to float noise); the t-test is
    also ``None`` where every pair's difference is the same (it divides by their spread,
    0), while Wilcoxon's test is defined there (all differences of one sign).
    """
    if _identical(m_err, b_err):
        return None, None
    diff = m_err - b_err
    if _constant(diff):
        # Rank the differences as the exact ties they are, not by their float noise.
        tied = np.full_like(diff, diff.mean())
        return None, _finite_or_none(float(stats.wilcoxon(tied).pvalue))
    return (
        _finite_or_none(float(stats.ttest_rel(m_err, b_err).pvalue)),
        _finite_or_none(float(stats.wilcoxon(m_err, b_err).pvalue)),
    )


def _ratings_matrix(ratings: ArrayLike) -> NDArray[np.float64]:
    data = np.asarray(ratings, dtype=np.float64)
    if data.ndim != 2:
        raise WrdscoreError(f"ratings must be raters x units, got shape {data.shape}")
    return data


def krippendorff_alpha_interval(ratings: ArrayLike) -> float | None:
    """Krippendorff's alpha with the interval (squared difference) metric.

    ``alpha = 1 - D_o / D_e`` over the units rated at least twice, with ``n`` their
    values in all: ``D_o = (1/n) sum_u sum_{i != j} (v_ui - v_uj)^2 / (m_u - 1)`` (``m_u``
    ratings of unit ``u``) and ``D_e = sum_{i != j} (v_i - v_j)^2 / (n (n - 1))`` over
    all pairs of those values.

    Parameters
    ----------
    ratings : array_like, shape (n_raters, n_units)
        NaN where a rater did not rate a unit.

    Returns
    -------
    float or None
        ``None`` where alpha is undefined: fewer than two ratings of any unit, or every
        value the same.

    Examples
    --------
    >>> krippendorff_alpha_interval([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    1.0
    """
    data = _ratings_matrix(ratings)
    present = np.isfinite(data)
    counts = present.sum(axis=0)
    pairable = counts >= 2
    if not pairable.any():
        return None
    values = np.where(present, data, 0.0)[:, pairable]
    m_u = counts[pairable].astype(np.float64)
    # sum_{i != j} (a_i - a_j)^2 = 2 (m sum a^2 - (sum a)^2) avoids the pairwise matrix.
    within = 2.0 * (m_u * (values**2).sum(axis=0) - values.sum(axis=0) ** 2)
    n = m_u.sum()
    pooled = data[:, pairable][present[:, pairable]]
    between = 2.0 * (n * np.sum(pooled**2) - pooled.sum() ** 2)
    if between <= 0:
        return None
    observed = np.sum(within / (m_u - 1.0)) / n
    expected = between / (n * (n - 1.0))
    return float(1.0 - observed / expected)


def rater_vs_others(ratings: ArrayLike) -> list[float | None]:
    """Each rater's Pearson correlation with the mean of the other raters.

    For rater ``r``, over the units ``r`` rated that at least one other rater rated too:
    ``pearson(v_r, mean_{s != r} v_s)``. This is the human ceiling a metric can be
    expected to reach.

    Parameters
    ----------
    ratings : array_like, shape (n_raters, n_units)
        NaN where a rater did not rate a unit.

    Returns
    -------
    list of float or None
        One value per rater; ``None`` where fewer than 3 shared units or a constant input.

    Examples
    --------
    >>> rater_vs_others([[0.0, 0.5, 1.0], [0.0, 0.4, 1.0], [0.1, 0.5, 0.9]])[0] > 0.99
    True
    """
    data = _ratings_matrix(ratings)
    present = np.isfinite(data)
    out: list[float | None] = []
    for r in range(data.shape[0]):
        others = np.delete(data, r, axis=0)
        others_present = np.delete(present, r, axis=0)
        shared = present[r] & others_present.any(axis=0)
        if shared.sum() < 3:
            out.append(None)
            continue
        sums = np.where(others_present, others, 0.0)[:, shared].sum(axis=0)
        mean_others = sums / others_present[:, shared].sum(axis=0)
        out.append(_finite_or_none(_correlation("pearson", data[r, shared], mean_others)[0]))
    return out
