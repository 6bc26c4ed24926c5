"""Training embeddings: co-occurrence, SVD, gensim, document frequencies, `wrdscore train`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from corpus_fixtures import method_record, write_records
from gensim.models import KeyedVectors
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import split_identifier
from wrdscore.embeddings import (
    TokenDocuments,
    cooccurrence_matrix,
    document_frequencies,
    load_embeddings,
    ppmi,
    svd_embeddings,
    train_embeddings,
    train_gensim,
)
from wrdscore.errors import WrdscoreError

NAMES = [
    "getName", "setName", "getValue", "setValue", "isEmpty", "getSize", "size", "addAll",
    "removeAll", "toString", "hashCode", "equals", "getCount", "setCount", "readLine",
    "writeLine", "readAllBytes", "writeBytes", "getOrDefault", "putIfAbsent",
]  # fmt: skip


def write_corpus(folder: Path, names: list[str], summaries: bool = False) -> Path:
    records = []
    for i, n in enumerate(names):
        summary = f"Returns the {n} of this object." if summaries and i % 2 == 0 else None
        records.append({**method_record(n, summary=summary), "line": i + 1})
    return write_records(folder, records, {"counts": {"methods": len(names)}})


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus", NAMES * 3, summaries=True)


# --- co-occurrence counts ------------------------------------------------------------

docs_strategy = st.lists(
    st.lists(st.sampled_from("abcdef"), min_size=0, max_size=7), min_size=1, max_size=12
)


def naive_cooccurrence(docs: list[list[str]], vocab: list[str], window: int | None) -> np.ndarray:
    index = {t: i for i, t in enumerate(vocab)}
    c = np.zeros((len(vocab), len(vocab)))
    for doc in docs:
        for p, a in enumerate(doc):
            for q, b in enumerate(doc):
                if p != q and (window is None or abs(p - q) <= window):
                    c[index[a], index[b]] += 1
    return c


@settings(max_examples=60, deadline=None)
@given(docs_strategy, st.one_of(st.none(), st.integers(1, 4)))
def test_cooccurrence_matches_double_loop(docs, window):
    encoded = TokenDocuments.from_token_lists(docs)
    got = cooccurrence_matrix(encoded, window)
    assert sp.issparse(got)
    expected = naive_cooccurrence(docs, encoded.vocab, window)
    np.testing.assert_array_equal(got.toarray(), expected)


def test_cooccurrence_diagonal_counts_repeats_not_self_pairs():
    docs = TokenDocuments.from_token_lists([["get", "or", "get"], ["get"]])
    c = cooccurrence_matrix(docs).toarray()
    get, or_ = docs.vocab.index("get"), docs.vocab.index("or")
    assert c[get, get] == 2  # (0, 2) and (2, 0); never (p, p)
    assert c[get, or_] == 2 and c[or_, or_] == 0
    assert cooccurrence_matrix(docs, window=1).toarray()[get, get] == 0


def test_cooccurrence_rejects_bad_window():
    with pytest.raises(WrdscoreError, match="--window"):
        cooccurrence_matrix(TokenDocuments.from_token_lists([["a", "b"]]), window=0)


@settings(max_examples=40, deadline=None)
@given(docs_strategy)
def test_document_frequencies_match_counter(docs):
    expected = Counter(t for doc in docs for t in set(doc))
    assert document_frequencies(TokenDocuments.from_token_lists(docs)) == dict(expected)


@settings(max_examples=40, deadline=None)
@given(docs_strategy, st.integers(1, 4))
def test_prune_matches_filtering(docs, min_count):
    counts = Counter(t for doc in docs for t in doc)
    expected = [[t for t in d if counts[t] >= min_count] for d in docs]
    pruned = TokenDocuments.from_token_lists(docs).prune(min_count)
    assert list(pruned.sentences()) == [d for d in expected if d]
    assert sorted(pruned.vocab) == sorted(t for t, n in counts.items() if n >= min_count)


def test_ppmi_by_hand():
    c = sp.csr_matrix(np.array([[0.0, 3.0, 1.0], [3.0, 0.0, 0.0], [1.0, 0.0, 2.0]]))
    rows, total = c.toarray().sum(axis=1), c.toarray().sum()
    got = ppmi(c).toarray()
    for i, j in [(0, 1), (0, 2), (2, 2)]:
        expected = max(0.0, np.log(c[i, j] * total / (rows[i] * rows[j])))
        assert got[i, j] == pytest.approx(expected, abs=1e-12)
    assert got[1, 1] == 0 and got[1, 2] == 0
    assert got[0, 1] == pytest.approx(np.log(2.5))  # 3 * 10 / (4 * 3)


def assert_half_u_sigma(e: np.ndarray, c: np.ndarray, k: int) -> None:
    """The first ``k`` columns of ``e`` are numpy's E = 1/2 U Sigma of ``c``."""
    u, s, _ = np.linalg.svd(c)
    expected = 0.5 * u[:, :k] * s[:k]
    # Singular vectors are defined up to sign: compare column by column, sign-aligned.
    for j in range(k):
        sign = np.sign(expected[:, j] @ e[:, j])
        np.testing.assert_allclose(e[:, j], sign * expected[:, j], atol=1e-8)


