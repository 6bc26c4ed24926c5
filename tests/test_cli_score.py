"""`wrdscore score`, `explain` and `compare` on small models the tests write."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.inputs import read_per_pair
from wrdscore.metrics.base import get_metric

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
runner = CliRunner()


@pytest.fixture(scope="module")
def emb():
    rng = np.random.default_rng(11)
    words = sorted(
        {t for f in ("refs.txt", "preds.txt") for t in (EXAMPLES / f).read_text().split()}
    )
    return TokenEmbeddings.from_vectors({w: rng.normal(size=8) for w in words}, name="cli-test")


@pytest.fixture(scope="module")
def model(emb, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "vectors.txt"
    emb.kv.save_word2vec_format(str(path))
    return str(path)


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def score_examples(model, *extra):
    """`wrdscore score` on the example files with the test model."""
    return run(
        "score",
        "--refs",
        EXAMPLES / "refs.txt",
        "--preds",
        EXAMPLES / "preds.txt",
        "-e",
        model,
        *extra,
    )


def test_score_examples_matches_the_library(emb, model):
    res = score_examples(
        model,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    refs = (EXAMPLES / "refs.txt").read_text().splitlines()
    preds = (EXAMPLES / "preds.txt").read_text().splitlines()
    want = get_metric("wrd", embeddings=emb).score(refs, preds)
    assert out["pairs"] == 11
    assert out["metrics"]["wrd"]["corpus"]["f1"] == pytest.approx(want.corpus["f1"], abs=1e-6)
    assert out["metrics"]["wrd"]["signature"].startswith("wrdscore|emb:vectors@sha:")


def test_json_has_every_pairs_values_as_the_per_pair_file_has_them(emb, model, tmp_path):
    refs = (EXAMPLES / "refs.txt").read_text().splitlines()
    preds = (EXAMPLES / "preds.txt").read_text().splitlines()
    want = get_metric("wrd", embeddings=emb).score(refs, preds)
    res = score_examples(model, "--format", "json", "-q")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["per_pair"]
    assert [r["index"] for r in rows] == list(range(1, 12))  # counted from 1
    assert [r["reference"] for r in rows] == refs and [r["prediction"] for r in rows] == preds
    for key in ("precision", "recall", "f1"):
        got = [r["wrd"][key] for r in rows]
        assert got == pytest.approx(getattr(want, key).tolist(), abs=1e-12)
    # With a per-pair file too (either format), the JSON's rows are the file's.
    for name in ("pairs.tsv", "pairs.jsonl"):
        out = tmp_path / name
        res = score_examples(model, "--format", "json", "-q", "--per-pair", out)
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["per_pair"] == rows
        assert read_per_pair(out) == rows


def test_per_pair_shows_the_cleaned_prediction_that_was_scored(model, tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text("get count\nsize\n")
    preds = tmp_path / "preds.jsonl"
    replies = ["The method name is `getCount`.", "**size**"]
    preds.write_text("".join(json.dumps(r) + "\n" for r in replies))
    out = tmp_path / "pairs.tsv"
    res = run("score", "--refs", refs, "--preds", preds, "-e", model, "--per-pair", out,
              "--clean-predictions", "-q")  # fmt: skip
    assert res.exit_code == 0, res.output
    header, *rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert header[:5] == ["index", "reference", "prediction", "scored", "wrd.precision"]
    assert [r[2] for r in rows] == replies
    assert [r[3] for r in rows] == ["getCount", "size"]
    assert [float(r[-1]) for r in rows] == pytest.approx([1.0, 1.0])
    # Without cleaning there is nothing else to show: no such column.
    res = run("score", "--refs", refs, "--preds", preds, "-e", model, "--per-pair", out,
              "--force", "-q")  # fmt: skip
    assert out.read_text().splitlines()[0].split("\t")[:4] == [
        "index", "reference", "prediction", "wrd.precision"
    ]  # fmt: skip


def test_table_output_and_per_pair_tsv(model, tmp_path):
    out = tmp_path / "pairs.tsv"
    res = score_examples(
        model,
        "--per-pair",
        out,
    )
    assert res.exit_code == 0, res.output
    assert "11 pairs" in res.stdout and "|solver:emd|" in res.stdout
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0] == ["index", "reference", "prediction", "wrd.precision", "wrd.recall", "wrd.f1"]
    assert rows[3][1:3] == ["size", "get count"]
    assert len(rows) == 12
    # --force without --per-pair replaces nothing: refused, not ignored (exit 0 before).
    res = score_examples(model, "--force")
    assert (res.exit_code, res.stderr) == (2, "error: --force only applies with --per-pair\n")


def test_per_pair_jsonl_with_alternatives_and_empty_prediction(model, tmp_path):
    refs = tmp_path / "refs.tsv"
    refs.write_text("size\tget count\nget config\n")
    preds = tmp_path / "preds.txt"
    preds.write_text("get count\n\n")
    out = tmp_path / "pairs.jsonl"
    res = run("score", "--refs", refs, "--preds", preds, "-e", model, "--per-pair", out)
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["reference"] == "size | get count"
    assert rows[0]["wrd"]["f1"] == 1.0  # the second alternative is the prediction itself
    assert rows[0]["wrd"]["best_ref"] == 2  # and says so
    # No alternative of an empty prediction scores: a tie at 0, so the first.
    assert rows[1]["wrd"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "best_ref": 1}
    assert "1 empty prediction scored 0" in res.stderr


def test_several_metrics_give_one_column_each(model):
    class_names = ["wrd"]
    from wrdscore.metrics.base import METRICS

    # Pick a second registered metric if the family has landed, so the test covers both cases.
    class_names += [n for n in METRICS if n != "wrd" and not METRICS[n].needs_model][:1]
    args = [a for n in class_names for a in ("-m", n)]
    res = score_examples(
        model,
        "--format",
        "json",
        *args,
    )
    assert res.exit_code == 0, res.output
    assert list(json.loads(res.stdout)["metrics"]) == class_names


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--format", "xml"], "unknown format 'xml'"),
        (["--per-pair", "out.csv"], "must end in .tsv or .jsonl"),
        (["-m", "nope"], "unknown metric 'nope'"),
        (["--oov", "skip"], "unknown OOV policy 'skip'"),
        (["--centering", "mean"], "unknown centering 'mean'"),
    ],
)
def test_bad_options_are_one_line_errors(model, extra, message):
    res = score_examples(
        model,
        *extra,
    )
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ") and message in res.stderr
    assert res.stderr.count("\n") == 1


def test_mismatched_files_and_empty_reference(model, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("size\n")
    res = run("score", "--refs", short, "--preds", EXAMPLES / "preds.txt", "-e", model)
    assert res.exit_code == 2 and "1 references but 11 predictions" in res.stderr
    blank = tmp_path / "blank.txt"
    blank.write_text("size\n--\n")
    two = tmp_path / "two.txt"
    two.write_text("size\ncount\n")
    res = run("score", "--refs", blank, "--preds", two, "-e", model)
    assert res.exit_code == 2 and res.stderr == (
        f"error: {blank}:2: reference 2 has no tokens (letters or digits); "
        "remove it or allow empty references (--allow-empty-reference)\n"
    )
    res = run(
        "score",
        "--refs",
        blank,
        "--preds",
        two,
        "-e",
        model,
        "--allow-empty-reference",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output


def test_missing_file_is_a_one_line_error(model, tmp_path):
    res = run(
        "score", "--refs", tmp_path / "nope.txt", "--preds", EXAMPLES / "preds.txt", "-e", model
    )
    assert res.exit_code == 2 and res.stderr.startswith("error: ")


def test_explain_prints_matrices_and_plots(model, tmp_path, emb):
    png = tmp_path / "pair.png"
    res = run("explain", "getCount", "size", "-e", model, "--plot", png)
    assert res.exit_code == 0, res.output
    assert "cosine similarity" in res.stdout and "optimal flow" in res.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = run("explain", "getCount", "size", "-e", model, "--format", "json")
    out = json.loads(res.stdout)
    assert out["reference_tokens"] == ["get", "count"]
    np.testing.assert_allclose(np.sum(out["flow"], axis=1), out["reference_weights"])
    want = get_metric("wrd", embeddings=emb).sentence_score("getCount", "size")
    assert out["f1"] == pytest.approx(float(want.f1[0]), abs=1e-6)


def test_explain_bad_input(model, tmp_path):
    res = run("explain", "__", "size", "-e", model)
    assert res.exit_code == 2 and "at least one token" in res.stderr
    res = run("explain", "a", "size", "-e", model, "--plot", tmp_path / "x.jpg")
    assert res.exit_code == 2 and "must end in .png" in res.stderr


def test_explain_prints_the_tables_before_a_plot_it_cannot_draw(model, tmp_path):
    png = tmp_path / "p2.png"
    res = run("explain", "getCount", "zzqx", "-e", model, "--oov", "drop", "--plot", png)
    assert res.exit_code == 2
    assert "cosine similarity" in res.stdout and "optimal flow" in res.stdout
    assert "F1 0.0000" in res.stdout
    assert res.stderr.startswith("error: nothing to draw: the prediction has no tokens left")
    assert not png.exists()


def test_explain_names_unseen_tokens_and_what_they_became(model):
    res = run("explain", "getCount", "zzqx", "-e", model)
    assert res.exit_code == 0, res.output
    assert "zzqx (0.00)" in res.stdout and "F1 0.0000" in res.stdout
    assert "|oov:zero|" in res.stdout  # auto, for a model without subword vectors
    assert res.stderr == "note: not in the vocabulary: zzqx (--oov zero: zero vectors)\n"
    seen = run("explain", "getCount", "size", "-e", model)
    assert seen.exit_code == 0 and seen.stderr == ""


def test_compare(model, tmp_path):
    good = tmp_path / "good.txt"
    shutil.copy(EXAMPLES / "refs.txt", good)
    res = run(
        "compare",
        "--refs",
        EXAMPLES / "refs.txt",
        "--preds",
        good,
        "--preds",
        EXAMPLES / "preds.txt",
        "-e",
        model,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["mean_a"] == 1.0 and out["difference"] > 0
    assert out["ci_low"] > 0 and out["p_value"] == pytest.approx(1 / 1001)
    assert out["signature"].endswith("|bootstrap|n:1000|seed:12345|ci:95%|paired:yes")
    res = run("compare", "--refs", EXAMPLES / "refs.txt", "--preds", good, "-e", model)
    assert res.exit_code == 2 and "exactly twice" in res.stderr


def _compare_json(model, *args):
    res = run("compare", *args, "-e", model, "-m", "wrd", "-m", "rouge1", "--resamples", "200",
              "--seed", "4", "--format", "json")  # fmt: skip
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_compare_on_code_bootstraps_the_code_support_and_combined(emb, model, tmp_path):
    from wrdscore.inputs import parse_code_lines
    from wrdscore.significance import paired_bootstrap

    refs = (EXAMPLES / "refs.txt").read_text().splitlines()
    preds = (EXAMPLES / "preds.txt").read_text().splitlines()
    other = tmp_path / "other.txt"
    other.write_text("".join(f"{p.split()[0]} value\n" for p in preds))
    code = parse_code_lines((EXAMPLES / "code.jsonl").read_text().splitlines(), "code.jsonl")
    files = ["--preds", EXAMPLES / "preds.txt", "--preds", other, "--code", EXAMPLES / "code.jsonl"]
    rows = _compare_json(model, "--refs", EXAMPLES / "refs.txt", *files)
    assert [(r["metric"], r["value"]) for r in rows] == [
        (m, v) for m in ("wrd", "rouge1") for v in ("f1", "code", "combined")
    ]
    for r in rows:
        metric = get_metric(r["metric"], embeddings=emb)
        a = metric.score(refs, preds, code=code).values[r["value"]]
        b = metric.score(refs, other.read_text().splitlines(), code=code).values[r["value"]]
        want = paired_bootstrap(a, b, resamples=200, seed=4)
        assert (r["mean_a"], r["mean_b"], r["difference"]) == pytest.approx(
            (want.mean_a, want.mean_b, want.difference), abs=1e-12
        )
        assert (r["ci_low"], r["ci_high"], r["p_value"]) == pytest.approx(
            (want.ci_low, want.ci_high, want.p_value), abs=1e-12
        )
        assert "|code:yes|cw:0.5|tgt:name|" in r["signature"] and r["pairs"] == len(refs)
    # Against the code alone: the code support is the one value, as score gives it.
    alone = _compare_json(model, *files)
    assert [(r["metric"], r["value"]) for r in alone] == [("wrd", "code"), ("rouge1", "code")]
    assert [r["difference"] for r in alone] == [rows[1]["difference"], rows[4]["difference"]]


def test_compare_on_a_corpus_pairs_the_same_methods(emb, model, tmp_path):
    from wrdscore.corpora import corpus_methods, ingest

    corpus = tmp_path / "corpus"
    ingest([EXAMPLES / "project"], corpus, jobs=1, quiet=True)
    methods = list(corpus_methods(corpus))
    names, ids = [m.reference for m in methods], [m.id for m in methods]
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{n}\n" for n in names))
    b.write_text("get value\n" * len(names))
    rows = _compare_json(model, "--corpus", corpus, "--preds", a, "--preds", b)
    # The same numbers as score --corpus gives each system.
    for path, mean in ((a, "mean_a"), (b, "mean_b")):
        res = run("score", "--corpus", corpus, "--preds", path, "-e", model, "-m", "wrd",
                  "-m", "rouge1", "--format", "json")  # fmt: skip
        scored = json.loads(res.stdout)["metrics"]
        for r in rows:
            assert r[mean] == pytest.approx(scored[r["metric"]]["corpus"][r["value"]], abs=1e-12)
    assert [r["value"] for r in rows] == ["f1", "code", "combined"] * 2
    assert rows[0]["difference"] > 0 and rows[0]["pairs"] == len(names)
    # By id: the same ids in the same order, or a one-line error naming where they differ.
    by_a, by_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    by_a.write_text("".join(json.dumps({"id": i, "prediction": n}) + "\n" for i, n in
                            zip(ids[:5], names[:5], strict=True)))  # fmt: skip
    by_b.write_text("".join(json.dumps({"id": i, "prediction": "get value"}) + "\n"
                            for i in ids[:5]))  # fmt: skip
    five = _compare_json(model, "--corpus", corpus, "--preds", by_a, "--preds", by_b)
    assert five[0]["pairs"] == 5
    by_b.write_text("".join(json.dumps({"id": i, "prediction": "x"}) + "\n" for i in ids[1:6]))
    for second, message in (
        (by_b, f"line 1 has id {ids[0]!r} in {by_a}, {ids[1]!r} in {by_b}"),
        (b, "gives predictions by id, the other file by record order"),
    ):
        res = run("compare", "--corpus", corpus, "--preds", by_a, "--preds", second, "-e", model)
        assert res.exit_code == 2 and message in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--corpus", "C", "--refs", "R"], "--corpus gives the references and the code"),
        ([], "nothing to compare against: give --refs, --code or --corpus"),
        (["--refs", "R", "--target", "summary"], "--target only applies with --code or --corpus"),
        (["--refs", "R", "--language", "python"], "--language applies to --code snippets"),
        (["--code", "R"], "--code R: expected a .jsonl file"),
    ],
)
def test_compare_code_options_bad_input(model, args, message):
    refs = str(EXAMPLES / "refs.txt")
    args = [refs if a == "R" else str(EXAMPLES) if a == "C" else a for a in args]
    message = message.replace(" R:", f" {refs}:")
    res = run("compare", "--preds", refs, "--preds", refs, *args, "-e", model)
    assert res.exit_code == 2 and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_default_model_scores_the_examples():
    res = run(
        "score",
        "--refs",
        EXAMPLES / "refs.txt",
        "--preds",
        EXAMPLES / "preds.txt",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    wrd = json.loads(res.stdout)["metrics"]["wrd"]
    refs = (EXAMPLES / "refs.txt").read_text().splitlines()
    preds = (EXAMPLES / "preds.txt").read_text().splitlines()
    want = get_metric("wrd").score(refs, preds)  # the bundled model
    assert wrd["signature"] == want.signature
    assert wrd["corpus"]["f1"] == pytest.approx(want.corpus["f1"], abs=1e-12)
    assert 0.0 < want.corpus["f1"] < 1.0


def test_set_passes_typed_options_to_one_metric(emb, model):
    res = score_examples(
        model, "--set", "wrd.weights=uniform", "--set", "wrd.clip=false", "--format", "json"
    )
    assert res.exit_code == 0, res.output
    wrd = json.loads(res.stdout)["metrics"]["wrd"]
    assert "|w:uniform|" in wrd["signature"] and "|clip:no|" in wrd["signature"]
    refs = (EXAMPLES / "refs.txt").read_text().splitlines()
    preds = (EXAMPLES / "preds.txt").read_text().splitlines()
    want = get_metric("wrd", embeddings=emb, weights="uniform", clip=False).score(refs, preds)
    assert wrd["corpus"]["f1"] == pytest.approx(want.corpus["f1"], abs=1e-6)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wrd=1", "expected METRIC.OPTION=VALUE"),
        ("wrd.colour=red", "unknown option for metric 'wrd': colour"),
        ("twmd.temperature=0.1", "options given for twmd, which is not being scored"),
        ("wrd.weights=tfidf", "unknown weighting 'tfidf'"),
        # A bare word is a string, and "no" would be true: only JSON true/false will do.
        ("wrd.clip=no", "clip must be true or false, not 'no'"),
        ("wrd.clip=0", "clip must be true or false, not 0"),
    ],
)
def test_bad_set_is_a_one_line_error(model, spec, message):
    res = score_examples(model, "--set", spec)
    assert res.exit_code == 2 and message in res.stderr


@pytest.mark.parametrize("code_option", [["--code-weight", "0.3"], ["--target", "name"]])
@pytest.mark.parametrize("command", ["score", "compare"])
def test_set_for_a_metric_not_scored_is_refused_with_code_options(model, command, code_option):
    # With a code option given, the options of each metric were rebuilt from the metrics
    # scored only: a --set for another metric was dropped, and the run went on.
    preds = ["--preds", EXAMPLES / "preds.txt"] * (2 if command == "compare" else 1)
    res = run(
        command, "--refs", EXAMPLES / "refs.txt", *preds, "--code", EXAMPLES / "code.jsonl",
        "-e", model, *code_option, "--set", "twmd.temperature=0.1",
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert res.stderr == "error: options given for twmd, which is not being scored\n"


def test_a_wide_table_is_not_cut_when_piped(model):
    # Not a terminal: rich would fit 80 columns and print every value as "0.…".
    names = ["wrd", "bertscore", "wmd", "twmd", "trwmd", "sbert", "cka", "rouge1", "rougeL"]
    res = score_examples(model, *(x for n in names for x in ("-m", n)))
    assert res.exit_code == 0, res.output
    assert "…" not in res.stdout
    header = next(line for line in res.stdout.splitlines() if "bertscore" in line)
    assert all(n in header for n in names)


# --- scoring against code (issue 25) -------------------------------------------------

CODE = [
    "void updateImage(Image image) { artwork.set(image); }",
    "char advance() { return text.charAt(pos++); }",
]


def _code_inputs(tmp_path, lines=None):
    (tmp_path / "refs.txt").write_text("update image\nadvance\n")
    (tmp_path / "preds.txt").write_text("set artwork\nnext char\n")
    code = tmp_path / "code.jsonl"
    code.write_text("\n".join(lines if lines is not None else [json.dumps(c) for c in CODE]) + "\n")
    return tmp_path / "refs.txt", tmp_path / "preds.txt", code


def test_score_with_code_writes_code_and_combined_columns(emb, model, tmp_path):
    refs, preds, code = _code_inputs(tmp_path)
    out = tmp_path / "pairs.tsv"
    res = run(
        "score", "--refs", refs, "--preds", preds, "--code", code, "-e", model,
        "-m", "wrd", "-m", "rouge1", "--per-pair", out, "--code-weight", "0.25", "-q",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    header = out.read_text().splitlines()[0].split("\t")
    assert header[3:] == [
        f"{m}.{k}" for m in ("wrd", "rouge1")
        for k in ("precision", "recall", "f1", "code", "combined")
    ]  # fmt: skip
    want = get_metric("wrd", embeddings=emb, code_weight=0.25).score(
        ["update image", "advance"], ["set artwork", "next char"], code=CODE
    )
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    np.testing.assert_allclose([float(r[6]) for r in rows], want.values["code"], atol=1e-6)
    np.testing.assert_allclose([float(r[7]) for r in rows], want.values["combined"], atol=1e-6)
    assert "|code:yes|cw:0.25|tgt:name|mask:name|str:drop|" in res.stdout


def test_score_against_code_alone_is_reference_free(model, tmp_path):
    _, preds, code = _code_inputs(tmp_path)
    res = run("score", "--preds", preds, "--code", code, "-e", model, "--format", "json", "-q")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["metrics"]["wrd"]
    assert out["primary"] == "code" and list(out["corpus"]) == ["code"]
    assert out["empty_code"] == 0


@pytest.mark.parametrize(
    ("lines", "extra", "message"),
    [
        ([json.dumps(CODE[0])], [], "1 code items but 2 predictions"),
        (["not json", json.dumps(CODE[1])], [], "code.jsonl:1: invalid JSON"),
        (["[1, 2]", json.dumps(CODE[1])], [], "code.jsonl:1: expected a string (the source)"),
        (['{"source": "x"}', json.dumps(CODE[1])], [], "code.jsonl:1: expected a string (the"),
        ([json.dumps(CODE[0]), '""'], [], "code.jsonl:2: code 2 cannot be read: "),
        ([json.dumps(CODE[0]), json.dumps("int f\x00() {}")], [], "code.jsonl:2: code 2 cannot"),
        (['""', json.dumps(CODE[1])], [], "code.jsonl:1: code 1 cannot be read: "),
        (None, ["--code-weight", "1.5"], "--code-weight must be from 0 to 1, not 1.5"),
        (None, ["--code-weight", "-0.1"], "--code-weight must be from 0 to 1"),
        (None, ["--code-weight", "1.0000001"], "--code-weight must be from 0 to 1, not 1.0000001"),
        (None, ["-m", "bleu"], "metric 'bleu' cannot score against code: "),
        (None, ["-m", "chrf"], "metric 'chrf' cannot score against code: "),
    ],
)  # fmt: skip
def test_bad_code_input_is_one_line_and_exit_2(model, tmp_path, lines, extra, message):
    refs, preds, code = _code_inputs(tmp_path, lines)
    res = run("score", "--refs", refs, "--preds", preds, "--code", code, "-e", model, *extra)
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and message in res.output
    assert res.output.count("\n") == 1


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_bad_reference_is_named_by_its_file_and_line(model, tmp_path, command):
    # compare said "reference 2 has no tokens ..." without the file, where score names it.
    refs, preds, _ = _code_inputs(tmp_path)
    refs.write_text("update image\n!!!\n")
    twice = [preds] * (2 if command == "compare" else 1)
    res = run(command, "--refs", refs, *(x for p in twice for x in ("--preds", p)), "-e", model)
    assert (res.exit_code, res.stderr) == (
        2,
        f"error: {refs}:2: reference 2 has no tokens (letters or digits); remove it or allow "
        "empty references (--allow-empty-reference)\n",
    )


@pytest.mark.parametrize("command", ["score", "compare"])
def test_code_weight_without_references_is_refused(model, tmp_path, command):
    # It weighs the code against the references in combined; code alone gives no
    # combined, so it changed nothing but the signature (cw:0), exit 0.
    _, preds, code = _code_inputs(tmp_path)
    twice = [preds] * (2 if command == "compare" else 1)
    res = run(command, *(x for p in twice for x in ("--preds", p)), "--code", code, "-e", model,
              "--code-weight", "0")  # fmt: skip
    assert (res.exit_code, res.stderr) == (
        2,
        "error: --code-weight only applies with --refs (combined = (1 - w) ref + w code)\n",
    )


def test_code_options_without_code_are_refused(model, tmp_path):
    refs, preds, _ = _code_inputs(tmp_path)
    res = run("score", "--refs", refs, "--preds", preds, "-e", model, "--target", "summary")
    assert res.exit_code == 2 and "--target only applies with --code or --corpus" in res.output
    two = ("--target", "summary", "--strings", "keep")
    res = run("score", "--refs", refs, "--preds", preds, "-e", model, *two)
    assert res.exit_code == 2 and "--target, --strings only apply with --code" in res.output
    res = run("score", "--preds", preds, "-e", model)
    assert res.exit_code == 2 and "give --refs, --code or --corpus" in res.output
    res = run("score", "--preds", preds, "--code", tmp_path / "code.txt", "-e", model)
    assert res.exit_code == 2 and "expected a .jsonl file" in res.output


@pytest.fixture(scope="module")
def project_corpus(tmp_path_factory):
    from wrdscore.corpora import ingest

    out = tmp_path_factory.mktemp("corpus") / "project"
    ingest([EXAMPLES / "project"], out, jobs=1, quiet=True)
    return out


def test_score_a_corpus_by_record_order_and_by_id(model, project_corpus, tmp_path):
    from wrdscore.corpora import corpus_methods

    methods = list(corpus_methods(project_corpus))
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(f"get {m.name}\n" for m in methods))
    res = run("score", "--corpus", project_corpus, "--preds", preds, "-e", model, "-q",
              "--format", "json")  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["pairs"] == len(methods)
    codes = [{"code": m.code, "name": m.name} for m in methods]
    want = get_metric("wrd", embeddings=model).score(
        [m.name for m in methods], preds.read_text().splitlines(), code=codes
    )
    for k, v in want.corpus.items():
        assert out["metrics"]["wrd"]["corpus"][k] == pytest.approx(v, abs=1e-12)
    # By id: a subset, in the file's order (a model's test set).
    chosen = [methods[5], methods[2]]
    by_id = tmp_path / "by-id.jsonl"
    by_id.write_text("".join(json.dumps({"id": m.id, "prediction": "size"}) + "\n" for m in chosen))
    pairs = tmp_path / "pairs.tsv"
    res = run("score", "--corpus", project_corpus, "--preds", by_id, "-e", model, "-q",
              "--per-pair", pairs)  # fmt: skip
    assert res.exit_code == 0, res.output
    header, *rows = [r.split("\t") for r in pairs.read_text().splitlines()]
    # The method ids come first, to join the rows on (issue 35).
    assert header[:4] == ["id", "index", "reference", "prediction"]
    assert [r[0] for r in rows] == [m.id for m in chosen]
    assert [r[2] for r in rows] == [m.name for m in chosen]
    res = run("score", "--corpus", project_corpus, "--preds", by_id, "-e", model, "-q",
              "--format", "json", "--clean-predictions")  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["per_pair"]
    assert [(r["id"], r["reference"], r["scored"]) for r in rows] == [
        (m.id, m.name, "size") for m in chosen
    ]
    bad = tmp_path / "bad-id.jsonl"
    bad.write_text(json.dumps({"id": "nope", "prediction": "size"}) + "\n")
    res = run("score", "--corpus", project_corpus, "--preds", bad, "-e", model)
    assert res.exit_code == 2 and "1 id not in corpus" in res.output


def test_a_corpus_without_code_is_refused_with_the_command_to_reingest(project_corpus, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(project_corpus, old)
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["format"] = 2
    (old / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "preds.txt").write_text("size\n")
    res = run("score", "--corpus", old, "--preds", tmp_path / "preds.txt")
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "without the methods' code; re-ingest it with `wrdscore ingest" in res.output


def test_methods_without_a_summary_get_their_code_support_as_combined(project_corpus, tmp_path):
    from wrdscore.corpora import corpus_methods

    methods = list(corpus_methods(project_corpus, target="summary"))
    missing = sum(not m.reference for m in methods)
    assert 0 < missing < len(methods)
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(f"returns the {m.name}\n" for m in methods))
    args = ["score", "--corpus", project_corpus, "--preds", preds, "-m", "rouge1", "-q",
            "--target", "summary", "--allow-empty-reference"]  # fmt: skip
    res = run(*args)
    assert res.exit_code == 0, res.output
    assert f"note: {missing} pairs without a reference token: their combined is the code " in (
        res.output
    )
    out = json.loads(run(*args, "--format", "json").stdout)
    assert out["metrics"]["rouge1"]["empty_references"] == missing
    for m, row in zip(methods, out["per_pair"], strict=True):
        if not m.reference:
            assert row["rouge1"]["combined"] == row["rouge1"]["code"]


def test_a_format_3_corpus_scores_by_parsing_as_format_4_from_its_words(
    model, project_corpus, tmp_path
):
    """Format 4 stores each method's identifiers (read, not parsed, when scoring); a
    format 3 corpus has none and is parsed: both give the same per-pair scores."""
    import gzip

    from wrdscore.corpora import corpus_methods

    methods = list(corpus_methods(project_corpus))
    assert methods and all(m.words is not None for m in methods)
    old = tmp_path / "old"
    old.mkdir()
    manifest = json.loads((project_corpus / "manifest.json").read_text())
    (old / "manifest.json").write_text(json.dumps({**manifest, "format": 3}))
    with (
        gzip.open(project_corpus / "methods.jsonl.gz", "rt", encoding="utf-8") as src,
        gzip.open(old / "methods.jsonl.gz", "wt", encoding="utf-8") as dst,
    ):
        for line in src:
            record = json.loads(line)
            del record["code_words"]
            dst.write(json.dumps(record) + "\n")
    assert all(m.words is None for m in corpus_methods(old))
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(f"get {m.name}\n" for m in methods))
    rows = {}
    for corpus in (project_corpus, old):
        for target in ("name", "summary"):
            out = tmp_path / f"{corpus.name}-{target}.tsv"
            res = run("score", "--corpus", corpus, "--preds", preds, "-e", model, "-q",
                      "--target", target, "--per-pair", out, "--allow-empty-reference")  # fmt: skip
            assert res.exit_code == 0, res.output
            rows[corpus.name, target] = out.read_text()
    assert rows["project", "name"] == rows["old", "name"]
    assert rows["project", "summary"] == rows["old", "summary"]
    assert rows["project", "name"] != rows["project", "summary"]


def test_the_empty_code_note_speaks_of_combined_only_when_there_is_one(tmp_path):
    # `void run() { }` leaves nothing to match once its name is masked: a note counts it,
    # and says combined fell back to the reference only where references were given.
    code, names = tmp_path / "code.jsonl", tmp_path / "names.txt"
    code.write_text('"void run() { }"\n')
    names.write_text("run\n")
    alone = run("score", "--preds", str(names), "--code", str(code), "-q")
    assert alone.exit_code == 0, alone.output
    assert "1 pair with nothing to match in its code" in alone.stderr
    assert "combined" not in alone.stderr
    both = run("score", "--refs", str(names), "--preds", str(names), "--code", str(code), "-q")
    assert both.exit_code == 0, both.output
    assert "scored 0 on code, its combined the reference's value" in both.stderr
