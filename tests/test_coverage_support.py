"""The ``coverage`` support model (issue 41's C1): best-match precision and the mirror
recall over the code, checked against a brute-force computation, and its gate."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import read_code
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.metrics.code import best_match, code_prior, copied_counts

CODE = """public int computeTotal(List<Item> items) {
    int total = 0;
    for (Item item : items) {
        total += item.price() * item.count();
    }
    return total;
}"""


def _brute(code_item, code_row, pred_item, pred_row, unit, n, clip, weight):
    """Precision and weighted recall pair by pair, with plain loops."""
    p, r = np.zeros(n), np.zeros(n)
    for k in range(n):
        c = [unit[row] for i, row in zip(code_item, code_row, strict=True) if i == k]
        w = [x for i, x in zip(code_item, weight, strict=True) if i == k]
        q = [unit[row] for i, row in zip(pred_item, pred_row, strict=True) if i == k]
        if not c or not q:
            continue
        cos = np.minimum(np.array(c) @ np.array(q).T, 1.0)
        if clip:
            cos = np.maximum(cos, 0.0)
        p[k] = cos.max(axis=0).mean()
        r[k] = float(np.dot(w, cos.max(axis=1)) / np.sum(w)) if np.sum(w) > 0 else 0.0
    return p, r


@pytest.mark.parametrize("clip", [True, False])
def test_best_match_recall_equals_a_brute_force(clip):
    rng = np.random.default_rng(7)
    unit = rng.normal(size=(30, 5))  # negative cosines are common here
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    n = 6
    code_len = [3, 0, 17, 140, 1, 9]  # widths from a padded 8 to a power of two past 128
    pred_len = [2, 4, 0, 3, 1, 12]
    code_item = np.repeat(np.arange(n), code_len)
    pred_item = np.repeat(np.arange(n), pred_len)
    code_row = rng.integers(0, 30, len(code_item))
    pred_row = rng.integers(0, 30, len(pred_item))
    weight = rng.uniform(0.1, 3.0, len(code_item))
    p, r = best_match(code_item, code_row, pred_item, pred_row, unit, n, clip, weight)
    want_p, want_r = _brute(code_item, code_row, pred_item, pred_row, unit, n, clip, weight)
    assert r is not None
    np.testing.assert_allclose(p, want_p, atol=1e-12)
    np.testing.assert_allclose(r, want_r, atol=1e-12)
    assert not clip or (r >= 0).all()


def test_summary_support_is_f_times_the_copied_share_gate():
    summaries = ["Returns the total price of the items.", "Adds up the item prices", "total"]
    metric = get_metric("wrd", target="summary", code_support="coverage")
    got = metric.score(None, summaries, code=[CODE] * 3).values["code"]
    code = read_code(CODE, target="summary", language="java")
    preds = [metric.tokens(s, prediction=True) for s in summaries]
    precision, recall, degenerate = metric.code_coverage([code] * 3, preds)
    assert not degenerate.any()
    f = 2 * precision * recall / (precision + recall)
    copied = copied_counts(preds, [code] * 3, ["java"] * 3)
    sizes = np.array([len(p) for p in preds])
    gate = code_prior("summary").plausibility(preds) ** (copied / sizes)
    np.testing.assert_allclose(got, f * gate, atol=1e-12)
    # Precision is the default's raw support; recall reads the code's side.
    raw = get_metric("wrd", target="summary", code_support="none")
    np.testing.assert_allclose(
        precision, raw.score(None, summaries, code=[CODE] * 3).values["code"]
    )
    assert recall[0] > recall[2]  # the longer summary covers more of the method


def test_saying_more_that_the_code_supports_does_not_lose():
    metric = get_metric("wrd", target="summary", code_support="coverage")
    short, longer = "Returns the total.", "Returns the total price of all items."
    got = metric.score(None, [short, longer], code=[CODE] * 2).values["code"]
    assert got[1] > got[0]


def test_names_score_as_the_default_and_other_metrics_refuse():
    names = ["computeTotal", "getItem", "sumPrices"]
    coverage = get_metric("wrd", code_support="coverage").score(None, names, code=[CODE] * 3)
    default = get_metric("wrd").score(None, names, code=[CODE] * 3)
    np.testing.assert_array_equal(coverage.values["code"], default.values["code"])
    assert "|prior:coverage|" in coverage.signature
    with pytest.raises(WrdscoreError, match="code support 'coverage' reads the code's side"):
        get_metric("rouge1", target="summary", code_support="coverage").score(
            None, ["Returns the total."], code=[CODE]
        )


def test_the_cli_scores_with_it(tmp_path):
    (tmp_path / "p.txt").write_text("Returns the total price of the items.\n")
    (tmp_path / "c.jsonl").write_text('"' + CODE.replace("\n", "\\n") + '"\n')
    result = CliRunner().invoke(
        app,
        ["score", "--preds", str(tmp_path / "p.txt"), "--code", str(tmp_path / "c.jsonl"),
         "--target", "summary", "--code-support", "coverage", "-m", "wrd", "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "prior:coverage" in result.output


def _distinct_brute(metric, code: list[str], pred: list[str]) -> tuple[float, float]:
    """D1's precision and recall of one pair with plain loops over distinct tokens: each
    distinct predicted token's best cosine once, summed and divided by all its tokens;
    each distinct code token's best cosine weighted by its mass once."""
    batch = metric.embed([code, pred])
    masses = metric._masses(batch.table, batch.tokens)
    unit = batch.table / np.linalg.norm(batch.table, axis=1, keepdims=True)
    c_rows = list(dict.fromkeys(batch.rows[: batch.offsets[1]].tolist()))
    p_rows = batch.rows[batch.offsets[1] : batch.offsets[2]].tolist()
    cos = np.clip(unit[c_rows] @ unit[list(dict.fromkeys(p_rows))].T, 0.0, 1.0)
    precision = cos.max(axis=0).sum() / len(p_rows)
    w = masses[c_rows]
    return float(precision), float(w @ cos.max(axis=1) / w.sum())