def test_svd_embeddings_match_dense_svd():
    rng = np.random.default_rng(3)
    a = rng.poisson(2.0, size=(30, 30)).astype(float)
    c = a + a.T  # symmetric like a co-occurrence matrix
    assert_half_u_sigma(svd_embeddings(sp.csr_matrix(c), dim=4, seed=0), c, 4)


def test_svd_needs_more_tokens_than_dim():
    c = sp.csr_matrix(np.eye(3))
    with pytest.raises(WrdscoreError, match=r"3 distinct tokens.*--dim 3"):
        svd_embeddings(c, dim=3)
    with pytest.raises(WrdscoreError, match="no tokens"):
        svd_embeddings(sp.csr_matrix((0, 0)), dim=2)
    with pytest.raises(WrdscoreError, match="no two tokens ever occur together"):
        svd_embeddings(sp.csr_matrix((5, 5)), dim=2)


def test_svd_of_rank_below_dim_is_the_dense_svd():
    # Rank 1, dim 2: PROPACK returned a made-up second triplet (singular value 1.13).
    c = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(
        svd_embeddings(c, dim=2), [[0.5**0.5, 0.0], [0.5**0.5, 0.0], [0.0, 0.0]], atol=1e-12
    )
    # Rank 12 of 21, dim 20: PROPACK raised "an invariant subspace of dimension 12".
    rng = np.random.default_rng(0)
    a = rng.normal(size=(21, 12))
    c = a @ a.T
    e = svd_embeddings(sp.csr_matrix(c), dim=20, seed=0)
    assert_half_u_sigma(e, c, 12)
    assert not e[:, 12:].any()  # singular values 0: exactly zero columns


def test_svd_of_rank_below_dim_too_large_for_dense(monkeypatch):
    from wrdscore.embeddings.training import _cooccurrence

    monkeypatch.setattr(_cooccurrence, "DENSE_SVD_MAX", 2)
    c = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))
    with pytest.raises(WrdscoreError, match=r"sparse SVD of the 3 x 3 .*--dim 2.*; lower --dim$"):
        svd_embeddings(c, dim=2)


def test_svd_token_that_cooccurs_with_nothing_gets_an_exact_zero_vector(tmp_path):
    # "equals" and "run" only ever form a name alone; "hash"/"code" only occur together,
    # in a component whose singular value (1) is below the two kept.
    names = ["getName", "setName", "getValue", "setValue", "getSize"] * 3 + [
        "equals", "run", "hashCode",
    ]  # fmt: skip
    emb = train_embeddings(write_corpus(tmp_path / "c", names), "svd", tmp_path / "m", dim=2)
    for token in ("equals", "run", "hash", "code"):
        assert not emb.kv[token].any(), (token, emb.kv[token])
    assert np.linalg.norm(emb.kv["name"]) > 0.1


