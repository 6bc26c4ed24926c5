"""benchmarks/similarity_candidates.py: issue 33's selection rule and its paired intervals."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import similarity_candidates as bench

UP, FLAT, DOWN = (0.05, 0.01, 0.09), (0.0, -0.01, 0.01), (-0.004, -0.006, -0.002)


@pytest.mark.parametrize(
    ("random", "related", "abbreviations", "opposites", "want"),
    [
        (UP, FLAT, FLAT, 0.7, True),  # one primary above 0, nothing below
        (FLAT, FLAT, UP, 0.7, True),
        (FLAT, FLAT, FLAT, 0.7, False),  # nothing above 0
        (UP, DOWN, UP, 0.7, False),  # related negatives wholly below: issue 33's B
        (UP, FLAT, DOWN, 0.7, False),
        (UP, FLAT, UP, 0.4, False),  # opposites closer than synonyms
    ],
)
def test_the_rule(random, related, abbreviations, opposites, want):
    diffs = {"renames, random": random, "renames, related": related, "abbreviations": abbreviations}
    assert bench.better(diffs, opposites) is want


def test_a_scorer_against_itself_differs_by_nothing():
    rng = np.random.default_rng(0)
    pos, neg = rng.random(50), rng.random(40)
    assert bench.paired((pos, pos), (neg, neg)) == (0.0, 0.0, 0.0)


def test_the_paired_interval_holds_a_clear_gain():
    rng = np.random.default_rng(0)
    pos, neg = rng.random(200), rng.random(200)
    d, lo, hi = bench.paired((pos + 0.3, pos), (neg, neg))
    assert 0 < lo < d < hi


def test_a_missing_input_is_one_error(tmp_path):
    with pytest.raises(bench.WrdscoreError, match=r"--abbreviations .* is not a file"):
        bench.main(["A=default", "--abbreviations", str(tmp_path / "none.tsv")])
