"""``wrdscore distill``: static vectors from the real all-MiniLM-L6-v2, stored and used torch-free.

The encoder loads once per module. The distilled vocabulary is a small corpus's plus a
sample of the encoder's whole words, and only the word pieces the checks need (plus a
few hundred others) are encoded, so the end-to-end runs stay a few seconds each.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import HUNG, require
from corpus_fixtures import specialise_records, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import (
    TokenEmbeddings,
    WordPieceRules,
    WordPieces,
    fuse_models,
    load_embeddings,
    save_embeddings,
    specialise_model,
)
from wrdscore.embeddings.encoders import (
    Encoder,
    _distill,
    resolve_encoder_path,
)
from wrdscore.embeddings.encoders._distill import (
    distill,
    piece_rules,
    read_vocabulary,
    splittable_pieces,
    whole_words,
)
from wrdscore.errors import WrdscoreError

require("sentence_transformers")

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
#: Unseen words whose pieces are encoded (they split into several pieces each).
UNSEEN = ["getterish", "unserializable", "refetching", "xmlhttp", "preallocated"]


@pytest.fixture(scope="module")
def enc() -> Encoder:
    return Encoder(MINILM, device="cpu")


@pytest.fixture(scope="module")
def full_pieces(enc: Encoder) -> WordPieces:
    """Every splittable piece of the real tokenizer, with placeholder vectors (split only)."""
    rules = piece_rules(enc)
    assert rules is not None
    names = [p for p, _ in splittable_pieces(enc, rules)]
    return WordPieces(names, np.zeros((len(names), 1), dtype=np.float32), rules)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_records(tmp_path_factory.mktemp("c") / "corpus", specialise_records())


@pytest.fixture(scope="module")
def distilled(
    enc: Encoder, full_pieces: WordPieces, corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A model distilled from the corpus, 40 whole words, and a sample of the pieces."""
    rules = full_pieces.rules
    needed = {p for w in UNSEEN for p in full_pieces.split(w)}
    chosen = [
        (p, i)
        for k, (p, i) in enumerate(splittable_pieces(enc, rules))
        if p in needed or k % 100 == 0
    ]
    words = whole_words(enc)[2000:2040]
    out = tmp_path_factory.mktemp("d") / "model"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_distill, "splittable_pieces", lambda e, r: chosen)
        mp.setattr(_distill, "whole_words", lambda e: words)
        distill(enc, out, vocab=corpus)
    return out


def _states(enc: Encoder, tokens: list[str]) -> np.ndarray:
    """Each token encoded alone, afresh (the encoder's cache would return the stored copy)."""
    enc._cache.clear()
    return np.vstack(enc.word_states([[t] for t in tokens]))


def test_distilled_vectors_are_each_token_encoded_alone(distilled: Path, enc: Encoder) -> None:
    emb = load_embeddings(distilled)
    meta = json.loads((distilled / "model.json").read_text())
    assert meta["method"] == "distill" and meta["encoder"]["layer"] == 6
    assert meta["vocabulary"]["kind"] == "corpus" and meta["vocabulary"]["encoder_words_added"] > 0
    # The corpus's tokens first, most frequent first, then the encoder's words.
    assert set(emb.tokens[:4]) == {"get", "set", "name", "value"} and emb.dim == 384
    # Batched with padding in the model, one at a time here: equal to float32 rounding.
    np.testing.assert_allclose(emb.vectors, _states(enc, emb.tokens), rtol=1e-4, atol=1e-5)
    # Not normalised: the norm is the token's WRDScore mass.
    assert np.ptp(np.linalg.norm(emb.vectors, axis=1)) > 0.1


def test_idf_and_counts_come_from_the_corpus(distilled: Path) -> None:
    emb = load_embeddings(distilled)
    assert emb.has_df and emb.n_docs == len(specialise_records())
    # get occurs in 8 of the n names: ln((n + 1) / 9) + 1.
    n = len(specialise_records())
    assert emb.idf(["get"])[0] == pytest.approx(np.log((n + 1) / 9) + 1)
    counts = emb.counts
    assert counts is not None and counts[emb.tokens.index("get")] == 8
    assert counts[-1] == 0  # an encoder word the corpus lacks


def test_unseen_tokens_get_their_pieces_mean(distilled: Path, enc: Encoder) -> None:
    emb = load_embeddings(distilled)
    assert emb.has_subword and emb.pieces is not None
    vectors, unseen = emb.lookup(UNSEEN, oov="subword")
    assert unseen.all()
    for word, vector in zip(UNSEEN, vectors, strict=True):
        pieces = enc.tokenizer.tokenize(word)
        assert len(pieces) > 1 and emb.pieces.split(word) == pieces
        rows = [emb.pieces.pieces.index(p) for p in pieces]
        np.testing.assert_allclose(
            vector, np.asarray(emb.pieces.vectors[rows], dtype=np.float64).mean(axis=0)
        )
    # A whole-word piece fed by its id is the word encoded alone.
    at = emb.pieces.pieces.index("get")
    np.testing.assert_allclose(
        emb.pieces.vectors[at], _states(enc, ["get"])[0], rtol=1e-4, atol=1e-5
    )