# --- train_embeddings -----------------------------------------------------------------


@pytest.mark.parametrize("method", ["svd", "word2vec", "fasttext"])
def test_train_writes_loadable_model(corpus, tmp_path, method):
    out = tmp_path / method
    epochs = {} if method == "svd" else {"epochs": 2}
    emb = train_embeddings(corpus, method, out, dim=6, seed=1, **epochs)
    meta = json.loads((out / "model.json").read_text())
    assert meta["method"] == method and meta["dim"] == 6 and meta["params"]["seed"] == 1
    assert meta["n_docs"] == len(NAMES) * 3 and meta["vocab_size"] == len(emb)
    assert len(meta["corpus"]["manifest_sha256"]) == 64
    assert meta["versions"]["gensim"] and meta["versions"]["wrdscore"]
    short = {"svd": "svd", "word2vec": "w2v", "fasttext": "ft"}[method]
    assert emb.name == meta["name"] == f"fixture-{short}-6"
    kv = KeyedVectors.load(str(out / "vectors.kv"))  # plain gensim reads it
    np.testing.assert_array_equal(kv["get"], emb.kv["get"])
    assert kv.get_vecattr("get", "count") == 3 * sum("get" in split_identifier(n) for n in NAMES)
    back = load_embeddings(out)
    assert back.sha == emb.sha and back.has_df and back.n_docs == meta["n_docs"]
    assert back.doc_freq["name"] == 3 * 2  # getName, setName
    assert back.has_subword == (method == "fasttext")
    # The fast arrays were written beside the gensim file, and are what loads.
    assert (out / "fast" / "vectors.npy").is_file() and back._kv is None
    if method == "fasttext":  # unseen tokens get gensim's own n-gram vectors
        unseen = ["getzz", "qqq", "nameé"]
        want = np.array([kv[t] for t in unseen], dtype=np.float64)
        np.testing.assert_array_equal(back.lookup(unseen, "subword")[0], want)


@pytest.mark.parametrize("method", ["svd", "word2vec", "fasttext"])
def test_same_seed_same_vectors(corpus, tmp_path, method):
    gensim = {} if method == "svd" else {"epochs": 2, "workers": 1}
    a = train_embeddings(corpus, method, tmp_path / "a", dim=5, seed=7, **gensim)
    b = train_embeddings(corpus, method, tmp_path / "b", dim=5, seed=7, **gensim)
    np.testing.assert_array_equal(a.kv.vectors, b.kv.vectors)
    assert a.sha == b.sha
    for name in ("vectors.kv", "doc_freq.json"):  # byte-identical files, too
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_fasttext_independent_of_python_hash_seed(corpus, tmp_path):
    script = (
        "import sys; from wrdscore.embeddings import train_embeddings as t; "
        "print(t(sys.argv[1], 'fasttext', sys.argv[2], dim=5, epochs=1, seed=3).sha)"
    )
    shas = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", script, str(corpus), str(tmp_path / hash_seed)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        shas.add(out.stdout.strip())
    assert len(shas) == 1


def test_text_summaries_and_both(corpus, tmp_path):
    names = train_embeddings(corpus, "svd", tmp_path / "n", dim=3)
    summaries = train_embeddings(corpus, "svd", tmp_path / "s", dim=3, text="summaries")
    both = train_embeddings(corpus, "svd", tmp_path / "b", dim=3, text="both")
    n_summaries = sum(1 for i in range(len(NAMES) * 3) if (i % len(NAMES)) % 2 == 0)
    assert summaries.n_docs == n_summaries
    assert both.n_docs == names.n_docs + summaries.n_docs
    assert "returns" in summaries and "returns" not in names


