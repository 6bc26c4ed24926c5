"""Saving and loading models: MODEL_DIR, KeyedVectors and word2vec files, bad files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import fasttext_model_dir
from gensim.models import KeyedVectors
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings, load_embeddings, save_embeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric

VECTORS = {"get": [1.0, 0.0, 0.5], "set": [0.0, 1.0, 0.25], "name": [0.5, 0.5, -1.0]}
COUNTS = {"get": 30, "set": 10, "name": 5}
DOC_FREQ = {"get": 25, "set": 10, "name": 5, "rare": 1}


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    emb = TokenEmbeddings.from_vectors(VECTORS, counts=COUNTS)
    return save_embeddings(
        emb.kv, tmp_path / "m", meta={"name": "tiny-svd-3", "n_docs": 40}, doc_freq=DOC_FREQ
    )


def test_model_dir_round_trip(model_dir):
    emb = load_embeddings(model_dir)
    assert emb.name == "tiny-svd-3" and emb.dim == 3 and len(emb) == 3
    np.testing.assert_allclose(emb.lookup(["set"])[0][0], VECTORS["set"])
    # IDF from the stored frequencies: ln((1 + N) / (1 + df)) + 1, computed by hand.
    assert emb.idf(["get", "rare", "unseen"]).tolist() == pytest.approx(
        [np.log(41 / 26) + 1, np.log(41 / 2) + 1, np.log(41) + 1]
    )
    # Counts survive, so the corpus mean is frequency-weighted.
    expected_mean = sum(COUNTS[t] * np.array(VECTORS[t]) for t in VECTORS) / 45
    np.testing.assert_allclose(emb.mean_vector(), expected_mean, atol=1e-7)
    meta = json.loads((model_dir / "model.json").read_text())
    assert meta["dim"] == 3 and meta["format"].startswith("wrdscore-model")


def test_model_dir_loads_with_plain_gensim(model_dir):
    kv = KeyedVectors.load(str(model_dir / "vectors.kv"))
    assert kv.get_vecattr("get", "count") == 30
    np.testing.assert_allclose(kv["name"], VECTORS["name"])


def test_save_refuses_existing_output(model_dir):
    emb = load_embeddings(model_dir)
    with pytest.raises(WrdscoreError, match="already exists"):
        save_embeddings(emb.kv, model_dir, meta={"name": "x", "n_docs": 1}, doc_freq={})


@pytest.mark.parametrize(
    ("vectors", "problem"),
    [
        ({"get": [1.0, 0.0], "set": [np.inf, 1.0]}, "non-finite value"),
        ({"get": [0.0, 0.0], "set": [0.0, 0.0]}, "every vector is zero"),
    ],
)
def test_save_refuses_vectors_no_metric_can_use_and_writes_nothing(tmp_path, vectors, problem):
    # It once wrote the MODEL_DIR anyway (only unmarked as checked): loading then
    # refused it, and a training run that failed afterwards left it behind.
    kv = KeyedVectors(vector_size=2)
    kv.add_vectors(list(vectors), np.array(list(vectors.values()), dtype=np.float32))
    out = tmp_path / "m"
    with pytest.raises(WrdscoreError, match=problem):
        save_embeddings(kv, out, meta={"name": "m", "n_docs": 2}, doc_freq={})
    assert list(tmp_path.iterdir()) == []


def test_train_whose_vectors_fail_the_check_leaves_no_model_dir(tmp_path, monkeypatch):
    from corpus_fixtures import method_record, write_records

    from wrdscore.embeddings.training import _train

    names = ["getName", "setName", "getSize", "setSize", "addItem", "removeItem"]
    corpus = write_records(tmp_path / "c", [method_record(n) for n in names * 3])
    real = _train.svd_embeddings

    def broken(*args, **kwargs):
        vectors = real(*args, **kwargs)
        vectors[1, 0] = np.nan  # as a numerical failure in training would
        return vectors

    monkeypatch.setattr(_train, "svd_embeddings", broken)
    out = tmp_path / "model"
    result = CliRunner().invoke(
        app, ["train", str(corpus), "--method", "svd", "--dim", "2", "--output", str(out)]
    )
    assert result.exit_code == 2
    assert "non-finite value (nan)" in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]


@pytest.mark.parametrize("binary", [False, True])
def test_word2vec_files_load_without_doc_freq(tmp_path, binary):
    kv = TokenEmbeddings.from_vectors(VECTORS).kv
    path = tmp_path / ("vecs.bin" if binary else "vecs.txt")
    kv.save_word2vec_format(str(path), binary=binary)
    emb = load_embeddings(path)
    assert emb.name == "vecs" and not emb.has_df and emb.dim == 3
    np.testing.assert_allclose(emb.lookup(["get"])[0][0], VECTORS["get"], atol=1e-6)
    with pytest.raises(WrdscoreError, match="no document frequencies"):
        emb.idf(["get"])


def test_keyed_vectors_file_loads(tmp_path):
    path = tmp_path / "user.kv"
    TokenEmbeddings.from_vectors(VECTORS).kv.save(str(path))
    emb = load_embeddings(path)
    assert emb.name == "user" and sorted(emb.kv.index_to_key) == sorted(VECTORS)


def test_missing_paths(tmp_path, model_dir):
    with pytest.raises(WrdscoreError, match="do not exist"):
        load_embeddings(tmp_path / "nope")
    (tmp_path / "empty-dir").mkdir()
    with pytest.raises(WrdscoreError, match="not a model folder"):
        load_embeddings(tmp_path / "empty-dir")
    (model_dir / "doc_freq.json").unlink()
    with pytest.raises(WrdscoreError, match=r"doc_freq\.json is missing"):
        load_embeddings(model_dir)


def test_missing_vectors_file(model_dir):
    # Without fast/ arrays to load from, gensim's file is the model.
    (model_dir / "vectors.kv").unlink()
    shutil.rmtree(model_dir / "fast")
    with pytest.raises(WrdscoreError, match=r"vectors\.kv is missing"):
        load_embeddings(model_dir)


def test_corrupt_vectors_file(model_dir):
    # A MODEL_DIR with only gensim files (older ones) loads through gensim.
    shutil.rmtree(model_dir / "fast")
    data = (model_dir / "vectors.kv").read_bytes()
    (model_dir / "vectors.kv").write_bytes(data[: len(data) // 2])
    with pytest.raises(WrdscoreError, match="corrupt"):
        load_embeddings(model_dir)


def test_corrupt_model_json(model_dir):
    (model_dir / "model.json").write_text("{not json")
    with pytest.raises(WrdscoreError, match=r"model\.json: corrupt"):
        load_embeddings(model_dir)


def test_garbage_file(tmp_path):
    path = tmp_path / "garbage.vec"
    path.write_bytes(b"this is not\x00 a model \xff\xfe at all\n")
    with pytest.raises(WrdscoreError, match="not a word2vec"):
        load_embeddings(path)


def test_dimension_mismatch_in_model_dir(model_dir):
    meta = json.loads((model_dir / "model.json").read_text())
    (model_dir / "model.json").write_text(json.dumps({**meta, "dim": 50}))
    with pytest.raises(WrdscoreError, match=r"dimension mismatch: model\.json says 50"):
        load_embeddings(model_dir)


def test_dimension_mismatch_in_word2vec_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("2 4\nget 1 0 0 0\nset 0 1 0\n")
    with pytest.raises(WrdscoreError, match=r"bad\.txt"):
        load_embeddings(path)


def test_cli_reports_corrupt_model_on_one_line(model_dir):
    (model_dir / "vectors.kv").write_bytes(b"\x80garbage")
    result = CliRunner().invoke(app, ["neighbors", str(model_dir), "get"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "corrupt" in lines[0]


def test_bundled_default_loads():
    # The default (issue 26) is all-MiniLM-L6-v2 distilled, stored float16, with the
    # encoder's word pieces: an unseen token is zero under "zero" and the mean of its
    # pieces under "subword" (what "auto" resolves to).
    emb = load_embeddings()
    assert emb is not None and emb.has_subword and emb.has_df and emb.dim == 384
    assert emb.meta["method"] == "distill" and emb.vectors.dtype == np.float16
    assert emb.name == emb.meta["name"] and "xylophone" not in emb
    vecs, unseen = emb.lookup(["get", "xylophone"])
    assert unseen.tolist() == [False, True] and np.linalg.norm(vecs[0]) > 0 and not vecs[1].any()
    pieces = emb.pieces
    assert pieces is not None and pieces.split("xylophone") == ["x", "##yl", "##ophone"]
    sub, _ = emb.lookup(["xylophone"], oov="auto")
    np.testing.assert_allclose(sub[0], pieces.vector("xylophone"))
    assert emb.resolve_oov("auto") == "subword"
    with pytest.raises(WrdscoreError, match="unknown OOV policy"):
        emb.lookup(["xylophone"], oov="pieces")
    assert load_embeddings("default").sha == emb.sha


def test_bundled_default_gives_gensim_its_own_vectors():
    # It ships without vectors.kv (drop_gensim_copy, the 80 MB budget): gensim's object
    # is built from the arrays, with the same tokens, vectors and counts.
    from wrdscore.embeddings import default_model_path

    assert not list(default_model_path().glob("vectors.kv*"))
    emb = load_embeddings()
    kv = emb.kv
    assert isinstance(kv, KeyedVectors) and kv.vector_size == 384 and kv.index_to_key == emb.tokens
    np.testing.assert_array_equal(kv["getter"], emb.lookup(["getter"])[0][0])
    assert kv.get_vecattr("get", "count") == emb.counts[emb.tokens.index("get")] > 0


# --- the fast arrays (fast/): what scoring loads, without gensim -------------------


def test_fast_arrays_give_the_gensim_model_exactly(model_dir):
    fast = load_embeddings(model_dir)
    shutil.rmtree(model_dir / "fast")
    slow = load_embeddings(model_dir)
    assert fast.sha == slow.sha and fast.tokens == slow.tokens
    tokens = ["get", "nope", "name"]
    for policy in ("zero", "drop"):
        np.testing.assert_array_equal(
            fast.lookup(tokens, policy)[0], slow.lookup(tokens, policy)[0]
        )
    np.testing.assert_array_equal(fast.mean_vector(), slow.mean_vector())
    assert fast.kv.get_vecattr("get", "count") == 30  # gensim's object, loaded on demand


def test_old_model_dir_without_fast_arrays_still_loads_and_upgrades(model_dir):
    from wrdscore.embeddings import upgrade_model_dir

    shutil.rmtree(model_dir / "fast")
    before = {p.name: p.read_bytes() for p in model_dir.iterdir()}
    emb = load_embeddings(model_dir)
    assert emb.name == "tiny-svd-3" and emb._kv is not None  # through gensim
    upgrade_model_dir(model_dir)
    assert {p.name: p.read_bytes() for p in model_dir.iterdir() if p.is_file()} == before
    again = load_embeddings(model_dir)
    assert again._kv is None and again.sha == emb.sha  # through the arrays


def test_corrupt_fast_arrays(model_dir):
    (model_dir / "fast" / "vectors.npy").write_bytes(b"garbage")
    with pytest.raises(WrdscoreError, match="corrupt fast arrays"):
        load_embeddings(model_dir)


def test_fast_arrays_that_disagree_with_the_vocabulary(model_dir):
    np.save(model_dir / "fast" / "vectors.npy", np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(WrdscoreError, match="shapes disagree"):
        load_embeddings(model_dir)


def test_fasttext_subword_vectors_equal_gensims(tmp_path):
    # A FastText model scores with oov="subword": its unseen-token vectors come from
    # the n-gram arrays without gensim, and must be gensim's to the bit.
    folder = fasttext_model_dir(tmp_path / "ft")
    emb = load_embeddings(folder)
    kv = KeyedVectors.load(str(folder / "vectors.kv"))
    words = ["xylophone", "kaleidoscope", "mandolinist", "quasarz", "日本語", "getURLs2", "x" * 40]
    vecs, unseen = emb.lookup(words, oov="subword")
    assert unseen.all() and np.all(np.linalg.norm(vecs, axis=1) > 0)
    np.testing.assert_array_equal(vecs, np.array([kv[w] for w in words], dtype=np.float64))


def test_the_default_oov_policy_is_what_the_model_has(tmp_path):
    # Issue 26: oov="auto" (the default) is subword for a model with subword vectors and
    # zero otherwise, resolved when the metric is built, so the signature says which ran.
    ft = load_embeddings(fasttext_model_dir(tmp_path / "ft"))
    plain = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "size": [0.0, 1.0]})
    refs, preds = ["get xylophone", "size"], ["get", "size kaleidoscope"]
    for emb, policy in ((ft, "subword"), (plain, "zero")):
        assert emb.resolve_oov("auto") == policy
        for name in ("wrd", "bertscore", "wmd"):
            auto, named = (
                get_metric(name, embeddings=emb),
                get_metric(name, embeddings=emb, oov=policy),
            )
            assert auto.oov == policy and f"|oov:{policy}|" in auto.signature
            assert auto.signature == named.signature
            a, b = auto.score(refs, preds), named.score(refs, preds)
            np.testing.assert_array_equal(a.values[a.primary], b.values[b.primary])
        np.testing.assert_array_equal(
            emb.lookup(["xylophone"], oov="auto")[0], emb.lookup(["xylophone"], oov=policy)[0]
        )
    # Under subword the unseen token has a vector, so the pair no longer scores as if it
    # were missing.
    zero = get_metric("wrd", embeddings=ft, oov="zero").score(refs, preds).f1
    assert not np.array_equal(get_metric("wrd", embeddings=ft).score(refs, preds).f1, zero)
    # The bundled default has word pieces: auto is subword, and its signature says so.
    assert "|oov:subword|" in get_metric("wrd").signature
    with pytest.raises(WrdscoreError, match="unknown OOV policy 'sub'; choose one of auto, zero"):
        get_metric("wrd", embeddings=plain, oov="sub")


@pytest.mark.parametrize("fasttext", [False, True])
def test_scoring_the_default_imports_no_gensim_sklearn_scipy_pot_or_torch(fasttext, tmp_path):
    # The bundled default, and a FastText model's subword vectors (the hash copy).
    options = "oov='zero'"
    if fasttext:
        options = f"oov='subword', embeddings={str(fasttext_model_dir(tmp_path / 'ft'))!r}"
    code = (
        "import sys\n"
        "from wrdscore import get_metric\n"
        f"get_metric('wrd', {options}).score(['getUserName', 'size'], ['fetchUser', 'count'])\n"
        "heavy = {'gensim', 'sklearn', 'scipy', 'ot', 'matplotlib', 'javalang', 'tree_sitter',"
        " 'torch', 'transformers', 'sentence_transformers',"
        " 'sacrebleu'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "word", ["get", "é", "日本語x", "a", "", "ab", "x\u00e9\u4e2d\U0001f600", "getURLs2", "Ω" * 9]
)
@pytest.mark.parametrize(("min_n", "max_n"), [(3, 5), (1, 6), (2, 2)])
def test_ngram_hashes_match_gensim(word, min_n, max_n):
    from gensim.models.fasttext import ft_ngram_hashes

    from wrdscore.embeddings.store._subword import ngram_hashes

    assert ngram_hashes(word, min_n, max_n, 20_000) == ft_ngram_hashes(word, min_n, max_n, 20_000)


def test_ngram_hashes_match_gensim_on_many_words():
    # The copy of FastText's hash must be gensim's: a gensim release that hashes
    # otherwise fails here (and write_fast_arrays then records ngram_hash "gensim").
    from gensim.models.fasttext import ft_ngram_hashes

    from wrdscore.embeddings.store._subword import ngram_hashes

    rng = np.random.default_rng(5)
    alphabet = list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_$") + list("éßΩжй中日本語😀\u0301")
    words = ["".join(rng.choice(alphabet, size=rng.integers(0, 25))) for _ in range(3000)]
    for min_n, max_n, bucket in [(3, 5, 20_000), (1, 6, 2_000_000), (2, 4, 7)]:
        for word in words:
            assert ngram_hashes(word, min_n, max_n, bucket) == list(
                ft_ngram_hashes(word, min_n, max_n, bucket)
            ), word


def test_scores_are_unchanged_when_the_subword_hash_copy_is_not_used(tmp_path, monkeypatch):
    from wrdscore import get_metric
    from wrdscore.embeddings.store import _store, _subword

    copy = fasttext_model_dir(tmp_path / "copy")
    assert json.loads((copy / "fast" / "vocab.json").read_text())["ngram_hash"] == "fnv1a-signed"
    # As if the installed gensim hashed otherwise: the arrays say so, and loading then
    # hashes with gensim's own function.
    monkeypatch.setattr(_store, "agrees_with_gensim", lambda *args: False)
    fallback = fasttext_model_dir(tmp_path / "gensim")
    assert json.loads((fallback / "fast" / "vocab.json").read_text())["ngram_hash"] == "gensim"
    called = []
    real = _subword.gensim_ngram_hashes
    monkeypatch.setattr(_subword, "gensim_ngram_hashes", lambda *a: called.append(a) or real(*a))
    words = ["getter", "sizes", "xylophone", "日本", "a"]
    a, b = load_embeddings(copy), load_embeddings(fallback)
    np.testing.assert_array_equal(
        a.lookup(words, oov="subword")[0], b.lookup(words, oov="subword")[0]
    )
    assert len(called) == len(words)
    refs, preds = ["get sizes", "setter name", "getter"], ["fetch size", "set names", "getters"]
    sa = get_metric("wrd", embeddings=a, oov="subword").score(refs, preds)
    sb = get_metric("wrd", embeddings=b, oov="subword").score(refs, preds)
    assert sa.f1.tolist() == sb.f1.tolist()
    # The gensim object itself: the same vectors, with gensim's hashing.
    np.testing.assert_array_equal(
        a.lookup(words, oov="subword")[0], np.array([a.kv[w] for w in words], dtype=np.float64)
    )


def test_unknown_ngram_hash_is_a_corrupt_model(tmp_path):
    folder = fasttext_model_dir(tmp_path / "m")
    vocab = json.loads((folder / "fast" / "vocab.json").read_text())
    vocab["ngram_hash"] = "md5"
    (folder / "fast" / "vocab.json").write_text(json.dumps(vocab))
    with pytest.raises(WrdscoreError, match=r"corrupt fast arrays \(unknown ngram_hash 'md5'\)"):
        load_embeddings(folder)


def test_doc_freq_is_read_on_first_use_and_checked_then(model_dir):
    emb = load_embeddings(model_dir)
    assert emb.has_df and emb._doc_freq is None  # not parsed at load (start-up time)
    assert emb.doc_freq == DOC_FREQ
    (model_dir / "doc_freq.json").write_text("[1, 2]")
    late = load_embeddings(model_dir)  # loads: nothing reads the frequencies yet
    with pytest.raises(WrdscoreError, match=r"doc_freq\.json is not a model's"):
        late.idf(["get"])


def _forge_checked_model(model_dir: Path) -> Path:
    """``model_dir`` with a NaN vector and a ``checked_sha256`` record matching it."""
    from wrdscore.embeddings.store._vectors import full_sha

    fast = model_dir / "fast"
    vectors = np.load(fast / "vectors.npy")
    vectors[1, 0] = np.nan
    np.save(fast / "vectors.npy", vectors)
    vocab = json.loads((fast / "vocab.json").read_text())
    vocab["checked_sha256"] = full_sha(vocab["tokens"], vectors, None)
    (fast / "vocab.json").write_text(json.dumps(vocab))
    return model_dir


def test_fast_arrays_record_the_hash_they_were_checked_with(model_dir):
    from wrdscore.embeddings.store._vectors import full_sha

    vocab = json.loads((model_dir / "fast" / "vocab.json").read_text())
    vectors = np.load(model_dir / "fast" / "vectors.npy")
    assert vocab["checked_sha256"] == full_sha(vocab["tokens"], vectors, None)
    assert load_embeddings(model_dir).sha == vocab["checked_sha256"][:8]


def test_a_users_model_dir_is_checked_whatever_its_record_says(model_dir):
    _forge_checked_model(model_dir)
    with pytest.raises(WrdscoreError, match="non-finite value"):
        load_embeddings(model_dir)


def test_trusted_load_takes_the_record_and_only_the_bundled_default_is_trusted(
    model_dir, monkeypatch
):
    from wrdscore.embeddings.store import _store, _vectors

    checked_sha = load_embeddings(model_dir).sha
    calls = []
    real = _vectors.check_vectors
    monkeypatch.setattr(_vectors, "check_vectors", lambda *a, **k: calls.append(1) or real(*a, **k))
    emb = _store._load_model_dir(model_dir, trusted=True)
    assert calls == [] and emb.sha == checked_sha
    # The record is trusted as the package's code is: the same folder loaded as a
    # user's is checked, and refused once its arrays no longer pass.
    fast = model_dir / "fast"
    vectors = np.load(fast / "vectors.npy")
    vectors[0, 0] = np.inf
    np.save(fast / "vectors.npy", vectors)
    assert _store._load_model_dir(model_dir, trusted=True).sha == checked_sha
    with pytest.raises(WrdscoreError, match="non-finite value"):
        load_embeddings(model_dir)
    assert calls == [1]


def test_bundled_default_s_record_is_its_arrays_full_hash_and_they_pass_the_checks(monkeypatch):
    """What lets the bundled default load on its record: the record is right."""
    from wrdscore.embeddings.store import _store, _vectors

    calls = []
    monkeypatch.setattr(_vectors, "check_vectors", lambda *a, **k: calls.append(1))
    emb = load_embeddings()
    assert calls == [] and emb._sha is not None
    monkeypatch.undo()
    checked = _store._load_model_dir(_store.default_model_path())  # as a user's folder
    recorded = json.loads((_store.default_model_path() / "fast" / "vocab.json").read_text())
    full = _vectors.full_sha(
        checked._keys, checked._vectors, checked._ngrams, checked._pieces, checked.fallback
    )
    assert recorded["checked_sha256"] == full and emb.sha == full[:8] == checked.sha


def test_upgrade_refuses_a_bad_folder_with_one_line(tmp_path):
    from wrdscore.embeddings import upgrade_model_dir

    (tmp_path / "v.txt").write_text("x\n")
    for arg in (tmp_path / "nope", tmp_path / "v.txt"):
        with pytest.raises(WrdscoreError) as info:
            upgrade_model_dir(arg)
        assert str(info.value).startswith(f"{arg} is not a model folder: no model.json")
        assert "\n" not in str(info.value) and not (arg / "fast").exists()


def test_an_edited_vectors_kv_is_refused_not_used_beside_the_fast_arrays(model_dir):
    kv = KeyedVectors.load(str(model_dir / "vectors.kv"))
    kv.vectors[0] = -kv.vectors[0]
    kv.save(str(model_dir / "vectors.kv"))
    runner = CliRunner()
    # Scoring reads fast/ and never opens vectors.kv: unchanged.
    done = runner.invoke(app, ["similarity", str(model_dir), "get", "set"])
    assert done.exit_code == 0, done.output
    # neighbors needs gensim's object: refused rather than computed from other vectors.
    done = runner.invoke(app, ["neighbors", str(model_dir), "get"])
    assert done.exit_code == 2, done.output
    assert done.output.strip() == (
        f"error: {model_dir / 'vectors.kv'} and {model_dir / 'fast' / 'vectors.npy'} hold "
        "different vectors (one was edited); to use vectors.kv's, rewrite fast/ from Python "
        f"with `wrdscore.embeddings.upgrade_model_dir({str(model_dir)!r})`"
    )
    # The suggested repair makes both agree, with vectors.kv's values.
    from wrdscore.embeddings import upgrade_model_dir

    upgrade_model_dir(model_dir)
    emb = load_embeddings(model_dir)
    np.testing.assert_array_equal(emb.vectors[0], kv.vectors[0])
    assert runner.invoke(app, ["neighbors", str(model_dir), "get"]).exit_code == 0


def test_an_unedited_model_dir_gives_gensims_object_on_demand(model_dir):
    emb = load_embeddings(model_dir)
    assert emb._kv is None
    assert emb.kv.index_to_key == emb.tokens


def test_a_model_without_gensims_copy_loads_scores_and_rebuilds_it(model_dir, tmp_path):
    from wrdscore.embeddings import drop_gensim_copy

    before = load_embeddings(model_dir)
    kv_before = KeyedVectors.load(str(model_dir / "vectors.kv"))
    score = get_metric("wrd", embeddings=str(model_dir)).score(["get name"], ["set name"])
    drop_gensim_copy(model_dir)
    assert not list(model_dir.glob("vectors.kv*"))
    after = load_embeddings(model_dir)
    assert after.sha == before.sha
    np.testing.assert_array_equal(after.kv.vectors, kv_before.vectors)
    assert after.kv.index_to_key == kv_before.index_to_key
    assert [after.kv.get_vecattr(t, "count") for t in after.tokens] == [
        kv_before.get_vecattr(t, "count") for t in after.tokens
    ]
    again = get_metric("wrd", embeddings=str(model_dir)).score(["get name"], ["set name"])
    assert again.values == score.values
    done = CliRunner().invoke(app, ["neighbors", str(model_dir), "get"])
    assert done.exit_code == 0, done.output


def test_only_a_model_without_ngrams_may_drop_gensims_copy(tmp_path):
    from wrdscore.embeddings import drop_gensim_copy

    fasttext = fasttext_model_dir(tmp_path / "ft")
    with pytest.raises(WrdscoreError, match=r"needs its vectors\.kv"):
        drop_gensim_copy(fasttext)
    assert (fasttext / "vectors.kv").is_file()
    # Removed by hand: refused at load in one line, not half loaded.
    for path in fasttext.glob("vectors.kv*"):
        path.unlink()
    with pytest.raises(WrdscoreError, match=r"vectors\.kv is missing"):
        load_embeddings(fasttext)


def test_the_bundled_defaults_pieces_are_read_on_the_first_unseen_token():
    # Reading and indexing 29,430 pieces was 15-20 ms of every start-up; a run whose
    # tokens are all known never needs them.
    emb = load_embeddings()
    assert callable(emb._pieces) and emb.has_subword
    emb.lookup(["get", "size"], oov="auto")
    assert callable(emb._pieces)
    vec, unseen = emb.lookup(["xylophone"], oov="auto")
    assert unseen[0] and not callable(emb._pieces) and np.linalg.norm(vec) > 0
    # A user's folder (not trusted) reads and checks them at load.
    from wrdscore.embeddings.store import _store

    assert not callable(_store._load_model_dir(_store.default_model_path())._pieces)


def test_saving_refuses_non_finite_word_pieces(tmp_path):
    from wrdscore.embeddings.store._wordpiece import WordPieceRules, WordPieces

    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0]})
    bad = WordPieces(["x"], np.array([[np.nan, 0.0]], dtype=np.float32), WordPieceRules())
    with pytest.raises(WrdscoreError, match="word-piece vector has a non-finite value"):
        save_embeddings(emb.kv, tmp_path / "m", meta={"name": "m", "n_docs": None},
                        doc_freq={}, pieces=bad)  # fmt: skip
    assert not (tmp_path / "m").exists()


def test_large_fast_arrays_are_written_in_row_blocks_and_read_as_one(model_dir, monkeypatch):
    # No file of a model over the block size (the bundled default's 42 MB of vectors
    # against its repository's 30 MB per file): rows split over files, read as one.
    from wrdscore.embeddings import upgrade_model_dir
    from wrdscore.embeddings.store import _blocks

    whole = load_embeddings(model_dir)
    expected = np.load(model_dir / "fast" / "vectors.npy")
    monkeypatch.setattr(_blocks, "BLOCK_BYTES", expected.shape[1] * expected.itemsize * 2)
    upgrade_model_dir(model_dir)
    files = sorted(p.name for p in (model_dir / "fast").glob("vectors*.npy"))
    assert len(files) > 1 and "vectors.npy" not in files
    blocked = load_embeddings(model_dir)
    assert isinstance(blocked.vectors, _blocks.RowBlocks) and blocked.sha == whole.sha
    np.testing.assert_array_equal(np.asarray(blocked.vectors), expected)
    # Indexed as the array it stands for: slices (the encoders' probe), masks, integers.
    mask = np.arange(len(expected)) % 2 == 0
    for key in (slice(1, None), slice(None, 3), mask, -1, 0):
        np.testing.assert_array_equal(blocked.vectors[key], expected[key])
    tokens = [*whole.tokens[::-1], "nope"]
    np.testing.assert_array_equal(blocked.lookup(tokens)[0], whole.lookup(tokens)[0])
    assert blocked.kv.index_to_key == whole.kv.index_to_key
    # A missing block is a one-line error, not a short model.
    (model_dir / "fast" / files[-1]).unlink()
    with pytest.raises(WrdscoreError, match="corrupt fast arrays"):
        load_embeddings(model_dir)


def test_the_bundled_default_has_no_file_over_30_mb():
    from wrdscore.embeddings import default_model_path

    sizes = {p.name: p.stat().st_size for p in default_model_path().rglob("*") if p.is_file()}
    assert max(sizes.values()) < 30 * 10**6, sizes
