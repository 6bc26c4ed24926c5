"""scripts/default_signals.py: the rating-free signals of issue 26.

The split is deterministic and disjoint; each signal's arithmetic is checked on a tiny
hand-made input against an independent computation (AUC and MRR by hand).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import skip_unless_ci
from corpus_fixtures import load_script, method_record, run_script, write_records

from wrdscore import get_metric

ROOT = Path(__file__).resolve().parents[1]
# The project's shared data, beside the checkout (CI has it there; a fresh clone may not).
RENAMES = ROOT.parent / "shared" / "data" / "varclr-renames" / "renames.tsv"
NO_RENAMES = skip_unless_ci(not RENAMES.is_file(), "the shared renames are not beside the checkout")


sig = load_script("default_signals")

PAIRS = [
    ("index", "idx"),
    ("idx", "index"),  # the same pair reversed: kept once
    ("key type", "val type"),
    ("count", "size"),
    ("count", "size"),  # repeated
    ("user name", "login"),
    ("file path", "path"),
    ("buffer", "buf"),
    ("max value", "upper bound"),
] + [(f"name {i}", f"label {i}") for i in range(40)]


def _unordered(pairs):
    return {frozenset(p) for p in pairs}


def test_the_split_is_deterministic_disjoint_and_covers_every_distinct_pair():
    tune, test = sig.split_renames(PAIRS)
    assert sig.split_renames(PAIRS) == (tune, test)
    assert not _unordered(tune) & _unordered(test)
    assert _unordered(tune) | _unordered(test) == _unordered(PAIRS)
    assert len(tune) + len(test) == len(_unordered(PAIRS))  # each pair once
    assert tune and test  # about one in five of 47 is held out
    # A pair's side depends on neither its order nor the rest of the file.
    assert _unordered(sig.split_renames(reversed(PAIRS))[1]) == _unordered(test)
    for a, b in PAIRS:
        assert sig.held_out(a, b) == sig.held_out(b, a) == (frozenset((a, b)) in _unordered(test))


@NO_RENAMES
def test_the_recorded_held_out_part_of_the_real_renames():
    tune, test = sig.split_renames(sig.read_renames(RENAMES))
    assert (len(tune), len(test)) == (47687, 11813)
    assert sig.pairs_sha256(test) == sig.HELD_OUT_SHA256


@NO_RENAMES
def test_the_bundled_defaults_rename_and_case_signals():
    # The chosen candidate's numbers in the model card's table (scripts/default_signals.py).
    renames = sig.read_renames(RENAMES)
    _, test = sig.split_renames(renames)
    random = sig.negative_pairs(test, renames, related=False)
    related = sig.negative_pairs(test, renames, related=True)
    assert (len(random), len(related)) == (11813, 9995)
    metric = get_metric("wrd")
    a_rand, a_rel = sig.rename_aucs(metric, test, random, related)
    assert (round(a_rand, 3), round(a_rel, 3)) == (0.837, 0.532)
    syn, opp = sig.pair_values(metric, sig.SYNONYMS), sig.pair_values(metric, sig.OPPOSITES)
    assert (round(sig.auc(syn, opp), 3), round(syn.mean() - opp.mean(), 3)) == (0.6, 0.063)
    rouge = get_metric("rouge1")
    assert tuple(round(x, 3) for x in sig.rename_aucs(rouge, test, random, related)) == (
        0.788,
        0.458,
    )


def test_negative_pairs_follow_their_rules():
    positives = [("file path", "path"), ("dir path", "folder"), ("user name", "login")]
    positives += [("name", "user id"), ("max value", "upper bound")]
    known = [*positives, ("user name", "user id")]
    news = {b for _, b in positives}
    for related in (False, True):
        negs = sig.negative_pairs(positives, known, related=related)
        assert negs == sig.negative_pairs(positives, known, related=related)
        for a, c in negs:
            b = dict(positives)[a]
            assert c in news and c not in (a, b) and frozenset((a, c)) not in _unordered(known)
    # One random partner for every positive; one related pair only: "file path" shares
    # "path" with its own new name, and "user name"/"user id" is a known rename.
    assert len(sig.negative_pairs(positives, known, related=False)) == len(positives)
    assert sig.negative_pairs(positives, known, related=True) == [("dir path", "path")]


@pytest.mark.parametrize("seed", range(5))
def test_auc_counts_every_positive_negative_pair_ties_half(seed):
    rng = np.random.default_rng(seed)
    # Rounded, so ties between positives and negatives occur.
    pos, neg = rng.random(7).round(1), rng.random(11).round(1)
    wins = [1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg]
    assert sig.auc(pos, neg) == pytest.approx(np.mean(wins))


def test_retrieval_by_hand():
    # Two queries: own summary first, then the class's others.
    queries = [sig.Query("a", ("s1", "s2", "s3")), sig.Query("b", ("t1", "t2"))]
    scores = {("a", "s1"): 0.5, ("a", "s2"): 0.9, ("a", "s3"): 0.5, ("b", "t1"): 0.7}
    result = sig.retrieval(
        queries, lambda r, p: np.array([scores.get((x, y), 0.1) for x, y in zip(r, p, strict=True)])
    )
    # a: one above, one tied -> rank 2.5; b: first -> rank 1.
    assert result.mrr == pytest.approx((1 / 2.5 + 1 / 1) / 2)
    # Comparisons: a beats none, ties one (0.5 of 2); b beats its one other: 1.5 of 3.
    assert result.auc == pytest.approx(1.5 / 3)
    assert (result.queries, result.comparisons) == (2, 3)


def test_retrieval_queries_from_a_corpus(tmp_path):
    recs = [
        method_record("getWidth", "Shape", "Returns the width."),
        method_record("getHeight", "Shape", "Returns the height."),
        method_record("getHeight", "Shape", "Returns the height in pixels."),  # overload
        method_record("area", "Shape"),  # no summary: no query, no candidate
        method_record("testWidth", "Shape", "Checks the width."),  # test code
        method_record("close", "Door", "Closes the door."),  # alone in its class
    ]
    queries = sig.retrieval_queries(write_records(tmp_path / "c", recs))
    got = {(q.name, q.candidates) for q in queries}
    assert got == {
        (
            "getWidth",
            ("Returns the width.", "Returns the height.", "Returns the height in pixels."),
        ),
        ("getHeight", ("Returns the height.", "Returns the width.")),
        ("getHeight", ("Returns the height in pixels.", "Returns the width.")),
    }


def test_the_choice_rule_ranks_by_mean_rank_and_keeps_the_first_of_equals():
    line = sig.choice({"a": [0.8, 0.5, 0.6], "b": [0.7, 0.9, 0.7], "c": [0.9, 0.4, 0.5]})
    # ranks: a 2, 2, 2 -> 2.00; b 3, 1, 1 -> 1.67; c 1, 3, 3 -> 2.33
    assert "a 2.00, b 1.67, c 2.33" in line and "chosen: **b**" in line
    assert "chosen: **a**" in sig.choice({"a": [0.5, 0.5], "b": [0.5, 0.5]})


def test_a_missing_renames_file_is_one_error_line(tmp_path):
    result = run_script("default_signals.py", "default", "--renames", str(tmp_path / "no.tsv"))
    assert result.returncode == 1
    assert result.stderr.strip() == f"error: {tmp_path / 'no.tsv'} is not a file (give --renames)"


def test_trained_cases_names_the_cases_among_a_models_pairs(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "kind\ta\tb\tsupport\n"
        "contrast\tset\tget\t9\n"  # either order
        "synonym\tsize\tcount\t3\n"
        "synonym\tfind\tsearch\t2\n",  # not a case
        encoding="utf-8",
    )
    assert sig.trained_cases(pairs) == ["size/count synonym", "get/set contrast"]


def test_a_reported_label_must_be_a_models(tmp_path):
    renames = tmp_path / "r.tsv"
    renames.write_text("a\tb\n")
    done = run_script(
        "default_signals.py", "default", "--renames", str(renames), "--reported", "nope"
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "error: --reported 'nope' is not one of the models' labels\n"
