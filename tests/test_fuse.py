"""``wrdscore fuse``: two models' scaled vectors concatenated per token."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import fasttext_model_dir, specialise_records, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import (
    MinedPair,
    TokenEmbeddings,
    fuse_models,
    load_embeddings,
    read_pairs,
    save_embeddings,
    specialise_model,
    specialise_vectors,
    write_pairs,
)
from wrdscore.errors import WrdscoreError

CODE = {
    "get": [3.0, 0.0, 0.0],
    "set": [3.0, 1.0, 0.0],
    "name": [0.0, 0.0, 5.0],
    "value": [1.0, 1.0, 1.0],
}
WORDS = {"get": [1.0, 1.0], "set": [1.0, 0.8], "fetch": [2.0, 0.0], "value": [0.0, 0.5]}


def _model(folder: Path, vectors: dict[str, list[float]], n_docs: int | None = 10) -> Path:
    emb = TokenEmbeddings.from_vectors(vectors, counts={t: 10 - i for i, t in enumerate(vectors)})
    doc_freq = {t: 5 - i for i, t in enumerate(vectors)} if n_docs else {}
    return save_embeddings(
        emb.kv, folder, meta={"name": folder.name, "n_docs": n_docs}, doc_freq=doc_freq
    )


@pytest.fixture
def parts(tmp_path: Path) -> tuple[Path, Path]:
    return _model(tmp_path / "code", CODE), _model(tmp_path / "words", WORDS, n_docs=None)


def test_fused_vectors_follow_the_formula(parts: tuple[Path, Path], tmp_path: Path) -> None:
    fused = fuse_models(*parts, tmp_path / "f", weights=(2.0, 0.5))
    shared = ["get", "set", "value"]
    n_x = np.mean([np.linalg.norm(CODE[t]) for t in shared])
    n_y = np.mean([np.linalg.norm(WORDS[t]) for t in shared])
    # The union: the first model's tokens, then the second's others.
    assert fused.tokens == ["get", "set", "name", "value", "fetch"]
    for t in fused.tokens:
        x = np.array(CODE.get(t, [0.0] * 3))  # missing from a part without subword: zero
        y = np.array(WORDS.get(t, [0.0] * 2))
        expected = np.concatenate([2.0 * x / n_x, 0.5 * y / n_y])
        np.testing.assert_allclose(fused.lookup([t])[0][0], expected, rtol=1e-6)
    meta = json.loads((tmp_path / "f" / "model.json").read_text())["fuse"]
    assert meta["shared_tokens"] == 3 and meta["weights"] == [2.0, 0.5]
    assert [p["missing"] for p in meta["parts"]] == [1, 1]
    # IDF and counts from the first model with document frequencies (the code model).
    assert fused.n_docs == 10 and fused.doc_freq == {"get": 5, "set": 4, "name": 3, "value": 2}
    assert fused.counts is not None and fused.counts.tolist() == [10, 9, 8, 7, 0]


def test_frequencies_come_from_the_second_model_when_the_first_has_none(
    parts: tuple[Path, Path], tmp_path: Path
) -> None:
    fused = fuse_models(parts[1], parts[0], tmp_path / "f")
    assert fused.tokens == ["get", "set", "fetch", "value", "name"]
    assert fused.n_docs == 10 and fused.doc_freq is not None and fused.doc_freq["get"] == 5


def test_a_missing_token_gets_the_parts_subword_vector(
    parts: tuple[Path, Path], tmp_path: Path
) -> None:
    plain = load_embeddings(_model(tmp_path / "plain", {**CODE, "fetch": [0.0, 2.0, 2.0]}))
    fused = fuse_models(parts[1], plain, tmp_path / "f")
    shared = [t for t in plain.tokens if t in WORDS]
    n_y = float(np.mean(np.linalg.norm(plain.lookup(shared)[0], axis=1)))
    row = fused.lookup(["name"])[0][0]  # only in the second part: its own vector there
    np.testing.assert_allclose(row[2:], plain.lookup(["name"])[0][0] / n_y, rtol=1e-5)
    meta = fused.meta["fuse"]["parts"][0]
    # The token the small model lacks is zero in its part (it has no subword).
    assert meta["missing"] == 1 and meta["missing_from_subword"] == 0
    assert not row[:2].any()
    # The reverse: a FastText model gives tokens it lacks their n-gram vectors.
    fasttext = load_embeddings(fasttext_model_dir(tmp_path / "ft"))
    odd = _model(tmp_path / "odd", {"get": [1.0], "zqxjvkw": [2.0]})
    back = fuse_models(odd, tmp_path / "ft", tmp_path / "g")
    part = back.meta["fuse"]["parts"][1]
    assert part["missing"] == 1 and part["missing_from_subword"] == 1
    n_b = float(np.linalg.norm(fasttext.lookup(["get"])[0][0]))
    expected = fasttext.lookup(["zqxjvkw"], oov="subword")[0][0] / n_b
    np.testing.assert_allclose(back.lookup(["zqxjvkw"])[0][0][1:], expected, rtol=1e-5)


def test_specialising_a_fused_model_runs(parts: tuple[Path, Path], tmp_path: Path) -> None:
    corpus = write_records(tmp_path / "corpus", specialise_records())
    fuse_models(*parts, tmp_path / "f")
    emb = specialise_model(tmp_path / "f", corpus, tmp_path / "cf")
    assert emb.meta["specialise"]["pairs_in_vocab"]["contrast"] >= 2
    before = load_embeddings(tmp_path / "f")
    # The contrast get/set was pushed apart.
    assert _cosine(emb, "get", "set") < _cosine(before, "get", "set") - 0.1


def test_specialise_a_float16_fusion_with_another_models_pairs(
    parts: tuple[Path, Path], tmp_path: Path
) -> None:
    # How the bundled default is built: fuse --float16, then specialise with the code
    # model's own pairs.tsv (no mining). The result stays float16 and equals
    # specialise_vectors on the same pairs.
    corpus = write_records(tmp_path / "corpus", specialise_records())
    assert (
        CliRunner()
        .invoke(app, ["fuse", *map(str, parts), "-o", str(tmp_path / "f"), "--float16"])
        .exit_code
        == 0
    )
    pairs = tmp_path / "pairs.tsv"
    write_pairs(
        [
            MinedPair("contrast", "get", "set", 3, 2, ""),
            MinedPair("synonym", "fetch", "get", 2, 2, ""),
            MinedPair("contrast", "zzz", "get", 2, 2, ""),
        ],
        pairs,
    )
    args = ["specialise", str(tmp_path / "f"), str(corpus), "-o", str(tmp_path / "cf")]
    res = CliRunner().invoke(app, [*args, "--pairs", str(pairs), "--baseline-pairs", "0"])
    assert res.exit_code == 0, res.output
    assert "with 1 of 2 contrast pairs, 1 of 1 synonym pair, 0 of 0 abbreviation" in res.output
    out = load_embeddings(tmp_path / "cf")
    assert out.kv.vectors.dtype == np.float16
    special = out.meta["specialise"]["constraints"]
    assert special["file"] == str(pairs) and len(special["file_sha256"]) == 64
    fused = load_embeddings(tmp_path / "f")
    expected = specialise_vectors(fused.kv, read_pairs(pairs)).kv
    np.testing.assert_array_equal(out.kv.vectors, expected.vectors)
    assert _cosine(out, "get", "set") < _cosine(fused, "get", "set") - 0.1
    # A pairs file with no pairs: a one-line error, no output.
    empty = tmp_path / "empty.tsv"
    write_pairs([], empty)
    bad = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "e"), "--pairs", str(empty)])
    assert bad.exit_code == 2 and bad.output.strip() == f"error: {empty}: no pairs"
    assert not (tmp_path / "e").exists()


def _cosine(emb: TokenEmbeddings, a: str, b: str) -> float:
    x, y = emb.lookup([a, b])[0]
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["fuse", *args])
    return res.exit_code, res.output


def test_cli_writes_the_fusion(parts: tuple[Path, Path], tmp_path: Path) -> None:
    code, out = _cli(str(parts[0]), str(parts[1]), "-o", str(tmp_path / "f"), "--weights", "1,0.5")
    assert code == 0, out
    assert "5 tokens x 5 dims (3 shared)" in out
    assert "1 tokens are not in words: 0 given its subword vectors, 1 zero in its part" in out
    assert load_embeddings(tmp_path / "f").meta["fuse"]["weights"] == [1.0, 0.5]


def test_fuse_says_what_it_is_doing_unless_quiet(
    parts: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loading two models and writing the union is seconds of silence; --quiet keeps it so,
    # as it does for every other command that writes a model.
    import wrdscore.progress

    monkeypatch.setattr(wrdscore.progress, "watched", lambda: True)
    args = ["fuse", *map(str, parts)]
    res = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "f")])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines()[0] == f"fusing {parts[0]} and {parts[1]} ..."
    res = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "g"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert " ..." not in res.stderr and res.stdout.startswith(f"wrote {tmp_path / 'g'}: ")


def test_every_command_that_writes_a_model_takes_quiet() -> None:
    import typer.main

    root = typer.main.get_command(app)
    writers = [
        name
        for name, cmd in root.commands.items()  # type: ignore[attr-defined]
        for p in cmd.params
        if "--output" in p.opts and "MODEL_DIR" in (getattr(p, "help", "") or "")
    ]
    assert {"train", "specialise", "distill", "fuse", "tune"} <= set(writers)
    for name in writers:
        opts = {o for p in root.commands[name].params for o in p.opts}  # type: ignore[attr-defined]
        assert {"--quiet", "-q"} <= opts, name


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ("1", "expected two numbers"),
        ("a,b", "expected two numbers"),
        ("1,2,3", "expected two numbers"),
        ("-1,1", "non-negative"),
        ("0,0", "not both 0"),
        ("nan,1", "non-negative"),
    ],
)
def test_bad_weights_are_one_line(
    weights: str, message: str, parts: tuple[Path, Path], tmp_path: Path
) -> None:
    code, out = _cli(str(parts[0]), str(parts[1]), "-o", str(tmp_path / "f"), "--weights", weights)
    assert code == 2 and message in out and len(out.strip().splitlines()) == 1, out
    assert not (tmp_path / "f").exists()


def test_models_with_no_shared_token_are_refused(parts: tuple[Path, Path], tmp_path: Path) -> None:
    other = _model(tmp_path / "other", {"foo": [1.0], "bar": [2.0]})
    code, out = _cli(str(parts[0]), str(other), "-o", str(tmp_path / "f"))
    assert code == 2 and "share no token" in out and len(out.strip().splitlines()) == 1
    assert not (tmp_path / "f").exists()


def test_existing_output_is_refused_without_force(parts: tuple[Path, Path], tmp_path: Path) -> None:
    fuse_models(*parts, tmp_path / "f")
    before = (tmp_path / "f" / "model.json").read_bytes()
    code, out = _cli(str(parts[0]), str(parts[1]), "-o", str(tmp_path / "f"))
    assert code == 2 and "already exists" in out
    assert (tmp_path / "f" / "model.json").read_bytes() == before
    code, out = _cli(
        str(parts[0]), str(parts[1]), "-o", str(tmp_path / "f"), "--force", "--weights", "1,2"
    )
    assert code == 0 and load_embeddings(tmp_path / "f").meta["fuse"]["weights"] == [1.0, 2.0]


def test_a_part_whose_shared_vectors_are_all_zero_is_refused(tmp_path: Path) -> None:
    zero = TokenEmbeddings.from_vectors({"get": [0.0, 0.0], "x": [1.0, 0.0]})
    one = TokenEmbeddings.from_vectors({"get": [1.0]})
    with pytest.raises(WrdscoreError, match="every vector of the 1 shared tokens is zero"):
        fuse_models(zero, one, tmp_path / "f")
    assert not (tmp_path / "f").exists()


def test_a_float16_fusion_holds_the_float32_values_rounded(
    parts: tuple[Path, Path], tmp_path: Path
) -> None:
    full = fuse_models(*parts, tmp_path / "f32")
    half = fuse_models(*parts, tmp_path / "f16", float16=True)
    assert np.load(tmp_path / "f16" / "fast" / "vectors.npy").dtype == np.float16
    np.testing.assert_array_equal(half.vectors, full.vectors.astype(np.float16))


def _pieces_model(folder: Path) -> Path:
    """A model with word pieces (as ``wrdscore distill`` writes one): WORDS plus pieces."""
    from wrdscore.embeddings.store._wordpiece import WordPieceRules, WordPieces

    emb = TokenEmbeddings.from_vectors(WORDS)
    pieces = WordPieces(
        ["zip", "##per", "fetch", "##er"],
        np.array([[1.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.0, 4.0]], dtype=np.float32),
        WordPieceRules(),
    )
    meta = {"name": folder.name, "n_docs": None}
    return save_embeddings(emb.kv, folder, meta=meta, doc_freq={}, pieces=pieces)


def test_a_fusion_keeps_each_parts_fallback_for_unseen_tokens(tmp_path: Path) -> None:
    """An unseen token: [s1 * n-gram vector ; s2 * mean of its word pieces]."""
    code = load_embeddings(fasttext_model_dir(tmp_path / "ft"))
    words = load_embeddings(_pieces_model(tmp_path / "w"))
    fused = fuse_models(code, words, tmp_path / "f", weights=(1.0, 0.5))
    assert (tmp_path / "f" / "fallback" / "parts.json").is_file()
    shared = [t for t in words.tokens if t in code]
    s1 = 1.0 / np.mean(np.linalg.norm(code.lookup(shared)[0], axis=1))
    s2 = 0.5 / np.mean(np.linalg.norm(words.lookup(shared)[0], axis=1))
    assert fused.has_subword and fused.resolve_oov("auto") == "subword"
    vecs, unseen = fused.lookup(["zipper", "fetcher"], oov="auto")
    assert unseen.tolist() == [True, True]
    for row, token in zip(vecs, ["zipper", "fetcher"], strict=True):
        ngram = code.lookup([token], oov="subword")[0][0]
        piece = words.lookup([token], oov="subword")[0][0]
        np.testing.assert_allclose(row, np.concatenate([s1 * ngram, s2 * piece]), rtol=1e-6)
    # Not all zero in either part: the fallback is not a stub.
    assert np.abs(vecs[0][: code.dim]).sum() > 0 and np.abs(vecs[0][code.dim :]).sum() > 0
    # As the user's model folder, and after specialising (tables go along unchanged).
    again = load_embeddings(tmp_path / "f")
    np.testing.assert_allclose(again.lookup(["zipper"], oov="auto")[0], vecs[:1], rtol=1e-6)
    corpus = write_records(tmp_path / "corpus", specialise_records())
    special = specialise_model(tmp_path / "f", corpus, tmp_path / "cf")
    reloaded = load_embeddings(tmp_path / "cf")
    for emb in (special, reloaded):
        np.testing.assert_allclose(emb.lookup(["zipper"], oov="auto")[0], vecs[:1], rtol=1e-6)
    meta = fused.meta["fuse"]["fallback"]
    assert [p["kind"] for p in meta["parts"]] == ["ngrams", "pieces"]
    assert len(meta["sha256"]) == 64


def test_the_fallback_is_in_the_models_hash_and_nests_flat(tmp_path: Path) -> None:
    code = fasttext_model_dir(tmp_path / "ft")
    words = _pieces_model(tmp_path / "w")
    before = fuse_models(code, words, tmp_path / "f").sha
    # A changed piece vector changes the model's name in signatures.
    table = tmp_path / "f" / "fallback" / "1" / "pieces" / "vectors.npy"
    rows = np.load(table)
    rows[0, 0] += 1.0
    np.save(table, rows)
    assert load_embeddings(tmp_path / "f").sha != before
    # A fusion of a fusion: the inner parts, rescaled, then the new part (zero fallback).
    plain = _model(tmp_path / "plain", CODE)
    outer = fuse_models(tmp_path / "f", plain, tmp_path / "g")
    assert [p["kind"] for p in outer.meta["fuse"]["fallback"]["parts"]] == [
        "ngrams",
        "pieces",
        "none",
    ]
    row = outer.lookup(["zipper"], oov="auto")[0][0]
    inner = load_embeddings(tmp_path / "f").lookup(["zipper"], oov="auto")[0][0]
    scale = outer.meta["fuse"]["fallback"]["parts"][0]["scale"]
    first = outer.meta["fuse"]["parts"][0]["mean_norm"]
    np.testing.assert_allclose(row[: len(inner)], inner / first, rtol=1e-5)
    assert scale > 0 and not row[len(inner) :].any()


def test_two_parts_without_tables_give_no_fallback(
    parts: tuple[Path, Path], tmp_path: Path
) -> None:
    fused = fuse_models(*parts, tmp_path / "f")
    assert not fused.has_subword and fused.meta["fuse"]["fallback"] is None
    assert not (tmp_path / "f" / "fallback").exists()


@pytest.mark.parametrize(
    "damage",
    [
        lambda f: (f / "parts.json").write_text("{"),
        lambda f: (f / "parts.json").write_text('{"format": "other", "parts": []}'),
        lambda f: np.save(f / "0" / "ngrams.npy", np.full((64, 4), np.nan, dtype=np.float32)),
        lambda f: np.save(f / "1" / "pieces" / "vectors.npy", np.zeros((2, 2), np.float32)),
        lambda f: np.save(f / "1" / "pieces" / "vectors.npy", np.zeros((4, 3), np.float32)),
    ],
)
def test_a_damaged_fallback_is_one_line_at_load(tmp_path: Path, damage) -> None:
    fuse_models(fasttext_model_dir(tmp_path / "ft"), _pieces_model(tmp_path / "w"), tmp_path / "f")
    damage(tmp_path / "f" / "fallback")
    with pytest.raises(WrdscoreError, match=r"fallback") as err:
        load_embeddings(tmp_path / "f")
    assert "\n" not in str(err.value)


def test_similarity_and_explain_give_an_unseen_token_its_fallback_vector(tmp_path: Path) -> None:
    fuse_models(fasttext_model_dir(tmp_path / "ft"), _pieces_model(tmp_path / "w"), tmp_path / "f")
    model = str(tmp_path / "f")
    res = CliRunner().invoke(app, ["similarity", model, "zipper", "fetcher"])
    assert res.exit_code == 0, res.output
    fused = load_embeddings(tmp_path / "f")
    a, b = fused.lookup(["zipper", "fetcher"], oov="auto")[0]
    cosine = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert f"{cosine:.4f}" in res.output, res.output
    res = CliRunner().invoke(app, ["explain", "get zipper", "fetcher value", "-e", model])
    assert res.exit_code == 0, res.output
    assert "zipper" in res.output and "oov:subword" in res.output, res.output
