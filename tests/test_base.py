"""The metric base: validation, tokenisation, multi-reference, results and registry."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HUNG

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import center
from wrdscore.metrics.base import (
    METRICS,
    EmbeddingMetric,
    Metric,
    ScoreResult,
    get_metric,
    register,
)


class Jaccard(Metric):
    """Test metric: Jaccard overlap of token sets, with a hand-checkable value."""

    name = "test-jaccard"
    keys = ("score",)
    primary = "score"

    def _score_tokens(self, refs, preds):
        return {
            "score": np.array(
                [
                    len(set(r) & set(p)) / len(set(r) | set(p))
                    for r, p in zip(refs, preds, strict=True)
                ]
            )
        }


class Broken(Metric):
    name = "test-broken"

    def _score_tokens(self, refs, preds):
        nan = np.full(len(refs), np.nan)
        return {"precision": nan, "recall": nan, "f1": nan}


class Seen(EmbeddingMetric):
    """Test metric exposing what `embed` gives the subclasses."""

    name = "test-seen"
    keys = ("score",)
    primary = "score"

    def _score_tokens(self, refs, preds):
        self.batch = self.embed([*refs, *preds])
        # What embedding counted (unseen tokens) is returned with the values.
        return self.batch.scored({"score": np.zeros(len(refs))})


@pytest.fixture
def emb():
    return TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0, 0.0], "user": [0.0, 2.0, 0.0], "name": [0.0, 0.0, 3.0]}, name="t3"
    )


def test_tokenises_raw_names_subtokens_and_token_lists_alike():
    res = Jaccard().score(["getUserName", "get user name", ["get", "userName"]], ["get_user"] * 3)
    assert res.scores.tolist() == pytest.approx([2 / 3] * 3)
    assert len(res) == 3
    assert res.corpus == {"score": pytest.approx(2 / 3)}


def test_multi_reference_scores_the_best_alternative():
    res = Jaccard().score([[["size"], ["getCount"]], [["a b"], ["a"]]], ["count", "a"])
    assert res.scores.tolist() == pytest.approx([0.5, 1.0])


@pytest.mark.parametrize(
    ("refs", "preds", "message"),
    [
        (["a", "b"], ["a"], "2 references but 1 predictions"),
        ([], [], "no pairs"),
        ("ab", "ab", "not single strings"),
        ([3], ["a"], "reference 1 must be a string"),
        (["a"], [["a", 1]], "prediction 1 must be a string"),
        (["a", "--"], ["a", "b"], "reference 2 has no tokens"),
        ([[["a"], []]], ["a"], "reference 1 has an alternative without tokens .*, number 2 of 2"),
    ],
)
def test_bad_input_is_a_one_line_error(refs, preds, message):
    with pytest.raises(WrdscoreError, match=message) as err:
        Jaccard().score(refs, preds)
    assert "\n" not in str(err.value)


def test_empty_prediction_scores_zero_and_is_counted():
    res = Jaccard().score(["get", "set"], ["", "set"])
    assert res.scores.tolist() == [0.0, 1.0]
    assert res.empty_predictions == 1


def test_empty_reference_allowed_scores_zero():
    res = Jaccard().score(["", "set"], ["get", "set"], allow_empty_reference=True)
    assert res.scores.tolist() == [0.0, 1.0]


def test_result_properties():
    res = Jaccard().score(["a"], ["a"])
    assert res.scores is res.values["score"]
    with pytest.raises(AttributeError, match="no value 'precision'; its values are: score"):
        _ = res.precision
    assert isinstance(res, ScoreResult)


def test_a_metric_bug_never_reaches_the_user_as_nan():
    with pytest.raises(RuntimeError, match="bad values"):
        Broken().score(["a"], ["b"])


def test_progress_callback_counts_every_pair(emb):
    done = []
    get_metric("wrd", embeddings=emb).score(
        ["get user"] * 5, ["name user"] * 5, progress=done.append
    )
    assert sum(done) == 5


def test_registry():
    assert "wrd" in METRICS
    assert list(METRICS) == sorted(METRICS)
    with pytest.raises(WrdscoreError, match="unknown metric 'nope'"):
        get_metric("nope")
    with pytest.raises(ValueError, match="registered twice"):

        @register
        class Clash(Jaccard):
            name = "wrd"


def test_registry_finds_a_new_module_in_wrdscore_metrics(tmp_path, monkeypatch):
    # A metric is a new public module of wrdscore.metrics; nothing else lists it.
    import sys

    import wrdscore.metrics
    from wrdscore.metrics import _registry

    (tmp_path / "demo_family.py").write_text(
        "from wrdscore.metrics.base import Metric, register\n"
        "import numpy as np\n"
        "@register\n"
        "class Demo(Metric):\n"
        "    name = 'demo-family'\n"
        "    keys = ('score',)\n"
        "    primary = 'score'\n"
        "    def _score_tokens(self, refs, preds):\n"
        "        return {'score': np.ones(len(refs))}\n"
    )
    monkeypatch.setattr(wrdscore.metrics, "__path__", [*wrdscore.metrics.__path__, str(tmp_path)])
    monkeypatch.setattr(_registry, "_REGISTRY", dict(_registry._REGISTRY))
    monkeypatch.delitem(sys.modules, "wrdscore.metrics.demo_family", raising=False)
    assert "demo-family" in METRICS
    assert get_metric("demo-family").score(["a"], ["b"]).scores.tolist() == [1.0]
    sys.modules.pop("wrdscore.metrics.demo_family", None)


def test_unknown_option_is_refused(emb):
    with pytest.raises(WrdscoreError, match=r"unknown option.*colour"):
        get_metric("wrd", embeddings=emb, colour="red")


def test_signature_ends_with_version(emb):
    sig = get_metric("wrd", embeddings=emb).signature
    assert sig.startswith(f"wrdscore|emb:t3@sha:{emb.sha}|")
    assert sig.endswith("|v:0.1.0")


def test_embed_counts_oov_and_keeps_zero_rows(emb):
    m = Seen(emb)
    res = m.score(["get nope"], ["user"])
    assert res.oov_tokens == 1
    assert m.batch[0].tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert m.batch[1].tolist() == [[0.0, 2.0, 0.0]]
    assert m.batch.row_tokens == ["get", "nope", "user"]


def test_embed_drop_removes_unseen_rows(emb):
    m = Seen(emb, oov="drop")
    res = m.score(["nope get nope", "zzz"], ["user", "name"])
    assert res.oov_tokens == 3
    assert [len(x) for x in m.batch] == [1, 0, 1, 1]
    assert m.batch.row_tokens == ["get", "user", "name"]


def test_embed_applies_centering_over_the_whole_batch(emb):
    m = Seen(emb, centering="batch")
    m.score(["get user"], ["name"])
    raw = np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]])
    np.testing.assert_allclose(m.batch.vectors, center(raw, [0, 2, 3], "batch"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"oov": "skip"}, "unknown OOV policy 'skip'"),
        ({"oov": "subword"}, "no subword vectors"),
        ({"centering": "mean"}, "unknown centering 'mean'"),
        ({"embeddings": 3}, "embeddings must be a model path"),
    ],
)
def test_embedding_options_are_checked(emb, options, message):
    options = {"embeddings": emb, **options}
    with pytest.raises(WrdscoreError, match=message):
        Seen(**options)


def test_embeddings_load_from_a_path(emb, tmp_path):
    path = tmp_path / "vectors.txt"
    emb.kv.save_word2vec_format(str(path))
    loaded = Seen(str(path)).embeddings
    assert loaded.sha == emb.sha


def test_any_iterable_and_numpy_strings_are_accepted():
    refs = np.array(["getName", "size"])
    res = Jaccard().score(refs, (p for p in ["get name", "count"]))
    assert res.scores.tolist() == [1.0, 0.0]


def test_build_metrics_loads_a_model_only_for_embedding_metrics(emb, tmp_path):
    from wrdscore.metrics.base import build_metrics

    # The registry must hold the embedding-free metrics (it once skipped here if none
    # were registered, hiding a registry that had lost them).
    free = {n for n in METRICS if not issubclass(METRICS[n], EmbeddingMetric)}
    assert {"bleu", "chrf", "rouge1", "rougeL", "subtoken"} <= free
    # A path that does not exist would fail to load: it is never touched here.
    (only,) = build_metrics(["rouge1"], tmp_path / "no-model")
    assert only.name == "rouge1"
    a, b = build_metrics(["wrd", "wrd", "rouge1"], emb, oov="drop")
    assert a.embeddings is emb and a.oov == "drop" and b.name == "rouge1"
    with pytest.raises(WrdscoreError, match="unknown OOV policy 'skip'"):
        build_metrics(["rouge1"], oov="skip")


# Metrics that need an encoder or a model have their own tests (tests/test_encoders.py,
# tests/test_bartscore.py).
@pytest.mark.parametrize(
    "name",
    [
        n
        for n in METRICS
        if not getattr(METRICS[n], "needs_encoder", False) and not METRICS[n].needs_model
    ],
)
def test_iterators_score_as_lists(emb, name):
    # subtoken, bleu and chrf read the pairs a second time for their corpus value; an
    # iterator was empty by then (subtoken lost its false negatives, bleu failed).
    refs = ["getUserName", "name", "get user"]
    preds = ["get name", "", "user"]
    metric = get_metric(name, embeddings=emb)
    from_lists = metric.score(refs, preds)
    from_iterators = metric.score(iter(refs), iter(preds))
    assert from_iterators.corpus == from_lists.corpus
    for key, values in from_lists.values.items():
        np.testing.assert_array_equal(from_iterators.values[key], values)


@pytest.mark.parametrize("name", ["wrd", "bertscore", "wmd"])
def test_alternatives_count_unseen_tokens_and_degenerate_pairs_once(emb, name):
    metric = get_metric(name, embeddings=emb)
    # The prediction is scored against three alternatives but has one unseen token;
    # each alternative's own unseen tokens count (zz in the third).
    res = metric.score([[["get"], ["user"], ["name", "zz"]]], ["qq name"])
    assert res.oov_tokens == 2
    # One alternative has only unseen tokens, the other scores the pair: not degenerate.
    res = metric.score([[["zz"], ["name"]], [["zz"], ["qq"]]], ["get name", "get name"])
    assert res.degenerate_pairs == 1 and res.scores[0] > 0 and res.scores[1] == 0
    assert res.oov_tokens == 3


# -- reentrancy: what a call counts lives in the call, not on the metric ------------------

OUTER = (["get user", "get zzunseen", "name qqother"], ["name user", "zzunseen get", "user qq"])
INNER = (["get name", "user"], ["name get", "user name"])


def _same(got: ScoreResult, alone: ScoreResult) -> None:
    for key in alone.values:
        np.testing.assert_allclose(got.values[key], alone.values[key], rtol=0, atol=1e-12)
    assert (got.oov_tokens, got.oov_names) == (alone.oov_tokens, alone.oov_names)
    assert got.degenerate_pairs == alone.degenerate_pairs


def test_a_call_made_from_inside_another_leaves_both_as_they_are_alone(emb):
    # A progress callback that scores with the same metric: before calls kept their
    # counts on the object, the inner call zeroed the outer's unseen tokens (the outer
    # reported the inner's 0) and dropped its progress callback.
    metric = get_metric("wrd", embeddings=emb)
    alone_outer, alone_inner = metric.score(*OUTER), metric.score(*INNER)
    assert alone_outer.oov_tokens > 0 == alone_inner.oov_tokens
    inner, done = [], []

    def progress(pairs: int) -> None:
        done.append(pairs)
        if not inner:
            inner.append(metric.score(*INNER))

    outer = metric.score(*OUTER, progress=progress)
    _same(outer, alone_outer)
    _same(inner[0], alone_inner)
    assert sum(done) == len(OUTER[0])


def test_a_code_call_made_from_inside_a_call_keeps_its_own_counts(emb):
    metric = get_metric("wrd", embeddings=emb)
    code = ["void getUser() { zzunseen(name); }", "int qq() { return user; }"]
    pairs = (["get user", "name"], ["zzunseen user", "qq name"])
    alone = metric.score(*pairs, code=code)
    inner: list[ScoreResult] = []

    def progress(_: int) -> None:
        if not inner:
            inner.append(metric.score(*pairs, code=code))

    _same(metric.score(*OUTER, progress=progress), metric.score(*OUTER))
    _same(inner[0], alone)


def test_two_threads_scoring_with_one_metric_at_once_each_get_their_own_numbers(emb):
    import threading

    metric = get_metric("wrd", embeddings=emb)
    alone = [metric.score(*OUTER), metric.score(*INNER)]
    # Each call waits in its first progress report until the other is in its own: both
    # are then inside a call of the same object at the same time.
    meet = threading.Barrier(2, timeout=HUNG)
    got: list[ScoreResult | None] = [None, None]

    def run(k: int, pairs: tuple[list[str], list[str]]) -> None:
        first = [True]

        def progress(_: int) -> None:
            if first[0]:
                first[0] = False
                meet.wait()

        got[k] = metric.score(*pairs, progress=progress)

    threads = [threading.Thread(target=run, args=(k, p)) for k, p in enumerate([OUTER, INNER])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not meet.broken
    for result, expected in zip(got, alone, strict=True):
        assert result is not None
        _same(result, expected)


def test_a_run_lends_its_memo_and_batch_mean_only_to_the_calls_inside_it(emb):
    metric = get_metric("wrd", embeddings=emb, centering="batch")
    memo: dict = {}
    mean = np.array([5.0, 5.0, 5.0])
    plain = metric.score(*INNER)
    with metric.scoring_run(memo=memo, batch_mean=mean):
        lent = metric.score(*INNER)
        assert metric._batch_mean is mean
    assert "user name" in memo  # the run's memo was filled
    assert metric._token_memo is None and metric._batch_mean is None
    assert not np.allclose(lent.f1, plain.f1)  # the lent mean was subtracted
    _same(metric.score(*INNER), plain)  # and nothing of it stayed on the metric


# -- ScoreResult: repr, a value per attribute, to_dict -------------------------------------


def test_a_result_prints_as_one_line_of_corpus_values_not_its_arrays(emb):
    res = get_metric("wrd", embeddings=emb).score(["get user"] * 40, ["user zzz"] * 40)
    text = repr(res)
    assert "\n" not in text and "array" not in text and len(text) < 300
    assert text.startswith("ScoreResult(wrd, 40 pairs, precision=")
    assert f"f1={res.corpus['f1']:.4f}" in text
    assert "oov_tokens=40" in text and text.endswith(f"sig={res.signature})")


def test_every_value_is_an_attribute_and_a_missing_one_names_those_there_are(emb):
    metric = get_metric("wrd", embeddings=emb)
    res = metric.score(["get user"], ["user"], code=["void getUser() { name(); }"])
    for key in ("precision", "recall", "f1", "code", "combined"):
        assert getattr(res, key) is res.values[key]
    with pytest.raises(AttributeError, match=r"no value 'score'; its values are: precision, "):
        _ = res.score
    alone = metric.score(None, ["user"], code=["void getUser() { name(); }"])
    with pytest.raises(AttributeError, match=r"its values are: code$"):
        _ = alone.f1
    assert not hasattr(res, "_private")


def test_a_result_copies_and_pickles(emb):
    import copy
    import pickle

    res = get_metric("wrd", embeddings=emb).score(["get user"], ["user"])
    for twin in (copy.copy(res), copy.deepcopy(res), pickle.loads(pickle.dumps(res))):
        assert twin.f1.tolist() == res.f1.tolist() and twin.signature == res.signature


def test_to_dict_is_json_with_values_corpus_signature_and_ids(emb):
    import json

    res = get_metric("wrd", embeddings=emb).score(
        [[["get user"], ["name"]], "user"], ["name", "zzz"]
    )
    data = json.loads(json.dumps(res.to_dict()))
    assert data["metric"] == "wrd" and data["signature"] == res.signature
    assert data["pairs"] == 2 and data["primary"] == "f1"
    assert data["values"]["f1"] == pytest.approx(res.f1.tolist(), abs=1e-12)
    assert data["corpus"] == pytest.approx(res.corpus, abs=1e-12)
    assert data["best_reference"] == [1, 0]
    assert (data["oov_tokens"], data["oov_names"]) == (1, ["zzz"])
    assert "ids" not in data
    tagged = res.with_ids(["A.get()", "B.user()"])
    assert tagged.to_dict()["ids"] == ["A.get()", "B.user()"]
    with pytest.raises(ValueError, match="2 strings, one per pair"):
        res.with_ids(["only one"])


class LogLikelihood(Jaccard):
    """A metric for which 0 is no worst score, as BARTScore's log-likelihood."""

    name = "test-loglik"
    empty_scores_zero = False


@pytest.mark.parametrize(
    ("preds", "count"), [(["", "b"], "1 empty prediction)"), (["", "!"], "2 empty predictions)")]
)
def test_a_metric_without_a_worst_score_refuses_empty_predictions_counted(preds, count):
    with pytest.raises(WrdscoreError, match=r"^prediction 1 has no tokens") as info:
        LogLikelihood().score(["a", "b"], preds)
    assert count in str(info.value)


def test_unknown_options_are_counted():
    with pytest.raises(WrdscoreError, match=r"^unknown option for metric 'test-jaccard': x$"):
        Jaccard(x=1)
    with pytest.raises(WrdscoreError, match=r"^unknown options for metric 'test-jaccard': x, y$"):
        Jaccard(x=1, y=2)
