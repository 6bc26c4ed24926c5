"""The rough edges a new user hit (issue 21): each test failed before its fix."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _seeded_commands() -> list[list[str]]:
    """The path of every command that has a ``--seed`` option."""
    found = []

    # Any: typer 0.27 builds its commands with a private copy of click.
    def walk(command: Any, path: list[str]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
        elif any("--seed" in p.opts for p in command.params):
            found.append(path)

    walk(typer.main.get_command(app), [])
    return found


def test_every_seed_option_is_found():
    # The list below must not silently shrink (a renamed option would skip its check).
    assert sorted(" ".join(p) for p in _seeded_commands()) == [
        "baseline",
        "compare",
        "specialise",
        "study analyze",
        "study sample",
        "train",
    ]


@pytest.mark.parametrize("path", _seeded_commands(), ids=" ".join)
def test_a_negative_seed_is_a_one_line_usage_error(path):
    # compare and baseline used to end in numpy's traceback
    # ("ValueError: expected non-negative integer").
    res = run(*path, "--seed", "-1")
    assert res.exit_code == 2
    assert res.stderr == "error: --seed must be a whole number >= 0, not -1\n"


def test_compare_with_a_negative_seed_on_real_files(tmp_path):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[1] / "examples"
    res = run(
        "compare",
        "--refs",
        examples / "refs.txt",
        "--preds",
        examples / "preds.txt",
        "--preds",
        examples / "refs.txt",
        "--seed",
        "-1",
    )
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.startswith("error: --seed must be a whole number >= 0")


def test_train_refuses_zero_fasttext_buckets(tmp_path):
    # gensim took --bucket 0 as "no n-grams", and --oov subword then called the model
    # not a FastText model.
    corpus = write_records(tmp_path / "c", [method_record("getName"), method_record("size")])
    res = run("train", corpus, "--method", "fasttext", "-o", tmp_path / "m", "--bucket", "0")
    assert res.exit_code == 2
    assert res.stderr == "error: --bucket must be at least 1, not 0\n"
    assert not (tmp_path / "m").exists()


def test_study_analyze_refuses_too_few_bootstraps_like_compare(tmp_path):
    # --bootstraps 1 printed a "95%" interval of zero width; compare refused fewer than 40.
    res = run("study", "analyze", "--pairs", "wrdscore-paper", "-m", "rouge1",
              "--bootstraps", "1", "-o", tmp_path / "r")  # fmt: skip
    assert res.exit_code == 2
    assert res.stderr == (
        "error: the number of bootstraps must be at least 40 for a 95% interval, got 1\n"
    )
    assert not (tmp_path / "r").exists()
    res = run("study", "analyze", "--pairs", "wrdscore-paper", "-m", "rouge1",
              "--bootstraps", "40", "-o", tmp_path / "r")  # fmt: skip
    assert res.exit_code == 0, res.output


def test_ingest_of_only_unparseable_files_is_an_error(tmp_path):
    # It exited 0 with an empty corpus, which train then failed on.
    (tmp_path / "Broken.java").write_text("class A { void f( { }\n")
    res = run("ingest", tmp_path / "Broken.java", "-o", tmp_path / "c")
    assert res.exit_code == 2
    assert res.stderr.startswith("error: no methods found: 1 of 1 file(s) failed to parse; ")
    assert "Broken.java: tree-sitter: line 1: syntax error" in res.stderr
    assert res.stderr.count("\n") == 1
    assert not (tmp_path / "c").exists()
    # One good file beside it makes a corpus, the failure listed in its manifest.
    (tmp_path / "Good.java").write_text("class B { int size() { return 0; } }\n")
    res = run("ingest", tmp_path, "-o", tmp_path / "c")
    assert res.exit_code == 0, res.output
    assert "1 method from 2 files" in res.stdout


def test_a_small_input_leaves_every_stratum_its_share():
    # 11 pairs against the paper's strata: the random stratum, drawn first, took all of
    # them and left the WRDScore strata empty.
    import numpy as np

    from wrdscore.human_eval import DEFAULT_STRATA, stratified_design

    wrd = np.array([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.6, 0.65, 0.7, 0.9, 0.95])
    scores = {"wrd": wrd, "rouge1": np.zeros_like(wrd)}
    design = stratified_design(scores, np.arange(wrd.size), 3, DEFAULT_STRATA, seed=0)
    got = {s.name: 0 for s in DEFAULT_STRATA}
    for members in design.sets:
        for _, name in members:
            got[name] += 1
    # The strata take turns, one pair each: each gets two or three, none all 11.
    assert sum(got.values()) == wrd.size and min(got.values()) >= 2 and max(got.values()) <= 3
    drawn = [i for members in design.sets for i, _ in members]
    assert sorted(drawn) == list(range(wrd.size))


def test_stratum_examples_are_quoted_for_a_shell():
    # Pasted into a shell, --stratum 10:wrd>=0.8,rouge1<0.5 redirects to a file "=0.8,rouge1"
    # and reads from "0.5".
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    texts = {p.name: p.read_text() for p in [root / "README.md", *root.glob("docs/**/*.md")]}
    texts["study sample --help"] = run("study", "sample", "--help").stdout
    found = 0
    for name, text in texts.items():
        for spec in re.findall(r"--stratum[ =](\S+)", text):
            if re.search("[<>]", spec):
                found += 1
                assert spec[0] in "'\"", f"{name}: unquoted --stratum {spec}"
    assert found >= 2  # the README's example and the help's
