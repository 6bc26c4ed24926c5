"""Every number wrdscore shows counts from 1: pairs, records, lines and errors agree.

`corpus records` and the per-pair `index` counted from 0 while error messages, file lines
and alternatives counted from 1, so "reference 3" was the row with index 2.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wrdscore.cli import EXIT_USER_ERROR, app


def test_per_pair_index_is_the_number_an_error_gives(tmp_path):
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("getName\nsize\nisEmpty\n", encoding="utf-8")
    preds.write_text("name\ncount\n!!!\n", encoding="utf-8")
    ok = CliRunner().invoke(
        app, ["score", "--refs", str(refs), "--preds", str(preds), "--format", "json", "-q"]
    )
    assert ok.exit_code == 0, ok.output
    rows = json.loads(ok.stdout)["per_pair"]
    assert [r["index"] for r in rows] == [1, 2, 3]
    # The same third line, made empty, is refused as reference 3 on line 3.
    refs.write_text("getName\nsize\n\n", encoding="utf-8")
    bad = CliRunner().invoke(app, ["score", "--refs", str(refs), "--preds", str(preds)])
    assert bad.exit_code == EXIT_USER_ERROR
    assert "refs.txt:3: reference 3 " in bad.output
    assert rows[2]["prediction"] == "!!!"


def test_corpus_records_number_the_lines_of_a_predictions_file(tmp_path):
    (tmp_path / "A.java").write_text(
        "class A {\n  String getName() { return name; }\n  int size() { return n; }\n"
        "  boolean isEmpty() { return n == 0; }\n}\n",
        encoding="utf-8",
    )
    corpus = tmp_path / "c"
    made = CliRunner().invoke(app, ["ingest", str(tmp_path / "A.java"), "-o", str(corpus), "-q"])
    assert made.exit_code == 0, made.output
    listed = CliRunner().invoke(app, ["corpus", "records", str(corpus)])
    assert listed.exit_code == 0, listed.output
    records = [line.split("\t") for line in listed.stdout.splitlines()[1:]]
    assert [r[0] for r in records] == ["1", "2", "3"]
    assert [r[2] for r in records] == ["getName", "size", "isEmpty"]
    # Record N is line N of predictions by record order, and the per-pair row N.
    preds = tmp_path / "preds.txt"
    preds.write_text("getName\nsize\nisEmpty\n", encoding="utf-8")
    scored = CliRunner().invoke(
        app, ["score", "--corpus", str(corpus), "--preds", str(preds), "--format", "json", "-q"]
    )
    assert scored.exit_code == 0, scored.output
    rows = json.loads(scored.stdout)["per_pair"]
    assert [(str(r["index"]), r["reference"]) for r in rows] == [(r[0], r[2]) for r in records]
