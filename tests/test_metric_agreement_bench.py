"""benchmarks/metric_agreement.py: each metric's scores as the library gives them, on
hand-written Java and made-up ratings (no shared ratings are read)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import metric_agreement as bench
from code_agreement import Rows

from tests.test_code_agreement_bench import CODE, SUMMARIES
from wrdscore.metrics import get_metric

REFERENCES = ["Sums the prices.", "Whether there is nothing.", "Closes the given reader."]


@pytest.fixture(scope="module")
def rows() -> Rows:
    # Two summaries a method (the true one, then another method's), so that the interval
    # over methods has rows to resample.
    summary = SUMMARIES + SUMMARIES[1:] + SUMMARIES[:1]
    return Rows(
        method=np.array([0, 1, 2, 0, 1, 2]),
        summary=summary,
        reference=REFERENCES * 2,
        code=CODE * 2,
        rating=np.array([90.0, 80.0, 85.0, 20.0, 30.0, 10.0]),
    )


def test_scores_are_the_librarys(rows):
    got = bench.metric_scores(rows, "wrd")
    wrd = get_metric("wrd", target="summary")
    assert got["reference"] == pytest.approx(wrd.score(rows.reference, rows.summary).f1)
    both = wrd.score(rows.reference, rows.summary, code=rows.code)
    assert got["code"] == pytest.approx(both.code)
    assert got["combined"] == pytest.approx(both.combined)


def test_a_metric_that_cannot_read_code_has_its_reference_value_only(rows):
    got = bench.metric_scores(rows, "chrf")
    assert list(got) == ["reference"]
    chrf = get_metric("chrf").score(rows.reference, rows.summary)
    assert got["reference"] == pytest.approx(chrf.values[chrf.primary])


def test_table_rows_and_their_spearman(rows):
    measured = bench.table(rows, ["wrd", "bleu"])
    assert [(r["metric"], r["part"]) for r in measured] == [
        ("wrd", "reference"),
        ("wrd", "code"),
        ("wrd", "combined"),
        ("bleu", "reference"),
    ]
    code = bench.metric_scores(rows, "wrd")["code"]
    assert measured[1]["spearman"] == pytest.approx(spearmanr(code, rows.rating).statistic)
    # The true summaries are the ones rated high: the code support ranks them so.
    assert measured[1]["spearman"] > 0.5
    assert measured[0]["diff"] == 0.0
