"""scripts/tune_card.py: the paired bootstrap of tuned minus untuned, and its errors."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from corpus_fixtures import run_script
from scipy.stats import spearmanr

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script():
    sys.path.insert(0, str(SCRIPTS))  # it imports select_default, as when run as a script
    try:
        spec = importlib.util.spec_from_file_location("tune_card", SCRIPTS / "tune_card.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(SCRIPTS))


def test_paired_bootstrap_against_a_plain_computation():
    card = load_script()
    rng = np.random.default_rng(3)
    human = rng.random(60)
    untuned = human + rng.normal(0, 0.3, 60)
    tuned = human + rng.normal(0, 0.1, 60)  # closer to people
    got = card.paired_bootstrap(tuned, untuned, human, resamples=300, seed=7)
    # Point values: the differences on all pairs, computed here independently.
    rho = spearmanr(tuned, human)[0] - spearmanr(untuned, human)[0]
    mse = np.mean((tuned - human) ** 2) - np.mean((untuned - human) ** 2)
    mae = np.mean(np.abs(tuned - human)) - np.mean(np.abs(untuned - human))
    np.testing.assert_allclose([v[0] for v in got.values()], [rho, mse, mae])
    # A clearly better scorer: every interval excludes 0 on the right side.
    assert got["spearman"][1] > 0 and got["mse"][2] < 0 and got["mae"][2] < 0
    for point, low, high in got.values():
        assert low <= point <= high
    # Same seed, same intervals; a scorer against itself differs by exactly nothing.
    assert card.paired_bootstrap(tuned, untuned, human, 300, seed=7) == got
    same = card.paired_bootstrap(untuned, untuned, human, 50)
    assert all(v == (0.0, 0.0, 0.0) for v in same.values())


def test_a_bad_candidate_is_a_one_line_error():
    done = run_script("tune_card.py", "static:untuned")
    assert done.returncode == 2
    assert done.stderr == (
        "error: 'static:untuned': expected a new static:LABEL=PATH or encoder:LABEL=PATH\n"
    )