def test_wordpiece_split_equals_the_real_tokenizer(enc: Encoder, full_pieces: WordPieces) -> None:
    words = list(load_embeddings().tokens[::4])
    rng = random.Random(0)
    alphabet = "abcdefghijklmnopqrstuvwxyzAZ0123456789_-.$éüñßİ中 \t!?#'"
    words += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(3000)]
    words += ["a" * 101, "x" * 100, "Ünïcödé", "naïve", "straße", "\x00ab", "a\u200bb", ""]
    mismatches = [w for w in words if full_pieces.split(w) != enc.tokenizer.tokenize(w)]
    assert len(words) > 13_000 and mismatches == []


def test_wordpiece_rules_of_other_tokenizers_are_refused() -> None:
    assert WordPieceRules.from_tokenizer_json({"model": {"type": "BPE"}}) is None
    rules = WordPieceRules.from_tokenizer_json(
        {
            "normalizer": {"type": "BertNormalizer", "lowercase": False, "strip_accents": None},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece", "unk_token": "<unk>", "continuing_subword_prefix": "@@"},
        }
    )
    assert rules is not None and not rules.lowercase and not rules.strip_accents
    assert rules.can_occur("@@ing") and not rules.can_occur("@@!") and not rules.can_occur("[x]")


def test_specialising_a_distilled_model_keeps_its_pieces(
    distilled: Path, corpus: Path, tmp_path: Path
) -> None:
    emb = specialise_model(distilled, corpus, tmp_path / "cf")
    back = load_embeddings(tmp_path / "cf")
    assert back.has_subword and emb.meta["specialise"]["pairs_in_vocab"]["contrast"] > 0
    before = load_embeddings(distilled)
    np.testing.assert_array_equal(
        back.lookup(UNSEEN, oov="subword")[0], before.lookup(UNSEEN, oov="subword")[0]
    )


