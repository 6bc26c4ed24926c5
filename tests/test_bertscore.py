"""BERTScore greedy matching against a plain-loop reference and its properties."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.base import get_metric
from wrdscore.metrics.bertscore import bertscore

# Small integer coordinates: exact cosines are easy to reason about, zero rows
# (unseen tokens) and exact ties occur often.
vecs = st.integers(1, 5).flatmap(
    lambda n: arrays(np.float64, (n, 3), elements=st.integers(-3, 3).map(float))
)
weights = st.lists(st.floats(0.1, 5.0), min_size=5, max_size=5)


def _loop_bertscore(ref, pred, wr, wp, clip):
    def cos(a, b):
        na, nb = math.sqrt(sum(v * v for v in a)), math.sqrt(sum(v * v for v in b))
        return (
            0.0 if na == 0 or nb == 0 else sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb)
        )

    def side(xs, ys, w):
        best = []
        for x in xs:
            m = max(cos(x, y) for y in ys)
            best.append(max(m, 0.0) if clip else m)
        return sum(b * wi for b, wi in zip(best, w, strict=True)) / sum(w)

    p, r = side(pred, ref, wp), side(ref, pred, wr)
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


@settings(max_examples=200, deadline=None)
@given(vecs, vecs, weights, weights, st.booleans())
@example(
    np.array([[1.0, -3.0, -1.0]]),
    np.array([[0.0, -1.0, 3.0], [0.0, 1.0, 1.0], [-1.0, 0.0, 1.0], [-2.0, -3.0, 3.0]]),
    [1.0] * 5,
    [1.0, 1.0, 1.0, 2.0, 1.0],
    False,
)
def test_matches_plain_loop(ref, pred, wr, wp, clip):
    wr, wp = wr[: len(ref)], wp[: len(pred)]
    # Relative tolerance too: unclipped P and R can be negative, and F1 = 2PR / (P + R)
    # is then ill-conditioned near P + R = 0 (F1 = -81.56 for ref [[1, -3, -1]] against
    # four predicted tokens, where summation order alone moves it by 3e-12).
    tol = {"rel": 1e-12, "abs": 1e-12}
    expected = _loop_bertscore(ref.tolist(), pred.tolist(), wr, wp, clip)
    assert bertscore(ref, pred, wr, wp, clip=clip) == pytest.approx(expected, **tol)
    expected_uniform = _loop_bertscore(
        ref.tolist(), pred.tolist(), [1] * len(ref), [1] * len(pred), clip
    )
    assert bertscore(ref, pred, clip=clip) == pytest.approx(expected_uniform, **tol)


def test_hand_values():
    ref = np.array([[1.0, 0.0], [0.0, 1.0]])
    pred = np.array([[3.0, 4.0]])  # cosines 0.6 and 0.8 with the reference tokens
    # P: best for the one predicted token = 0.8; R: mean of 0.6 and 0.8 = 0.7
    p, r, f = bertscore(ref, pred)
    assert (p, r) == pytest.approx((0.8, 0.7))
    assert f == pytest.approx(2 * 0.8 * 0.7 / 1.5)
    # IDF weights 1 and 3 on the reference: R = (0.6 + 3 * 0.8) / 4
    assert bertscore(ref, pred, [1.0, 3.0], [2.0])[1] == pytest.approx(0.75)
    # an opposite token: clipped to 0 by default, -1 without clipping
    assert bertscore(ref[:1], -ref[:1]) == (0.0, 0.0, 0.0)
    assert bertscore(ref[:1], -ref[:1], clip=False)[:2] == (-1.0, -1.0)


def test_empty_and_zero_vectors_score_zero():
    x = np.array([[1.0, 0.0]])
    empty = np.zeros((0, 2))
    assert bertscore(x, empty) == (0.0, 0.0, 0.0)
    assert bertscore(empty, x) == (0.0, 0.0, 0.0)
    assert bertscore(x, np.zeros((2, 2))) == (0.0, 0.0, 0.0)


@given(vecs, vecs)
def test_properties(ref, pred):
    p, r, f = bertscore(ref, pred)
    assert all(0.0 <= v <= 1.0 + 1e-12 for v in (p, r, f))
    # swapping reference and prediction swaps precision and recall
    p2, r2, _ = bertscore(pred, ref)
    assert (p2, r2) == pytest.approx((r, p), abs=1e-12)
    # invariance to token order
    assert bertscore(ref[::-1], pred[::-1]) == pytest.approx((p, r, f), abs=1e-12)
    # identity gives 1 when every token has a vector
    if np.all(np.any(ref != 0, axis=1)):
        assert bertscore(ref, ref) == pytest.approx((1.0, 1.0, 1.0), abs=1e-12)


@pytest.fixture
def emb():
    return TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0], "user": [0.0, 1.0], "name": [0.6, 0.8]},
        doc_freq={"get": 9, "user": 1, "name": 4},
        n_docs=9,
    )


def test_metric_with_idf_weights(emb):
    m = get_metric("bertscore", embeddings=emb, idf=True)
    assert "|idf:yes|clip:yes|" in m.signature
    res = m.score(["getUser"], ["name"])
    idf = emb.idf(["get", "user", "name"])
    # recall: get -> name 0.6, user -> name 0.8, weighted by their IDF
    expected_r = (idf[0] * 0.6 + idf[1] * 0.8) / (idf[0] + idf[1])
    assert res.recall[0] == pytest.approx(expected_r)
    assert res.precision[0] == pytest.approx(0.8)


def test_metric_drops_unseen_tokens_with_their_weights(emb):
    res = get_metric("bertscore", embeddings=emb, idf=True, oov="drop").score(["getZzz"], ["get"])
    assert res.f1.tolist() == [1.0] and res.oov_tokens == 1
    zero = get_metric("bertscore", embeddings=emb, oov="zero").score(["getZzz"], ["get"])
    assert zero.recall.tolist() == [0.5]


def test_metric_swaps_precision_and_recall(emb):
    m = get_metric("bertscore", embeddings=emb)
    a = m.score(["getUser", "name"], ["name", "userName"])
    b = m.score(["name", "userName"], ["getUser", "name"])
    np.testing.assert_allclose(a.precision, b.recall)
    np.testing.assert_allclose(a.recall, b.precision)


def test_idf_without_document_frequencies_is_a_user_error():
    plain = TokenEmbeddings.from_vectors({"get": [1.0, 0.0]})
    with pytest.raises(WrdscoreError, match="no document frequencies"):
        get_metric("bertscore", embeddings=plain, idf=True)


def test_a_name_with_an_unseen_token_against_itself(emb):
    # Under oov="zero" the unseen token's zero vector matches nothing, itself included
    # (the README's one exception to "a name against itself scores 1"); dropped, it is 1.
    zero = get_metric("bertscore", embeddings=emb, oov="zero").score(["get zzqx"], ["get zzqx"])
    assert zero.f1.tolist() == [0.5]
    drop = get_metric("bertscore", embeddings=emb, oov="drop").score(["get zzqx"], ["get zzqx"])
    assert drop.f1.tolist() == [1.0]
