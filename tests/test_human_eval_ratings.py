"""Strict import of rating sheets and published pairs: every problem names file and line."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import (
    deduplicate,
    expand_ratings,
    load_published_pairs,
    load_sheet_ratings,
    parse_stratum,
    read_study,
    stratified_design,
    write_study,
)


@pytest.fixture
def study(tmp_path):
    refs = [f"get item{i}" for i in range(10)]
    preds = [f"fetch item{i}" for i in range(10)]
    strata = [parse_stratum("3")]
    design = stratified_design({}, np.arange(10), 2, strata, seed=0)
    return read_study(write_study(tmp_path / "study", refs, preds, design, {}, strata, raters=2))


def fill(study, name, scores=None, out=None, edit=None):
    """Copy the blank sheet ``name`` to ``out`` with scores filled in (by id)."""
    src = study.path / "sheets" / f"{name}.csv"
    lines = src.read_text().splitlines()
    comments = [x for x in lines if x.startswith("#")]
    rows = list(csv.reader(x for x in lines if not x.startswith("#")))
    for row in rows[1:]:
        row[3] = str((scores or {}).get(row[0], 5))
    if edit:
        edit(rows)
    target = out or (study.path.parent / "filled" / f"{name}.csv")
    target.parent.mkdir(exist_ok=True)
    with target.open("w", newline="") as fh:
        fh.write("\n".join(comments) + "\n")
        csv.writer(fh, lineterminator="\n").writerows(rows)
    return target


def all_sheets(study, **kw):
    return [fill(study, f"set{k}-rater{r}", **kw) for k in (1, 2) for r in (1, 2)]


def test_ground_truth_is_the_mean_over_raters_on_0_1(study):
    ids = {p.set: [] for p in study.pairs}
    for p in study.pairs:
        ids[p.set].append(p.id)
    a = fill(study, "set1-rater1", {i: 2 for i in ids["1"]})
    b = fill(study, "set1-rater2", {i: 7 for i in ids["1"]})
    c = fill(study, "set2-rater1", {i: 10 for i in ids["2"]})
    ratings = load_sheet_ratings(study, [a, b, c])
    assert ratings.raters == ["set1-rater1", "set1-rater2", "set2-rater1"]
    set1 = [i for i, s in enumerate(ratings.sets) if s == "1"]
    np.testing.assert_allclose(ratings.human[set1], 0.45)
    assert ratings.by_rater.shape == (3, 6)
    assert np.isnan(ratings.by_rater[2, set1]).all()


def test_spreadsheet_bom_and_crlf_are_accepted(study, tmp_path):
    sheets = all_sheets(study)
    raw = sheets[0].read_text().replace("\n", "\r\n")
    sheets[0].write_bytes(("\ufeff" + raw).encode())
    assert len(load_sheet_ratings(study, sheets)) == 6


def _bad_value(value):
    def edit(rows):
        rows[2][3] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_bad_value(""), ":7: no score given"),
        (_bad_value("good"), ":7: score 'good' is not a number"),
        (_bad_value("11"), ":7: score 11 is outside 0-10"),
        (_bad_value("-1"), ":7: score -1 is outside 0-10"),
        (_bad_value("nan"), ":7: score nan is outside"),
        (lambda rows: rows[2].__setitem__(0, "s9p999"), ":7: unknown id 's9p999'"),
        (lambda rows: rows.append(list(rows[1])), ":9: second rating of"),
        (lambda rows: rows.pop(), "no rating for 1 pair of set 1"),
        (lambda rows: rows[2].__setitem__(2, "other"), ":7: reference/prediction of"),
        (lambda rows: rows[2].append("x"), ":7: 5 fields, expected 4"),
        (lambda rows: rows[0].__setitem__(3, "rating"), ":5: expected the header"),
    ],
)
def test_bad_sheets_name_file_and_line(study, edit, message):
    sheets = all_sheets(study)
    fill(study, "set1-rater1", out=sheets[0], edit=edit)
    with pytest.raises(WrdscoreError, match=message) as err:
        load_sheet_ratings(study, sheets)
    assert "set1-rater1.csv" in str(err.value) and "\n" not in str(err.value)


def test_sheet_mixing_sets_is_an_error(study):
    sheets = all_sheets(study)
    other = next(p for p in study.pairs if p.set == "2")

    def edit(rows):
        rows.append([other.id, other.reference, other.prediction, "3"])

    fill(study, "set1-rater1", out=sheets[0], edit=edit)
    with pytest.raises(WrdscoreError, match="several sets"):
        load_sheet_ratings(study, sheets)


def test_unrated_set_and_repeated_rater_are_errors(study, tmp_path):
    sheets = all_sheets(study)
    with pytest.raises(WrdscoreError, match="no sheet for that set"):
        load_sheet_ratings(study, sheets[:2])
    copy = fill(study, "set1-rater1", out=tmp_path / "elsewhere" / "set1-rater1.csv")
    with pytest.raises(WrdscoreError, match="share the rater name set1-rater1"):
        load_sheet_ratings(study, [*sheets, copy])


def test_blank_sheet_fails_with_the_line_of_the_first_empty_score(study):
    blank = study.path / "sheets" / "set1-rater1.csv"
    with pytest.raises(WrdscoreError, match=r"set1-rater1\.csv:6: no score given"):
        load_sheet_ratings(study, [blank])


def test_expand_ratings_globs_and_falls_back_to_the_study_folder(study, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    found = expand_ratings(["sheets/*.csv"], study.path)
    assert [p.name for p in found][:2] == ["set1-rater1.csv", "set1-rater2.csv"]
    assert len(expand_ratings(["study/sheets/*.csv", "study/sheets/set1-rater1.csv"])) == 4
    with pytest.raises(WrdscoreError, match="matches no file"):
        expand_ratings(["nothing/*.csv"], study.path)


def test_published_pairs_headerless_and_with_header(tmp_path):
    (tmp_path / "a.csv").write_text("get name,name,8\nrun,go,2.5\n")
    (tmp_path / "b.csv").write_text("Score,Prediction,Reference\n10,getX,get x\n")
    ratings = load_published_pairs([tmp_path], scale=10)
    assert ratings.human.tolist() == [0.8, 0.25, 1.0]
    assert ratings.references == ["get name", "run", "get x"]
    assert ratings.predictions == ["name", "go", "getX"]
    assert ratings.ids == ["a:1", "a:2", "b:2"] and ratings.sets == ["a", "a", "b"]
    assert ratings.by_rater is None


@pytest.mark.parametrize(
    ("text", "scale", "message"),
    [
        ("get name,name,8\n", 1, "a.csv:1: score 8 is outside 0-1 \\(use --scale 10"),
        ("get name,name\n", 10, "a.csv:1: 2 fields"),
        ("x,y,1\nget name,name,lots\n", 10, "a.csv:2: score 'lots' is not a number"),
        ("x,,1\n", 10, "a.csv:1: empty reference or prediction"),
        ("\n", 10, "a.csv: no rated pairs"),
    ],
)
def test_bad_published_pairs(tmp_path, text, scale, message):
    (tmp_path / "a.csv").write_text(text)
    with pytest.raises(WrdscoreError, match=message):
        load_published_pairs([tmp_path / "a.csv"], scale=scale)


def test_published_pairs_missing_inputs(tmp_path):
    with pytest.raises(WrdscoreError, match="no such file or folder"):
        load_published_pairs([tmp_path / "nope.csv"])
    with pytest.raises(WrdscoreError, match=r"no \.csv files"):
        load_published_pairs([tmp_path])
    with pytest.raises(WrdscoreError, match="scale must be positive"):
        load_published_pairs([tmp_path], scale=0)


def test_deduplicate_averages_repeats(tmp_path):
    (tmp_path / "a.csv").write_text("get x,x,2\ngetX,x,7\nrun,go,1\nget x,x,6\n")
    distinct, kept = deduplicate(load_published_pairs([tmp_path / "a.csv"], scale=10))
    assert kept.tolist() == [0, 2]
    np.testing.assert_allclose(distinct.human, [0.5, 0.1])


def test_sheet_title_line_must_match_its_file_name_and_name_one_rater(study, tmp_path):
    # Before: a copy of set1-rater1.csv under another name counted as another rater of
    # set 1, and set 1's sheet renamed set2-rater9.csv was taken under that label.
    sheets = all_sheets(study)
    copy = fill(study, "set1-rater1", out=tmp_path / "copy.csv")
    with pytest.raises(WrdscoreError, match=r"set1-rater1\.csv and .*copy\.csv are both sheet "):
        load_sheet_ratings(study, [*sheets, copy])
    renamed = fill(study, "set1-rater1", out=tmp_path / "set2-rater9.csv")
    with pytest.raises(
        WrdscoreError,
        match=r"set2-rater9.csv:1: the sheet says it is set1-rater1, but the file is named "
        r"set2-rater9 \(rename it set1-rater1.csv\)",
    ):
        load_sheet_ratings(study, [*sheets[1:], renamed])
    # A rater's own name is not a sheet's name: accepted, as the only copy of the sheet...
    alice = fill(study, "set1-rater1", out=tmp_path / "alice.csv")
    assert load_sheet_ratings(study, [alice, *sheets[1:]]).raters[0] == "alice"

    # ...but its rows must be of the set its title line names.
    def other_set(rows):
        mine = {p.id: p for p in study.pairs if p.set == "2"}
        rows[1:] = [[p.id, p.reference, p.prediction, "5"] for p in mine.values()]

    moved = fill(study, "set1-rater1", out=tmp_path / "bob.csv", edit=other_set)
    with pytest.raises(WrdscoreError, match="says it is set1-rater1, but it rates pairs of set 2"):
        load_sheet_ratings(study, [moved, *sheets])
    # Without the title line (a spreadsheet may drop comments) nothing is checked.
    bare = tmp_path / "bare" / "set2-rater9.csv"
    bare.parent.mkdir()
    bare.write_text("\n".join(x for x in sheets[0].read_text().splitlines() if x[0] != "#"))
    assert load_sheet_ratings(study, [bare, *sheets[1:]]).raters[0] == "set2-rater9"