def test_float16_and_reduced_dimensions(enc: Encoder, tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    tokens = list(load_embeddings().tokens[:60])
    vocab.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    full = distill(enc, tmp_path / "f32", vocab=vocab, encoder_words=False, pieces=False)
    half = distill(
        enc, tmp_path / "f16", vocab=vocab, encoder_words=False, pieces=False, float16=True
    )
    assert np.load(tmp_path / "f16" / "fast" / "vectors.npy").dtype == np.float16
    np.testing.assert_array_equal(
        half.lookup(tokens)[0], full.vectors.astype(np.float16).astype(np.float64)
    )
    # The gensim copy (neighbors, specialise) holds the same float16 values.
    assert half.kv.vectors.dtype == np.float16
    assert half.kv.most_similar("get", topn=1)[0][0] in tokens
    assert half.has_df is False and "n_docs" in half.meta
    with pytest.raises(WrdscoreError, match="no document frequencies"):
        half.idf(["get"])
    small = distill(enc, tmp_path / "d8", vocab=vocab, encoder_words=False, pieces=False, dim=8)
    assert small.dim == 8
    # Uncentered PCA is an orthogonal projection: norms only shrink, by the energy left out.
    before, after = np.linalg.norm(full.vectors, axis=1), np.linalg.norm(small.vectors, axis=1)
    assert (after <= before + 1e-4).all()
    kept = small.meta["params"]["reduction"]["kept_energy"]
    assert kept == pytest.approx(float((after**2).sum() / (before**2).sum()), rel=1e-4)
    assert 0.0 < kept < 1.0


def test_vocabulary_sources(tmp_path: Path) -> None:
    default = read_vocabulary(None)
    bundled = load_embeddings()
    assert default.tokens == bundled.tokens and default.n_docs == bundled.n_docs
    assert default.counts is not None and default.doc_freq is not None
    # A MODEL_DIR gives its own tokens and frequencies (how the default's build script
    # distils over the code model's vocabulary).
    small = TokenEmbeddings.from_vectors(
        {"get": [1.0, 0.0], "set": [0.0, 1.0]}, counts={"get": 3, "set": 2}
    )
    save_embeddings(
        small.kv, tmp_path / "m", meta={"name": "m", "n_docs": 4}, doc_freq={"get": 2, "set": 1}
    )
    model = read_vocabulary(tmp_path / "m")
    assert (model.tokens, model.counts, model.doc_freq, model.n_docs) == (
        ["get", "set"],
        [3, 2],
        {"get": 2, "set": 1},
        4,
    )
    assert model.source["kind"] == "model" and model.source["model"] == "m"
    listed = tmp_path / "t.txt"
    listed.write_text("get\n\nset\nget\n  name \n", encoding="utf-8")
    assert read_vocabulary(listed).tokens == ["get", "set", "name"]
    listed.write_text("\n \n", encoding="utf-8")
    with pytest.raises(WrdscoreError, match="no tokens"):
        read_vocabulary(listed)
    with pytest.raises(WrdscoreError, match="no such corpus folder or token file"):
        read_vocabulary(tmp_path / "nope")


def test_scoring_a_distilled_model_never_imports_torch(distilled: Path, tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("getName\nrefetchingUser\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("fetchName\nsetValue\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from wrdscore.cli import app\n"
        "try:\n"
        f"    app(['score', '--refs', {str(tmp_path / 'r.txt')!r}, '--preds', "
        f"{str(tmp_path / 'p.txt')!r}, '-e', {str(distilled)!r}, '--oov', 'subword', "
        "'--format', 'json'])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'tokenizers', "
        "'sentence_transformers') if m in sys.modules)\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HUNG, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr
    assert '"wrd"' in done.stdout


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["distill", *args])
    return res.exit_code, res.output


@pytest.fixture(scope="module")
def minilm_folder() -> Path:
    return resolve_encoder_path(MINILM)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such/encoder"], "no such folder"),
        (["{empty}"], "not an encoder folder"),
        (["{minilm}", "--dim", "0"], "--dim must be at least 1"),
        (["{minilm}", "--vocab", "/no/such/vocab"], "no such corpus folder or token file"),
        (["{minilm}", "--device", "tpu"], "unknown device"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    args: list[str], message: str, tmp_path: Path, minilm_folder: Path
) -> None:
    (tmp_path / "empty").mkdir()
    args = [a.format(empty=tmp_path / "empty", minilm=minilm_folder) for a in args]
    code, out = _cli(*args, "-o", str(tmp_path / "out"))
    assert code == 2 and message in out and len(out.strip().splitlines()) == 1, out
    assert not (tmp_path / "out").exists()


def test_existing_output_is_refused_without_force(distilled: Path, minilm_folder: Path) -> None:
    before = (distilled / "model.json").read_bytes()
    code, out = _cli(str(minilm_folder), "-o", str(distilled))
    assert code == 2 and "already exists" in out and len(out.strip().splitlines()) == 1
    assert (distilled / "model.json").read_bytes() == before


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_refused(tmp_path: Path, minilm_folder: Path) -> None:
    code, out = _cli(str(minilm_folder), "--device", "cuda", "-o", str(tmp_path / "out"))
    assert code == 2 and "CUDA is not available" in out
    assert not (tmp_path / "out").exists()


def test_layer_and_dim_out_of_range_are_refused(enc: Encoder, tmp_path: Path) -> None:
    vocab = tmp_path / "v.txt"
    vocab.write_text("get\n", encoding="utf-8")
    with pytest.raises(WrdscoreError, match="larger than encoder"):
        distill(enc, tmp_path / "out", vocab=vocab, dim=385)
    with pytest.raises(WrdscoreError, match="needs more than 8 tokens"):
        distill(enc, tmp_path / "out", vocab=vocab, dim=8, encoder_words=False)
    with pytest.raises(WrdscoreError, match="a loaded encoder's own"):
        distill(enc, tmp_path / "out", vocab=vocab, layer=3)
    code, out = _cli(MINILM, "--layer", "7", "--vocab", str(vocab), "-o", str(tmp_path / "out"))
    assert code == 2 and "--layer 7 is out of range" in out and len(out.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_cli_end_to_end(tmp_path: Path, minilm_folder: Path) -> None:
    vocab = tmp_path / "v.txt"
    vocab.write_text("get\nset\nname\n", encoding="utf-8")
    code, out = _cli(
        str(minilm_folder),
        "--vocab",
        str(vocab),
        "--no-encoder-words",
        "--no-pieces",
        "--float16",
        "-o",
        str(tmp_path / "m"),
    )
    assert code == 0, out
    assert "3 tokens x 384 dims" in out and "0 word pieces" in out
    emb = load_embeddings(tmp_path / "m")
    assert emb.name == "model-static-384" and not emb.has_subword


def test_reducing_a_distilled_model_equals_distilling_at_that_width(
    distilled: Path, tmp_path: Path
) -> None:
    from wrdscore.embeddings.encoders import reduce_distilled
    from wrdscore.embeddings.encoders._distill import reduce_dim

    full = load_embeddings(distilled)
    small = reduce_distilled(distilled, tmp_path / "r8", 8, float16=True)
    basis, kept = reduce_dim(np.asarray(full.vectors, dtype=np.float32), 8)
    want = (np.asarray(full.vectors, dtype=np.float64) @ basis).astype(np.float16)
    np.testing.assert_array_equal(small.vectors, want)
    assert small.dim == 8 and small.tokens == full.tokens
    assert small.meta["params"]["reduction"]["kept_energy"] == pytest.approx(kept)
    assert small.doc_freq == full.doc_freq and small.n_docs == full.n_docs
    # Unseen tokens still get their pieces' mean, in the reduced space.
    unseen = UNSEEN[0]
    vec, missing = small.lookup([unseen], oov="subword")
    assert missing[0] and np.linalg.norm(vec) > 0
    fuse_models(full, full, tmp_path / "fused")
    with pytest.raises(WrdscoreError, match="not a distilled model"):
        reduce_distilled(tmp_path / "fused", tmp_path / "x", 8)
    with pytest.raises(WrdscoreError, match="--dim must be from 1 to"):
        reduce_distilled(distilled, tmp_path / "y", full.dim)
