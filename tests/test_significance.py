"""The paired bootstrap behind `wrdscore compare`."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.errors import WrdscoreError
from wrdscore.significance import paired_bootstrap


def manual_bootstrap(a, b, resamples, seed):
    """Independent loop: resample pair indices, difference of means."""
    rng = np.random.default_rng(seed)
    n = len(a)
    return np.array(
        [(a[idx] - b[idx]).mean() for idx in (rng.integers(0, n, n) for _ in range(resamples))]
    )


def test_difference_and_interval_agree_with_a_manual_bootstrap():
    rng = np.random.default_rng(0)
    a = rng.uniform(0.3, 1.0, 400)
    b = np.clip(a - 0.05 + rng.normal(0, 0.1, 400), 0, 1)
    res = paired_bootstrap(a, b)
    assert res.difference == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    dist = manual_bootstrap(a, b, 4000, 1)
    lo, hi = np.percentile(dist, [2.5, 97.5])
    # Different random streams: the intervals agree to bootstrap noise.
    assert res.ci_low == pytest.approx(lo, abs=0.004)
    assert res.ci_high == pytest.approx(hi, abs=0.004)
    assert res.p_value == pytest.approx(1 / 1001)  # 5 standard errors away from 0
    assert res.signature == "bootstrap|n:1000|seed:12345|ci:95%|paired:yes"


def test_identical_systems_have_p_one():
    a = np.linspace(0, 1, 50)
    res = paired_bootstrap(a, a)
    assert res.difference == 0.0 and res.p_value == 1.0


def test_noise_difference_is_not_significant():
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 1, 200)
    b = a + rng.normal(0, 0.2, 200)
    b -= b.mean() - a.mean()  # equal means exactly
    res = paired_bootstrap(a, b)
    assert res.p_value > 0.9
    assert res.ci_low < 0 < res.ci_high


def test_fixed_seed_is_reproducible_and_seed_matters():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(size=30), rng.uniform(size=30)
    assert paired_bootstrap(a, b) == paired_bootstrap(a, b)
    assert paired_bootstrap(a, b, seed=1).ci_low != paired_bootstrap(a, b, seed=2).ci_low


@settings(deadline=None, max_examples=25)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=30))
def test_swapping_systems_mirrors_the_result(pairs):
    a = np.array([x for x, _ in pairs])
    b = np.array([y for _, y in pairs])
    ab, ba = paired_bootstrap(a, b, resamples=200), paired_bootstrap(b, a, resamples=200)
    assert 0 < ab.p_value <= 1
    assert ab.difference == pytest.approx(-ba.difference, abs=1e-12)
    # Same seed, same resampled indices: B - A's distribution is A - B's negated.
    assert ab.ci_low <= ab.ci_high
    assert ab.ci_low == pytest.approx(-ba.ci_high, abs=1e-12)
    assert ab.p_value == ba.p_value


@pytest.mark.parametrize(
    ("a", "b", "options", "message"),
    [
        ([0.1, 0.2], [0.1], {}, "same number of pairs"),
        ([0.1], [0.1], {}, "at least 2 pairs"),
        ([0.1, np.nan], [0.1, 0.2], {}, "finite"),
        ([0.1, 0.2], [0.1, 0.2], {"resamples": 0}, "resamples"),
        # One resample was NaN warnings and an interval that missed d.
        ([0.1, 0.2], [0.2, 0.1], {"resamples": 39}, "at least 40 for a 95% interval"),
        ([0.1, 0.2], [0.2, 0.1], {"resamples": 19, "confidence": 0.9}, "at least 20"),
        ([0.1, 0.2], [0.1, 0.2], {"confidence": 1.5}, "confidence"),
    ],
)
def test_bad_input(a, b, options, message):
    with pytest.raises(WrdscoreError, match=message):
        paired_bootstrap(a, b, **options)


def test_metric_compare_scores_both_systems_and_bootstraps_their_difference():
    from wrdscore import get_metric

    refs = ["getName", "size", "isEmpty", "toString"]
    a_preds = ["get name", "size", "empty", "string"]
    b_preds = ["name", "count", "is", "to"]
    metric = get_metric("rouge1")
    a, b, cmp = metric.compare(refs, a_preds, b_preds, resamples=200, seed=3)
    assert a.scores.tolist() == metric.score(refs, a_preds).scores.tolist()
    assert cmp.difference == pytest.approx(a.scores.mean() - b.scores.mean())
    assert cmp == paired_bootstrap(a.scores, b.scores, resamples=200, seed=3)
    assert metric.corpus_score(refs, a_preds) == a.corpus


def test_compare_values_bootstraps_each_value_against_code_on_the_same_resamples():
    from wrdscore import get_metric
    from wrdscore.metrics import compare_values

    refs = ["getName", "size", "isEmpty", "toString"]
    code = [
        "String getName() { return name; }",
        "int size() { return count; }",
        "boolean isEmpty() { return count == 0; }",
        "String toString() { return name; }",
    ]
    a_preds, b_preds = ["get name", "count", "empty", "name"], ["name", "get", "is", "to"]
    metric = get_metric("rouge1")
    a, b, found = compare_values(metric, refs, a_preds, b_preds, code=code, resamples=200, seed=3)
    assert list(found) == ["f1", "code", "combined"]
    for value, cmp in found.items():
        assert cmp == paired_bootstrap(a.values[value], b.values[value], resamples=200, seed=3)
    # Metric.compare gives the primary value's comparison, against the code too.
    _, _, cmp = metric.compare(refs, a_preds, b_preds, code=code, resamples=200, seed=3)
    assert cmp == found["f1"]
    _, _, alone = compare_values(metric, None, a_preds, b_preds, code=code, resamples=200, seed=3)
    assert list(alone) == ["code"] and alone["code"] == found["code"]
    with pytest.raises(WrdscoreError, match="nothing to compare against"):
        compare_values(metric, None, a_preds, b_preds)


def test_interval_ends_stay_in_order_under_float_noise():
    # Found by test_swapping_systems_mirrors_the_result: two identical pairs gave
    # ci_low 0.8896765160354214 > ci_high 0.8896765160354213.
    a, b = np.array([0.99999, 0.99999]), np.array([0.11031348396457877] * 2)
    res = paired_bootstrap(a, b, resamples=200)
    assert res.ci_low <= res.ci_high
    assert res.ci_low == pytest.approx(res.difference, abs=1e-15)
