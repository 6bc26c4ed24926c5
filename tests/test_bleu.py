"""`bleu` and `chrf`: sacrebleu's own numbers for the joined sub-tokens, in every command."""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import to_tokens
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import METRICS, get_metric
from wrdscore.metrics.bleu import codexglue_bleu

POOL = ["get", "set", "user", "name", "size", "count", "by", "id", "to", "string", "is", "empty"]


def _unit(score: float) -> float:
    """sacrebleu's 0-100 score on 0-1, its float noise above 1 (100.00000000000004) clipped."""
    return min(score / 100, 1.0)


def _random_names(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(POOL) for _ in range(rng.randint(1, 7))) for _ in range(n)]


@pytest.fixture(scope="module")
def pairs():
    rng = random.Random(7)
    return _random_names(rng, 300), _random_names(rng, 300)


def test_registered():
    assert {"bleu", "chrf"} <= set(METRICS)


def test_bleu_equals_sacrebleu(pairs):
    refs, preds = pairs
    res = get_metric("bleu").score(refs, preds)
    expected = [
        _unit(sacrebleu.sentence_bleu(p, [r]).score) for r, p in zip(refs, preds, strict=True)
    ]
    assert res.scores.tolist() == expected  # exactly: the same computation
    assert res.scores.max() <= 1.0
    assert res.corpus["score"] == _unit(sacrebleu.corpus_bleu(preds, [refs]).score)
    # The corpus value is corpus BLEU, not a mean of sentence scores.
    assert not math.isclose(res.corpus["score"], float(np.mean(expected)), rel_tol=1e-3)


def test_chrf_and_chrf_plus_plus_equal_sacrebleu(pairs):
    refs, preds = pairs
    for word_order in (0, 2):
        res = get_metric("chrf", word_order=word_order).score(refs, preds)
        chrf = CHRF(word_order=word_order)
        expected = [
            _unit(sacrebleu.sentence_chrf(p, [r], word_order=word_order).score)
            for r, p in zip(refs, preds, strict=True)
        ]
        assert res.scores.tolist() == expected
        assert res.corpus["score"] == _unit(chrf.corpus_score(preds, [refs]).score)


def test_identifiers_are_fed_as_joined_sub_tokens():
    refs = ["getUserName", "Returns the user's NAME."]
    preds = ["get_user_id", "returns  name"]
    res = get_metric("bleu").score(refs, preds)
    texts = [" ".join(to_tokens(t)) for t in (*refs, *preds)]
    assert texts == ["get user name", "returns the user s name", "get user id", "returns name"]
    assert res.scores.tolist() == [
        _unit(sacrebleu.sentence_bleu(texts[2], [texts[0]]).score),
        _unit(sacrebleu.sentence_bleu(texts[3], [texts[1]]).score),
    ]


def test_signatures_carry_sacrebleus():
    bleu, chrf = get_metric("bleu"), get_metric("chrf")
    sentence = BLEU(effective_order=True)
    sentence.sentence_score("a", ["a"])
    corpus = "|corpus:corpus_bleu|seg:jdk17c20+wiki|v:"
    assert bleu.signature.startswith(f"bleu|{sentence.get_signature()}{corpus}")
    c = CHRF()
    c.sentence_score("a", ["a"])
    corpus = "|corpus:corpus_chrf|seg:jdk17c20+wiki|v:"
    assert chrf.signature.startswith(f"chrf|{c.get_signature()}{corpus}")
    assert "nw:2" in get_metric("chrf", word_order=2).signature
    assert "smooth:add-k[1.00]" in get_metric("bleu", smooth="codexglue").signature


def test_empty_predictions_count_in_the_corpus():
    refs, preds = ["get user name by id", "size", "is empty"], ["get user name by id", "", "??"]
    res = get_metric("bleu").score(refs, preds)
    assert res.empty_predictions == 2 and res.scores.tolist()[1:] == [0.0, 0.0]
    texts = [" ".join(to_tokens(p)) for p in preds]
    assert res.corpus["score"] == _unit(sacrebleu.corpus_bleu(texts, [refs]).score)
    chrf = get_metric("chrf").score(refs, preds)
    assert chrf.corpus["score"] == _unit(sacrebleu.corpus_chrf(texts, [refs]).score)


