"""Stratified design and the study folder: strata, no repeats, shortfalls, blind sheets."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import (
    DEFAULT_STRATA,
    distinct_pairs,
    parse_stratum,
    read_study,
    stratified_design,
    write_study,
)

N = 600
RNG = np.random.default_rng(7)
SCORES = {"wrd": RNG.random(N), "rouge1": RNG.random(N)}


def test_parse_stratum_round_trips_and_names_conditions():
    s = parse_stratum("10:wrd>=0.8, wrd<=1 ,rouge1<0.5")
    assert s.size == 10 and s.name == "wrd>=0.8,wrd<=1,rouge1<0.5"
    assert parse_stratum(s.spec) == s
    assert parse_stratum("7").name == "random" and parse_stratum("7").spec == "7"
    assert [x.spec for x in DEFAULT_STRATA][1] == "10:wrd>=0,wrd<0.2"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("x", "positive whole SIZE"),
        ("0", "positive"),
        ("5:wrd=0.3", "not METRIC OP NUMBER"),
        ("10:", r"no condition after ':' \(write 10 alone for a random stratum\)"),
        ("10: ", "no condition after ':'"),
        ("10:>=0.5", "condition '>=0.5' is not METRIC OP NUMBER"),
        ("10:wrd>=0.8,", "condition '' is not METRIC OP NUMBER"),
    ],
)
def test_bad_stratum_is_a_clear_error(spec, message):
    with pytest.raises(WrdscoreError, match=message):
        parse_stratum(spec)


def test_default_design_follows_the_paper_protocol():
    design = stratified_design(SCORES, np.arange(N), 3, DEFAULT_STRATA, seed=1)
    assert design.shortfalls == []
    drawn = [i for s in design.sets for i, _ in s]
    assert len(drawn) == 150 and len(set(drawn)) == 150
    for members in design.sets:
        by_stratum: dict[str, list[int]] = {}
        for i, name in members:
            by_stratum.setdefault(name, []).append(i)
        assert {k: len(v) for k, v in by_stratum.items()} == {s.name: 10 for s in DEFAULT_STRATA}
        wrd = SCORES["wrd"][by_stratum["wrd>=0.2,wrd<0.5"]]
        assert np.all((wrd >= 0.2) & (wrd < 0.5))
        top = by_stratum["wrd>=0.8,wrd<=1,rouge1<0.5"]
        assert np.all(SCORES["wrd"][top] >= 0.8) and np.all(SCORES["rouge1"][top] < 0.5)


def test_design_is_deterministic_per_seed():
    a = stratified_design(SCORES, np.arange(N), 3, DEFAULT_STRATA, seed=5)
    b = stratified_design(SCORES, np.arange(N), 3, DEFAULT_STRATA, seed=5)
    c = stratified_design(SCORES, np.arange(N), 3, DEFAULT_STRATA, seed=6)
    assert a == b and a != c


def test_scarce_stratum_is_shared_evenly_and_reported():
    scores = {"wrd": np.array([0.9, 0.95, 0.99, 0.1, 0.2, 0.3, 0.4, 0.5])}
    strata = [parse_stratum("2:wrd>=0.8"), parse_stratum("1")]
    design = stratified_design(scores, np.arange(8), 2, strata, seed=0)
    top = [[i for i, s in members if s == "wrd>=0.8"] for members in design.sets]
    assert sorted(len(t) for t in top) == [1, 2]
    assert [(s.stratum, s.wanted, s.got) for s in design.shortfalls] == [("wrd>=0.8", 2, 1)]
    with pytest.raises(WrdscoreError, match="needs 2 pairs, only 1 left"):
        stratified_design(scores, np.arange(8), 2, strata, seed=0, strict=True)


def test_a_set_without_pairs_is_an_error():
    scores = {"wrd": np.array([0.1, 0.2, 0.3])}
    with pytest.raises(WrdscoreError, match="set 2 got no pairs"):
        stratified_design(scores, np.arange(3), 2, [parse_stratum("5:wrd<0.15")])


def test_design_needs_the_scores_its_strata_name():
    with pytest.raises(WrdscoreError, match=r"of metric rouge1$"):
        stratified_design({"wrd": SCORES["wrd"]}, np.arange(N), 1, DEFAULT_STRATA)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 4), st.integers(1, 30))
def test_no_pair_is_drawn_twice(seed, n_sets, size):
    strata = [parse_stratum(f"{size}"), parse_stratum(f"{size}:wrd<0.5")]
    design = stratified_design(SCORES, np.arange(0, N, 3), n_sets, strata, seed=seed)
    drawn = [i for s in design.sets for i, _ in s]
    assert len(drawn) == len(set(drawn)) and all(i % 3 == 0 for i in drawn)


def test_distinct_pairs_compares_sub_tokens():
    refs = ["getName", "get name", "run", "getName"]
    preds = ["name", "name", "go", "fetchName"]
    assert distinct_pairs(refs, preds).tolist() == [0, 2, 3]


def _small_study(tmp_path, raters=2):
    refs = [f"get item{i}" for i in range(24)]
    preds = [f"fetch item{i}" if i % 2 else f"get item{i}" for i in range(24)]
    scores = {"wrd": np.linspace(0, 1, 24)}
    strata = [parse_stratum("2"), parse_stratum("2:wrd>=0.5")]
    design = stratified_design(scores, np.arange(24), 2, strata, seed=3)
    out = write_study(tmp_path / "study", refs, preds, design, scores, strata, raters=raters)
    return out, design


def test_study_folder_layout_and_blind_sheets(tmp_path):
    out, _ = _small_study(tmp_path)
    meta = json.loads((out / "study.json").read_text())
    assert meta["sets"] == 2 and meta["raters"] == 2 and meta["scale"] == 10
    assert meta["strata"] == ["2", "2:wrd>=0.5"]
    study = read_study(out)
    assert len(study.pairs) == 8 and {p.set for p in study.pairs} == {"1", "2"}
    pairs_csv = list(csv.reader((out / "pairs.csv").open()))
    assert pairs_csv[0] == ["id", "set", "stratum", "reference", "prediction", "wrd"]
    sheet = (out / "sheets" / "set1-rater1.csv").read_text().splitlines()
    comments = [line for line in sheet if line.startswith("#")]
    assert any("0 (unrelated) to 10 (same meaning)" in c for c in comments)
    body = list(csv.reader(line for line in sheet if not line.startswith("#")))
    assert body[0] == ["id", "reference", "prediction", "score"]
    assert all(row[3] == "" for row in body[1:]) and len(body) == 5
    text = "\n".join(sheet)
    assert "wrd>=" not in text and "random" not in text
    assert not any(row[5] in text for row in pairs_csv[1:])
    rows1 = [r[0] for r in body[1:]]
    rows2 = [
        r[0]
        for r in csv.reader(
            line
            for line in (out / "sheets" / "set1-rater2.csv").read_text().splitlines()
            if not line.startswith("#")
        )
    ][1:]
    assert sorted(rows1) == sorted(rows2)
    assert sorted((out / "forms").iterdir()) == sorted(
        out / "forms" / f"set{k}-rater{r}.html" for k in (1, 2) for r in (1, 2)
    )


def test_study_ids_do_not_follow_the_strata(tmp_path):
    refs = [f"a{i}" for i in range(200)]
    scores = {"wrd": np.linspace(0, 1, 200)}
    strata = [parse_stratum("20:wrd<0.5"), parse_stratum("20:wrd>=0.5")]
    design = stratified_design(scores, np.arange(200), 1, strata, seed=0)
    out = write_study(tmp_path / "s", refs, refs, design, scores, strata, raters=1)
    order = [p.stratum for p in read_study(out).pairs]
    # Numbered after a shuffle: the first 20 ids are not all from the first stratum.
    assert len(set(order[:20])) == 2


def test_read_study_errors(tmp_path):
    with pytest.raises(WrdscoreError, match="not a study folder"):
        read_study(tmp_path)
    out, _ = _small_study(tmp_path)
    (out / "study.json").write_text('{"format": "other", "scale": 10}')
    with pytest.raises(WrdscoreError, match="expected wrdscore-study/2"):
        read_study(out)


def test_write_study_refuses_an_existing_folder(tmp_path):
    _small_study(tmp_path)
    with pytest.raises(WrdscoreError, match="already exists"):
        _small_study(tmp_path)
