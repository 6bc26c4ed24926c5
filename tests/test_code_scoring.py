"""Scoring against a method's code (issue 25): code support, combined values, signatures.

Every code-support value is checked against a computation written here from the
definitions: the exact transport with ``ot.emd`` on the code's split tokens (every
occurrence its own point), Google's ``rouge-score`` package, BERTScore's greedy
matching by hand.
"""

from __future__ import annotations

import numpy as np
import ot
import pytest
from rouge_score import rouge_scorer

from wrdscore.corpora import read_code
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import METRICS, get_metric, score_files
from wrdscore.metrics._centering import unit_rows
from wrdscore.metrics.wrd import code_precision

WORDS = "get set user name size count item items add remove find by id list value key map"
VOCAB = WORDS.split()


@pytest.fixture(scope="module")
def emb():
    rng = np.random.default_rng(25)
    return TokenEmbeddings.from_vectors({w: rng.normal(size=6) for w in VOCAB}, name="code-test")


def _method(rng: np.random.Generator, size: int) -> str:
    """Java source whose body uses ``size`` identifiers drawn (with repeats) from VOCAB."""
    words = rng.choice(VOCAB, size=size)
    calls = " ".join(f"{w}Value = {v};" for w, v in zip(words[::2], words[1::2], strict=False))
    return f"void doWork() {{ {calls} }}"


def _wrd_precision_by_emd(code: list[str], pred: list[str], emb: TokenEmbeddings) -> float:
    """WRDScore precision of ``pred`` onto ``code``: ``ot.emd`` on every occurrence."""
    x, _ = emb.lookup(code, oov="zero")
    y, _ = emb.lookup(pred, oov="zero")
    a, b = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
    a, b = a / a.sum(), b / b.sum()
    cos = (x / np.linalg.norm(x, axis=1)[:, None]) @ (y / np.linalg.norm(y, axis=1)[:, None]).T
    flow = ot.emd(a, b, 1.0 - cos)
    c = np.clip(cos, 0.0, 1.0)
    return float(np.mean((flow * c).sum(axis=0) / flow.sum(axis=0)))


def test_wrd_code_support_is_the_exact_transport_onto_the_split_code_tokens(emb):
    rng = np.random.default_rng(1)
    sources = [_method(rng, int(rng.integers(4, 60))) for _ in range(60)]
    # Predictions of 1 to 5 tokens: the closed forms (1, 2) and the solver (3+).
    preds = [list(rng.choice(VOCAB, size=1 + k % 5, replace=False)) for k in range(60)]
    got = get_metric("wrd", embeddings=emb).score(None, preds, code=sources)
    want = [
        _wrd_precision_by_emd(read_code(s), p, emb) for s, p in zip(sources, preds, strict=True)
    ]
    assert got.primary == "code" and list(got.values) == ["code"]
    np.testing.assert_allclose(got.values["code"], want, rtol=0, atol=1e-9)
    assert got.corpus["code"] == pytest.approx(np.mean(want), abs=1e-12)


def _flat(rows, masses):
    """Entries ordered by pair: (pair of each entry, rows, masses)."""
    item = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    return item, np.concatenate(rows), np.concatenate(masses)


def test_merging_repeated_code_tokens_changes_no_precision():
    # The same problems with every occurrence its own point (rows repeated) and with
    # repeated tokens merged into one point of summed mass, against ot.emd.
    rng = np.random.default_rng(7)
    unit = unit_rows(rng.normal(size=(12, 5)))
    for m in (1, 2, 3, 4):
        occurrences = [rng.integers(0, 8, size=int(rng.integers(3, 40))) for _ in range(30)]
        # Distinct predicted tokens: a repeated one makes two equal columns, between which
        # optimal plans may split the flow in any way, each with another precision
        # (WRDScore's own tie, with or without the code's tokens merged).
        preds = [rng.choice(np.arange(8, 12), size=m, replace=False) for _ in range(30)]
        pred_mass = [rng.uniform(0.2, 1.0, size=m) for _ in range(30)]
        pred_mass = [b / b.sum() for b in pred_mass]
        occ_mass = [np.full(len(o), 1.0 / len(o)) for o in occurrences]
        merged = [np.unique(o, return_counts=True) for o in occurrences]
        pred_side = _flat(preds, pred_mass)
        split = code_precision(*_flat(occurrences, occ_mass), *pred_side, unit, 30)
        joined = code_precision(
            *_flat([r for r, _ in merged], [c / c.sum() for _, c in merged]), *pred_side, unit, 30
        )
        np.testing.assert_allclose(joined, split, rtol=0, atol=1e-12)
        by_emd = []
        for o, a, p, b in zip(occurrences, occ_mass, preds, pred_mass, strict=True):
            cos = unit[o] @ unit[p].T
            flow = ot.emd(a, b, 1.0 - cos)
            by_emd.append(np.mean((flow * np.clip(cos, 0, 1)).sum(axis=0) / flow.sum(axis=0)))
        np.testing.assert_allclose(joined, by_emd, rtol=0, atol=1e-12)


