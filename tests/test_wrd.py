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
    """The paper's definition, pair by pair, written independently of the library.

    Only the formula: no shortcut for a prediction with the reference's tokens, so the
    library's identity rule is checked against it (test_identity_rule_against_the_formula).
    """
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
# With tokens the model never saw (zero vectors under oov="zero").
names_unseen = st.lists(st.sampled_from([*VOCAB, "zzz", "qqq"]), min_size=1, max_size=5)


def same_tokens(ref, pred) -> bool:
    return sorted(ref) == sorted(pred)


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
@given(st.lists(st.tuples(names_unseen, names_unseen), min_size=1, max_size=8))
def test_equals_independent_loop(pairs):
    refs, preds = [r for r, _ in pairs], [p for _, p in pairs]
    # Identity pairs (shuffles of the reference) are drawn far more often than chance.
    extra = refs[:2]
    refs, preds = refs + extra, preds + [list(reversed(r)) for r in extra]
    res = SCORER.score(refs, preds)
    for k, (r, p) in enumerate(zip(refs, preds, strict=True)):
        want = naive_wrd(EMB, r, p)
        got = (res.precision[k], res.recall[k], res.f1[k])
        if same_tokens(r, p) and any(t not in EMB for t in r):
            # The one documented difference (WRDScore's docstring, "identity").
            assert got == (1.0, 1.0, 1.0) and want[2] < 1 - 1e-3
        else:
            np.testing.assert_allclose(got, want, atol=1e-9, rtol=0)


def test_identity_rule_against_the_formula():
    # Where the library and the formula differ, exactly: a prediction with the
    # reference's tokens in another order scores 1 by the library. The formula agrees
    # (to float rounding) when every token has a vector; an unseen token (a zero vector
    # under oov="zero") has no mass and matches nothing, so the formula gives less.
    cases = {
        ("get set size", "size get set"): (1.0, 1.0, 1.0),
        ("get zzz", "zzz get"): (0.5, 0.5, 0.5),  # zzz adds 0 to P's and R's average
        ("zzz", "zzz"): (0.0, 0.0, 0.0),  # nothing to transport: degenerate
    }
    for (ref, pred), formula in cases.items():
        r, p = ref.split(), pred.split()
        np.testing.assert_allclose(naive_wrd(EMB, r, p), formula, atol=1e-12)
        res = SCORER.sentence_score(ref, pred)
        assert (res.precision[0], res.recall[0], res.f1[0]) == (1.0, 1.0, 1.0)
        assert res.degenerate_pairs == 0
    # Other weightings and no clipping change nothing for known tokens.
    for weights in ("idf", "uniform"):
        got = WRDScore(EMB, weights=weights, clip=False).sentence_score("get zzz", "zzz get")
        assert got.f1[0] == 1.0
        want = naive_wrd(EMB, ["get", "zzz"], ["zzz", "get"], weights=weights, clip=False)
        assert want[2] == pytest.approx(0.5, abs=1e-12)


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
    # Tokens that segmentation leaves whole ("yyy" would become "yy y", two unseen tokens).
    res = SCORER.score(["get", "set size", "count"], ["zzz xxx", "set", "qqq"])
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
    # IDF weights read the document frequencies and corpus centering the counts: the
    # model field names them too.
    model = f"custom@sha:{EMB.sha}+df:{EMB.df_sha}+counts:{EMB.counts_sha}"
    assert sig == (
        f"wrdscore|emb:{model}|w:norm*idf|c:corpus|oov:drop|clip:yes|solver:emd|seg:jdk17c20+wiki|v:0.1.0"
    )


def test_other_statistics_beside_the_same_vectors_give_another_signature():
    vectors = {"get": [1.0, 0.0], "size": [0.6, 0.8], "count": [0.8, 0.6]}
    a = TokenEmbeddings.from_vectors(vectors, doc_freq={"get": 9, "size": 1}, n_docs=9)
    b = TokenEmbeddings.from_vectors(vectors, doc_freq={"get": 1, "size": 9}, n_docs=9)
    assert a.sha == b.sha and a.df_sha != b.df_sha
    idf_a, idf_b = (WRDScore(e, weights="idf") for e in (a, b))
    assert idf_a.signature != idf_b.signature
    assert idf_a.score(["get size"], ["count"]).f1 != idf_b.score(["get size"], ["count"]).f1
    c, d = (TokenEmbeddings.from_vectors(vectors, counts={"get": n}) for n in (1, 9))
    assert WRDScore(c, centering="corpus").signature != WRDScore(d, centering="corpus").signature
    # Settings that read neither keep the vectors' sha alone.
    assert WRDScore(a).signature == WRDScore(b).signature
    assert "+df:" not in WRDScore(a).signature


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


def test_transport_masses_sum_to_one_per_side_even_when_the_other_side_has_none():
    emb = TokenEmbeddings.from_vectors({"get": [3.0, 4.0], "name": [0.0, 2.0]})
    t = WRDScore(emb).transport("qzxvbn", "getName")  # the unseen reference has no mass
    assert t.ref_weights.tolist() == [0.0]
    # Norms 5 and 2, normalised on their own: 5/7 and 2/7 (not the raw 5 and 2).
    np.testing.assert_allclose(t.pred_weights, [5 / 7, 2 / 7], rtol=1e-12)
    assert not t.flow.any() and t.f1 == 0.0
    t = WRDScore(emb).transport("getName", "qzxvbn")
    np.testing.assert_allclose(t.ref_weights, [5 / 7, 2 / 7], rtol=1e-12)
    assert t.pred_weights.tolist() == [0.0]


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


