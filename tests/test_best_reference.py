"""Which reference alternative won: ScoreResult.best_reference and the per-pair best_ref."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wrdscore import inputs
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.metrics import get_metric, score_files

# rouge1 F1 of each alternative against its prediction, worked by hand:
# 0: "size" 0, "get count" 2/3, "count" 1           -> the third
# 1: "get size" 1/2, "size get" 1/2 (a tie)         -> the first
# 2: "name" 1 (one reference, no alternatives)      -> the first
# 3: "foo" 0, "bar" 0 (every alternative scores 0)  -> the first
# 4: "get x" 2/3, "get name" 1, "name" 2/3          -> the second
REFS = "size\tget count\tcount\nget size\tsize get\nname\nfoo\tbar\nget x\tget name\tname\n"
PREDS = "count\nget\nname\nbaz\nget name\n"
ROUGE_BEST = [2, 0, 0, 0, 1]


@pytest.fixture
def files(tmp_path):
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text(REFS)
    preds.write_text(PREDS)
    return refs, preds


def test_score_result_names_each_metrics_own_best_alternative():
    # Two metrics pick different winners: wrd finds "size" close to "count", while
    # rouge1 needs the shared word of "get count".
    emb = TokenEmbeddings.from_vectors(
        {"size": [1.0, 0.0], "count": [0.99, 0.1], "get": [0.0, 1.0]}
    )
    refs = [[["size"], ["get", "count"]], [["get", "count"], ["size"]]]
    rouge = get_metric("rouge1").score(refs, ["count", "count"])
    wrd = get_metric("wrd", embeddings=emb).score(refs, ["count", "count"])
    assert rouge.best_reference.tolist() == [1, 0]
    assert wrd.best_reference.tolist() == [0, 1]
    assert wrd.f1[0] == wrd.f1[1] > 0.99  # the values are the winner's


def test_best_reference_exact_with_ties_and_empty_predictions():
    refs = inputs.parse_lines(REFS.splitlines(), "refs.txt", references=True)
    res = get_metric("rouge1").score(refs, PREDS.splitlines())
    assert res.best_reference.dtype == np.int64
    assert res.best_reference.tolist() == ROUGE_BEST
    # An empty prediction scores 0 against every alternative: a tie, so the first.
    empty = get_metric("rouge1").score([[["a"], ["b"]], [["c"], ["d"]]], ["", "d"])
    assert empty.best_reference.tolist() == [0, 1]


def test_no_alternatives_no_best_reference():
    assert (
        get_metric("rouge1").score(["get size", ["get", "x"]], ["size", "x"]).best_reference is None
    )
    # A list of one alternative is still a list of alternatives.
    one = get_metric("rouge1").score([[["get", "size"]]], ["size"])
    assert one.best_reference.tolist() == [0]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("chunk", [1, 2, 100])
def test_per_pair_tsv_and_jsonl_say_which_alternative_won(files, tmp_path, chunk, jobs):
    # chunk_pairs=1 makes the third pair a chunk without alternatives: its rows still
    # need the column, numbered 1.
    metrics = [get_metric("rouge1"), get_metric("subtoken")]
    tsv, jsonl = tmp_path / f"p{chunk}{jobs}.tsv", tmp_path / f"p{chunk}{jobs}.jsonl"
    for out in (tsv, jsonl):
        score_files(metrics, *files, chunk_pairs=chunk, per_pair=out, jobs=jobs)
    rows = [line.split("\t") for line in tsv.read_text().splitlines()]
    header = rows[0]
    assert header[3:] == [
        "rouge1.precision",
        "rouge1.recall",
        "rouge1.f1",
        "rouge1.best_ref",
        "subtoken.precision",
        "subtoken.recall",
        "subtoken.f1",
        "subtoken.tp",
        "subtoken.fp",
        "subtoken.fn",
        "subtoken.best_ref",
    ]
    want = [b + 1 for b in ROUGE_BEST]
    assert [r[header.index("rouge1.best_ref")] for r in rows[1:]] == [str(b) for b in want]
    assert [r[header.index("subtoken.best_ref")] for r in rows[1:]] == [str(b) for b in want]
    assert rows[1][header.index("rouge1.f1")] == "1.0"
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert [r["rouge1"]["best_ref"] for r in records] == want
    assert list(records[0]["rouge1"]) == ["precision", "recall", "f1", "best_ref"]
    assert records[4]["rouge1"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "best_ref": 2}


def test_jsonl_alternatives_later_in_the_file_than_the_first_block(tmp_path, monkeypatch):
    # The header is decided before any chunk: alternatives only near the end still count.
    monkeypatch.setattr(inputs, "_BLOCK", 16)
    refs, preds = tmp_path / "refs.jsonl", tmp_path / "preds.txt"
    refs.write_text('"getSize"\n' * 20 + '{"alternatives": ["size", "count"]}\n')
    preds.write_text("size\n" * 20 + "count\n")
    out = tmp_path / "p.tsv"
    score_files([get_metric("rouge1")], refs, preds, chunk_pairs=4, per_pair=out, jobs=1)
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0][-1] == "rouge1.best_ref"
    assert [r[-1] for r in rows[1:]] == ["1"] * 20 + ["2"]


def test_write_per_pair_with_alternatives(tmp_path):
    refs = [[["size"], ["count"]], "name"]
    res = get_metric("rouge1").score(refs, ["count", "name"])
    out = inputs.write_per_pair(tmp_path / "p.jsonl", refs, ["count", "name"], [res])
    assert [json.loads(line)["rouge1"]["best_ref"] for line in out.read_text().splitlines()] == [
        2,
        1,
    ]


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("r.txt", "a\nb\tc\n", True),
        ("r.txt", "a\t\nb\t \t\n", False),  # blank cells are not alternatives
        ("r.txt", "\tb\n\t\tb\t\n", False),
        ("r.txt", "x\n \ta  b \t\t c\n", True),
        ("r.txt", "a" * 5000 + "\n\t" + "b" * 5000, False),
        ("r.txt", "a\nb", False),
        ("r.jsonl", '"a{"\n["{", "b"]\n', False),  # a brace inside a string
        ("r.jsonl", '"a"\n  {"alternatives": ["a"]}\n', True),
    ],
)
def test_count_references_finds_alternatives_as_parse_lines_reads_them(tmp_path, name, text, found):
    path = tmp_path / name
    path.write_text(text)
    assert inputs.count_references(path) == (inputs.count_items(path), found)
    items = inputs.read_items(path, references=True)
    assert any(isinstance(i, list) and i and isinstance(i[0], list) for i in items) == found


# Without alternatives the per-pair output is what it was before best_ref existed (but
# for the index, counted from 1 since).
PLAIN_TSV = (
    "index\treference\tprediction\trouge1.precision\trouge1.recall\trouge1.f1\n"
    "1\tget size\tsize\t1.0\t0.5\t0.6666666666666666\n"
    "2\tname\tname\t1.0\t1.0\t1.0\n"
)
PLAIN_JSONL = (
    '{"index": 1, "reference": "get size", "prediction": "size", '
    '"rouge1": {"precision": 1.0, "recall": 0.5, "f1": 0.6666666666666666}}\n'
    '{"index": 2, "reference": "name", "prediction": "name", '
    '"rouge1": {"precision": 1.0, "recall": 1.0, "f1": 1.0}}\n'
)


@pytest.mark.parametrize("refs_text", ["get size\nname\n", "get size\t\nname\n"])
def test_without_alternatives_the_output_is_unchanged(tmp_path, refs_text):
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text(refs_text)
    preds.write_text("size\nname\n")
    for name, want in (("p.tsv", PLAIN_TSV), ("p.jsonl", PLAIN_JSONL)):
        score_files([get_metric("rouge1")], refs, preds, per_pair=tmp_path / name, jobs=1)
        assert (tmp_path / name).read_text() == want
        api = get_metric("rouge1").score(["get size", "name"], ["size", "name"])
        inputs.write_per_pair(
            tmp_path / f"api-{name}", ["get size", "name"], ["size", "name"], [api]
        )
        assert (tmp_path / f"api-{name}").read_text() == want


def test_cli_per_pair_to_standard_output(files):
    from typer.testing import CliRunner

    from wrdscore.cli import app

    refs, preds = files
    res = CliRunner().invoke(
        app,
        ["score", "--refs", str(refs), "--preds", str(preds), "-m", "rouge1", "--per-pair", "-"],
    )
    assert res.exit_code == 0, res.output
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert rows[0][-1] == "rouge1.best_ref"
    assert [r[-1] for r in rows[1:6]] == [str(b + 1) for b in ROUGE_BEST]