def test_distinct_coverage_counts_each_word_once():
    metric = get_metric("wrd", target="summary")
    assert metric.code_scorer.support.name == "distinct-coverage"  # wrd's default
    code = read_code(CODE, target="summary", language="java")
    summaries = [
        "Returns the total price of the items.",
        "Returns the total price of the items. Returns the total price of the items.",
        "total total total item",
    ]
    preds = [metric.tokens(s, prediction=True) for s in summaries]
    precision, recall, degenerate = metric.code_coverage([code] * 3, preds, distinct=True)
    assert not degenerate.any()
    for i, pred in enumerate(preds):
        want = _distinct_brute(metric, code, pred)
        np.testing.assert_allclose([precision[i], recall[i]], want, atol=1e-12)
    # Said twice, a summary's precision halves and its recall stays.
    assert precision[1] == pytest.approx(precision[0] / 2)
    assert recall[1] == pytest.approx(recall[0])
    got = metric.score(None, summaries, code=[CODE] * 3).values["code"]
    f = 2 * precision * recall / (precision + recall)
    copied = copied_counts(preds, [code] * 3, ["java"] * 3)
    sizes = np.array([len(p) for p in preds])
    gate = code_prior("summary").plausibility(preds) ** (copied / sizes)
    np.testing.assert_allclose(got, f * gate, atol=1e-12)
    assert got[0] > got[1]


def test_distinct_coverage_scores_names_as_the_gate():
    names = ["computeTotal", "getItem", "computeTotalComputeTotal"]
    default = get_metric("wrd").score(None, names, code=[CODE] * 3)
    gate = get_metric("wrd", code_support="src69-copied").score(None, names, code=[CODE] * 3)
    np.testing.assert_array_equal(default.values["code"], gate.values["code"])
    assert "|prior:distinct-coverage|" in default.signature
    assert "|prior:src69-copied|" in gate.signature
    with pytest.raises(WrdscoreError, match="code support 'distinct-coverage' reads the code"):
        get_metric("bertscore", target="summary", code_support="distinct-coverage").score(
            None, ["Returns the total."], code=[CODE]
        )


def test_explain_shows_what_the_coverage_is_made_of():
    from wrdscore.explain import support_breakdown

    text = "Returns the total price of the items."
    metric = get_metric("wrd", target="summary")
    t = metric.code_transport(text, CODE)
    b = support_breakdown(t)
    assert b["priors"] is None and b["coverage"]["distinct"] is True
    f = b["coverage"]["f"] * b["coverage"]["plausibility_gate"]
    assert b["code_support"] == pytest.approx(f, abs=1e-12)
    score = metric.score(None, [text], code=[CODE]).values["code"][0]
    assert b["code_support"] == pytest.approx(score, abs=1e-12)
    # A name under the same model shows the gate's factors, as src69-copied does.
    name = support_breakdown(get_metric("wrd").code_transport("computeTotal", CODE))
    assert name["coverage"] is None and name["priors"]["tokens"] == 2
    result = CliRunner().invoke(app, ["explain", text, "--code", "-", "--target", "summary"],
                                input=CODE)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"code support {score:.4f} (F " in result.output