def test_alternatives_score_and_count_as_the_best_one():
    refs = [[["size"], ["get count of items now"]], "get user name"]
    preds = ["get count of items", "get name"]
    res = get_metric("bleu").score(refs, preds)
    best = _unit(sacrebleu.sentence_bleu(preds[0], ["get count of items now"]).score)
    assert res.scores[0] == best > _unit(sacrebleu.sentence_bleu(preds[0], ["size"]).score)
    chosen = ["get count of items now", "get user name"]
    assert res.corpus["score"] == _unit(sacrebleu.corpus_bleu(preds, [chosen]).score)


def test_short_names_have_zero_corpus_bleu_as_in_sacrebleu():
    # No prediction has 4 sub-tokens: no 4-gram, so corpus BLEU-4 is 0 (sacrebleu's
    # answer, documented), while sentence BLEU with effective order is not.
    res = get_metric("bleu").score(["get name", "size"], ["get name", "get size"])
    assert (
        res.corpus["score"]
        == 0.0
        == sacrebleu.corpus_bleu(["get name", "get size"], [["get name", "size"]]).score
    )
    assert sacrebleu.sentence_bleu("get name", ["get name"]).score > 100  # float noise
    assert res.scores.tolist() == [
        1.0,
        _unit(sacrebleu.sentence_bleu("get size", ["size"]).score),
    ]
    assert res.scores[1] == pytest.approx(0.5)


def _codexglue_reference(ref: str, pred: str) -> float:
    """CodeXGLUE code-to-text's smoothed BLEU-4, computed here from its definition.

    Lower-cased whitespace tokens (the texts have no punctuation), clipped n-gram
    matches of orders 1-4, one added to matched and predicted counts of orders 2-4, the
    smallest float added inside the logs, and BP = exp(min(0, 1 - (r + 1) / (c + 1))).
    """
    r, p = ref.lower().split(), pred.lower().split()
    log_sum = 0.0
    for n in range(1, 5):
        rc = Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
        pc = Counter(tuple(p[i : i + n]) for i in range(len(p) - n + 1))
        correct = sum(min(c, rc[g]) for g, c in pc.items())
        guess = max(len(p) - n + 1, 0)
        add = 1 if n > 1 else 0
        log_sum += math.log(correct + add + 2.2250738585072014e-308) - math.log(guess + add)
    bp = min(0.0, 1 - (len(r) + 1) / (len(p) + 1))
    return math.exp(log_sum / 4 + bp)


def test_codexglue_smoothed_bleu_matches_its_definition(pairs):
    refs, preds = pairs
    res = get_metric("bleu", smooth="codexglue").score(refs, preds)
    expected = np.array([_codexglue_reference(r, p) for r, p in zip(refs, preds, strict=True)])
    np.testing.assert_allclose(res.scores, expected, rtol=1e-12, atol=1e-70)
    # CodeXGLUE reports the mean of the sentence scores.
    assert res.corpus["score"] == pytest.approx(float(expected.mean()), rel=1e-12)
    assert codexglue_bleu([2, 0, 0, 0], [2, 1, 0, 0], 2, 3) == pytest.approx(
        _codexglue_reference("get user name", "get name"), rel=1e-15
    )


def test_bad_options():
    with pytest.raises(WrdscoreError, match="unknown smoothing 'add-k'"):
        get_metric("bleu", smooth="add-k")
    for bad in (-1, 7, 1.5, True):
        with pytest.raises(WrdscoreError, match="word_order must be an integer 0-6"):
            get_metric("chrf", word_order=bad)
    with pytest.raises(WrdscoreError, match="unknown option"):
        get_metric("bleu", tokenize="none")


# --- in every command ----------------------------------------------------------------


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(f"{x}\n" for x in lines))
    return str(path)


