"""Baseline rescaling: b from random training-name pairs, (s - b) / (1 - b), identity stays 1."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import write_records
from scipy import stats
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import split_identifier
from wrdscore.embeddings import TokenEmbeddings, load_embeddings, save_embeddings
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import analyze_study
from wrdscore.metrics import (
    BASELINE_CENTERINGS,
    METRICS,
    EmbeddingMetric,
    add_baselines,
    baseline_key,
    baseline_settings,
    compute_baselines,
    get_metric,
    sample_name_pairs,
)

# One-token names with 2-D vectors: WRDScore of two one-token names is then the clipped
# cosine of their vectors, so the baseline can be computed by hand.
ANGLES = {"alpha": 0.0, "beta": 0.5, "gamma": 1.2, "delta": 2.0, "omega": 3.0}
VECTORS = {t: [np.cos(a), np.sin(a)] for t, a in ANGLES.items()}
NAMES = ["alpha", "beta", "gamma", "delta", "omega", "alpha", "alpha", "beta"]


def write_corpus(folder: Path, names: list[str], methods: int | None = None) -> Path:
    records = [{"name": n, "tokens": split_identifier(n)} for n in names]
    return write_records(folder, records, {"counts": {"methods": methods or len(names)}})


def write_model(folder: Path) -> Path:
    emb = TokenEmbeddings.from_vectors(VECTORS)
    doc_freq = {t: NAMES.count(t) for t in VECTORS}
    return save_embeddings(
        emb.kv, folder, meta={"name": "fix", "n_docs": len(NAMES)}, doc_freq=doc_freq
    )


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    root = tmp_path_factory.mktemp("rescale")
    corpus = write_corpus(root / "corpus", NAMES)
    folder = write_model(root / "model")
    block = add_baselines(folder, corpus, pairs=300, seed=5)
    return folder, corpus, block


def hand_pairs(pairs: int, seed: int) -> tuple[list[str], list[str]]:
    """The draw sample_name_pairs documents, redone: i.i.d. record pairs, equal names skipped."""
    drawn = np.random.default_rng(seed).integers(0, len(NAMES), size=(3 * pairs, 2))
    kept = [(NAMES[a], NAMES[b]) for a, b in drawn if NAMES[a] != NAMES[b]][:pairs]
    return [a for a, _ in kept], [b for _, b in kept]


def test_sampled_pairs_follow_the_documented_draw(model):
    _, corpus, _ = model
    refs, preds, n = sample_name_pairs(corpus, pairs=300, seed=5)
    hand_refs, hand_preds = hand_pairs(300, 5)
    assert n == len(NAMES)
    assert refs == [[r] for r in hand_refs] and preds == [[p] for p in hand_preds]
    # A different seed draws different pairs; the same seed the same ones.
    assert sample_name_pairs(corpus, pairs=300, seed=6)[0] != refs
    assert sample_name_pairs(corpus, pairs=300, seed=5)[0] == refs


def test_wrd_baseline_is_the_mean_clipped_cosine_of_random_names(model):
    folder, _, block = model
    refs, preds = hand_pairs(300, 5)
    # The model stores float32 vectors: the cosines are those of the stored vectors.
    kv = load_embeddings(folder).kv
    unit = {t: kv[t].astype(np.float64) / np.linalg.norm(kv[t].astype(np.float64)) for t in VECTORS}
    cos = np.array([unit[r] @ unit[p] for r, p in zip(refs, preds, strict=True)])
    b = block["settings"]["wrdscore|w:norm|c:none|oov:zero|clip:yes|solver:emd"]
    expected = float(np.mean(np.maximum(cos, 0.0)))
    assert b["precision"] == pytest.approx(expected, abs=1e-12)
    assert b["recall"] == pytest.approx(expected, abs=1e-12)
    assert b["f1"] == pytest.approx(expected, abs=1e-12)
    # Stored in model.json, where loading picks it up.
    meta = json.loads((folder / "model.json").read_text())
    assert meta["baselines"]["pairs"] == 300 and meta["baselines"]["seed"] == 5
    assert meta["baselines"]["names"] == len(NAMES)
    # The fixture records no training corpus: no claim either way.
    assert meta["baselines"]["corpus"]["training_corpus"] is None
    loaded = get_metric("wrd", embeddings=load_embeddings(folder), rescale=True)
    assert loaded.baseline == b


def test_every_setting_of_the_grid_has_a_baseline(model):
    folder, _, block = model
    emb = load_embeddings(folder)
    settings = list(baseline_settings(emb))
    embedding_metrics = [
        n for n, c in METRICS.items() if issubclass(c, EmbeddingMetric) and not c.needs_encoder
    ]
    # No subword vectors here: oov zero and drop; wrd has 4 weightings, bertscore idf no/yes.
    per_metric = 2 * len(BASELINE_CENTERINGS)
    assert len(settings) == per_metric * (len(embedding_metrics) - 2 + 4 + 2)
    keys = {baseline_key(get_metric(n, embeddings=emb, **o)) for n, o in settings}
    assert keys == set(block["settings"])
    # CKA of two one-token names is always 1 (one row is its own linear kernel), so its
    # baseline is undefined here, except under sentence centering (one token -> zero -> 0).
    undefined = {k for k, v in block["settings"].items() if v is None}
    assert undefined == {
        k for k in block["settings"] if k.startswith("cka|") and "c:sentence" not in k
    }
    for key, values in block["settings"].items():
        if key not in undefined:
            assert all(np.isfinite(v) and v < 1 for v in values.values())


def test_rescaled_values_are_s_minus_b_over_one_minus_b_each_with_its_own_b(model):
    folder, _, _ = model
    emb = load_embeddings(folder)
    refs = ["alpha beta", "gamma", "alpha", "delta omega alpha", "beta"]
    preds = ["beta", "gamma delta", "omega", "alpha", "beta gamma"]
    for name in ("wrd", "bertscore", "wmd", "sbert"):
        raw = get_metric(name, embeddings=emb).score(refs, preds)
        metric = get_metric(name, embeddings=emb, rescale=True)
        res = metric.score(refs, preds)
        b = metric.baseline
        assert set(b) == set(raw.values)
        for key, values in raw.values.items():
            np.testing.assert_allclose(res.values[key], (values - b[key]) / (1 - b[key]), rtol=0)
            assert res.corpus[key] == pytest.approx(np.mean(res.values[key]))
        # Affine per value: ranks (and Pearson's r) are unchanged.
        assert stats.spearmanr(raw.scores, res.scores).statistic == pytest.approx(1.0)
        assert np.array_equal(
            np.argsort(raw.scores, kind="stable"), np.argsort(res.scores, kind="stable")
        )


def test_values_below_the_baseline_stay_negative(model):
    folder, _, _ = model
    metric = get_metric("wrd", embeddings=load_embeddings(folder), rescale=True)
    # alpha and omega: cosine cos(3) < 0, clipped to 0 before rescaling, so -b / (1 - b).
    res = metric.score(["alpha"], ["omega"])
    b = metric.baseline["f1"]
    assert res.f1[0] == pytest.approx(-b / (1 - b)) and res.f1[0] < 0


# (wmd's normalisation by the self-transport costs rounds a three-token identity to
# 1 - 2e-16, so it is left out: rescaling keeps exactly what the raw score gives.)
@pytest.mark.parametrize("name", ["wrd", "bertscore", "twmd", "trwmd"])
def test_identity_scores_exactly_one_before_and_after_rescaling(model, name):
    folder, _, _ = model
    emb = load_embeddings(folder)
    refs = ["alpha", "beta gamma", "delta omega alpha"]
    preds = ["alpha", "gamma beta", "delta omega alpha"]
    raw = get_metric(name, embeddings=emb).score(refs, preds)
    res = get_metric(name, embeddings=emb, rescale=True).score(refs, preds)
    for key in raw.values:
        assert raw.values[key].tolist() == [1.0, 1.0, 1.0]
        assert res.values[key].tolist() == [1.0, 1.0, 1.0]


def test_signature_says_rescaled_and_the_model_hash_is_unchanged(model, tmp_path):
    folder, _, _ = model
    emb = load_embeddings(folder)
    raw = get_metric("wrd", embeddings=emb).score(["alpha"], ["beta"]).signature
    res = get_metric("wrd", embeddings=emb, rescale=True).score(["alpha"], ["beta"]).signature
    assert "rescale" not in raw
    assert res == raw.replace("|v:", "|rescale:yes|v:")
    # Adding baselines leaves the vectors, hence the signature's model hash, as they were.
    bare = load_embeddings(write_model(tmp_path / "bare"))
    assert bare.sha == emb.sha


def test_missing_baselines_are_one_line_errors(model, tmp_path):
    folder, _, _ = model
    emb = load_embeddings(folder)
    bare = load_embeddings(write_model(tmp_path / "bare"))
    cases = [
        (bare, {}, "no rescaling baseline for wrdscore|w:norm|c:none|oov:zero|clip:yes|"
         "solver:emd in embeddings 'fix': the model has none; add them with "
         "`wrdscore baseline MODEL_DIR CORPUS`"),
        (TokenEmbeddings.from_vectors(VECTORS), {}, "the model has none"),
        (emb, {"centering": "batch"}, "centering 'batch' has none: its scores depend on the batch"),
        (emb, {"clip": False}, "outside the stored settings"),
    ]  # fmt: skip
    for embeddings, options, message in cases:
        metric = get_metric("wrd", embeddings=embeddings, rescale=True, **options)
        with pytest.raises(WrdscoreError) as info:
            metric.score(["alpha"], ["beta"])
        assert message in str(info.value) and "\n" not in str(info.value)
    # Baselines kept beside other vectors (model.json copied over a retrained model).
    other = TokenEmbeddings.from_vectors({t: [v[1], v[0]] for t, v in VECTORS.items()})
    other.meta["baselines"] = emb.meta["baselines"]
    with pytest.raises(WrdscoreError, match=f"computed for other vectors \\(sha {emb.sha}"):
        get_metric("wrd", embeddings=other, rescale=True).score(["alpha"], ["beta"])
    with pytest.raises(WrdscoreError, match="rescale must be true or false"):
        get_metric("wrd", embeddings=emb, rescale="yes")
    # Metrics without embeddings take no rescale option at all.
    with pytest.raises(WrdscoreError, match="unknown option"):
        get_metric("rouge1", rescale=True)


def test_undefined_baseline_is_stored_as_none_and_refused():
    # Every token has the same direction: random names score 1, rescaling is undefined.
    emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0], "b": [2.0, 0.0]})
    stored = compute_baselines(emb, [["a"]], [["b"]])
    key = "wrdscore|w:norm|c:none|oov:zero|clip:yes|solver:emd"
    assert stored[key] is None
    emb.meta["baselines"] = {"vectors_sha": emb.sha, "settings": stored}
    with pytest.raises(WrdscoreError, match="rescaling is undefined for wrdscore"):
        get_metric("wrd", embeddings=emb, rescale=True).score(["a"], ["b"])


def test_sampling_errors(tmp_path):
    one = write_corpus(tmp_path / "one", ["alpha"])
    with pytest.raises(WrdscoreError, match="has 1 method"):
        sample_name_pairs(one)
    same = write_corpus(tmp_path / "same", ["getName", "get_name", "GetName"])
    with pytest.raises(WrdscoreError, match="too few distinct names"):
        sample_name_pairs(same, pairs=10)
    lying = write_corpus(tmp_path / "lying", ["alpha", "beta"], methods=3)
    # Corpus.iter_methods checks the count for every reader, before the baseline's own check.
    with pytest.raises(WrdscoreError, match="manifest says 3 methods but the records file has 2"):
        sample_name_pairs(lying, pairs=1)
    with pytest.raises(WrdscoreError, match="at least 1"):
        sample_name_pairs(lying, pairs=0)
    with pytest.raises(WrdscoreError, match="not a model folder"):
        add_baselines(tmp_path, one)


TRAIN_NAMES = [
    "getName", "setName", "getValue", "setValue", "isEmpty", "getSize", "size", "addAll",
    "removeAll", "toString", "getCount", "setCount", "readLine", "writeLine", "getOrDefault",
]  # fmt: skip


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_cli_train_stores_baselines_and_score_rescales(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", TRAIN_NAMES)
    model = tmp_path / "model"
    code, out, err = run(
        "train", corpus, "--method", "svd", "--dim", "3", "-o", model, "--baseline-pairs", "200"
    )
    assert code == 0, err
    assert f"wrote {model / 'model.json'}: rescaling baselines of " in err
    assert "on 200 random pairs of 15 names" in err
    block = json.loads((model / "model.json").read_text())["baselines"]
    assert block["pairs"] == 200 and block["corpus"]["training_corpus"] is True
    # `wrdscore baseline` recomputes the same numbers (same corpus, pairs, seed).
    meta = json.loads((model / "model.json").read_text())
    del meta["baselines"]
    (model / "model.json").write_text(json.dumps(meta))
    code, out, err = run("baseline", model, corpus, "--pairs", "200")
    assert code == 0, err
    assert "note" not in err  # the model's own training corpus
    assert json.loads((model / "model.json").read_text())["baselines"] == block

    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("getName\nsetValue\nreadLine\n")
    preds.write_text("get name\ngetCount\nsize\n")
    code, out, err = run(
        "score", "--refs", refs, "--preds", preds, "-e", model, "-m", "wrd", "-m", "rouge1",
        "--rescale", "--format", "json", "--per-pair", tmp_path / "pp.jsonl", "-q",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)["metrics"]
    assert data["wrd"]["signature"].endswith("|rescale:yes|v:0.1.0")
    assert "rescale" not in data["rouge1"]["signature"]  # overlap metrics are not rescaled
    emb = load_embeddings(model)
    raw = get_metric("wrd", embeddings=emb).score(["getName", "setValue", "readLine"],
                                                  ["get name", "getCount", "size"])  # fmt: skip
    b = block["settings"]["wrdscore|w:norm|c:none|oov:zero|clip:yes|solver:emd"]
    expected = (raw.f1 - b["f1"]) / (1 - b["f1"])
    assert data["wrd"]["corpus"]["f1"] == pytest.approx(float(np.mean(expected)))
    rows = [json.loads(x) for x in (tmp_path / "pp.jsonl").read_text().splitlines()]
    assert rows[0]["wrd"]["f1"] == 1.0  # identity, rescaled


def test_cli_rescale_errors_are_one_line(tmp_path):
    bare = write_model(tmp_path / "bare")
    refs = tmp_path / "refs.txt"
    refs.write_text("alpha\n")
    for extra, message in [
        ([], "error: no rescaling baseline for wrdscore|"),
        (["--centering", "batch"], "centering 'batch' has none"),
    ]:
        code, _, err = run("score", "--refs", refs, "--preds", refs, "-e", bare, "--rescale",
                           "-q", *extra)  # fmt: skip
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
        assert message in err
    code, _, err = run("baseline", bare, tmp_path / "nope")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1


def test_study_analysis_with_rescaling_changes_errors_not_ranks(model, tmp_path):
    folder, _, _ = model
    pairs = tmp_path / "set1.csv"
    pairs.write_text(
        "alpha,alpha,10\nalpha beta,beta,6\ngamma,delta,3\nalpha,omega,0\n"
        "beta gamma,gamma,7\ndelta,omega alpha,1\n"
    )
    runs = [
        analyze_study(
            tmp_path / f"r{flag}",
            pairs=[pairs],
            scale=10,
            metrics=["rouge1", "wrd"],
            embeddings=folder,
            rescale=flag,
            resamples=40,
        )
        for flag in (False, True)
    ]
    raw, rescaled = (a.metrics[1] for a in runs)
    assert rescaled.metric.signature.endswith("|rescale:yes|v:0.1.0")
    assert rescaled.errors["mse"].point != raw.errors["mse"].point
    for kind in ("pearson", "spearman", "kendall"):
        assert rescaled.correlations[kind].value == pytest.approx(raw.correlations[kind].value)
    assert runs[1].metrics[0].errors == runs[0].metrics[0].errors  # ROUGE-1 untouched
    # The same through the CLI.
    code, _, err = run(
        "study", "analyze", "--pairs", pairs, "--scale", "10", "-m", "rouge1", "-m", "wrd",
        "--embeddings", folder, "--rescale", "--resamples", "40", "-o", tmp_path / "cli",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((tmp_path / "cli" / "report.json").read_text())
    assert report["metrics"][1]["signature"] == rescaled.metric.signature
    assert report["metrics"][1]["errors"]["mse"]["point"] == rescaled.errors["mse"].point
