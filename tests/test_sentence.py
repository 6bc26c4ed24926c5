"""SBERT-style mean cosine and linear CKA: hand values, an independent HSIC form, properties."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.metrics.base import get_metric
from wrdscore.metrics.sentence import cka, sbert

vecs = st.integers(1, 4).flatmap(
    lambda n: arrays(np.float64, (n, 4), elements=st.integers(-3, 3).map(float))
)


def _unit(x):
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, n, out=np.zeros_like(x), where=n > 0)


def _hsic_cka(x, y):
    """CKA as tr(KHLH)/sqrt(tr(KHKH) tr(LHLH)) with dim x dim linear kernels."""
    a, b = _unit(x), _unit(y)
    k, l = a.T @ a, b.T @ b  # noqa: E741
    d = k.shape[0]
    h = np.eye(d) - np.ones((d, d)) / d
    den = math.sqrt(np.trace(k @ h @ k @ h) * np.trace(l @ h @ l @ h))
    return 0.0 if den < 1e-12 else np.trace(k @ h @ l @ h) / den


def test_sbert_hand_values():
    x = np.array([[1.0, 0.0], [0.0, 2.0]])  # unit mean (0.5, 0.5)
    y = np.array([[3.0, 4.0]])  # unit (0.6, 0.8)
    assert sbert(x, y) == pytest.approx((0.3 + 0.4) / (math.sqrt(0.5) * 1.0))
    assert sbert(x, -x) == pytest.approx(-1.0)
    assert sbert(np.array([[1.0, 0.0], [-1.0, 0.0]]), y) == 0.0  # zero mean
    assert sbert(x, np.zeros((0, 2))) == 0.0


def test_cka_hand_value():
    x = np.array([[1.0, 0.0, 0.0]])
    y = np.array([[0.0, 0.0, 1.0]])
    # centered over coordinates: (2,-1,-1)/3 and (-1,-1,2)/3; squared cosine = (1/3)^2/(2/3)^2
    assert cka(x, y) == pytest.approx(0.25)
    assert cka(x, np.zeros((1, 3))) == 0.0
    # a vector with equal coordinates centers to zero: nothing to align
    assert cka(np.ones((1, 4)), np.ones((1, 4))) == 0.0
    assert cka(x, np.zeros((0, 3))) == 0.0


@settings(max_examples=150, deadline=None)
@given(vecs, vecs)
def test_cka_equals_hsic_form_and_lies_in_unit_interval(x, y):
    value = cka(x, y)
    assert value == pytest.approx(_hsic_cka(x, y), abs=1e-9)
    assert -1e-12 <= value <= 1 + 1e-12
    assert cka(x, -y) == pytest.approx(value, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(vecs, vecs)
@example(x=np.ones((1, 4)), y=np.zeros((1, 4)))
def test_identity_order_and_ranges(x, y):
    for fn in (sbert, cka):
        assert fn(x[::-1], y[::-1]) == pytest.approx(fn(x, y), abs=1e-12)
        assert fn(x, y) == pytest.approx(fn(y, x), abs=1e-12)
    known = bool(np.all(np.any(x != 0, axis=1)))
    if known and np.linalg.norm(_unit(x).mean(axis=0)) > 1e-9:
        assert sbert(x, x) == pytest.approx(1.0, abs=1e-12)
    # CKA centers each unit vector over its coordinates, so a vector with equal
    # coordinates, such as (1, 1, 1, 1), becomes zero; identity needs one that does not.
    centered = _unit(x) - _unit(x).mean(axis=1, keepdims=True)
    if np.abs(centered).max() > 1e-6:
        assert cka(x, x) == pytest.approx(1.0, abs=1e-12)
    assert -1 - 1e-12 <= sbert(x, y) <= 1 + 1e-12


def test_registered_metrics_score_names():
    emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0, 0.0], "count": [0.0, 0.0, 1.0]})
    res = get_metric("cka", embeddings=emb).score(["size", "size"], ["count", "size"])
    assert res.primary == "score" and res.scores.tolist() == pytest.approx([0.25, 1.0])
    assert get_metric("sbert", embeddings=emb).score(["size"], ["count"]).scores[0] == 0.0


def test_cka_of_the_same_tokens_reordered_is_never_above_one():
    # Rounding put about one reordering in ten at 1 + 2e-16 (README: cka lies in [0, 1]).
    rng = np.random.default_rng(0)
    vectors = {f"w{chr(97 + i)}": rng.normal(size=16) for i in range(12)}
    metric = get_metric("cka", embeddings=TokenEmbeddings.from_vectors(vectors))
    refs, preds = [], []
    for _ in range(300):
        tokens = [f"w{chr(97 + i)}" for i in rng.choice(12, size=rng.integers(2, 6), replace=False)]
        refs.append(tokens)
        preds.append(list(rng.permutation(tokens)))
    scores = metric.score(refs, preds).scores
    assert scores.max() <= 1.0 and np.all(scores == 1.0)
    assert (
        cka(np.stack([vectors[t] for t in refs[0]]), np.stack([vectors[t] for t in preds[0]]))
        == 1.0
    )
