"""The batched family metrics give the numbers of the per-pair public functions.

The reference here is the previous implementation of the family metrics: embed the
batch, then call the public per-pair function (:func:`bertscore`, :func:`wmd`, ...)
on every pair, scoring 0 and counting a pair with a side without non-zero vectors.
"""

import numpy as np
import ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.metrics import unit_rows
from wrdscore.metrics.base import get_metric
from wrdscore.metrics.bertscore import bertscore
from wrdscore.metrics.sentence import cka, sbert
from wrdscore.metrics.wmd import _tempered_plans, tempered_plan, trwmd, twmd, wmd

VOCAB = ["get", "set", "size", "name", "count", "value", "zero"]
METRICS = ["bertscore", "wmd", "twmd", "trwmd", "sbert", "cka"]


def _embeddings(coords: list[list[float]]) -> TokenEmbeddings:
    vectors = {t: c for t, c in zip(VOCAB, coords, strict=True)}
    vectors["zero"] = [0.0] * len(coords[0])  # a known token with a zero vector
    return TokenEmbeddings.from_vectors(
        vectors, doc_freq={t: i + 1 for i, t in enumerate(VOCAB)}, n_docs=20
    )


def _pair_function(metric):
    """The public per-pair function a metric is defined by, with the metric's options."""
    name = metric.name
    if name == "bertscore":

        def weights(tokens):
            if not metric.idf:
                return None
            if metric.oov == "drop":
                tokens = [t for t in tokens if t in metric.embeddings]
            return metric.embeddings.idf(tokens)

        return lambda x, y, r, p: bertscore(x, y, weights(r), weights(p), clip=metric.clip)
    if name == "twmd":
        return lambda x, y, r, p: (twmd(x, y, metric.temperature, metric.iterations),)
    if name == "trwmd":
        return lambda x, y, r, p: (trwmd(x, y, metric.temperature),)
    single = {"wmd": wmd, "sbert": sbert, "cka": cka}[name]
    return lambda x, y, r, p: (single(x, y),)


def _pair_by_pair(metric, refs, preds):
    """Scores and degenerate count the pair-by-pair way."""
    fn = _pair_function(metric)
    batch = metric.embed([*refs, *preds])
    n = len(refs)
    out = np.zeros((n, len(metric.keys)))
    degenerate = 0
    for i in range(n):
        x, y = batch[i], batch[n + i]
        if np.any(x) and np.any(y):
            out[i] = fn(x, y, refs[i], preds[i])
        else:
            degenerate += 1
    return out, degenerate


names = st.lists(st.sampled_from([*VOCAB, "unseen"]), min_size=1, max_size=5)
coords = st.integers(2, 4).flatmap(
    lambda d: st.lists(
        st.lists(st.integers(-3, 3).map(float), min_size=d, max_size=d),
        min_size=len(VOCAB),
        max_size=len(VOCAB),
    )
)


@settings(max_examples=40, deadline=None)
@given(
    coords=coords,
    pool=st.lists(st.tuples(names, names), min_size=1, max_size=6),
    picks=st.lists(st.integers(0, 5), min_size=1, max_size=20),
    metric_name=st.sampled_from(METRICS),
    centering=st.sampled_from(["none", "dimension", "sentence", "corpus", "batch"]),
    oov=st.sampled_from(["zero", "drop"]),
    flag=st.booleans(),
    iterations=st.integers(1, 4),
)
def test_batched_metrics_equal_pair_by_pair(
    coords, pool, picks, metric_name, centering, oov, flag, iterations
):
    options = {"bertscore": {"idf": flag, "clip": not flag}, "twmd": {"iterations": iterations}}
    emb = _embeddings(coords)
    metric = get_metric(
        metric_name,
        embeddings=emb,
        centering=centering,
        oov=oov,
        **options.get(metric_name, {}),
    )
    # Repeated pairs (the batched code scores each distinct pair once).
    refs = [pool[i % len(pool)][0] for i in picks]
    preds = [pool[i % len(pool)][1] for i in picks]
    done = []
    res = metric.score(refs, preds, progress=done.append)
    expected, degenerate = _pair_by_pair(metric, refs, preds)
    got = np.stack([res.values[k] for k in metric.keys], axis=1)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert np.all(np.isfinite(got))
    assert res.degenerate_pairs == degenerate
    assert sum(done) == len(refs)
    # Unseen tokens are counted per occurrence, repeated pairs included.
    assert res.oov_tokens == sum(t == "unseen" for name in refs + preds for t in name)