def test_min_count_prunes_vocabulary_but_keeps_doc_freq(corpus, tmp_path):
    emb = train_embeddings(corpus, "svd", tmp_path / "m", dim=3, min_count=4)
    assert "get" in emb and "empty" not in emb  # isEmpty occurs 3 times
    assert emb.doc_freq["empty"] == 3


def test_window_narrows_context(tmp_path):
    corpus = write_corpus(tmp_path / "c", ["readAllBytesNow", "a"] * 4)
    whole = train_embeddings(corpus, "svd", tmp_path / "w", dim=2)
    narrow = train_embeddings(corpus, "svd", tmp_path / "n", dim=2, window=1)
    assert whole.meta["params"]["window"] is None and narrow.meta["params"]["window"] == 1
    assert not np.allclose(whole.kv.vectors, narrow.kv.vectors)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "glove"}, "unknown --method"),
        ({"method": "svd", "dim": 500}, "too few for --dim 500"),
        ({"method": "svd", "window": 0}, "--window must be at least 1"),
        ({"method": "svd", "weighting": "tfidf"}, "unknown --weighting"),
        ({"method": "svd", "text": "comments"}, "unknown --text"),
        ({"method": "word2vec", "min_count": 1000}, "--min-count 1000"),
        ({"method": "svd", "min_count": 1000}, "^no token occurs --min-count 1000 times; lower"),
        ({"method": "word2vec", "dim": 0}, "--dim must be at least 1"),
        ({"method": "svd", "min_count": 0}, "--min-count must be at least 1"),
        ({"method": "svd", "seed": -1}, "--seed must be a whole number from 0 to 4294967295"),
        ({"method": "word2vec", "seed": -1}, r"--seed .* not -1$"),
        ({"method": "fasttext", "seed": 2**32}, r"--seed .* not 4294967296$"),
        ({"method": "svd", "seed": -1, "specialise": True}, r"--seed .* not -1$"),
        ({"method": "word2vec", "workers": 0}, "--workers must be at least 1, not 0"),
        ({"method": "fasttext", "workers": -2}, "--workers must be at least 1, not -2"),
        ({"method": "svd", "workers": 0}, "--workers must be at least 1, not 0"),
        ({"method": "word2vec", "window": 0}, "--window must be at least 1, not 0"),
        ({"method": "fasttext", "window": -1}, "--window must be at least 1, not -1"),
        # Options of another method were accepted and silently ignored.
        (
            {"method": "word2vec", "weighting": "ppmi"},
            "^--weighting ppmi only applies to --method svd$",
        ),
        (
            {"method": "fasttext", "weighting": "ppmi"},
            "^--weighting ppmi only applies to --method svd$",
        ),
        ({"method": "svd", "sg": 0}, "^--sg 0 only applies to --method word2vec or fasttext$"),
        (
            {"method": "svd", "epochs": 3},
            "^--epochs 3 only applies to --method word2vec or fasttext$",
        ),
        (
            {"method": "svd", "workers": 2},
            "^--workers 2 only applies to --method word2vec or fasttext$",
        ),
        ({"method": "svd", "bucket": 100}, "^--bucket 100 only applies to --method fasttext$"),
        ({"method": "word2vec", "bucket": 100}, "^--bucket 100 only applies to --method fasttext$"),
    ],
)
def test_bad_parameters(corpus, tmp_path, kwargs, message):
    with pytest.raises(WrdscoreError, match=message):
        train_embeddings(corpus, output=tmp_path / "m", **kwargs)
    assert not (tmp_path / "m").exists()


def test_empty_corpus(tmp_path):
    corpus = write_corpus(tmp_path / "c", [])
    with pytest.raises(WrdscoreError, match="empty"):
        train_embeddings(corpus, "word2vec", tmp_path / "m")


