"""`wrdscore study sample` -> fill the sheets -> `wrdscore study analyze`, as a user runs them."""

from __future__ import annotations

import csv
import json
import warnings

import matplotlib.image
import numpy as np
import pytest
from rouge_score import rouge_scorer
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings, save_embeddings

TOKENS = ["get", "set", "name", "value", "count", "size", "user", "file", "read", "load"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A tiny embeddings model and 240 reference/prediction lines drawn from its vocabulary."""
    root = tmp_path_factory.mktemp("study-inputs")
    rng = np.random.default_rng(0)
    vectors = {t: rng.normal(size=8) for t in TOKENS}
    emb = TokenEmbeddings.from_vectors(vectors)
    save_embeddings(
        emb.kv,
        root / "model",
        meta={"name": "tiny", "n_docs": 10},
        doc_freq=dict.fromkeys(TOKENS, 2),
    )
    refs, preds = [], []
    for _ in range(240):
        ref = list(rng.choice(TOKENS, size=rng.integers(1, 4)))
        pred = ref if rng.random() < 0.15 else list(rng.choice(TOKENS, size=rng.integers(1, 4)))
        refs.append(" ".join(ref))
        preds.append(" ".join(pred))
    (root / "refs.txt").write_text("\n".join(refs) + "\n")
    (root / "preds.txt").write_text("\n".join(preds) + "\n")
    return root


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def sample(inputs, out, *extra):
    return run(
        "study", "sample", "--refs", inputs / "refs.txt", "--preds", inputs / "preds.txt",
        "--embeddings", inputs / "model", "--output", out, *extra,
    )  # fmt: skip


def fill_sheets(study, target):
    """Rate like a person who mostly agrees with ROUGE-1: 10 * overlap, plus rater noise."""
    rng = np.random.default_rng(1)
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    target.mkdir()
    for sheet in sorted((study / "sheets").glob("*.csv")):
        lines = sheet.read_text().splitlines()
        rows = list(csv.reader(x for x in lines if not x.startswith("#")))
        for row in rows[1:]:
            f = scorer.score(row[1], row[2])["rouge1"].fmeasure
            row[3] = str(int(np.clip(round(10 * f + rng.normal(0, 1.5)), 0, 10)))
        with (target / sheet.name).open("w", newline="") as fh:
            fh.write("\n".join(x for x in lines if x.startswith("#")) + "\n")
            csv.writer(fh).writerows(rows)


def test_sample_fill_analyze_end_to_end(inputs, tmp_path):
    study = tmp_path / "study"
    code, out, err = sample(inputs, study, "--sets", "2", "--raters", "3", "--seed", "4")
    assert code == 0, err
    assert f"\nwrote {study}: " in err and len(list((study / "sheets").glob("*.csv"))) == 6
    assert len(list((study / "forms").glob("*.html"))) == 6
    fill_sheets(study, tmp_path / "filled")
    report = tmp_path / "report"
    code, out, err = run(
        "study", "analyze", "--study", study, "--ratings", str(tmp_path / "filled" / "*.csv"),
        "-m", "rouge1", "-m", "wrd", "--embeddings", inputs / "model", "--resamples", "50",
        "--seed", "2", "--output", report,
    )  # fmt: skip
    assert code == 0, err
    assert "ROUGE-1 F: MSE" in out and "WRDScore F1: MSE" in out
    assert "raters: Krippendorff's alpha" in out
    # Two sets: each on its own (leaving one of two out would repeat the other).
    assert "set 1 (" in out and "set 2 (" in out and "without" not in out
    data = json.loads((report / "report.json").read_text())
    assert data["resamples"] == 50 and data["baseline"] == "rouge1"
    per_pair = data["per_pair"]
    pairs = {r["id"]: r for r in csv.DictReader((study / "pairs.csv").open())}
    # ROUGE-1 F recomputed with the rouge-score package, independently of wrdscore.
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    rouge = np.array(
        [
            scorer.score(pairs[i]["reference"], pairs[i]["prediction"])["rouge1"].fmeasure
            for i in per_pair["id"]
        ]
    )
    human = np.array(per_pair["human"])
    rouge_report = data["metrics"][0]
    assert rouge_report["errors"]["mse"]["point"] == pytest.approx(np.mean((rouge - human) ** 2))
    assert len(rouge_report["bootstrap"]["mse"]) == 50
    wrd_report = data["metrics"][1]
    assert set(wrd_report["vs_baseline"]) == {"mse", "mae"}
    agreement = data["agreement"]
    assert -1 <= agreement["krippendorff_alpha_interval"] <= 1
    assert len(agreement["rater_vs_others_pearson"]) == 6
    assert [v["set"] for v in data["by_set"]] == ["1", "2"]
    md = (report / "report.md").read_text()
    assert "## Each set on its own" in md
    assert "| ROUGE-1 F |" in md and "Krippendorff" in md and "Closer to people than" in md
    for png in ["bootstrap-mse.png", "scatter-rouge1.png", "scatter-wrd.png"]:
        image = matplotlib.image.imread(report / "plots" / png)
        assert image.shape[0] > 200 and image.shape[1] > 200
        assert image.std() > 0.01  # something was drawn


def test_one_pair_rated_twice_is_analysed_without_its_distinct_pairs(inputs, tmp_path):
    # The reviewer's case: the rows analyse (errors against each rating), the single
    # distinct pair cannot (it stopped the whole analysis), and no scipy warning leaks.
    (tmp_path / "d.csv").write_text("get name,fetch name,4\nget name,fetch name,6\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run(
            "study", "analyze", "--pairs", tmp_path / "d.csv", "--scale", "10",
            "-m", "rouge1", "-m", "wrd", "--embeddings", inputs / "model",
            "--output", tmp_path / "o",
        )  # fmt: skip
    # No warning: only the line saying where the report went, and the hint that 2 pairs
    # are too few for a bootstrap.
    wrote, hint = err.splitlines()
    assert code == 0 and wrote == f"wrote {tmp_path / 'o'}: report.md, report.json and plots/"
    assert hint.startswith("hint: only 2 pairs: ")
    assert "ROUGE-1 F: MSE 0.0100 [0.0100, 0.0100], MAE 0.1000 [0.1000, 0.1000]" in out
    data = json.loads((tmp_path / "o" / "report.json").read_text())
    assert data["pairs"] == 2 and data["deduplicated"] is None
    assert data["deduplicated_reason"] == "1 distinct pair: too few for statistics"
    assert (
        "## Distinct pairs only\n\nSome pairs were rated more than once, but the distinct "
        "pairs have no analysis: 1 distinct pair: too few for statistics."
    ) in (tmp_path / "o" / "report.md").read_text()


def test_sample_is_reproducible_and_reports_short_strata(inputs, tmp_path):
    code, _, err = sample(inputs, tmp_path / "a", "--sets", "3", "--seed", "9")
    assert code == 0, err
    code, _, _ = sample(inputs, tmp_path / "b", "--sets", "3", "--seed", "9")
    assert (tmp_path / "a" / "pairs.csv").read_text() == (tmp_path / "b" / "pairs.csv").read_text()
    for sheet in (tmp_path / "a" / "sheets").iterdir():
        assert sheet.read_text() == (tmp_path / "b" / "sheets" / sheet.name).read_text()
    meta = json.loads((tmp_path / "a" / "study.json").read_text())
    # 240 random pairs from a 10-token vocabulary cannot fill every WRDScore bin 3 times.
    assert meta["shortfalls"] and "note: set" in err
    code, _, err = sample(inputs, tmp_path / "c", "--sets", "3", "--strict")
    assert code == 2 and err.startswith("error: set") and "drop --strict" in err


def test_custom_strata_need_no_embeddings(inputs, tmp_path):
    code, _, err = run(
        "study", "sample", "--refs", inputs / "refs.txt", "--preds", inputs / "preds.txt",
        "--output", tmp_path / "s", "--sets", "1", "--stratum", "4", "--stratum",
        "4:rouge1>=0.5", "--raters", "1",
    )  # fmt: skip
    assert code == 0, err
    rows = list(csv.DictReader((tmp_path / "s" / "pairs.csv").open()))
    assert len(rows) == 8 and list(rows[0])[-1] == "rouge1"
    high = [float(r["rouge1"]) for r in rows if r["stratum"] == "rouge1>=0.5"]
    assert len(high) == 4 and min(high) >= 0.5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sample", "--stratum", "ten"], "error: stratum 'ten'"),
        (["sample", "--stratum", "10:"], "error: stratum '10:': no condition after ':'"),
        (["sample", "--raters", "0"], "raters must be at least 1"),
        (["sample", "--target", "doc"], "unknown target 'doc'; choose one of name, summary"),
        # Accepted (exit 0) where the strata score no metric: random strata alone.
        (["sample", "--stratum", "2", "--oov", "bad"], "error: unknown OOV policy 'bad'; choose"),
        (
            ["analyze", "--pairs", "P", "--scale", "10", "--target", "summary"],
            "--target says how a study's code is read: rated pairs from --pairs have no code",
        ),
        (
            ["analyze", "--study", "S", "--ratings", "x", "--target", "summary"],
            "--target summary: the study was sampled with target name (study.json)",
        ),
        (["analyze"], "give either --study with --ratings, or --pairs"),
        (["analyze", "--study", "S"], "--study needs --ratings"),
        (["analyze", "--study", "S", "--pairs", "P"], "give either"),
        (["analyze", "--study", "S", "--ratings", "x", "--scale", "10"], "--scale is for --pairs"),
        (["analyze", "--pairs", "P", "-m", "nosuch", "--baseline", "nosuch"], "unknown metric"),
        (["analyze", "--pairs", "P"], "score 8 is outside 0-1 (use --scale 10"),
        (["analyze", "--pairs", "P", "--scale", "10", "--resamples", "0"], "at least 40"),
        (["analyze", "--study", "P", "--ratings", "x"], "is not a study folder"),
        (["analyze", "--pairs", "P", "--scale", "10", "--oov", "bad"], "unknown OOV policy"),
        # numpy's ValueError traceback before: checked before any scoring or drawing.
        (["sample", "--seed", "-1"], "--seed must be a whole number from 0 to 4294967295, not -1"),
        (
            ["analyze", "--pairs", "P", "--scale", "10", "--seed", "-1"],
            "whole number from 0 to 4294967295",
        ),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(inputs, tmp_path, args, message):
    study = tmp_path / "S"
    if "S" in args:
        assert sample(inputs, study, "--sets", "1", "--stratum", "2", "--raters", "1")[0] == 0
    (tmp_path / "P").mkdir()
    (tmp_path / "P" / "a.csv").write_text("get name,name,8\nrun,go,2\n")
    fixed = [str(tmp_path / a) if a in ("S", "P") else a for a in args]
    if fixed[0] == "sample":
        code, _, err = sample(inputs, tmp_path / "out", *fixed[1:])
    else:
        code, _, err = run("study", *fixed, "--output", tmp_path / "out")
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_rater_missing_from_the_design_is_noted(inputs, tmp_path):
    study = tmp_path / "study"
    assert sample(inputs, study, "--sets", "2", "--raters", "2", "--stratum", "5")[0] == 0
    fill_sheets(study, tmp_path / "filled")
    (tmp_path / "filled" / "set2-rater1.csv").unlink()
    code, out, err = run(
        "study", "analyze", "--study", study, "--ratings", str(tmp_path / "filled" / "*.csv"),
        "-m", "rouge1", "--resamples", "40", "--output", tmp_path / "report",
    )  # fmt: skip
    assert code == 0, err
    assert err.startswith(
        "note: set 2 has 1 of the 2 raters' sheets of the design (set2-rater1 missing): it is "
        "analysed with the raters it has\n"
    )
    assert "set 1 has" not in err and "ROUGE-1 F: MSE" in out


def test_mismatched_or_blank_name_files(inputs, tmp_path):
    (tmp_path / "short.txt").write_text("get name\n")
    (tmp_path / "blank.txt").write_text("get name\n\nrun\n")
    cases = [
        (inputs / "refs.txt", tmp_path / "short.txt", "has 240 names but"),
        (tmp_path / "blank.txt", tmp_path / "blank.txt", "blank.txt:2: empty line"),
    ]
    for refs, preds, message in cases:
        code, _, err = run(
            "study", "sample", "--refs", refs, "--preds", preds,
            "--output", tmp_path / "o", "--stratum", "1",
        )  # fmt: skip
        assert code == 2 and message in err


def test_an_empty_reference_names_no_option_a_study_does_not_take(inputs, tmp_path):
    # The refusal said "or allow empty references (--allow-empty-reference)", an option
    # of score and compare: study sample and study analyze have none (nor should: a
    # pair to rate needs a reference).
    (tmp_path / "refs.txt").write_text("!!!\nget name\n")
    (tmp_path / "preds.txt").write_text("get\nset name\n")
    (tmp_path / "P").mkdir()
    (tmp_path / "P" / "a.csv").write_text("!!!,name,8\nrun,go,2\n")
    for args in (
        ["sample", "--refs", tmp_path / "refs.txt", "--preds", tmp_path / "preds.txt",
         "--stratum", "1:rouge1>=0", "--sets", "1"],
        ["analyze", "--pairs", tmp_path / "P", "--scale", "10", "-m", "wrd"],
    ):  # fmt: skip
        code, _, err = run("study", *args, "--output", tmp_path / "out")
        assert (code, err) == (
            2,
            "error: reference 1 has no tokens (letters or digits); remove it\n",
        )
        assert not (tmp_path / "out").exists()


def test_existing_output_needs_force(inputs, tmp_path):
    assert sample(inputs, tmp_path / "s", "--stratum", "1", "--sets", "1")[0] == 0
    code, _, err = sample(inputs, tmp_path / "s", "--stratum", "1", "--sets", "1")
    assert code == 2 and "already exists" in err
    assert sample(inputs, tmp_path / "s", "--stratum", "1", "--sets", "1", "--force")[0] == 0


def test_bootstraps_is_the_old_name_of_resamples_and_still_works(tmp_path):
    # compare said --resamples and study analyze --bootstraps for the same number; both
    # say --resamples now, and the old spelling still runs, with a one-line note.
    args = ["study", "analyze", "--pairs", "wrdscore-paper", "-m", "rouge1"]
    code, out, err = run(*args, "--bootstraps", "40", "-o", tmp_path / "old")
    assert code == 0, err
    assert err.splitlines()[0] == "note: --bootstraps is deprecated; use --resamples"
    code, new_out, err = run(*args, "--resamples", "40", "-o", tmp_path / "new")
    assert code == 0 and "deprecated" not in err
    assert new_out == out
    old = json.loads((tmp_path / "old" / "report.json").read_text())
    assert old["resamples"] == 40 and "bootstraps" not in old
    code, _, err = run(*args, "--bootstraps", "40", "--resamples", "50", "-o", tmp_path / "x")
    assert code == 2
    assert err == "error: give --resamples only (--bootstraps is its deprecated old name)\n"
    # The help shows one name.
    code, out, _ = run("study", "analyze", "--help")
    assert "--resamples" in out and "--bootstraps" not in out


def test_n_boot_is_the_old_name_of_resamples_in_the_python_api():
    from wrdscore.human_eval import HumanRatings, MetricScores, analyze

    ratings = HumanRatings(
        ["a", "b", "c"], ["1"] * 3, ["x", "y", "z"], ["x", "q", "z"],
        np.array([1.0, 0.2, 0.8]), [], None,
    )  # fmt: skip
    scores = {"m": MetricScores("m", np.array([1.0, 0.0, 1.0]), "m|v:0")}
    new = analyze(ratings, scores, baseline=None, resamples=40)
    with pytest.warns(DeprecationWarning, match="n_boot is deprecated; it is called resamples"):
        old = analyze(ratings, scores, baseline=None, n_boot=40)
    assert old.resamples == new.resamples == 40
    assert old.metrics[0].errors["mse"] == new.metrics[0].errors["mse"]
    with pytest.warns(DeprecationWarning):
        assert new.n_boot == 40


def write_code(inputs, path, lines=None):
    """A CODE .jsonl aligned with refs.txt: a method declaring the reference as its name."""
    rng = np.random.default_rng(3)
    refs = (inputs / "refs.txt").read_text().splitlines()
    items = []
    for ref in refs[:lines]:
        words = ref.split()
        name = words[0] + "".join(w.title() for w in words[1:])
        body = " + ".join(rng.choice(TOKENS, size=3))
        items.append(json.dumps(f"int {name}(int size) {{\n    return {body};\n}}"))
    path.write_text("\n".join(items) + "\n")
    return path


def fill_code_sheets(study, target):
    """Rate every row of the sheets of a study with code (the score is the last column)."""
    rng = np.random.default_rng(2)
    target.mkdir()
    for sheet in sorted((study / "sheets").glob("*.csv")):
        with sheet.open(newline="") as fh:
            text = fh.read()
        comments = [x for x in text.splitlines(keepends=True) if x.startswith("#")]
        rows = list(csv.reader([x for x in text.splitlines(keepends=True) if x[0] != "#"]))
        for row in rows[1:]:
            row[-1] = str(int(rng.integers(0, 11)))
        with (target / sheet.name).open("w", newline="") as fh:
            fh.writelines(comments)
            csv.writer(fh, lineterminator="\n").writerows(rows)


def test_a_study_with_code_shows_it_and_analyses_code_aware_scores(inputs, tmp_path):
    from wrdscore.metrics.base import get_metric

    code_file = write_code(inputs, tmp_path / "code.jsonl")
    study = tmp_path / "study"
    code, _, err = sample(inputs, study, "--code", code_file, "--sets", "2", "--raters", "2")
    assert code == 0, err
    meta = json.loads((study / "study.json").read_text())
    assert meta["format"] == "wrdscore-study/3" and meta["code"] == str(code_file)
    pairs = list(csv.DictReader((study / "pairs.csv").open(newline="")))
    assert list(pairs[0])[:6] == ["id", "set", "stratum", "reference", "prediction", "code"]
    assert all(p["code"].startswith("int ") for p in pairs)
    sheet = (study / "sheets" / "set1-rater1.csv").read_text()
    assert "\nid,reference,prediction,code,score\n" in sheet and "Read the code" in sheet
    fill_code_sheets(study, tmp_path / "filled")
    report = tmp_path / "report"
    code, out, err = run(
        "study", "analyze", "--study", study, "--ratings", str(tmp_path / "filled" / "*.csv"),
        "-m", "rouge1", "-m", "wrd", "--embeddings", inputs / "model", "--output", report,
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("the raters saw each method's code: ")
    assert "WRDScore code support: MSE" in out and "WRDScore combined: MSE" in out
    data = json.loads((report / "report.json").read_text())
    per_pair = data["per_pair"]
    assert {"wrd.code", "wrd.combined"} <= set(per_pair)
    by_id = {p["id"]: p for p in pairs}
    wrd = get_metric("wrd", embeddings=inputs / "model")
    want = wrd.score(
        [by_id[i]["reference"] for i in per_pair["id"]],
        [by_id[i]["prediction"] for i in per_pair["id"]],
        code=[by_id[i]["code"] for i in per_pair["id"]],
    )
    np.testing.assert_allclose(per_pair["wrd.code"], want.values["code"])
    np.testing.assert_allclose(per_pair["wrd.combined"], want.values["combined"])
    signatures = {m["metric"]: m["signature"] for m in data["metrics"]}
    assert "|code:yes|" in signatures["wrd.code"] and "code:" not in signatures["wrd"]
    md = (report / "report.md").read_text()
    assert "The raters saw each method's code" in md and "| WRDScore code support |" in md


@pytest.mark.parametrize(
    ("lines", "content", "message"),
    [
        (5, None, "has 5 lines but"),
        (None, "not json\n", ":1: "),
    ],
)
def test_a_bad_code_file_is_one_line(inputs, tmp_path, lines, content, message):
    code_file = write_code(inputs, tmp_path / "code.jsonl", lines)
    if content is not None:
        code_file.write_text(content + code_file.read_text().split("\n", 1)[1])
    code, _, err = sample(inputs, tmp_path / "s", "--code", code_file, "--stratum", "2")
    assert code == 2 and err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()


def test_strata_may_condition_on_code_support(inputs, tmp_path):
    code_file = write_code(inputs, tmp_path / "code.jsonl")
    strata = ["--stratum", "5:wrd.code<0.3", "--stratum", "5:wrd.code>=0.3"]
    code, _, err = sample(inputs, tmp_path / "s", "--code", code_file, "--sets", "1", *strata)
    assert code == 0, err
    rows = list(csv.DictReader((tmp_path / "s" / "pairs.csv").open(newline="")))
    low = [float(r["wrd.code"]) for r in rows if r["stratum"] == "wrd.code<0.3"]
    high = [float(r["wrd.code"]) for r in rows if r["stratum"] == "wrd.code>=0.3"]
    assert len(low) == len(high) == 5 and max(low) < 0.3 <= min(high)
    signatures = json.loads((tmp_path / "s" / "study.json").read_text())["metrics"]
    assert "|code:yes|" in signatures["wrd.code"] and "code:" not in signatures["wrd"]
    code, _, err = sample(inputs, tmp_path / "t", "--stratum", "5:wrd.code<0.3")
    assert code == 2 and err == "error: the stratum condition on wrd.code needs --code\n"


def test_one_set_and_one_rater_are_counted_in_the_singular(inputs, tmp_path):
    # It said "1 set(s) of 10 pairs, 1 rater(s) each".
    code, _, err = sample(inputs, tmp_path / "s", "--sets", "1", "--raters", "1")
    assert code == 0, err
    assert f"wrote {tmp_path / 's'}: 1 set of " in err and " pairs, 1 rater each: " in err


def test_an_unknown_language_is_named_not_the_code_file(inputs, tmp_path):
    # It said 'code.jsonl:1: unknown language ...', as if the file were at fault.
    code_file = write_code(inputs, tmp_path / "code.jsonl")
    code, _, err = sample(inputs, tmp_path / "s", "--code", code_file, "--language", "klingon")
    assert (code, err) == (
        2,
        "error: unknown language 'klingon': choose one of java, python, javascript, "
        "typescript, go, php, ruby, c_sharp, c, cpp\n",
    )
    assert not (tmp_path / "s").exists()


def test_empty_code_in_a_code_file_is_refused_naming_its_line(inputs, tmp_path):
    code_file = write_code(inputs, tmp_path / "code.jsonl")
    lines = code_file.read_text().splitlines()
    lines[2] = json.dumps("   ")
    code_file.write_text("\n".join(lines) + "\n")
    code, _, err = sample(inputs, tmp_path / "s", "--code", code_file, "--stratum", "2")
    assert code == 2 and err == f"error: {code_file}:3: empty code: a method's source is needed\n"
