"""Set by set and leave-one-set-out: does a metric's agreement with people hold in every set?"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from scipy import stats

from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import (
    HumanRatings,
    MetricScores,
    analyze,
    krippendorff_alpha_interval,
    load_published_pairs,
    render_markdown,
    select,
    summary_lines,
    write_report,
)

# Three sets of four pairs; the human scores and two metrics' scores are exact in binary
# (multiples of 1/8), so hand-computed errors compare exactly.
SETS = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
HUMAN = np.array([1.0, 0.5, 0.25, 0.0, 0.75, 0.5, 0.125, 0.25, 1.0, 0.875, 0.0, 0.5])
BASE = np.array([1.0, 0.5, 0.0, 0.0, 0.5, 0.5, 0.5, 0.0, 1.0, 0.5, 0.5, 0.5])
OTHER = np.array([0.875, 0.625, 0.25, 0.125, 0.75, 0.25, 0.25, 0.25, 0.875, 0.75, 0.125, 0.5])


def ratings(sets=SETS, human=HUMAN, by_rater=None, raters=()):
    n = len(sets)
    ids = [f"p{i}" for i in range(n)]
    return HumanRatings(
        ids, list(sets), [f"ref {i}" for i in range(n)], [f"pred {i}" for i in range(n)],
        np.asarray(human, dtype=np.float64), list(raters), by_rater,
    )  # fmt: skip


def scores(base=BASE, other=OTHER):
    return {
        "base": MetricScores("base", np.asarray(base, dtype=np.float64), "base|v:0"),
        "other": MetricScores("other", np.asarray(other, dtype=np.float64), "other|v:0"),
    }


@pytest.fixture(scope="module")
def analysis():
    return analyze(ratings(), scores(), resamples=40, seed=3, baseline="base")


def test_each_set_on_its_own_has_exact_errors(analysis):
    assert [(v.set, v.pairs) for v in analysis.by_set] == [("a", 4), ("b", 4), ("c", 4)]
    # Hand-computed from the arrays above, as (sum of squared errors / 4, sum of absolute
    # errors / 4); e.g. set b, base: errors 1/4, 0, 3/8, 1/4 give 17/256 and 7/32.
    hand = {
        "a": {"base": (4 / 256, 2 / 32), "other": (3 / 256, 3 / 32)},
        "b": {"base": (17 / 256, 7 / 32), "other": (5 / 256, 3 / 32)},
        "c": {"base": (25 / 256, 7 / 32), "other": (3 / 256, 3 / 32)},
    }
    for view in analysis.by_set:
        for m in view.analysis.metrics:
            mse, mae = hand[view.set][m.metric.name]
            assert m.errors["mse"].point == mse and m.errors["mae"].point == mae


def test_per_set_statistics_match_an_independent_computation(analysis):
    sets = np.array(SETS)
    for view in analysis.by_set:
        at = np.flatnonzero(sets == view.set)
        h, b, o = HUMAN[at], BASE[at], OTHER[at]
        # Each part is resampled on its own pairs with the same B and seed.
        idx = np.random.default_rng(3).integers(0, at.size, size=(40, at.size))
        base, other = view.analysis.metrics
        assert other.errors["mse"].mean == pytest.approx(np.mean(((o - h)[idx] ** 2).mean(axis=1)))
        assert base.errors["mae"].mean == pytest.approx(np.mean(np.abs((b - h)[idx]).mean(axis=1)))
        rho = stats.spearmanr(o, h).statistic
        assert other.correlations["spearman"].value == pytest.approx(rho)
        p_t = stats.ttest_rel((o - h) ** 2, (b - h) ** 2).pvalue
        assert other.comparison["mse"].p_paired_t == pytest.approx(p_t)
        b_boot = np.mean(((b - h)[idx] ** 2).mean(axis=1))
        o_boot = np.mean(((o - h)[idx] ** 2).mean(axis=1))
        assert other.comparison["mse"].improvement_pct == pytest.approx(
            100 * (b_boot - o_boot) / b_boot
        )
        assert base.comparison is None


def test_leave_one_set_out_uses_every_other_set(analysis):
    assert [(v.set, v.pairs) for v in analysis.leave_one_out] == [("a", 8), ("b", 8), ("c", 8)]
    without_a = analysis.leave_one_out[0].analysis
    assert without_a.sets == ["b", "c"]
    # MSE of "base" on sets b and c: (17/256 * 4 + 25/256 * 4) / 8.
    assert without_a.metrics[0].errors["mse"].point == 21 / 256
    at = np.arange(4, 12)
    rho = stats.spearmanr(OTHER[at], HUMAN[at]).statistic
    assert without_a.metrics[1].correlations["spearman"].value == pytest.approx(rho)
    # The parts carry no parts of their own, and the whole is unchanged by them.
    assert without_a.by_set == [] and without_a.leave_one_out == []
    assert analysis.metrics[0].errors["mse"].point == pytest.approx(np.mean((BASE - HUMAN) ** 2))


def test_two_sets_have_no_leave_one_out_and_one_set_no_parts():
    two = analyze(ratings(SETS[:8], HUMAN[:8]), scores(BASE[:8], OTHER[:8]), baseline="base")
    assert [v.set for v in two.by_set] == ["a", "b"] and two.leave_one_out == []
    one = analyze(ratings(SETS[:4], HUMAN[:4]), scores(BASE[:4], OTHER[:4]), baseline="base")
    assert one.by_set == [] and one.leave_one_out == []
    assert "Each set on its own" not in render_markdown(one, "x")


def test_a_part_that_cannot_be_analysed_says_why_and_the_rest_stands():
    # Set "z" has one pair; in set "b" the baseline is exact, so no relative improvement.
    sets = ["a", "a", "a", "b", "b", "z"]
    human = np.array([0.0, 0.5, 1.0, 0.25, 0.75, 0.5])
    base = np.array([0.5, 0.5, 0.5, 0.25, 0.75, 0.0])
    other = np.array([0.0, 0.25, 1.0, 0.5, 0.5, 0.5])
    result = analyze(ratings(sets, human), scores(base, other), resamples=40, baseline="base")
    views = {v.set: v for v in result.by_set}
    assert views["a"].analysis is not None
    assert views["z"].analysis is None and views["z"].reason == "1 pair: too few for statistics"
    assert views["b"].analysis is None and "baseline error is 0" in views["b"].reason
    md = render_markdown(result, "x")
    assert "- z (1 pair): no analysis, 1 pair: too few for statistics." in md
    lines = summary_lines(result)
    assert "set z (1 pair): 1 pair: too few for statistics" in lines


def test_repeated_pairs_whose_distinct_pairs_cannot_be_analysed_say_why():
    # Pair p0 rated 0.25 and 0.75, pair p2 rated 0: per row the baseline (0.5, 0.5, 0)
    # errs, but on the distinct pairs (0.5 and 0) it is exact, so no relative improvement.
    rows = HumanRatings(
        ["p0", "p1", "p2"], ["a"] * 3, ["get name", "get name", "run"],
        ["fetch name", "fetch name", "go"], np.array([0.25, 0.75, 0.0]), [], None,
    )  # fmt: skip
    result = analyze(rows, scores([0.5, 0.5, 0.0], [0.375, 0.375, 0.25]), baseline="base")
    assert result.metrics[0].errors["mse"].point == 0.125 / 3
    assert result.metrics[1].errors["mse"].point == (0.015625 + 0.140625 + 0.0625) / 3
    assert result.deduplicated is None and "baseline error is 0" in result.deduplicated_reason
    assert result.as_dict()["deduplicated_reason"] == result.deduplicated_reason
    # One distinct pair: too few, said the same way as for a set of one pair.
    one = select(rows, [0, 1])
    result = analyze(one, scores([0.5, 0.5], [0.375, 0.375]), baseline="base", resamples=40)
    assert result.deduplicated is None
    assert result.deduplicated_reason == "1 distinct pair: too few for statistics"
    assert result.metrics[1].errors["mae"].point == 0.25
    assert "too few for statistics." in render_markdown(result, "x")


def test_sheet_ratings_per_set_keep_only_that_sets_raters():
    nan = np.nan
    by_rater = np.array(
        [
            [0.2, 0.4, 0.9, nan, nan, nan],
            [0.3, 0.4, 0.7, nan, nan, nan],
            [nan, nan, nan, 0.1, 0.6, 0.8],
            [nan, nan, nan, 0.0, 0.5, 1.0],
        ]
    )
    sets = ["1", "1", "1", "2", "2", "2"]
    r = ratings(sets, np.nanmean(by_rater, axis=0), by_rater, ["s1-r1", "s1-r2", "s2-r1", "s2-r2"])
    part = select(r, [3, 4, 5])
    assert part.raters == ["s2-r1", "s2-r2"] and part.by_rater.shape == (2, 3)
    m = np.array([0.3, 0.4, 0.8, 0.0, 0.5, 0.9])
    result = analyze(r, {"m": MetricScores("m", m, "m|v:0")}, resamples=40, baseline=None)
    second = result.by_set[1].analysis
    assert second.agreement.raters == ["s2-r1", "s2-r2"]
    assert second.agreement.alpha == pytest.approx(krippendorff_alpha_interval(by_rater[2:, 3:]))
    md = render_markdown(result, "x")
    assert "Agreement between raters:" in md


def test_report_files_carry_every_part(analysis, tmp_path):
    out = write_report(tmp_path / "r", analysis, "fixture")
    data = json.loads((out / "report.json").read_text())
    assert data["sets"] == ["a", "b", "c"]
    assert [v["set"] for v in data["by_set"]] == ["a", "b", "c"]
    b = data["by_set"][1]["analysis"]
    assert b["pairs"] == 4 and b["metrics"][0]["errors"]["mse"]["point"] == 17 / 256
    assert len(b["metrics"][0]["bootstrap"]["mse"]) == 40
    without_c = data["leave_one_set_out"][2]
    assert without_c["set"] == "c" and without_c["pairs"] == 8 and without_c["reason"] is None
    md = (out / "report.md").read_text()
    assert "## Each set on its own" in md and "## Leaving one set out" in md
    # The set, its size, the metric, ..., MSE and MAE on all its pairs (17/256, 7/32).
    row = next(x for x in md.splitlines() if x.startswith("| b | 4 | base | "))
    assert row.endswith("| 0.0664 | 0.2188 |")
    assert "| Without | Pairs | Metric | Error | Improvement |" in md


def test_summary_lines_list_each_part(analysis):
    lines = summary_lines(analysis)
    assert lines[0].startswith("base: MSE ") and re.search(
        r"MSE \d+\.\d\d% (lower|higher) than base", lines[1]
    )
    at = lines.index("set a (4 pairs):")
    other = analysis.by_set[0].analysis.metrics[1]
    mse = other.errors["mse"].mean
    assert lines[at + 2].startswith(f"  other  MSE {mse:.4f}  MAE ")
    assert "without c (8 pairs):" in lines


def test_published_pairs_may_name_their_set(tmp_path):
    (tmp_path / "all.csv").write_text(
        "set,reference,prediction,score\nA,get x,x,5\nB,run,go,10\nA,size,count,0\n"
    )
    (tmp_path / "more.csv").write_text("get y,y,2\n")
    r = load_published_pairs([tmp_path], scale=10)
    assert r.sets == ["A", "B", "A", "more"]
    assert r.ids == ["all:2", "all:3", "all:4", "more:1"]
    assert r.human.tolist() == [0.5, 1.0, 0.0, 0.2]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("reference,prediction,score,set\nget x,x,5,\n", r"a.csv:2: empty set"),
        ("reference,prediction,score,set\nget x,x,5\n", r"a.csv:2: 3 fields, expected "
         "reference,prediction,score,set"),
        ("get x,x,5,A\n", "a.csv:1: 4 fields, expected reference,prediction,score$"),
    ],
)  # fmt: skip
def test_bad_set_columns(tmp_path, text, message):
    (tmp_path / "a.csv").write_text(text)
    with pytest.raises(WrdscoreError, match=message):
        load_published_pairs([tmp_path / "a.csv"], scale=10)