def test_rouge1_code_support_is_rouge_score_precision_against_the_code():
    rng = np.random.default_rng(3)
    sources = [_method(rng, int(rng.integers(2, 30))) for _ in range(40)]
    preds = [" ".join(rng.choice(VOCAB, size=1 + k % 4)) for k in range(40)]
    got = get_metric("rouge1").score(None, preds, code=sources).values["code"]
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    want = [
        scorer.score(" ".join(read_code(s)), p)["rouge1"].precision
        for s, p in zip(sources, preds, strict=True)
    ]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_subtoken_code_support_is_the_share_of_predicted_tokens_in_the_code():
    got = get_metric("subtoken").score(
        None, ["get user id"], code=["int find() { return userId; }"]
    )
    assert got.values["code"].tolist() == [pytest.approx(2 / 3)]


def test_bertscore_code_support_is_greedy_precision_by_hand(emb):
    rng = np.random.default_rng(5)
    sources = [_method(rng, int(rng.integers(2, 40))) for _ in range(30)]
    preds = [list(rng.choice(VOCAB, size=1 + k % 4)) for k in range(30)]
    got = get_metric("bertscore", embeddings=emb).score(None, preds, code=sources)
    want = []
    for s, p in zip(sources, preds, strict=True):
        x, _ = emb.lookup(read_code(s), oov="zero")
        y, _ = emb.lookup(p, oov="zero")
        cos = (x / np.linalg.norm(x, axis=1)[:, None]) @ (y / np.linalg.norm(y, axis=1)[:, None]).T
        want.append(np.mean(np.maximum(cos.max(axis=0), 0.0)))
    np.testing.assert_allclose(got.values["code"], want, rtol=0, atol=1e-9)


def test_combined_mixes_the_reference_and_the_code_by_the_code_weight(emb):
    refs, preds = ["getUserName", "size"], ["get name", "count items"]
    code = ["String getUserName() { return user.name; }", "int size() { return items.count; }"]
    for w in (0.0, 0.25, 0.5, 1.0):
        res = get_metric("wrd", embeddings=emb, code_weight=w).score(refs, preds, code=code)
        assert res.primary == "f1"
        assert list(res.values) == ["precision", "recall", "f1", "code", "combined"]
        np.testing.assert_allclose(
            res.values["combined"], (1 - w) * res.values["f1"] + w * res.values["code"]
        )
        assert res.corpus["combined"] == pytest.approx(
            (1 - w) * res.corpus["f1"] + w * res.corpus["code"]
        )
        assert f"|code:yes|cw:{w:g}|tgt:name|mask:name|str:drop|v:" in res.signature
    plain = get_metric("wrd", embeddings=emb).score(refs, preds)
    # The reference's values do not change for reading the code too.
    for k in plain.values:
        np.testing.assert_array_equal(res.values[k], plain.values[k])


def test_signatures_change_only_when_code_is_read(emb):
    for name in ("wrd", "bertscore", "rouge1", "wmd"):
        metric = get_metric(name, embeddings=emb)
        plain = metric.score(["size"], ["count"]).signature
        assert plain == metric.signature and "code:" not in plain
        coded = metric.score(["size"], ["count"], code=["int size() { return n; }"]).signature
        assert coded == metric.code_signature
        assert coded.replace("|code:yes|cw:0.5|tgt:name|mask:name|str:drop", "") == plain
    summary = get_metric("rouge1", target="summary", strings="keep")
    assert "|tgt:summary|mask:none|str:keep|" in summary.code_signature


