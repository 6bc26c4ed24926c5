"""The rough edges a new user hit (issue 21): each test failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path
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
        "tune",
    ]


@pytest.mark.parametrize("path", _seeded_commands(), ids=" ".join)
def test_a_negative_seed_is_a_one_line_usage_error(path):
    # compare and baseline used to end in numpy's traceback
    # ("ValueError: expected non-negative integer").
    res = run(*path, "--seed", "-1")
    assert res.exit_code == 2
    assert res.stderr == "error: --seed must be a whole number from 0 to 4294967295, not -1\n"


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
    assert res.stderr.startswith("error: --seed must be a whole number from 0")


def test_train_refuses_zero_fasttext_buckets(tmp_path):
    # gensim took --bucket 0 as "no n-grams", and --oov subword then called the model
    # not a FastText model.
    corpus = write_records(tmp_path / "c", [method_record("getName"), method_record("size")])
    res = run("train", corpus, "--method", "fasttext", "-o", tmp_path / "m", "--bucket", "0")
    assert res.exit_code == 2
    assert res.stderr == "error: --bucket must be at least 1, not 0\n"
    assert not (tmp_path / "m").exists()


def test_study_analyze_refuses_too_few_resamples_like_compare(tmp_path):
    # --bootstraps 1 printed a "95%" interval of zero width; compare refused fewer than 40.
    # Both now call it --resamples, and say so in the same words, naming the option (they
    # said "resamples must be ...", the library's parameter). compare checks it before
    # it loads a model (-e nope.vec: it loaded, and scored, first).
    res = run("study", "analyze", "--pairs", "wrdscore-paper", "-m", "rouge1",
              "--resamples", "1", "-o", tmp_path / "r")  # fmt: skip
    assert res.exit_code == 2
    assert res.stderr == "error: --resamples must be at least 40 for a 95% interval, got 1\n"
    same = run("compare", "--refs", EXAMPLES / "refs.txt", "--preds", EXAMPLES / "refs.txt",
               "--preds", EXAMPLES / "preds.txt", "--resamples", "1", "-e", "nope.vec")  # fmt: skip
    assert same.exit_code == 2 and same.stderr == res.stderr
    assert not (tmp_path / "r").exists()
    res = run("study", "analyze", "--pairs", "wrdscore-paper", "-m", "rouge1",
              "--resamples", "40", "-o", tmp_path / "r")  # fmt: skip
    assert res.exit_code == 0, res.output


def test_ingest_of_only_unparseable_files_is_an_error(tmp_path):
    # It exited 0 with an empty corpus, which train then failed on.
    (tmp_path / "Broken.java").write_text("class A { void f( { }\n")
    res = run("ingest", tmp_path / "Broken.java", "-o", tmp_path / "c")
    assert res.exit_code == 2
    assert res.stderr.startswith("error: no methods found: 1 of 1 file failed to parse; ")
    assert "Broken.java: tree-sitter: line 1: syntax error" in res.stderr
    assert res.stderr.count("\n") == 1
    assert not (tmp_path / "c").exists()
    # One good file beside it makes a corpus, the failure listed in its manifest.
    (tmp_path / "Good.java").write_text("class B { int size() { return 0; } }\n")
    res = run("ingest", tmp_path, "-o", tmp_path / "c")
    assert res.exit_code == 0, res.output
    assert "1 method from 2 files" in res.stderr


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


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCORE = ["score", "--refs", EXAMPLES / "refs.txt", "--preds", EXAMPLES / "preds.txt", "-q"]


def test_score_refuses_to_overwrite_a_per_pair_file_without_force(tmp_path):
    out = tmp_path / "pairs.tsv"
    out.write_text("precious\n")
    res = run(*SCORE, "--per-pair", out)
    assert res.exit_code == 2
    assert res.stderr == f"error: output {out} already exists (use --force to replace it)\n"
    assert out.read_text() == "precious\n"
    res = run(*SCORE, "--per-pair", out, "--force", "--format", "json")
    assert res.exit_code == 0, res.output
    assert len(out.read_text().splitlines()) == 12
    # Where it wrote, on stderr: stdout is the JSON alone.
    assert res.stderr == f"wrote {out}: 11 pairs\n"
    assert json.loads(res.stdout)["pairs"] == 11


def test_per_pair_dash_writes_the_rows_to_stdout_and_the_summary_to_stderr():
    res = run(*SCORE, "--per-pair", "-", "-m", "wrd", "-m", "rouge1")
    assert res.exit_code == 0, res.output
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert rows[0][:4] == ["index", "reference", "prediction", "wrd.precision"]
    assert len(rows) == 12 and all(len(r) == 9 for r in rows)
    assert "11 pairs, corpus scores" in res.stderr and "wrote" not in res.stderr
    res = run(*SCORE, "--per-pair", "-", "--format", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stderr)["pairs"] == 11 and len(res.stdout.splitlines()) == 12


def test_explain_says_where_it_drew(tmp_path):
    png = tmp_path / "pair.png"
    res = run("explain", "getCount", "size", "--plot", png, "--format", "json")
    assert res.exit_code == 0, res.output
    assert res.stderr == f"wrote {png}\n" and png.is_file()
    json.loads(res.stdout)


ALL_METRICS = ["wrd", "bertscore", "wmd", "twmd", "trwmd", "sbert", "cka", "rouge1", "rougeL",
               "subtoken", "bleu"]  # fmt: skip


def terminal_run(*args):
    """Run as in an 80-column terminal; the text without its styles."""
    import re

    res = runner.invoke(app, [str(a) for a in args], env={"TTY_COMPATIBLE": "1", "COLUMNS": "80"})
    return res, re.sub("\x1b\\[[0-9;]*m", "", res.stdout)


def test_a_wide_table_fits_an_80_column_terminal():
    # Every value was cut to "0.2…" to fit 11 metric columns into 80.
    res, out = terminal_run(*SCORE, *(x for m in ALL_METRICS for x in ("-m", m)))
    assert res.exit_code == 0, res.output
    table = out.split("\n", 1)[1].split("\nwrdscore|")[0]
    assert "…" not in table
    assert max(map(len, table.splitlines())) <= 80
    # Turned a quarter: a row per metric.
    rows = {line.split("│")[1].strip(): line for line in table.splitlines() if "│" in line}
    assert set(ALL_METRICS) <= set(rows)
    assert "0.2705" in rows["wrd"]  # the README's WRDScore F1
    # Counts are whole numbers: subtoken's fp prints as 23, not 23.0000.
    assert [c.strip() for c in rows["subtoken"].split("│")[-4:-1]] == ["0", "23", "21"]


def test_a_table_that_fits_keeps_a_column_per_metric():
    res, out = terminal_run(*SCORE, "-m", "wrd", "-m", "subtoken")
    assert res.exit_code == 0, res.output
    header = next(line for line in out.splitlines() if "subtoken" in line)
    assert "wrd" in header
    fp = next(line for line in out.splitlines() if line.startswith("│ fp"))
    assert fp.split("│")[-2].strip() == "23"


def test_baselines_score_each_distinct_pair_once(monkeypatch):
    # 10,000 random pairs of a small corpus's names are mostly repeats: each was scored
    # every time it was drawn (2.4-4.4 s of `train` on a 48-method corpus).
    import numpy as np

    from wrdscore.embeddings import TokenEmbeddings
    from wrdscore.metrics import compute_baselines, get_metric
    from wrdscore.metrics.base import Metric

    rng = np.random.default_rng(0)
    names = [["get", "name"], ["size"], ["set", "value"], ["count"], ["is", "empty"]]
    drawn = rng.integers(0, len(names), size=(3000, 2))
    refs = [list(names[a]) for a, b in drawn if a != b]
    preds = [list(names[b]) for a, b in drawn if a != b]
    emb = TokenEmbeddings.from_vectors(
        {t: rng.normal(size=4) for name in names for t in name}, name="tiny"
    )
    scored = []
    score = Metric.score
    monkeypatch.setattr(
        Metric, "score", lambda self, r, p, **kw: scored.append(len(r)) or score(self, r, p, **kw)
    )
    got = compute_baselines(emb, refs, preds)
    assert scored and max(scored) == 20  # 5 * 4 ordered pairs of different names
    monkeypatch.setattr(Metric, "score", score)
    # The same numbers as the mean over every drawn pair.
    checked = 0
    for key, values in got.items():
        name = key.split("|")[0].replace("wrdscore", "wrd")
        if values is None or "|w:" in key or "|idf:" in key:
            continue  # the grid's extra options; the default setting stands for them
        options = dict(
            f.split(":", 1) for f in key.split("|")[1:] if f.split(":")[0] in ("c", "oov")
        )
        metric = get_metric(name, embeddings=emb, centering=options["c"], oov=options["oov"])
        want = metric.score(refs, preds)
        for k, v in values.items():
            assert v == pytest.approx(float(np.mean(want.values[k])), abs=1e-12), (key, k)
        checked += 1
    assert checked >= 20  # wmd, twmd, trwmd, sbert, cka under each oov and centering


def test_train_says_what_it_is_doing_to_a_person_watching(tmp_path, monkeypatch):
    # It trained, then computed baselines for seconds, without a word.
    import wrdscore.progress

    corpus = write_records(
        tmp_path / "c", [method_record(n) for n in ("getName", "setName", "size", "isEmpty")]
    )
    args = ["train", corpus, "--method", "svd", "--dim", "2", "--baseline-pairs", "20"]
    res = run(*args, "-o", tmp_path / "quiet")
    assert res.exit_code == 0, res.output
    assert " ..." not in res.stderr  # a pipe or log gets no status lines
    monkeypatch.setattr(wrdscore.progress, "watched", lambda: True)
    res = run(*args, "-o", tmp_path / "m")
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert lines[0] == f"training svd vectors on {corpus} ..."
    assert lines[1].startswith(f"wrote {tmp_path / 'm'}: ")
    assert lines[2] == "computing rescaling baselines on 20 random name pairs ..."
    assert lines[3].startswith(f"wrote {tmp_path / 'm' / 'model.json'}: rescaling baselines")
    assert res.stdout == ""


def test_neighbors_and_similarity_take_the_model_as_e_and_say_they_load_it(monkeypatch):
    import wrdscore.progress

    monkeypatch.setattr(wrdscore.progress, "watched", lambda: True)
    new = run("similarity", "size", "count")
    old = run("similarity", "default", "size", "count")
    assert new.exit_code == old.exit_code == 0, new.output
    assert new.stdout == old.stdout and "0.2026" in new.stdout
    assert new.stderr == "loading the bundled model ...\n"
    res = run("neighbors", "getCount", "-k", "3", "-e", "default")
    assert res.exit_code == 0 and res.stderr == "loading default ...\n"
    assert res.stdout.count("0.") == 3
    res = run("neighbors", "a", "b", "c")
    assert res.exit_code == 2 and res.stderr.startswith("error: neighbors takes TOKEN")


def test_m_means_metric_everywhere():
    # train's -m was --method; every other command's -m is --metric.
    from typer.main import get_command

    for path in (["train"], ["specialise"]):
        command = get_command(app).commands[path[0]]
        method = next(p for p in command.params if "--method" in p.opts)
        assert method.opts == ["--method"] and not method.secondary_opts
    res = run("train", "c", "-m", "svd", "-o", "m")
    assert res.exit_code == 2 and res.stderr.startswith("error: no such option: -m")


def test_compare_compares_on_every_metric_given():
    # -m wrd -m rouge1 compared on rouge1 alone, silently.
    args = ["compare", "--refs", EXAMPLES / "refs.txt", "--preds", EXAMPLES / "refs.txt",
            "--preds", EXAMPLES / "preds.txt", "-m", "wrd", "-m", "rouge1"]  # fmt: skip
    res = run(*args, "--format", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["metric"] for r in rows] == ["wrd", "rouge1"]
    assert rows[0]["mean_b"] == pytest.approx(0.2705, abs=5e-5)  # the README's WRDScore
    assert rows[1]["mean_b"] == 0.0 and rows[1]["signature"].startswith("rouge1|")
    res = run(*args)
    assert res.exit_code == 0, res.output
    body = [line.split("│")[1].strip() for line in res.stdout.splitlines() if "│" in line]
    assert body[-2:] == ["wrd", "rouge1"]
    # One metric: the one object the README documents.
    res = run(*args[:-2], "--format", "json")
    assert json.loads(res.stdout)["metric"] == "wrd"


def test_the_unseen_token_note_names_them(tmp_path):
    # It said "note: 3 unseen token occurrences" without saying which.
    refs, preds = tmp_path / "r.txt", tmp_path / "p.txt"
    refs.write_text("get zzqxw\nqwxzv size\nzzqxw\n")
    preds.write_text("get\nsize\nget\n")
    for extra in ([], ["-j", "2", "--chunk-pairs", "1"]):
        res = run("score", "--refs", refs, "--preds", preds, "-q", *extra)
        assert res.exit_code == 0, res.output
        assert "note: 3 unseen token occurrences (qwxzv, zzqxw)\n" in res.stderr
    many = " ".join(f"zzq{c}x" for c in "abcdefg")
    refs.write_text(f"{many}\nsize\n")
    preds.write_text("get\nsize\n")
    res = run("score", "--refs", refs, "--preds", preds, "-q")
    assert "note: 7 unseen token occurrences (zzqax, zzqbx, zzqcx, zzqdx, zzqex, ...)" in (
        res.stderr
    )
