"""WRDScore against hand-computed values, an independent ot.emd loop, and properties."""

from __future__ import annotations

import numpy as np
import ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore import WRDScore
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.wrd import _flow_two_rows, emd_flow

RNG = np.random.default_rng(7)
VOCAB = [
    "get",
    "set",
    "size",
    "count",
    "name",
    "user",
    "value",
    "item",
    "list",
    "map",
    "add",
    "put",
]
EMB = TokenEmbeddings.from_vectors(
    {t: RNG.normal(size=5) * RNG.uniform(0.5, 2.0) for t in VOCAB},
    doc_freq={t: i + 1 for i, t in enumerate(VOCAB)},
    n_docs=40,
)
SCORER = WRDScore(EMB)


def naive_wrd(emb, ref, pred, weights="norm", clip=True):
    """The paper's definition, pair by pair, written independently of the library."""
    if sorted(ref) == sorted(pred):
        return 1.0, 1.0, 1.0
    x = np.array([emb.kv[t] if t in emb else np.zeros(emb.dim) for t in ref], dtype=np.float64)
    y = np.array([emb.kv[t] if t in emb else np.zeros(emb.dim) for t in pred], dtype=np.float64)
    nx_, ny_ = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
    cos = np.zeros((len(ref), len(pred)))
    for i in range(len(ref)):
        for j in range(len(pred)):
            if nx_[i] > 0 and ny_[j] > 0:
                cos[i, j] = x[i] @ y[j] / (nx_[i] * ny_[j])
    if weights == "norm":
        a, b = nx_, ny_
    elif weights == "idf":
        a, b = emb.idf(ref), emb.idf(pred)
    else:
        a, b = np.ones(len(ref)), np.ones(len(pred))
    if a.sum() == 0 or b.sum() == 0:
        return 0.0, 0.0, 0.0
    flow = ot.emd(a / a.sum(), b / b.sum(), 1.0 - cos)
    c = np.maximum(cos, 0) if clip else cos
    p = np.mean(
        [
            (flow[:, j] @ c[:, j]) / flow[:, j].sum() if flow[:, j].sum() > 0 else 0.0
            for j in range(len(pred))
        ]
    )
    r = np.mean(
        [(flow[i] @ c[i]) / flow[i].sum() if flow[i].sum() > 0 else 0.0 for i in range(len(ref))]
    )
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


names = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5)


def test_hand_computed_one_token_reference():
    emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "get": [0.0, 2.0], "count": [0.6, 0.8]})
    res = WRDScore(emb).score(["size"], ["get count"])
    # masses: get 2/3, count 1/3; flow is forced; cos(size, get) = 0, cos(size, count) = 0.6
    assert res.precision[0] == pytest.approx((0.0 + 0.6) / 2, abs=1e-7)
    assert res.recall[0] == pytest.approx(1 / 3 * 0.6, abs=1e-7)
    p, r = 0.3, 0.2
    assert res.f1[0] == pytest.approx(2 * p * r / (p + r), abs=1e-7)


def test_hand_computed_two_by_two():
    # a ~ c and b ~ d: the optimal flow keeps each token with its neighbour.
    emb = TokenEmbeddings.from_vectors(
        {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [0.8, 0.6], "d": [0.0, 3.0]}
    )
    res = WRDScore(emb).score(["a b"], ["c d"])
    # masses 1/2, 1/2 vs 1/4, 3/4: a sends 1/4 to c (cos .8) and 1/4 to d (cos 0); b 1/2 to d.
    p = (0.8 + (0.25 * 0 + 0.5 * 1.0) / 0.75) / 2
    r = ((0.25 * 0.8 + 0.25 * 0.0) / 0.5 + 1.0) / 2
    assert res.precision[0] == pytest.approx(p, abs=1e-7)
    assert res.recall[0] == pytest.approx(r, abs=1e-7)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, names), min_size=1, max_size=8))
