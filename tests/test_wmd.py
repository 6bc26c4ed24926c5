"""WMD, TWMD and TRWMD: exact values against a linear program and hand computations."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linprog

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.base import get_metric
from wrdscore.metrics.bertscore import bertscore
from wrdscore.metrics.wmd import tempered_plan, trwmd, twmd, wmd

vecs = st.integers(1, 4).flatmap(
    lambda n: arrays(np.float64, (n, 3), elements=st.integers(-3, 3).map(float))
)
known_vecs = vecs.filter(lambda x: bool(np.all(np.any(x != 0, axis=1))))


def _unit(x):
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, n, out=np.zeros_like(x), where=n > 0)


def _lp_transport(x, y):
    """max sum F S over couplings with uniform marginals, by scipy's LP solver."""
    s = _unit(x) @ _unit(y).T
    n, m = s.shape
    a_eq = np.vstack([np.kron(np.eye(n), np.ones((1, m))), np.kron(np.ones((1, n)), np.eye(m))])
    b_eq = np.concatenate([np.full(n, 1 / n), np.full(m, 1 / m)])
    res = linprog(-s.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return -res.fun


@settings(max_examples=100, deadline=None)
@given(vecs, vecs)
def test_wmd_matches_linear_program(x, y):
    c11, c22 = _lp_transport(x, x), _lp_transport(y, y)
    expected = 0.0 if c11 <= 1e-12 or c22 <= 1e-12 else _lp_transport(x, y) / math.sqrt(c11 * c22)
    assert wmd(x, y) == pytest.approx(expected, abs=1e-9)
    assert -1 - 1e-12 <= wmd(x, y) <= 1 + 1e-12


def test_wmd_hand_value():
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([[0.6, 0.8], [1.0, 0.0]])
    # best matching: x1 -> y2 (cos 1), x2 -> y1 (cos 0.8); mass 1/2 each
    assert wmd(x, y) == pytest.approx(0.9)
    # an unseen (zero) token: C(X, X) = 1/2, C(X, Y) = 1/2 * 1
    xz = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert wmd(xz, y[1:]) == pytest.approx(0.5 / math.sqrt(0.5 * 1.0))


def _twmd_2x2_by_hand(s, t):
    k = [[math.exp(s[i][j] / t) for j in range(2)] for i in range(2)]
    # columns to 1/2 each, then rows to 1/2 each
    col = [[k[i][j] / (k[0][j] + k[1][j]) / 2 for j in range(2)] for i in range(2)]
    return [[col[i][j] / (col[i][0] + col[i][1]) / 2 for j in range(2)] for i in range(2)]


def _raw(plan, sim):
    return sum(plan[i][j] * sim[i][j] for i in range(2) for j in range(2))


def test_one_sinkhorn_iteration_by_hand_on_2x2():
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([[0.6, 0.8], [-0.8, 0.6]])
    s = (x @ y.T).tolist()
    for t in (0.5, 0.1):
        plan = _twmd_2x2_by_hand(s, t)
        np.testing.assert_allclose(tempered_plan(x, y, t), plan, rtol=1e-12)
        eye = [[1.0, 0.0], [0.0, 1.0]]
        c11 = _raw(_twmd_2x2_by_hand(eye, t), eye)
        assert twmd(x, y, t) == pytest.approx(_raw(plan, s) / math.sqrt(c11 * c11), rel=1e-12)


def test_more_similar_pairs_get_more_mass():
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([[0.9, 0.1], [0.2, 0.8]])
    plan = tempered_plan(x, y, 0.1)
    # x1 is closer to y1, x2 closer to y2: the sign of exp(+S/T) puts mass there
    assert plan[0, 0] > plan[0, 1] and plan[1, 1] > plan[1, 0]


def test_many_iterations_converge_to_a_coupling_near_wmd():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    plan = tempered_plan(x, y, 0.01, iterations=2000)
    np.testing.assert_allclose(plan.sum(axis=0), 1 / 4, atol=1e-6)
    np.testing.assert_allclose(plan.sum(axis=1), 1 / 3, atol=1e-12)
    assert twmd(x, y, 0.01, iterations=2000) == pytest.approx(wmd(x, y), abs=0.05)


def test_trwmd_hand_value_and_limit_is_bertscore_recall():
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([[0.6, 0.8]])
    t = 0.5

    def c(a, b):
        s = _unit(a) @ _unit(b).T
        return t / len(a) * sum(math.log(sum(math.exp(v / t) for v in row)) for row in s)

    expected = c(x, y) / math.sqrt(c(x, x) * c(y, y))
    assert trwmd(x, y, t) == pytest.approx(expected, rel=1e-12)
    rng = np.random.default_rng(1)
    for _ in range(5):
        a, b = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
        recall = bertscore(a, b, clip=False)[1]
        assert trwmd(a, b, 1e-4) == pytest.approx(recall, abs=1e-3)


@settings(max_examples=50, deadline=None)
@given(known_vecs, vecs)
def test_identity_and_token_order(x, y):
    for fn in (wmd, twmd, trwmd):
        assert fn(x, x) == pytest.approx(1.0, abs=1e-12)
        assert fn(x[::-1], y[::-1]) == pytest.approx(fn(x, y), abs=1e-9)


def test_empty_and_all_zero_score_zero():
    x = np.array([[1.0, 0.0]])
    for fn in (wmd, twmd, trwmd):
        assert fn(x, np.zeros((0, 2))) == 0.0
        assert fn(np.zeros((0, 2)), x) == 0.0
        assert fn(x, np.zeros((1, 2))) == 0.0


@pytest.fixture
def emb():
    return TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0, 0.2], "set": [0.6, 0.8, 0.0], "name": [0.0, 1.0, 0.5]}
    )


