"""scripts/tune_card.py: the fold protocol, the paired bootstrap of tuned minus untuned, errors."""

from __future__ import annotations

import numpy as np
import pytest
from corpus_fixtures import load_script, run_script
from scipy.stats import spearmanr

card = load_script("tune_card")


def test_bootstrap_differences_against_a_plain_computation():
    rng = np.random.default_rng(3)
    human = rng.random(60)
    untuned = human + rng.normal(0, 0.3, 60)
    tuned = human + rng.normal(0, 0.1, 60)  # closer to people
    got = card.bootstrap_differences(tuned, untuned, human, resamples=300, seed=7)
    # The same resampled pairs for all three measures: numpy's draws for the seed, as the
    # scipy bootstrap that wrdscore.significance.paired_bootstrap runs makes them.
    draws = np.random.default_rng(7).integers(0, 60, (300, 60))

    def measures(i: np.ndarray) -> list[float]:
        t, u, h = tuned[i], untuned[i], human[i]
        return [
            spearmanr(t, h)[0] - spearmanr(u, h)[0],
            np.mean((t - h) ** 2) - np.mean((u - h) ** 2),
            np.mean(np.abs(t - h)) - np.mean(np.abs(u - h)),
        ]

    point = measures(np.arange(60))
    low, high = np.percentile([measures(i) for i in draws], [2.5, 97.5], axis=0)
    np.testing.assert_allclose(list(got.values()), np.column_stack([point, low, high]))
    # A clearly better scorer: every interval excludes 0 on the right side.
    assert got["spearman"][1] > 0 and got["mse"][2] < 0 and got["mae"][2] < 0
    # Same seed, same intervals; a scorer against itself differs by exactly nothing.
    assert card.bootstrap_differences(tuned, untuned, human, 300, seed=7) == got
    same = card.bootstrap_differences(untuned, untuned, human, 50)
    assert all(v == (0.0, 0.0, 0.0) for v in same.values())


def test_fold_choices_pick_the_best_on_the_other_sets_and_ties_go_first():
    sets = np.repeat(np.array(["a", "b", "c"]), 4)
    human = np.arange(12) / 11

    def reversed_on(name):
        out = human.copy()
        idx = np.flatnonzero(sets == name)
        out[idx] = human[idx[::-1]]
        return out

    # Each candidate is exact on two sets and ranks the third backwards.
    scores = {"good-on-ab": reversed_on("c"), "good-on-bc": reversed_on("a")}
    scores["good-on-ac"] = reversed_on("b")
    folds = card.fold_choices(scores, human, sets, list(scores))
    assert [(held, best) for held, best, _ in folds] == [
        ("a", "good-on-bc"),
        ("b", "good-on-ac"),
        ("c", "good-on-ab"),
    ]
    assert [fit for _, _, fit in folds] == pytest.approx([1.0, 1.0, 1.0])
    # Equal fits: the first listed (the untuned scorer) is chosen.
    same = {"first": human, "second": human.copy()}
    assert {best for _, best, _ in card.fold_choices(same, human, sets, ["first", "second"])} == {
        "first"
    }


def test_fold_tables_report_the_held_out_set():
    sets = np.repeat(np.array(["s1", "s2"]), 3)
    human = np.array([0.1, 0.5, 0.9, 0.2, 0.4, 0.6])
    scores = {
        "ROUGE-1 F": np.array([0.0, 0.5, 1.0, 0.3, 0.5, 0.4]),
        "x": human + 0.1,
        "y": human[::-1].copy(),
    }
    every, folds = card.fold_tables(scores, human, sets, "ROUGE-1 F")
    lines = every.splitlines()
    assert lines[0] == "| candidate | set 1 | set 2 | all 6 |"
    assert (
        lines[3]
        == "| x | 1.000 / 0.0100 / 0.1000 | 1.000 / 0.0100 / 0.1000 | 1.000 / 0.0100 / 0.1000 |"
    )
    assert lines[2].startswith(
        "| ROUGE-1 F (no embeddings) | 1.000 / 0.0067 / 0.0667 | 0.500 / 0.0200 / 0.1333 |"
    )
    rows = folds.splitlines()[2:]
    assert rows[0] == "| set 1 | x | 1.000 | 1.000 | 0.0100 | 0.1000 | 1.000 / 0.0067 / 0.0667 |"
    assert rows[1] == "| set 2 | x | 1.000 | 1.000 | 0.0100 | 0.1000 | 0.500 / 0.0200 / 0.1333 |"


def test_a_bad_candidate_is_a_one_line_error():
    done = run_script("tune_card.py", "static:untuned")
    assert done.returncode == 2
    assert done.stderr == (
        "error: 'static:untuned': expected a new static:LABEL=PATH or encoder:LABEL=PATH\n"
    )