def test_equals_independent_loop(pairs):
    refs, preds = [r for r, _ in pairs], [p for _, p in pairs]
    res = SCORER.score(refs, preds)
    for k, (r, p) in enumerate(pairs):
        want = naive_wrd(EMB, r, p)
        got = (res.precision[k], res.recall[k], res.f1[k])
        np.testing.assert_allclose(got, want, atol=1e-9, rtol=0)


@pytest.mark.parametrize("weights", ["idf", "uniform"])
def test_other_weightings_equal_independent_loop(weights):
    rng = np.random.default_rng(3)
    refs = [list(rng.choice(VOCAB, size=rng.integers(1, 5))) for _ in range(40)]
    preds = [list(rng.choice(VOCAB, size=rng.integers(1, 5))) for _ in range(40)]
    res = WRDScore(EMB, weights=weights).score(refs, preds)
    for k in range(40):
        want = naive_wrd(EMB, refs[k], preds[k], weights=weights)
        np.testing.assert_allclose(
            (res.precision[k], res.recall[k], res.f1[k]), want, atol=1e-9, rtol=0
        )


@given(names)
def test_identity_scores_exactly_one(name):
    shuffled = list(reversed(name))
    res = SCORER.score([name, [*name, "unseen"]], [shuffled, ["unseen", *name]])
    assert res.f1.tolist() == [1.0, 1.0]
    assert res.precision.tolist() == res.recall.tolist() == [1.0, 1.0]


@settings(deadline=None)
@given(names, names)
def test_scores_within_unit_interval_when_clipped(ref, pred):
    res = SCORER.sentence_score(ref, pred)
    for v in (res.precision, res.recall, res.f1):
        assert 0.0 <= v[0] <= 1.0


@settings(deadline=None)
@given(names, names)
def test_swapping_reference_and_prediction_swaps_p_and_r(ref, pred):
    a, b = SCORER.sentence_score(ref, pred), SCORER.sentence_score(pred, ref)
    assert a.precision[0] == pytest.approx(b.recall[0], abs=1e-9)
    assert a.recall[0] == pytest.approx(b.precision[0], abs=1e-9)


@settings(deadline=None)
@given(names, names, st.randoms(use_true_random=False))
def test_invariant_to_token_order(ref, pred, rnd):
    perm_r, perm_p = ref[:], pred[:]
    rnd.shuffle(perm_r)
    rnd.shuffle(perm_p)
    a, b = SCORER.sentence_score(ref, pred), SCORER.sentence_score(perm_r, perm_p)
    np.testing.assert_allclose([a.precision, a.recall], [b.precision, b.recall], atol=1e-9)


def test_clip_off_keeps_negative_cosines():
    emb = TokenEmbeddings.from_vectors({"up": [1.0, 0.0], "down": [-1.0, 0.1]})
    clipped = WRDScore(emb).sentence_score("up", "down")
    raw = WRDScore(emb, clip=False).sentence_score("up", "down")
    assert clipped.precision[0] == 0.0
    assert raw.precision[0] == pytest.approx(-1 / np.sqrt(1.01))
    assert raw.f1[0] == 0.0  # P + R <= 0
    assert "clip:no" in WRDScore(emb, clip=False).signature


def test_unseen_tokens_under_zero_policy_count_as_unmatched():
    res = SCORER.score(["get zzz"], ["get"])
    assert res.oov_tokens == 1
    assert res.precision[0] == pytest.approx(1.0)
    assert res.recall[0] == pytest.approx(0.5)  # the unseen token adds 0 over l = 2


def test_all_unseen_side_is_degenerate_scores_zero_and_is_counted():
    res = SCORER.score(["get", "set size", "count"], ["zzz yyy", "set", "qqq"])
    assert res.f1.tolist()[0] == 0.0 and res.f1.tolist()[2] == 0.0
    assert res.degenerate_pairs == 2
    assert res.oov_tokens == 3
    dropped = WRDScore(EMB, oov="drop").score(["get"], ["zzz"])
    assert dropped.f1.tolist() == [0.0] and dropped.degenerate_pairs == 1
    assert np.all(np.isfinite(res.f1))


