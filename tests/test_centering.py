"""Centering modes: hand values, unseen tokens left alone, batch dependence in scores."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import CENTERING_MODES, center, cosine_matrix, unit_rows
from wrdscore.metrics.base import get_metric

X = np.array([[1.0, 3.0], [3.0, 5.0], [0.0, 0.0], [2.0, 8.0]])
OFFSETS = [0, 3, 4]


def test_modes_by_hand():
    np.testing.assert_allclose(center(X, OFFSETS, "none"), X)
    np.testing.assert_allclose(center(X, OFFSETS, "dimension"), [[-1, 1], [-1, 1], [0, 0], [-3, 3]])
    # item 0's known rows average (2, 4); item 1 is one row, centered to zero
    np.testing.assert_allclose(center(X, OFFSETS, "sentence"), [[-1, -1], [1, 1], [0, 0], [0, 0]])
    # known rows of the whole batch average (2, 16/3); the unseen row stays zero
    np.testing.assert_allclose(
        center(X, OFFSETS, "batch"), [[-1, 3 - 16 / 3], [1, 5 - 16 / 3], [0, 0], [0, 8 - 16 / 3]]
    )


def test_corpus_mode_subtracts_the_frequency_weighted_vocabulary_mean():
    emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0], "b": [0.0, 1.0]}, counts={"a": 3, "b": 1})
    np.testing.assert_allclose(
        center(X[:3], [0, 3], "corpus", emb), [[0.25, 2.75], [2.25, 4.75], [0, 0]]
    )
    with pytest.raises(WrdscoreError, match="corpus centering needs"):
        center(X, OFFSETS, "corpus")


def test_input_is_not_modified_and_empty_batches_work():
    before = X.copy()
    for mode in ("dimension", "sentence", "batch"):
        center(X, OFFSETS, mode)
    np.testing.assert_array_equal(X, before)
    assert center(np.zeros((0, 2)), [0, 0], "sentence").shape == (0, 2)


def test_unknown_mode_is_a_user_error():
    with pytest.raises(WrdscoreError, match="unknown centering 'mean'"):
        center(X, OFFSETS, "mean")


def test_unit_rows_and_cosines_keep_zero_rows_zero():
    np.testing.assert_allclose(unit_rows(X[1:3]), [[3 / 34**0.5, 5 / 34**0.5], [0, 0]])
    np.testing.assert_allclose(cosine_matrix(X[:1], X[2:3]), [[0.0]])


def test_batch_centering_makes_a_score_depend_on_its_batch():
    emb = TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.2, 0.0], "set": [0.8, 0.3, 0.1], "name": [0.1, 1.0, 0.4]}
    )
    for metric in ("bertscore", "wmd", "twmd", "trwmd", "sbert", "cka"):
        alone = get_metric(metric, embeddings=emb, centering="batch")
        in_batch = alone.score(["getName", "name"], ["setName", "name"]).scores[0]
        assert "|c:batch|" in alone.signature
        assert alone.score(["getName"], ["setName"]).scores[0] != pytest.approx(in_batch)
        plain = get_metric(metric, embeddings=emb)
        assert plain.score(["getName"], ["setName"]).scores[0] == pytest.approx(
            plain.score(["getName", "name"], ["setName", "name"]).scores[0]
        )


def test_a_vector_equal_to_its_mean_becomes_exactly_zero():
    # 0.1, 0.7, 0.3 averaged three times is off by ~1e-17 in floating point
    same = np.array([[0.1, 0.7, 0.3]] * 3)
    assert not center(same, [0, 3], "sentence").any()
    assert not center(np.array([[0.1, 0.1, 0.1]]), [0, 1], "dimension").any()
    emb = TokenEmbeddings.from_vectors({"get": [0.1, 0.7, 0.3], "name": [0.9, 0.2, 0.4]})
    res = get_metric("wmd", embeddings=emb, centering="sentence").score(["getGetGet"], ["getName"])
    assert res.scores.tolist() == [0.0] and res.degenerate_pairs == 1


_EMB = TokenEmbeddings.from_vectors(
    {
        "get": [1.0, 0.2, 0.0],
        "set": [0.8, 0.3, 0.1],
        "name": [0.1, 1.0, 0.4],
        "size": [-0.5, 0.1, 0.9],
        "same": [0.3, 0.3, 0.3],
    },
    counts={"get": 5, "set": 3, "name": 4, "size": 1, "same": 1},
)
_FAMILY = ("bertscore", "wmd", "twmd", "trwmd", "sbert", "cka")
_names = st.lists(
    st.lists(
        st.sampled_from(["get", "set", "name", "size", "same", "zzz"]), min_size=1, max_size=4
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=25, deadline=None)
@given(_names, _names, st.sampled_from(CENTERING_MODES), st.sampled_from(["zero", "drop"]))
def test_every_metric_and_mode_gives_finite_scores(refs, preds, mode, oov):
    preds = (preds * len(refs))[: len(refs)]
    for name in _FAMILY:
        res = get_metric(name, embeddings=_EMB, centering=mode, oov=oov).score(refs, preds)
        for values in res.values.values():
            assert np.all(np.isfinite(values))
        assert all(np.isfinite(v) for v in res.corpus.values())