def test_solver_loaded_alone_equals_ot_emd_and_leaves_pot_importable():
    # In a fresh interpreter: loading emd_c imports no other part of POT (nor scipy),
    # its flows equal ot.emd's, and a later `import ot` still works in full.
    import subprocess
    import sys

    code = """
import sys
import numpy as np
from wrdscore.metrics.wrd import _load_emd_c, emd_flow
_load_emd_c()
assert not [m for m in sys.modules if m == "ot" or m.startswith(("ot.", "scipy"))], sys.modules
rng = np.random.default_rng(0)
problems = []
for n1, n2 in [(3, 3), (5, 4), (25, 28)] + [tuple(rng.integers(1, 30, 2)) for _ in range(300)]:
    a, b = rng.random(n1), rng.random(n2)
    # Integer costs have ties (several optimal plans): the same one must be chosen.
    cost = rng.random((n1, n2)) if rng.random() < 0.5 else rng.integers(0, 3, (n1, n2)) * 1.0
    problems.append((a / a.sum(), b / b.sum(), cost))
flows = [emd_flow(*p) for p in problems]
import ot
for p, f in zip(problems, flows):
    assert np.max(np.abs(f - ot.emd(*p))) <= 1e-15
assert ot.lp.emd_wrap.emd_c is _load_emd_c()
assert ot.lp.emd_wrap.dist(np.eye(2), np.zeros((1, 2))).shape == (2, 1)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_pot_shortcut_is_in_use_on_the_installed_release():
    # Fails on a POT release the shortcut was not checked against (POT_CHECKED): the
    # code then solves through ot.emd (slow start-up, correct), and this test asks for
    # the shortcut to be checked again (test_solver_loaded_alone_equals_ot_emd_...).
    from wrdscore.metrics import wrd

    assert wrd._load_emd_c() is not wrd._emd_public
    assert wrd._checked_emd_c(object()) is wrd._emd_public  # no emd_c: the public solve


def test_scores_are_unchanged_when_the_pot_shortcut_is_unavailable(monkeypatch):
    from wrdscore.metrics import wrd

    rng = np.random.default_rng(11)
    refs = [list(rng.choice(VOCAB, size=rng.integers(3, 7))) for _ in range(60)]
    preds = [list(rng.choice(VOCAB, size=rng.integers(3, 7))) for _ in range(60)]
    fast = SCORER.score(refs, preds)
    monkeypatch.setattr(wrd, "POT_CHECKED", ("no such release",))
    wrd._load_emd_c.cache_clear()
    try:
        assert wrd._load_emd_c() is wrd._emd_public
        plain = WRDScore(EMB).score(refs, preds)
    finally:
        wrd._load_emd_c.cache_clear()
    for key in ("precision", "recall", "f1"):
        np.testing.assert_allclose(plain.values[key], fast.values[key], atol=1e-15, rtol=0)


def test_permutations_score_one_in_a_batch_of_mixed_lengths():
    emb = TokenEmbeddings.from_vectors({t: RNG.normal(size=4) for t in VOCAB})
    refs = ["get user name", "get user name", "size count", "get get set", "map", "add put"]
    preds = ["name get user", "get user map", "count size", "get set set", "map", "put"]
    res = WRDScore(emb).score(refs, preds)
    alone = [WRDScore(emb).sentence_score(r, p).f1[0] for r, p in zip(refs, preds, strict=True)]
    assert res.f1.tolist() == alone
    assert [f == 1.0 for f in res.f1.tolist()] == [True, False, True, False, True, False]


def test_the_token_cache_starts_over_past_its_bound_with_the_same_scores(monkeypatch):
    # The cache keeps each token's row, or an unseen token's word-piece vector; past
    # CACHE_TOKENS it is emptied and the batch in hand cached again, which must not
    # change a score or a count (unseen tokens included).
    from wrdscore.embeddings import load_embeddings
    from wrdscore.metrics import _embedding

    emb = load_embeddings()
    batches = [
        (["get user name", "adjustor zqxjvkw"], ["getUserName", "adjustor"]),
        (["andr zqxjvkw size", "get size"], ["qwvzjk", "andr size count"]),
        (["adjustor", "set value"], ["qwvzjk adjustor", "value set"]),
    ]
    unbounded = WRDScore(embeddings=emb)
    want = [unbounded.score(r, p) for r, p in batches]
    monkeypatch.setattr(_embedding, "CACHE_TOKENS", 4)
    bounded = WRDScore(embeddings=emb)
    for (r, p), expected in zip(batches, want, strict=True):
        got = bounded.score(r, p)
        for key in ("precision", "recall", "f1"):
            assert getattr(got, key).tolist() == getattr(expected, key).tolist()
        assert got.oov_tokens == expected.oov_tokens > 0
        assert len(bounded._cache) <= max(4, len(set(" ".join(r + p).lower().split())) + 2)
        # Only the cached unseen tokens' vectors are kept.
        assert len(bounded._unseen_vectors) == sum(v < 0 for v in bounded._cache.values())
    assert len(bounded._cache) < len(unbounded._cache)