def test_drop_policy_ignores_unseen_tokens():
    a = WRDScore(EMB, oov="drop").sentence_score("get zzz", "get set")
    b = WRDScore(EMB).sentence_score("get", "get set")
    np.testing.assert_allclose(a.f1, b.f1, atol=1e-12)


def test_duplicate_pairs_and_multi_reference():
    res = SCORER.score([["get set"], ["get set"], [["size"], ["get set"]]], ["set count"] * 3)
    assert res.f1[0] == res.f1[1] == res.f1[2]


def test_idf_weights_need_document_frequencies():
    plain = TokenEmbeddings.from_vectors({"a": [1.0, 0.0]})
    with pytest.raises(WrdscoreError, match="needs document frequencies"):
        WRDScore(plain, weights="norm*idf")
    with pytest.raises(WrdscoreError, match="unknown weighting 'tfidf'"):
        WRDScore(plain, weights="tfidf")


def test_signature_lists_every_setting():
    sig = WRDScore(EMB, weights="norm*idf", oov="drop", centering="corpus").signature
    assert sig == (
        f"wrdscore|emb:custom@sha:{EMB.sha}|w:norm*idf|c:corpus|oov:drop|clip:yes|solver:emd|v:0.1.0"
    )


def test_sentence_centering_uses_each_names_own_mean():
    m = WRDScore(EMB, centering="sentence")
    batch = m.score(["get set", "size count name"], ["set user", "value"])
    alone = [
        m.sentence_score("get set", "set user").f1[0],
        m.sentence_score("size count name", "value").f1[0],
    ]
    np.testing.assert_allclose(batch.f1, alone, atol=1e-12)


@settings(deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 6),
    st.integers(0, 2**31 - 1),
    st.booleans(),
)
def test_emd_flow_equals_ot_emd(n1, n2, seed, zeros):
    rng = np.random.default_rng(seed)
    a, b = rng.random(n1), rng.random(n2)
    if zeros:
        a[0] = b[-1] = 0.0
    a, b = a / a.sum(), b / b.sum()
    cost = rng.random((n1, n2))
    np.testing.assert_allclose(emd_flow(a, b, cost), ot.emd(a, b, cost), atol=1e-15, rtol=0)


def test_transport_explains_one_pair():
    t = SCORER.transport("get set", "set size count")
    assert t.ref_tokens == ["get", "set"] and t.pred_tokens == ["set", "size", "count"]
    assert t.flow.shape == t.cosine.shape == (2, 3)
    np.testing.assert_allclose(t.flow.sum(axis=1), t.ref_weights, atol=1e-12)
    np.testing.assert_allclose(t.flow.sum(axis=0), t.pred_weights, atol=1e-12)
    assert t.f1 == pytest.approx(
        naive_wrd(EMB, ["get", "set"], ["set", "size", "count"])[2], abs=1e-9
    )
    with pytest.raises(WrdscoreError, match="at least one token"):
        SCORER.transport("--", "get")


@settings(deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**31 - 1), st.booleans(), st.booleans())
def test_closed_form_two_rows_equals_ot_emd(m, seed, tie, zero):
    rng = np.random.default_rng(seed)
    a, b = rng.dirichlet([1, 1], size=4), rng.dirichlet(np.ones(m), size=4)
    if zero:
        a[:, 1], a[:, 0] = 0.0, 1.0
    cost = rng.random((4, 2, m))
    if tie:  # equal rows: every feasible plan costs the same
        cost[:, 1] = cost[:, 0]
    got = _flow_two_rows(a, b, cost)
    for g in range(4):
        np.testing.assert_allclose(got[g], ot.emd(a[g], b[g], cost[g]), atol=1e-12)


def test_progress_counts_identical_and_degenerate_pairs_too():
    from wrdscore.embeddings import TokenEmbeddings

    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "name": [0.0, 1.0]})
    done: list[int] = []
    refs = ["get name", "get", "zz", "get"]
    preds = ["name get", "name", "qq", "name get"]
    res = WRDScore(emb).score(refs, preds, progress=done.append)
    assert res.degenerate_pairs == 1
    assert sum(done) == len(refs)