def test_score_command(tmp_path, pairs):
    refs, preds = pairs
    r, p = _write(tmp_path, "r.txt", refs), _write(tmp_path, "p.txt", preds)
    result = CliRunner().invoke(
        app,
        [
            "score",
            "--refs",
            r,
            "--preds",
            p,
            "-m",
            "bleu",
            "-m",
            "chrf",
            "--format",
            "json",
            "--set",
            "chrf.word_order=2",
            "--per-pair",
            str(tmp_path / "pp.jsonl"),
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["metrics"]["bleu"]["corpus"]["score"] == _unit(
        sacrebleu.corpus_bleu(preds, [refs]).score
    )
    chrf = _unit(CHRF(word_order=2).corpus_score(preds, [refs]).score)
    assert out["metrics"]["chrf"]["corpus"]["score"] == chrf
    assert "nw:2" in out["metrics"]["chrf"]["signature"]
    first = json.loads((tmp_path / "pp.jsonl").read_text().splitlines()[0])
    assert first["bleu"]["score"] == _unit(sacrebleu.sentence_bleu(preds[0], [refs[0]]).score)


def test_compare_command(tmp_path, pairs):
    refs, preds = pairs
    r = _write(tmp_path, "r.txt", refs)
    a, b = _write(tmp_path, "a.txt", refs), _write(tmp_path, "b.txt", preds)
    result = CliRunner().invoke(
        app,
        ["compare", "--refs", r, "--preds", a, "--preds", b, "-m", "bleu", "--resamples", "200"],
    )
    assert result.exit_code == 0, result.output
    assert "bleu|nrefs:1" in result.output


def test_study_analyze_command(tmp_path):
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app,
        [
            "study",
            "analyze",
            "--pairs",
            "wrdscore-paper",
            "-m",
            "rouge1",
            "-m",
            "bleu",
            "-m",
            "chrf",
            "--output",
            str(out),
            "--resamples",
            "40",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    names = [m["metric"] for m in report["metrics"]]
    assert names == ["rouge1", "bleu", "chrf"]


def test_streamed_in_chunks_and_workers_the_corpus_is_still_sacrebleus(tmp_path, pairs):
    from wrdscore.metrics._engine import score_files

    refs, preds = pairs
    r, p = _write(tmp_path, "r.txt", refs), _write(tmp_path, "p.txt", preds)
    metrics = [get_metric("bleu"), get_metric("chrf"), get_metric("bleu", smooth="codexglue")]
    expected = [
        _unit(sacrebleu.corpus_bleu(preds, [refs]).score),
        _unit(sacrebleu.corpus_chrf(preds, [refs]).score),
        float(np.mean(get_metric("bleu", smooth="codexglue").score(refs, preds).scores)),
    ]
    for jobs in (1, 2):
        results = score_files(metrics, r, p, chunk_pairs=7, jobs=jobs)
        got = [res.corpus["score"] for res in results]
        assert got[:2] == expected[:2]
        assert got[2] == pytest.approx(expected[2], rel=1e-12)


def test_a_corpus_value_never_falls_back_to_a_mean_of_sentences():
    bleu = get_metric("bleu")
    with pytest.raises(RuntimeError, match="without its statistics"):
        bleu._corpus_from_sums({"score": 1.5}, 2)
    # CodeXGLUE's corpus value is the mean, by definition.
    assert get_metric("bleu", smooth="codexglue")._corpus_from_sums({"score": 1.5}, 2) == {
        "score": 0.75
    }


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_a_call_made_from_inside_another_leaves_the_outer_corpus_value_as_alone(name):
    # The memo and the "scoring" flag lived on the object: a call made from a progress
    # callback reset them when it ended, and the outer call's corpus value then raised
    # "corpus value without its statistics" (issue 35: metric objects reentrant).
    metric = get_metric(name)
    outer_pairs = (["get user name", "set size"], ["get name", "set count"])
    inner_pairs = (["is empty"], ["empty"])
    alone_outer, alone_inner = metric.score(*outer_pairs), metric.score(*inner_pairs)
    inner = []

    def progress(pairs: int) -> None:
        if not inner:
            inner.append(metric.score(*inner_pairs))

    outer = metric.score(*outer_pairs, progress=progress)
    assert outer.corpus["score"] == pytest.approx(alone_outer.corpus["score"], abs=1e-12)
    assert inner[0].corpus["score"] == pytest.approx(alone_inner.corpus["score"], abs=1e-12)
    np.testing.assert_allclose(outer.values["score"], alone_outer.values["score"], atol=1e-12)
