"""wrdscore.signals: the rating-free signals of issue 26.

The split is deterministic and disjoint; each signal's arithmetic is checked on a tiny
hand-made input against an independent computation (AUC and MRR by hand).
"""

from __future__ import annotations

import numpy as np
import pytest
from corpus_fixtures import method_record, write_records

from wrdscore import signals as sig
from wrdscore.errors import WrdscoreError

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


def test_auc_needs_both_kinds():
    with pytest.raises(WrdscoreError, match="needs positives and negatives, got 2 and 0"):
        sig.auc([0.1, 0.2], [])


def test_read_renames_reads_pairs_and_refuses_a_bad_line(tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("index\tidx\nuser name\tlogin\n", encoding="utf-8")
    assert sig.read_renames(path) == [("index", "idx"), ("user name", "login")]
    path.write_text("index\tidx\nno tab here\n", encoding="utf-8")
    with pytest.raises(WrdscoreError, match=r"r.tsv:2: expected old<TAB>new, got 'no tab here'"):
        sig.read_renames(path)
    with pytest.raises(WrdscoreError, match="cannot read renames"):
        sig.read_renames(tmp_path / "none.tsv")


def test_rank_first_by_hand_with_hard_negatives():
    scores = [np.array([0.5, 0.9, 0.5, 0.1]), np.array([0.7, 0.7])]
    hard = [[True, True, False], [True]]
    r = sig.rank_first(scores, hard)
    # First query: one above, one tied, one below -> rank 2.5, wins 0 + 0.5 + 1.
    # Second: tied with its one -> rank 1.5, wins 0.5.
    assert r.mrr == pytest.approx((1 / 2.5 + 1 / 1.5) / 2)
    assert r.auc == pytest.approx(2.0 / 4)
    assert r.auc_hard == pytest.approx(1.0 / 3)  # 0 + 0.5 + 0.5 over three hard pairs
    assert (r.queries, r.comparisons, r.hard_comparisons) == (2, 4, 3)
    assert np.isnan(sig.rank_first(scores).auc_hard)


@pytest.mark.parametrize(
    ("scores", "hard", "message"),
    [
        ([], None, "at least one query"),
        ([np.array([0.5])], None, "query 1: 0 other candidates"),
        ([np.array([0.5, 0.1])], [[True], [False]], "1 queries but hard flags for 2"),
        ([np.array([0.5, 0.1])], [[True, False]], "query 1: 1 other candidates and 2 hard"),
    ],
)
def test_rank_first_refuses_malformed_input(scores, hard, message):
    with pytest.raises(WrdscoreError, match=message):
        sig.rank_first(scores, hard)