@settings(max_examples=60, deadline=None)
@given(
    x=st.integers(1, 5).flatmap(lambda n: arrays(np.float64, (n, 3), elements=st.floats(-2, 2))),
    y=st.integers(1, 5).flatmap(lambda n: arrays(np.float64, (n, 3), elements=st.floats(-2, 2))),
    temperature=st.sampled_from([0.02, 0.1, 0.5, 2.0]),
    iterations=st.integers(1, 12),
)
def test_tempered_plans_are_pots_log_sinkhorn(x, y, temperature, iterations):
    sim = (unit_rows(x) @ unit_rows(y).T)[None]
    batched = _tempered_plans(sim, temperature, iterations)[0]
    np.testing.assert_allclose(
        batched, tempered_plan(x, y, temperature, iterations), rtol=1e-12, atol=1e-15
    )


@pytest.mark.parametrize("metric_name", METRICS)
def test_many_shapes_in_one_batch(metric_name):
    # Every shape from 1x1 to 6x6 (network simplex included) in one batch of 400 pairs.
    rng = np.random.default_rng(7)
    # Lower-case letters only, and no segmentation (`ccc` is no word), so the tokeniser
    # keeps each token whole.
    vocab = [chr(ord("a") + i) * 3 for i in range(26)]
    emb = TokenEmbeddings.from_vectors(
        {t: rng.normal(size=8) for t in vocab},
        doc_freq={t: i for i, t in enumerate(vocab)},
        n_docs=40,
    )
    refs = [list(rng.choice([*vocab, "unseen"], rng.integers(1, 7))) for _ in range(400)]
    preds = [list(rng.choice([*vocab, "unseen"], rng.integers(1, 7))) for _ in range(400)]
    metric = get_metric(metric_name, embeddings=emb, centering="batch", segment=False)
    res = metric.score(refs, preds)
    expected, degenerate = _pair_by_pair(metric, refs, preds)
    got = np.stack([res.values[k] for k in metric.keys], axis=1)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert res.degenerate_pairs == degenerate


def test_one_token_wmd_plan_is_forced():
    # The solver-free plan of a one-token side is the one ot.emd finds.
    x = np.array([[1.0, 2.0]])
    y = np.array([[0.5, -1.0], [2.0, 0.1], [0.0, 1.0]])
    sim = unit_rows(x) @ unit_rows(y).T
    plan = ot.emd(np.ones(1), np.full(3, 1 / 3), 1.0 - sim)
    assert wmd(x, y) == pytest.approx(float(np.sum(plan * sim)), abs=1e-15)


@pytest.mark.parametrize("centering", ["none", "sentence", "batch"])
@pytest.mark.parametrize("metric_name", ["wrd", "wmd"])
def test_repeated_names_count_every_unseen_token(metric_name, centering):
    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "size": [0.0, 1.0]})
    metric = get_metric(metric_name, embeddings=emb, centering=centering)
    res = metric.score(["get zz", "get zz", "size"], ["size", "size", "zz get"])
    assert res.oov_tokens == 3


@pytest.mark.parametrize(
    ("name", "options"),
    [(m, {}) for m in METRICS] + [("bertscore", {"idf": True}), ("wrd", {"weights": "norm*idf"})],
)
def test_identical_names_score_exactly_one(name, options):
    # A name compared with itself: rounding put self-similarities anywhere in
    # 1 +- 1e-15 (BERTScore gave two of the paper's seven identical rated pairs
    # 0.9999999999999999, SBERT and WMD nearly every name); every score must be 1.
    from wrdscore.corpora import split_identifier
    from wrdscore.embeddings import load_embeddings
    from wrdscore.human_eval import load_paper_ratings

    # Names whose every token has a vector (an unseen token's zero vector would match
    # nothing; the bundled default has no subword vectors).
    bundled = load_embeddings()
    names = [
        n for n in load_paper_ratings().references if all(t in bundled for t in split_identifier(n))
    ]
    assert len(names) > 140
    metric = get_metric(name, **options)
    result = metric.score(names, names)
    assert set(result.values[result.primary]) == {1.0}, metric.signature