def test_every_registered_metric_either_reads_code_or_says_why_not():
    readers = {n for n, c in METRICS.items() if c.code_key is not None}
    assert readers == {
        "wrd", "bertscore", "wmd", "twmd", "trwmd", "sbert", "cka", "sentence", "rouge1",
        "subtoken",
    }  # fmt: skip
    for name in set(METRICS) - readers:
        assert METRICS[name].no_code_reason, name
    for name in ("bleu", "chrf", "rougeL"):
        with pytest.raises(WrdscoreError, match=f"metric '{name}' cannot score against code: "):
            get_metric(name).score(["size"], ["count"], code=["int size() { return n; }"])


@pytest.mark.parametrize("name", ["wmd", "twmd", "trwmd", "sbert", "cka"])
def test_similarity_metrics_score_against_the_code(emb, name):
    code = ["int size() { return items.count; }", "void add(Item item) { items.add(item); }"]
    res = get_metric(name, embeddings=emb).score(None, ["count", "add items"], code=code)
    assert res.values["code"].shape == (2,) and np.all(np.isfinite(res.values["code"]))
    assert res.values["code"][0] > 0


def test_a_name_that_is_its_code_scores_its_best(emb):
    # Identical words on both sides: each predicted token is matched by itself.
    res = get_metric("wrd", embeddings=emb).score(None, ["user id"], code=["void f() { userId; }"])
    assert res.values["code"].tolist() == [pytest.approx(1.0)]


def test_reference_free_needs_code_and_code_needs_one_item_per_prediction(emb):
    metric = get_metric("wrd", embeddings=emb)
    with pytest.raises(WrdscoreError, match="references may be None only when code is given"):
        metric.score(None, ["size"])
    with pytest.raises(WrdscoreError, match="1 code items but 2 predictions"):
        metric.score(None, ["size", "count"], code=["int size() { return n; }"])
    with pytest.raises(WrdscoreError, match=r"code 1 must be a string .* or an object"):
        metric.score(None, ["size"], code=[{"source": "int f() {}"}])
    with pytest.raises(WrdscoreError, match="code 2 cannot be read"):
        metric.score(None, ["size", "count"], code=["int f() { return n; }", ""])
    with pytest.raises(WrdscoreError, match="code weight must be a number from 0 to 1"):
        get_metric("wrd", embeddings=emb, code_weight=1.5)
    with pytest.raises(WrdscoreError, match="rescaling does not apply to code support"):
        get_metric("wrd", embeddings=emb, rescale=True).score(None, ["a"], code=["int a() {}"])


def test_empty_predictions_and_codes_without_tokens_score_zero_and_are_counted(emb):
    res = get_metric("wrd", embeddings=emb).score(
        None,
        ["", "size", "zzz"],
        code=["int a() { return n; }", "void size() {}", "int b() { c; }"],
    )
    assert res.values["code"].tolist() == [0.0, 0.0, 0.0]
    assert res.empty_predictions == 1
    # "void size() {}" has nothing once its name is masked; "zzz" has no vector.
    assert res.empty_code == 2


def test_streaming_with_a_code_file_equals_the_api(emb, tmp_path):
    rng = np.random.default_rng(9)
    n = 50
    sources = [_method(rng, int(rng.integers(2, 30))) for _ in range(n)]
    preds = [" ".join(rng.choice(VOCAB, size=1 + k % 4)) for k in range(n)]
    refs = [" ".join(rng.choice(VOCAB, size=2)) for _ in range(n)]
    import json

    (tmp_path / "refs.txt").write_text("\n".join(refs) + "\n")
    (tmp_path / "preds.txt").write_text("\n".join(preds) + "\n")
    (tmp_path / "code.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sources))
    metric = get_metric("wrd", embeddings=emb)
    want = metric.score(refs, preds, code=sources)
    (got,) = score_files(
        [metric],
        tmp_path / "refs.txt",
        tmp_path / "preds.txt",
        code=tmp_path / "code.jsonl",
        chunk_pairs=7,
        jobs=1,
        per_pair=tmp_path / "pairs.jsonl",
    )
    assert got.keys == ("precision", "recall", "f1", "code", "combined")
    assert got.signature == want.signature
    for k, v in want.corpus.items():
        assert got.corpus[k] == pytest.approx(v, abs=1e-12)
    rows = [json.loads(line) for line in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    np.testing.assert_array_equal([r["wrd"]["code"] for r in rows], want.values["code"])
    (free,) = score_files(
        [metric], None, tmp_path / "preds.txt", code=sources, chunk_pairs=7, jobs=1
    )
    assert free.primary == "code" and free.keys == ("code",)
    assert free.corpus["code"] == pytest.approx(want.corpus["code"], abs=1e-12)
