"""No command replaces one of its own inputs, even with --force.

``score --preds p.jsonl --per-pair p.jsonl --force`` replaced the predictions with their
scores: every command that writes an output refuses a path that names one of its inputs
(the same file once relative paths and links are resolved), or a folder that holds one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import EXIT_USER_ERROR, app


def _inputs(tmp: Path) -> dict[str, Path]:
    (tmp / "refs.txt").write_text("getName\nsize\n", encoding="utf-8")
    (tmp / "preds.jsonl").write_text('"getName"\n"count"\n', encoding="utf-8")
    (tmp / "code.jsonl").write_text('"int size() { return n; }"\n"int count() {}"\n')
    (tmp / "src").mkdir()
    (tmp / "src" / "A.java").write_text("class A { int size() { return 0; } }\n")
    (tmp / "src" / "sub").mkdir()
    (tmp / "src" / "sub" / "B.java").write_text("class B { int count() { return 1; } }\n")
    (tmp / "pairs.tsv").write_text("size\tcount\n", encoding="utf-8")
    write_records(tmp / "corpus", [method_record("getName"), method_record("size")])
    return {p.name: p for p in tmp.iterdir()}


def _snapshot(tmp: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(tmp.rglob("*")) if p.is_file()}


# Each command that writes, with an output that is one of its inputs: named another way
# (./, a symbolic link, a folder above it) so that only resolving the paths finds it.
SCORE = "score --refs refs.txt --preds preds.jsonl --per-pair"
CASES = {
    "score per-pair = preds": f"{SCORE} ./preds.jsonl",
    "score per-pair = refs via link": f"{SCORE} link.tsv",
    "score per-pair = code": "score --code code.jsonl --preds preds.jsonl "
    "--per-pair ../t/code.jsonl",
    "explain plot = code": "explain size --code code.png",
    "ingest into its source": "ingest src -o src",
    "ingest into a folder above its source": "ingest src/A.java -o src",
    "corpus pairs into the corpus": "corpus pairs corpus -o ./corpus",
    "abbreviations over a source": "corpus abbreviations src/A.java -o src/A.java",
    "abbreviations tune over a source": "corpus abbreviations src -o x.tsv --tune-output src",
    # A source folder is read whole: what lies below it is an input too (ingest with
    # --force deleted src/sub/B.java; abbreviations wrote over src/A.java).
    "ingest into a folder below its source": "ingest src -o src/sub",
    "abbreviations over a file below its source": "corpus abbreviations src -o src/A.java",
    "abbreviations tune below its source": "corpus abbreviations src -o x.tsv "
    "--tune-output src/sub/B.java",
    "train over its corpus": "train corpus --method svd -o corpus",
    "train over a folder above its corpus": "train corpus --method svd -o .",
    "specialise over its pairs": "specialise default corpus --pairs pairs.tsv -o pairs.tsv",
    "fuse over a part": "fuse corpus default -o corpus",
    "distill over its vocabulary": "distill enc --vocab corpus -o corpus",
    "tune over its pairs": "tune enc --pairs pairs.tsv -o pairs.tsv",
    "study sample over its predictions": "study sample --refs refs.txt --preds preds.jsonl -o .",
    "study analyze over its ratings": "study analyze --ratings '*.tsv' -o pairs.tsv",
}


@pytest.mark.parametrize("command", CASES.values(), ids=list(CASES))
def test_an_input_is_never_an_output_even_with_force(tmp_path, command, monkeypatch):
    tmp = tmp_path / "t"
    tmp.mkdir()
    _inputs(tmp)
    (tmp / "code.png").write_text("int size() { return 0; }\n")
    os.symlink(tmp / "refs.txt", tmp / "link.tsv")
    monkeypatch.chdir(tmp)
    before = _snapshot(tmp)
    args = [a.strip("'") for a in command.split()] + ["--force"]
    if args[0] == "explain":
        args = args[:-1]  # explain has no --force: its plot is still refused
        args += ["--plot", "code.png"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert "error:" in result.output
    assert "input" in result.output
    assert "never replaces an input" in result.output
    assert _snapshot(tmp) == before


def test_a_hard_link_to_an_input_is_the_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path)
    os.link("preds.jsonl", "hard.jsonl")
    result = CliRunner().invoke(
        app,
        [*SCORE.split(), "hard.jsonl", "--force"],
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert Path("preds.jsonl").read_text() == '"getName"\n"count"\n'


def test_an_output_beside_the_inputs_is_still_written(tmp_path, monkeypatch):
    # The check refuses inputs only: a new file in the inputs' folder is fine.
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path)
    result = CliRunner().invoke(
        app, ["score", "--refs", "refs.txt", "--preds", "preds.jsonl", "--per-pair", "s.tsv"]
    )
    assert result.exit_code == 0, result.output
    assert Path("s.tsv").read_text().startswith("index\t")


def test_a_new_output_below_a_source_folder_is_still_written(tmp_path, monkeypatch):
    # Only what exists there is an input: a new corpus folder inside the sources is not.
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path)
    result = CliRunner().invoke(app, ["ingest", "src", "-o", "src/corpus", "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "2 methods from 2 files" in result.stderr
    assert Path("src/sub/B.java").is_file() and Path("src/corpus/manifest.json").is_file()