def test_metrics_signature_and_default_temperatures(emb):
    assert "|T:0.02|it:1|" in get_metric("twmd", embeddings=emb).signature
    assert (
        "|c:batch|oov:zero|T:0.1|it:1|"
        in get_metric("twmd", embeddings=emb, centering="batch").signature
    )
    assert get_metric("trwmd", embeddings=emb, centering="batch").temperature == 0.15
    assert get_metric("trwmd", embeddings=emb, temperature=0.3).signature.count("T:0.3") == 1
    res = get_metric("wmd", embeddings=emb).score(["getName", "set"], ["name get", "zzz"])
    assert res.scores[0] == pytest.approx(1.0)
    assert res.scores[1] == 0.0 and res.degenerate_pairs == 1 and res.oov_tokens == 1


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("twmd", {"temperature": 0.0}, "temperature must be a positive number"),
        ("trwmd", {"temperature": float("nan")}, "temperature must be a positive number"),
        # Below 1e-6 float64 loses the plan (and near 1e-310 trwmd crashed).
        ("trwmd", {"temperature": 1e-320}, "temperature must be at least 1e-06"),
        ("twmd", {"temperature": 9e-7}, "temperature must be at least 1e-06"),
        ("bertscore", {"idf": "no"}, "idf must be true or false, not 'no'"),
        ("bertscore", {"clip": 1}, "clip must be true or false, not 1"),
        ("wrd", {"rescale": "yes"}, "rescale must be true or false, not 'yes'"),
        ("twmd", {"iterations": 0}, "iterations must be a whole number"),
        ("twmd", {"iterations": 1.5}, "iterations must be a whole number"),
        ("wmd", {"temperature": 0.1}, "unknown option"),
    ],
)
def test_bad_options_are_user_errors(emb, name, options, message):
    with pytest.raises(WrdscoreError, match=message):
        get_metric(name, embeddings=emb, **options)


@pytest.mark.parametrize("name", ["twmd", "trwmd"])
def test_the_least_temperature_gives_the_cold_limit(emb, name):
    refs = ["get user name", "size", "remove all items"]
    preds = ["fetch user", "count", "clear items"]
    cold = get_metric(name, embeddings=emb, temperature=1e-6).score(refs, preds).scores
    colder = get_metric(name, embeddings=emb, temperature=1e-5).score(refs, preds).scores
    assert np.all(np.isfinite(cold))
    np.testing.assert_allclose(cold, colder, atol=1e-6)


def test_trwmd_above_one_is_kept():
    # A prediction repeating the reference's token: the log-sum grows with the copies, so
    # the normalised similarity exceeds 1. Only rounding around 1 is snapped to 1.
    x, y = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [1.0, 0.0]])
    expected = (0.5 * np.log(2 * np.exp(2.0))) / np.sqrt(1.0 * 0.5 * np.log(2 * np.exp(2.0)))
    assert trwmd(x, y, temperature=0.5) == pytest.approx(expected)
    assert trwmd(x, y, temperature=0.5) > 1.1
