"""benchmarks/code_agreement.py: its candidates' formulas against the library and against
their definitions, on hand-written Java (no shared ratings are read)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import code_agreement as bench

from wrdscore.corpora import ROLES, read_code_and_language
from wrdscore.metrics import get_metric

CODE = [
    "int computeTotal(List<Item> items) { int total = 0; "
    "for (Item item : items) total += item.price(); return total; }",
    "boolean isEmpty() { return count == 0; }",
    "void close(Reader reader) { if (reader != null) reader.close(); }",
]
SUMMARIES = [
    "Computes the total price of the items.",
    "Tells whether the count is zero.",
    "Closes the reader when there is one.",
]


@pytest.fixture(scope="module")
def every():
    lifts = dict.fromkeys(ROLES, 1.0)
    return bench.supports(SUMMARIES, CODE, "summary", wanted=["D1", "R1", "R2", "H1", "H2"],
                          lifts=lifts)  # fmt: skip


def test_d1_is_the_shipped_default(every):
    # The prototype reads the code unsegmented; this code has no run-together word, so
    # the library's distinct-coverage (wrd's default) scores the same.
    shipped = get_metric("wrd", target="summary").score(None, SUMMARIES, code=CODE)
    assert shipped.values["code"] == pytest.approx(every["D1"], abs=1e-9)
    assert (every["D1"] > 0).all()


def test_role_weights_of_one_are_d1(every):
    # Every lift 1: each code token weighs its mass, D1's recall exactly.
    assert every["R1"] == pytest.approx(every["D1"], abs=1e-12)
    assert every["R2"] == pytest.approx(every["D1"], abs=1e-12)


def test_role_weights_read_the_roles():
    lifts = {r: float(i + 1) for i, r in enumerate(ROLES)}
    mean, largest = bench.role_weights(CODE[0], lifts)
    tokens = read_code_and_language(CODE[0], target="summary", language="java")[0]
    assert set(mean) == set(tokens)
    # `total` is written, returned and a local: the mean and the largest of their lifts.
    roles = ("returned", "written", "local")
    assert mean["total"] >= min(lifts[r] for r in roles)
    assert largest["total"] >= max(lifts[r] for r in roles)
    assert largest["total"] >= mean["total"]
    assert bench.role_weights("int broken( {", lifts) is None


def test_floorless_candidates_differ_from_d1_and_stay_in_range(every):
    for key in ("H1", "H2"):
        assert np.isfinite(every[key]).all()
        assert ((every[key] >= 0) & (every[key] <= 1)).all()
        assert not np.allclose(every[key], every["D1"])
    # Removing the unrelated words' floor can only lower a cosine: H2 is at most D1.
    assert (every["H2"] <= every["D1"] + 1e-12).all()


def test_distinct_f_by_hand():
    # Two code tokens (masses 1 and 3), two predicted tokens, the second said twice.
    cos = np.array([[1.0, 0.0, 0.0], [0.5, 0.2, 0.2]])
    rows = np.array([0, 1])
    pair = bench.Pair(None, cos, rows, np.array([2, 3, 3]), rows, rows, rows, np.array([1.0, 3.0]))
    s_d = (1.0 + 0.2) / 3
    r_d = (1 * 1.0 + 3 * 0.5) / 4
    assert bench._distinct_f(pair) == pytest.approx(2 * s_d * r_d / (s_d + r_d))