def test_summaries_of_corpus_without_summaries(tmp_path):
    corpus = write_corpus(tmp_path / "c", NAMES)
    with pytest.raises(WrdscoreError, match="no summaries"):
        train_embeddings(corpus, "svd", tmp_path / "m", text="summaries")


def test_train_gensim_refuses_zero_workers_and_window():
    docs = [["get", "name"], ["set", "name"]] * 5
    # gensim "trained" with 0 workers by returning its random initial vectors.
    with pytest.raises(WrdscoreError, match="--workers must be at least 1, not 0"):
        train_gensim(docs, "word2vec", dim=4, workers=0)
    # A window of 0 was silently replaced by 2.
    with pytest.raises(WrdscoreError, match="--window must be at least 1, not 0"):
        train_gensim(docs, "fasttext", dim=4, window=0)
    with pytest.raises(WrdscoreError, match="--seed"):
        train_gensim(docs, "word2vec", dim=4, seed=-1)


# --- the CLI --------------------------------------------------------------------------

runner = CliRunner()


def test_cli_train_then_inspect(corpus, tmp_path):
    out = tmp_path / "m"
    result = runner.invoke(app, ["train", str(corpus), "--method", "svd", "-o", str(out)])
    assert result.exit_code == 2 and "too few for --dim 50" in result.output
    args = ["train", str(corpus), "--method", "word2vec", "-o", str(out), "--dim", "8"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "fixture-w2v-8" in result.output and (out / "model.json").is_file()
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "already exists" in again.output
    assert runner.invoke(app, [*args, "--force"]).exit_code == 0


def test_cli_train_missing_corpus(tmp_path):
    result = runner.invoke(app, ["train", str(tmp_path / "nope"), "--method", "svd", "-o", "x"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: corpus folder {tmp_path / 'nope'} does not exist"
    ]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (
            ["--specialise-method", "attract-repel", "--no-curated"],
            "--specialise-method attract-repel, --no-curated",
        ),
        (["--no-confirm"], "--no-confirm"),
        (["--no-inflections"], "--no-inflections"),
    ],
)
def test_cli_train_refuses_specialise_options_without_specialise(corpus, tmp_path, extra, named):
    out = tmp_path / "t"
    result = runner.invoke(app, ["train", str(corpus), "--method", "svd", "-o", str(out), *extra])
    assert result.exit_code == 2, result.output
    verb = "apply" if len(extra) > 1 else "applies"  # one option "applies"
    assert result.output.strip().splitlines() == [f"error: {named} only {verb} with --specialise"]
    assert not out.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--method", "word2vec", "--weighting", "ppmi"],
            "--weighting ppmi only applies to --method svd",
        ),
        (["--method", "svd", "--sg", "0"], "--sg 0 only applies to --method word2vec or fasttext"),
        (["--method", "svd", "--bucket", "100"], "--bucket 100 only applies to --method fasttext"),
    ],
)
def test_cli_train_refuses_options_of_another_method(corpus, tmp_path, extra, message):
    out = tmp_path / "t"
    result = runner.invoke(app, ["train", str(corpus), "-o", str(out), *extra])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"error: {message}"]
    assert not out.exists()


def test_cli_train_and_specialise_refuse_a_negative_seed(corpus, tmp_path):
    out = str(tmp_path / "t")
    result = runner.invoke(
        app, ["train", str(corpus), "--method", "svd", "-o", out, "--seed", "-1"]
    )
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        "error: --seed must be a whole number from 0 to 4294967295, not -1"
    ]
    model = tmp_path / "m"
    train_embeddings(corpus, "svd", model, dim=4)
    args = ["specialise", str(model), str(corpus), "-o", str(tmp_path / "s"), "--seed", "-1"]
    result = runner.invoke(app, [*args, "--method", "attract-repel"])
    assert result.exit_code == 2 and "--seed must be a whole number" in result.output
    assert not (tmp_path / "s").exists()
