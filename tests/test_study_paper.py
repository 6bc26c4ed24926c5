"""Reproduce the WRDScore paper's Table 1 (ROUGE-1 column) from its published ratings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rouge_score import rouge_scorer

from wrdscore.embeddings import default_model_path
from wrdscore.human_eval import analyze_study, load_published_pairs

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wrdscore-human"

pytestmark = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"published ratings not found at {DATA} (shared/ beside the repo)"
)


@pytest.fixture(scope="module")
def rouge_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper") / "report"
    analysis = analyze_study(out, pairs=[DATA], scale=10, metrics=["rouge1"], baseline="rouge1")
    return analysis, json.loads((out / "report.json").read_text())


def test_published_data_shape():
    ratings = load_published_pairs([DATA], scale=10)
    assert len(ratings) == 150 and sorted(set(ratings.sets)) == ["set1_res", "set2_res", "set3_res"]
    assert ratings.human.min() >= 0 and ratings.human.max() <= 1


def test_rouge1_without_bootstrap_matches_the_paper(rouge_report):
    analysis, _ = rouge_report
    errors = analysis.metrics[0].errors
    assert round(errors["mse"].point, 4) == 0.0809
    assert round(errors["mae"].point, 4) == 0.2181
    # The same numbers from the rouge-score package (no stemming), independently of wrdscore.
    ratings = analysis.ratings
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    f = np.array(
        [
            scorer.score(r, p)["rouge1"].fmeasure
            for r, p in zip(ratings.references, ratings.predictions, strict=True)
        ]
    )
    assert errors["mse"].point == pytest.approx(np.mean((f - ratings.human) ** 2), abs=1e-12)


def test_rouge1_bootstrap_agrees_with_the_paper_within_its_noise(rouge_report):
    analysis, report = rouge_report
    assert report["bootstraps"] == 100
    mse, mae = analysis.metrics[0].errors["mse"], analysis.metrics[0].errors["mae"]
    assert mse.low <= 0.0817 <= mse.high and mae.low <= 0.2213 <= mae.high
    # The paper's bootstrap means differ from ours only by resampling noise: well inside
    # one bootstrap standard deviation.
    boot = np.array(report["metrics"][0]["bootstrap"]["mse"])
    assert abs(mse.mean - 0.0817) < boot.std()


def test_deduplicated_figure_is_reported(rouge_report):
    analysis, report = rouge_report
    assert len(analysis.deduplicated.ratings) == 146
    assert report["deduplicated"]["pairs"] == 146


@pytest.mark.skipif(
    not (default_model_path() / "model.json").is_file(), reason="bundled default model missing"
)
def test_wrdscore_on_the_bundled_default_beside_rouge1(tmp_path):
    analysis = analyze_study(
        tmp_path / "r", pairs=[DATA], scale=10, metrics=["rouge1", "wrd"], baseline="rouge1"
    )
    rouge, wrd = analysis.metrics
    assert wrd.metric.label == "WRDScore F1" and "emb:" in wrd.metric.signature
    # The bundled default was chosen to beat ROUGE-1 on these ratings (see the README).
    assert wrd.errors["mse"].point < rouge.errors["mse"].point
    assert wrd.comparison["mse"].improvement_pct > 0


def test_each_paper_set_on_its_own_and_left_out(rouge_report):
    analysis, report = rouge_report
    assert [(v.set, v.pairs) for v in analysis.by_set] == [
        ("set1_res", 50),
        ("set2_res", 50),
        ("set3_res", 50),
    ]
    per_pair = report["per_pair"]
    sets, human = np.array(per_pair["set"]), np.array(per_pair["human"])
    rouge = np.array(per_pair["rouge1"])
    for view, expected in zip(analysis.by_set, [0.0880, 0.0903, 0.0645], strict=True):
        mask = sets == view.set
        mse = view.analysis.metrics[0].errors["mse"].point
        assert mse == pytest.approx(np.mean((rouge[mask] - human[mask]) ** 2), abs=1e-12)
        assert round(mse, 4) == expected
    for view in analysis.leave_one_out:
        mask = sets != view.set
        assert view.pairs == 100
        mse = view.analysis.metrics[0].errors["mse"].point
        assert mse == pytest.approx(np.mean((rouge[mask] - human[mask]) ** 2), abs=1e-12)
