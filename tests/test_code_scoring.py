"""Scoring against a method's code (issue 25): code support, combined values, signatures.

Every code-support value is checked against a computation written here from the
definitions (each predicted token's best cosine in the code's split tokens, Google's
``rouge-score`` package, BERTScore's greedy matching by hand), times the priors of issue 32
(conciseness and plausibility of the prediction, ``wrdscore.metrics.code``), whose
own arithmetic is tested in ``test_code_adversarial.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from rouge_score import rouge_scorer

from wrdscore.corpora import read_code
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import METRICS, get_metric, score_files
from wrdscore.metrics.code import best_match_precision, code_prior

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


def _prior(preds: list, sources: list[str], target: str = "name") -> np.ndarray:
    """What the engine scales each raw support by: the priors of each prediction, read
    with its method's code."""
    metric = get_metric("rouge1")
    codes = [read_code(s, target=target) for s in sources]
    return code_prior(target).factor(
        [metric.tokens(p, prediction=True) for p in preds], codes, ["java"] * len(codes)
    )


def _best_match_by_hand(code: list[str], pred: list[str], emb: TokenEmbeddings) -> float:
    """Each predicted token's best clipped cosine with a code token (every occurrence)."""
    x, _ = emb.lookup(code, oov="zero")
    y, _ = emb.lookup(pred, oov="zero")
    cos = (x / np.linalg.norm(x, axis=1)[:, None]) @ (y / np.linalg.norm(y, axis=1)[:, None]).T
    return float(np.mean(np.clip(cos.max(axis=0), 0.0, 1.0)))


def test_wrd_code_support_is_the_best_match_in_the_split_code_tokens_times_the_priors(emb):
    rng = np.random.default_rng(1)
    sources = [_method(rng, int(rng.integers(4, 60))) for _ in range(60)]
    preds = [list(rng.choice(VOCAB, size=1 + k % 5, replace=False)) for k in range(60)]
    got = get_metric("wrd", embeddings=emb).score(None, preds, code=sources)
    want = [
        _best_match_by_hand(read_code(s), p, emb) for s, p in zip(sources, preds, strict=True)
    ] * _prior(preds, sources)
    assert got.primary == "code" and list(got.values) == ["code"]
    np.testing.assert_allclose(got.values["code"], want, rtol=0, atol=1e-9)
    assert got.corpus["code"] == pytest.approx(np.mean(want), abs=1e-12)


def test_best_match_precision_by_hand_on_long_code_and_unclipped():
    # Pairs grouped by padded widths (past 128 tokens, powers of two), a zero vector, and
    # negative best cosines (kept without clipping, 0 with it): a third of the methods
    # have one to three code tokens, among which a predicted token often finds none
    # pointing its way (in 300 tokens of 5 dimensions it always does).
    rng = np.random.default_rng(11)
    unit = rng.normal(size=(40, 5))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    unit[3] = 0.0
    n = 120
    code_len, pred_len = rng.integers(0, 300, size=n), rng.integers(0, 5, size=n)
    code_len[::3] = rng.integers(1, 4, size=len(code_len[::3]))
    code_item, pred_item = np.repeat(np.arange(n), code_len), np.repeat(np.arange(n), pred_len)
    code_row = rng.integers(0, 40, size=len(code_item))
    pred_row = rng.integers(0, 40, size=len(pred_item))
    negative = 0
    for clip in (True, False):
        got = best_match_precision(code_item, code_row, pred_item, pred_row, unit, n, clip)
        want = np.zeros(n)
        for k in range(n):
            c, p = code_row[code_item == k], pred_row[pred_item == k]
            if len(c) and len(p):
                best = np.minimum((unit[p] @ unit[c].T).max(axis=1), 1.0)
                negative += int(np.count_nonzero(best < 0))
                want[k] = (np.maximum(best, 0.0) if clip else best).mean()
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert negative > 10  # the case the clipping is for is there


def test_best_match_precision_clips_a_code_pointing_away_at_zero():
    # One code token, opposite to the first predicted token and at 60 degrees to the
    # second (cosines -1 and .5): clipped, P = (0 + .5) / 2; unclipped (-1 + .5) / 2.
    unit = np.array([[1.0, 0.0], [-1.0, 0.0], [0.5, np.sqrt(0.75)]])
    args = (np.array([0]), np.array([0]), np.array([0, 0]), np.array([1, 2]), unit, 1)
    assert best_match_precision(*args, clip=True).tolist() == pytest.approx([0.25])
    assert best_match_precision(*args, clip=False).tolist() == pytest.approx([-0.25])


def test_rouge1_code_support_is_rouge_score_precision_against_the_code():
    rng = np.random.default_rng(3)
    sources = [_method(rng, int(rng.integers(2, 30))) for _ in range(40)]
    preds = [" ".join(rng.choice(VOCAB, size=1 + k % 4)) for k in range(40)]
    got = get_metric("rouge1").score(None, preds, code=sources).values["code"]
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    want = [
        scorer.score(" ".join(read_code(s)), p)["rouge1"].precision
        for s, p in zip(sources, preds, strict=True)
    ] * _prior(preds, sources)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


CODE_FIND = "int find() { return userId; }"


def test_subtoken_code_support_is_the_share_of_predicted_tokens_in_the_code():
    got = get_metric("subtoken").score(None, ["get user id"], code=[CODE_FIND])
    assert got.values["code"].tolist() == [
        pytest.approx(2 / 3 * _prior(["get user id"], [CODE_FIND])[0])
    ]


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
    np.testing.assert_allclose(got.values["code"], want * _prior(preds, sources), rtol=0, atol=1e-9)


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
        fields = (
            f"|code:yes|cw:{w:g}|tgt:name|mask:name|str:drop|lang:auto"
            "|prior:distinct-coverage|empty:ref"
        )
        assert f"{fields}|v:" in res.signature
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
        # wrd reads the code's side by default (distinct-coverage); the others gate.
        fields = (
            "|code:yes|cw:0.5|tgt:name|mask:name|str:drop|lang:auto"
            f"|prior:{'distinct-coverage' if name == 'wrd' else 'src69-copied'}|empty:ref"
        )
        assert coded.replace(fields, "") == plain
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


def test_a_name_made_of_its_codes_words_scores_its_priors_not_one(emb):
    # Identical words on both sides: each predicted token's best match is itself, so the
    # support is the priors alone; copying the code earns no more than a plausible,
    # concise name would (issue 32: a name that is its code's words scored 1.0). The
    # same words in the order names are written in keep it; out of it they lose it.
    code = ["void f() { userId; }"] * 2
    res = get_metric("wrd", embeddings=emb).score(None, ["user id", "id user"], code=code)
    assert res.values["code"].tolist() == pytest.approx(_prior(["user id", "id user"], code))
    assert res.values["code"][1] < 0.5 < res.values["code"][0]


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
