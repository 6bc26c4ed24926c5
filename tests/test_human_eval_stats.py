"""Statistics of human agreement, checked against hand-computed values and independent code."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import mean_absolute_error, mean_squared_error

from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import (
    bootstrap_indices,
    compare_errors,
    correlation_intervals,
    error_intervals,
    error_samples,
    krippendorff_alpha_interval,
    percentile_interval,
    rater_vs_others,
    relative_improvement,
)

METRIC = np.array([0.9, 0.1, 0.5, 0.6, 0.0, 1.0, 0.3])
BASE = np.array([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0])
HUMAN = np.array([0.8, 0.2, 0.5, 0.5, 0.1, 0.9, 0.4])


def test_bootstrap_with_a_fixed_seed_is_deterministic():
    a = bootstrap_indices(7, 50, seed=3)
    assert np.array_equal(a, bootstrap_indices(7, 50, seed=3))
    assert not np.array_equal(a, bootstrap_indices(7, 50, seed=4))
    assert a.shape == (50, 7) and a.min() >= 0 and a.max() <= 6


def test_full_data_errors_match_sklearn():
    est = error_intervals(METRIC, HUMAN, bootstrap_indices(7, 20, seed=0))
    assert est["mse"].point == pytest.approx(mean_squared_error(HUMAN, METRIC), abs=1e-15)
    assert est["mae"].point == pytest.approx(mean_absolute_error(HUMAN, METRIC), abs=1e-15)


def test_bootstrap_errors_match_a_loop_and_the_interval_brackets_them():
    idx = bootstrap_indices(7, 40, seed=1)
    samples = error_samples(METRIC, HUMAN, idx)
    loop = [mean_squared_error(HUMAN[row], METRIC[row]) for row in idx]
    np.testing.assert_allclose(samples["mse"], loop, rtol=1e-12)
    est = error_intervals(METRIC, HUMAN, idx)["mse"]
    assert est.mean == pytest.approx(np.mean(loop))
    assert est.low <= est.mean <= est.high
    assert (est.low, est.high) == percentile_interval(loop)


def test_percentile_interval_hand_values():
    assert percentile_interval(np.arange(101.0)) == pytest.approx((2.5, 97.5))
    assert percentile_interval([0.0, 1.0, 2.0, 3.0, 4.0], level=0.5) == (1.0, 3.0)


def test_correlations_match_hand_computed_values():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = np.array([2.0, 1.0, 4.0, 3.0, 5.0])
    corr = correlation_intervals(x, y, bootstrap_indices(5, 30, seed=0))
    # Pearson = 8/10; Spearman = 1 - 6*4/(5*24); Kendall = (8-2)/10.
    assert corr["pearson"].value == pytest.approx(0.8)
    assert corr["spearman"].value == pytest.approx(0.8)
    assert corr["kendall"].value == pytest.approx(0.6)
    assert corr["kendall"].p_value == pytest.approx(stats.kendalltau(x, y).pvalue)
    for c in corr.values():
        assert c.low <= c.high and c.n_defined <= 30


def test_constant_scores_give_no_correlation_rather_than_nan():
    corr = correlation_intervals([0.5, 0.5, 0.5], [0.1, 0.2, 0.3], bootstrap_indices(3, 10, 0))
    assert corr["pearson"].value is None and corr["pearson"].n_defined == 0
    assert corr["pearson"].low is None


def test_relative_improvement_as_in_the_paper():
    assert round(relative_improvement(0.0817, 0.0678), 2) == 17.01
    with pytest.raises(WrdscoreError, match="baseline error is 0"):
        relative_improvement(0.0, 0.1)


def test_comparison_tests_match_hand_formulas():
    idx = bootstrap_indices(7, 60, seed=2)
    result = compare_errors(METRIC, BASE, HUMAN, idx)["mse"]
    m_err, b_err = (METRIC - HUMAN) ** 2, (BASE - HUMAN) ** 2
    d = m_err - b_err
    t = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    assert result.p_paired_t == pytest.approx(2 * stats.t.sf(abs(t), d.size - 1))
    # Welch's t-test by hand on the bootstrap MSEs.
    a = error_samples(METRIC, HUMAN, idx)["mse"]
    b = error_samples(BASE, HUMAN, idx)["mse"]
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t_w = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    assert result.p_bootstrap == pytest.approx(2 * stats.t.sf(abs(t_w), df))
    assert result.improvement_pct == pytest.approx(100 * (b.mean() - a.mean()) / b.mean())
    assert 0 < result.p_wilcoxon <= 1


def test_wilcoxon_exact_p_on_a_known_case():
    # Per-pair absolute errors differ by 1..5, all in favour of the metric: the exact
    # two-sided signed-rank p for n=5 with W+ = 0 is 2/32.
    human = np.zeros(5)
    metric = np.zeros(5)
    baseline = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    result = compare_errors(metric, baseline, human, bootstrap_indices(5, 10, 0))["mae"]
    assert result.p_wilcoxon == pytest.approx(2 / 32)


def test_identical_errors_have_no_p_values():
    result = compare_errors(METRIC, METRIC, HUMAN, bootstrap_indices(7, 10, 0))["mae"]
    assert result.improvement_pct == 0.0
    assert result.p_bootstrap is None and result.p_paired_t is None and result.p_wilcoxon is None


def _compare_without_warnings(metric, baseline, human, n_boot=20):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a scipy precision warning would fail the test
        return compare_errors(metric, baseline, human, bootstrap_indices(len(human), n_boot, 0))


def test_differences_constant_up_to_float_noise_have_no_t_test():
    # The metric is 0.1 and the baseline 0.3 above every human score: the per-pair errors
    # differ by the same amount everywhere, but only up to float noise (1e-16), which the
    # t-tests used to divide by (p of 1e-48, with scipy's precision warning on stderr).
    human = np.array([0.1, 0.2, 0.3, 0.4])
    metric, baseline = human + 0.1, human + 0.3
    assert 0 < np.ptp(np.abs(metric - human) - np.abs(baseline - human)) < 1e-15
    result = _compare_without_warnings(metric, baseline, human)
    for measure, improvement in [("mse", 100 * (0.09 - 0.01) / 0.09), ("mae", 100 * 0.2 / 0.3)]:
        c = result[measure]
        assert c.improvement_pct == pytest.approx(improvement, abs=1e-9)
        # No spread to test against: both metrics' bootstrap errors are constant too.
        assert c.p_paired_t is None and c.p_bootstrap is None
        # Wilcoxon is defined: 4 differences of one sign, exact two-sided p = 2 / 2^4.
        assert c.p_wilcoxon == 2 / 16


def test_welch_against_a_constant_bootstrap_sample_is_the_one_sample_t_test():
    # The baseline is 0.3 above every human score (constant errors up to float noise);
    # the metric's errors vary, so Welch's t has the baseline's variance term 0 and
    # df = B - 1.
    human = np.array([0.1, 0.3, 0.45, 0.6, 0.2])
    baseline = human + 0.3
    metric = np.array([0.1, 0.5, 0.25, 0.8, 0.4])
    idx = bootstrap_indices(5, 30, 0)
    b = error_samples(baseline, human, idx)["mae"]
    assert 0 < np.ptp(b) < 1e-15
    result = _compare_without_warnings(metric, baseline, human, n_boot=30)["mae"]
    a = error_samples(metric, human, idx)["mae"]
    t = (a.mean() - 0.3) / math.sqrt(a.var(ddof=1) / a.size)
    assert result.p_bootstrap == pytest.approx(2 * stats.t.sf(abs(t), a.size - 1), rel=1e-9)
    assert result.p_paired_t is not None and result.p_wilcoxon is not None


def test_errors_equal_up_to_float_noise_have_no_p_values():
    human = np.array([0.1, 0.2, 0.3, 0.4])
    metric = np.array([0.7, 0.1, 0.9, 0.3])
    result = _compare_without_warnings(metric, metric * (1 + 1e-15), human)["mse"]
    assert result.p_bootstrap is None and result.p_paired_t is None and result.p_wilcoxon is None


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bootstrap_indices(1, 10, 0), "at least 2 rated pairs"),
        (lambda: bootstrap_indices(5, 0, 0), "at least 1"),
        (lambda: error_samples([0.1, math.nan], [0.1, 0.2], np.zeros((1, 2), int)), "NaN"),
        (lambda: error_intervals([0.1, 0.2], [0.1], np.zeros((1, 2), int)), "2 metric scores"),
        (lambda: percentile_interval([1.0], level=1.5), "between 0 and 1"),
    ],
)
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(WrdscoreError, match=message):
        call()


def test_krippendorff_alpha_on_a_hand_example():
    # Two raters, values (1,1), (2,3): D_o = (0 + 2*1/1)/4 = 0.5;
    # pooled 1,1,2,3: sum_{i!=j} = 2*(4*15 - 49) = 22, D_e = 22/12; alpha = 1 - 0.5*12/22.
    assert krippendorff_alpha_interval([[1, 2], [1, 3]]) == pytest.approx(1 - 6 / 22)


ratings_matrix = st.integers(2, 4).flatmap(
    lambda raters: st.integers(2, 8).flatmap(
        lambda units: st.lists(
            st.one_of(st.none(), st.integers(0, 10)),
            min_size=raters * units,
            max_size=raters * units,
        ).map(
            lambda cells: np.array(
                [math.nan if c is None else float(c) for c in cells], dtype=float
            ).reshape(raters, units)
        )
    )
)


@settings(max_examples=60, deadline=None)
@given(ratings_matrix)
def test_krippendorff_alpha_matches_the_reference_package(data):
    ours = krippendorff_alpha_interval(data)
    pairable = np.isfinite(data).sum(axis=0) >= 2
    values = data[:, pairable][np.isfinite(data[:, pairable])]
    if ours is None:
        assert not pairable.any() or np.ptp(values) == 0
        return
    reference = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert ours == pytest.approx(reference, abs=1e-9)


def test_rater_vs_others_matches_numpy():
    data = np.array(
        [
            [0.0, 0.5, 1.0, 0.2, math.nan],
            [0.1, 0.4, 0.9, 0.3, 0.5],
            [0.0, 0.6, 0.7, math.nan, 0.4],
        ]
    )
    got = rater_vs_others(data)
    others = np.nanmean(data[[1, 2]], axis=0)
    assert got[0] == pytest.approx(np.corrcoef(data[0, :4], others[:4])[0, 1])
    others = np.nanmean(data[[0, 1]], axis=0)
    assert got[2] == pytest.approx(np.corrcoef(data[2, [0, 1, 2, 4]], others[[0, 1, 2, 4]])[0, 1])
    assert rater_vs_others([[0.1, 0.2], [0.3, 0.1]]) == [None, None]


def test_rating_matrices_must_be_two_dimensional():
    with pytest.raises(WrdscoreError, match="raters x units"):
        krippendorff_alpha_interval([1.0, 2.0])
    with pytest.raises(WrdscoreError, match="raters x units"):
        rater_vs_others([1.0, 2.0])
