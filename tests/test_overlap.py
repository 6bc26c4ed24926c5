"""ROUGE-1/L against Google's rouge-score, code2seq sub-token counts by hand."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer, tokenizers

from wrdscore import __version__
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.base import get_metric
from wrdscore.metrics.overlap import (
    f_measure,
    lcs_length,
    micro_prf,
    rouge1,
    rougeL,
    subtoken,
    subtoken_counts,
)


class _SpaceTokenizer(tokenizers.Tokenizer):
    """Hands rouge-score our sub-tokens unchanged."""

    def tokenize(self, text):
        return text.split()


_SCORER = rouge_scorer.RougeScorer(["rouge1", "rougeL"], tokenizer=_SpaceTokenizer())

# A small alphabet makes repeated and shared tokens common, the cases that matter.
tokens = st.lists(st.sampled_from(["get", "set", "name", "user", "id", "to", "1"]), max_size=7)


@settings(max_examples=300, deadline=None)
@given(tokens, tokens)
def test_rouge_equals_rouge_score_package(ref, pred):
    expected = _SCORER.score(" ".join(ref), " ".join(pred))
    for ours, key in ((rouge1(ref, pred), "rouge1"), (rougeL(ref, pred), "rougeL")):
        e = expected[key]
        assert ours == pytest.approx((e.precision, e.recall, e.fmeasure), abs=1e-12)


def test_rouge_hand_values():
    # overlap {get:1, name:1} = 2 of 3 predicted and 2 of 4 reference tokens
    assert rouge1(["get", "user", "name", "name"], ["name", "get", "set"]) == pytest.approx(
        (2 / 3, 1 / 2, 2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))
    )
    # LCS of (get user name) and (name user get) is one token
    assert rougeL(["get", "user", "name"], ["name", "user", "get"]) == pytest.approx(
        (1 / 3, 1 / 3, 1 / 3)
    )
    assert lcs_length(["a", "b", "c", "b", "d"], ["b", "c", "d", "b"]) == 3
    assert rouge1([], ["get"]) == (0.0, 0.0, 0.0)
    assert rougeL(["get"], []) == (0.0, 0.0, 0.0)


@given(tokens, tokens)
def test_rouge1_ignores_token_order_and_stays_in_unit_interval(ref, pred):
    assert rouge1(ref, pred) == rouge1(ref[::-1], sorted(pred))
    assert all(0.0 <= v <= 1.0 for v in rouge1(ref, pred) + rougeL(ref, pred))
    if ref:
        assert rouge1(ref, ref) == (1.0, 1.0, 1.0) == rougeL(ref, ref)


def test_subtoken_counts_default_to_multiset_overlap():
    # a repeated token matches only as often as it occurs in the reference
    assert subtoken_counts(["get", "user", "name"], ["get", "get", "id"]) == (1, 2, 2)
    assert subtoken_counts(["get", "get", "name"], ["get", "get"]) == (2, 0, 1)
    assert subtoken_counts(["set", "up"], ["setup"]) == (0, 1, 2)
    assert subtoken(["get", "user", "name"], ["get", "get", "id"]) == pytest.approx(
        (1 / 3, 1 / 3, 1 / 3)
    )


def test_subtoken_counts_follow_code2seq_on_request():
    # predicted tokens found in the reference are TPs, by membership
    code2seq = {"counting": "code2seq"}
    assert subtoken_counts(["get", "user", "name"], ["get", "get", "id"], **code2seq) == (2, 1, 2)
    # same characters in other pieces: every reference token is a TP
    assert subtoken_counts(["set", "up"], ["setup"], **code2seq) == (2, 0, 0)
    assert subtoken(["get", "user", "name"], ["get", "get", "id"], **code2seq) == pytest.approx(
        (2 / 3, 2 / 4, 2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))
    )
    assert subtoken([], []) == (0.0, 0.0, 0.0)
    assert subtoken(["get"], []) == (0.0, 0.0, 0.0)


def test_unknown_counting_is_a_user_error():
    with pytest.raises(WrdscoreError, match="counting"):
        subtoken(["a"], ["a"], counting="bag")


@given(tokens, tokens)
def test_counting_modes_agree_without_repeats(ref, pred):
    ref, pred = list(dict.fromkeys(ref)), list(dict.fromkeys(pred))
    if "".join(ref) != "".join(pred):
        assert subtoken_counts(ref, pred) == subtoken_counts(ref, pred, counting="code2seq")


def test_corpus_score_is_a_micro_average():
    pairs = [(["get", "user", "name"], ["get", "name"]), (["is", "empty"], ["size"])]
    tp, fp, fn = np.array([subtoken_counts(r, p) for r, p in pairs]).T
    # TP = 2 + 0, FP = 0 + 1, FN = 1 + 2
    assert micro_prf(tp, fp, fn) == pytest.approx(
        {"precision": 2 / 3, "recall": 2 / 5, "f1": f_measure(2 / 3, 2 / 5)}
    )


def test_registered_overlap_metrics_tokenise_with_the_shared_splitter():
    res = get_metric("rouge1").score(["getUserName"], ["get_name"])
    assert res.values["precision"].tolist() == [1.0]
    assert res.f1.tolist() == pytest.approx([0.8])
    assert res.signature == f"rouge1|seg:jdk17c20+wiki|v:{__version__}"
    assert get_metric("rougeL").score(["getUserName"], ["nameUser"]).f1.tolist() == pytest.approx(
        [0.4]
    )


def test_subtoken_metric_micro_averages_and_counts_empty_predictions():
    refs = ["getUserName", "isEmpty", "size"]
    preds = ["get name", "size", ""]
    res = get_metric("subtoken").score(refs, preds)
    assert res.signature == f"subtoken|count:multiset|seg:jdk17c20+wiki|v:{__version__}"
    assert res.empty_predictions == 1
    assert res.values["fn"].tolist() == [1.0, 2.0, 1.0]  # the empty prediction misses "size"
    # TP 2, FP 1, FN 4: corpus P = 2/3, R = 2/6, not the mean of per-pair values
    assert res.corpus["precision"] == pytest.approx(2 / 3)
    assert res.corpus["recall"] == pytest.approx(1 / 3)
    assert res.corpus["f1"] == pytest.approx(f_measure(2 / 3, 1 / 3))
    assert res.f1.tolist() == pytest.approx([0.8, 0.0, 0.0])


def test_subtoken_metric_counts_an_allowed_empty_reference_as_false_positives():
    res = get_metric("subtoken").score(["", "get"], ["get name", "get"], allow_empty_reference=True)
    assert res.values["fp"].tolist() == [2.0, 0.0]
    assert res.corpus["precision"] == pytest.approx(1 / 3)


def test_subtoken_metric_options():
    res = get_metric("subtoken", counting="code2seq").score(["getName"], ["get get"])
    assert res.values["tp"].tolist() == [2.0] and "count:code2seq" in res.signature
    with pytest.raises(WrdscoreError, match="unknown sub-token counting 'bag'"):
        get_metric("subtoken", counting="bag")
    with pytest.raises(WrdscoreError, match="unknown option"):
        get_metric("rouge1", idf=True)


def test_subtoken_counts_come_from_the_alternative_that_scored():
    # The first alternative is empty, the second scores the pair: its counts stand.
    res = get_metric("subtoken").score(
        [[[], ["get", "name"]]], ["get name"], allow_empty_reference=True
    )
    assert res.f1.tolist() == [1.0]
    assert (res.values["tp"][0], res.values["fp"][0], res.values["fn"][0]) == (2, 0, 0)
