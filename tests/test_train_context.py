"""Training on method context: --text combinations, --sg, streaming from disk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_context import FILES
from test_extract import JAVA8, JAVA17
from test_train import docs_strategy, write_corpus
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import extract_file, ingest, open_corpus
from wrdscore.embeddings import (
    CorpusDocuments,
    TokenDocuments,
    cooccurrence_matrix,
    corpus_documents,
    document_frequencies,
    document_stats,
    parse_text,
    streamed_cooccurrence,
    train_embeddings,
    train_gensim,
)
from wrdscore.embeddings.training import _stream, _train
from wrdscore.errors import WrdscoreError


@pytest.fixture(scope="module")
def context_corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ctx")
    src = root / "src"
    src.mkdir()
    for i, text in enumerate([FILES, JAVA8, JAVA17] * 4):
        (src / f"F{i:02d}.java").write_text(text, encoding="utf-8")
    ingest([src], root / "corpus", jobs=1, quiet=True)
    return root / "corpus"


def _records(source: str) -> list[dict]:
    return extract_file(source.encode()).records


def test_text_parts_and_their_documents(context_corpus):
    records = [r for s in [FILES, JAVA8, JAVA17] * 4 for r in _records(s)]
    names_context = list(corpus_documents(context_corpus, "context+names"))
    expected = [r["tokens"] + r["context"].split() for r in records]
    assert names_context == [d for d in expected if d]
    contexts = list(corpus_documents(context_corpus, "context"))
    assert contexts == [r["context"].split() for r in records if r["context"]]
    full = list(corpus_documents(context_corpus, "names+summaries+context"))
    summary = next(r for r in records if r["name"] == "readFirstLine")["summary"]
    assert summary == "Reads the first line of path, or null & more."
    # name, summary (split like names, so "null" stays), then the context, which
    # repeats the summary's words without the keyword.
    head = "read first line reads the first line of path or null more reads the first"
    assert full[0][: len(head.split())] == head.split()


@pytest.mark.parametrize("bad", ["comments", "names+names", "names+", "both+context", ""])
def test_unknown_text_is_refused(bad):
    with pytest.raises(WrdscoreError, match="unknown --text"):
        parse_text(bad)


def test_documents_stream_lazily_and_restart():
    pulled = []

    class FakeCorpus:
        def iter_methods(self):
            for i in range(1000):
                pulled.append(i)
                yield {"name": f"get{i}", "tokens": ["get", str(i)], "context": "a b"}

        def require_context(self):
            pass

    docs = CorpusDocuments(FakeCorpus(), "names+context")
    first = iter(docs)
    assert next(first) == ["get", "0", "a", "b"] and pulled == [0]  # one record read
    assert sum(1 for _ in docs) == 1000 and docs.passes == 2  # a fresh pass each time
    with pytest.raises(TypeError, match="re-iterable"):
        train_gensim((d for d in [["a", "b"]]), "word2vec")


@pytest.mark.parametrize(("method", "passes"), [("svd", 2), ("word2vec", 4), ("fasttext", 4)])
def test_training_reads_the_corpus_in_passes_never_into_memory(
    context_corpus, tmp_path, monkeypatch, method, passes
):
    seen = []
    real_iter = CorpusDocuments.__iter__

    def counting(self):
        seen.append(self.passes)
        return real_iter(self)

    monkeypatch.setattr(CorpusDocuments, "__iter__", counting)

    def no_materialising(*args, **kwargs):
        raise AssertionError("training must not encode the whole corpus in memory")

    monkeypatch.setattr(TokenDocuments, "from_token_lists", no_materialising)
    epochs = {} if method == "svd" else {"epochs": 3}
    emb = train_embeddings(
        context_corpus, method, tmp_path / "m", dim=4, text="names+context", **epochs
    )
    # svd: statistics, co-occurrences; gensim: statistics (its vocabulary too), one per epoch.
    assert len(seen) == passes
    assert emb.meta["params"]["text"] == "names+context" and emb.meta["params"]["window"] == 2


@pytest.mark.parametrize("method", ["word2vec", "fasttext"])
def test_gensim_vocabulary_from_the_statistics_pass_gives_the_same_vectors(context_corpus, method):
    # Ties in count (most tokens of a small corpus) must keep gensim's first-seen order,
    # or the rows, and so the trained vectors, come out permuted.
    docs = CorpusDocuments(open_corpus(context_corpus), "names+context")
    stats = document_stats(docs)
    assert len(set(stats.counts.tolist())) < len(stats.vocab)  # there are ties
    options = {"dim": 8, "epochs": 2, "seed": 3, "min_count": 2, "bucket": 500}
    scanned = train_gensim(docs, method, **options)
    counted = train_gensim(docs, method, stats=stats, **options)
    assert counted.index_to_key == scanned.index_to_key
    assert np.array_equal(counted.vectors, scanned.vectors)
    for token in scanned.index_to_key:
        assert counted.get_vecattr(token, "count") == scanned.get_vecattr(token, "count")


def test_streamed_training_equals_the_in_memory_definitions(context_corpus, tmp_path):
    docs = list(corpus_documents(context_corpus, "names+context"))
    emb = train_embeddings(
        context_corpus, "svd", tmp_path / "m", dim=3, window=3, min_count=2, text="names+context"
    )
    encoded = TokenDocuments.from_token_lists(docs)
    assert emb.doc_freq == document_frequencies(encoded)
    assert emb.n_docs == encoded.n_docs == len(docs)
    assert emb.meta["token_counts"]["total"] == sum(map(len, docs))
    pruned = encoded.prune(2)
    assert list(emb.kv.index_to_key) == pruned.vocab


@settings(max_examples=60, deadline=None)
@given(docs=docs_strategy, window=st.none() | st.integers(1, 3), min_count=st.integers(1, 3))
def test_streamed_cooccurrence_equals_the_whole_matrix(docs, window, min_count):
    stats = document_stats(d for d in docs if d)
    encoded = TokenDocuments.from_token_lists(docs)
    assert stats.vocab == encoded.vocab and stats.counts.tolist() == encoded.counts.tolist()
    assert stats.doc_freq == document_frequencies(encoded) and stats.n_docs == encoded.n_docs
    pruned = encoded.prune(min_count)
    streamed = streamed_cooccurrence(docs, pruned.vocab, window, chunk_tokens=3).toarray()
    np.testing.assert_array_equal(streamed, cooccurrence_matrix(pruned, window).toarray())


def test_sg_chooses_skip_gram_or_cbow(context_corpus, tmp_path):
    kw = {"dim": 6, "epochs": 2, "seed": 1, "text": "context"}
    skip = train_embeddings(context_corpus, "word2vec", tmp_path / "s", sg=1, **kw)
    cbow = train_embeddings(context_corpus, "word2vec", tmp_path / "c", sg=0, **kw)
    again = train_embeddings(context_corpus, "word2vec", tmp_path / "a", sg=0, **kw)
    assert (skip.meta["params"]["sg"], cbow.meta["params"]["sg"]) == (1, 0)
    assert not np.allclose(skip.kv.vectors, cbow.kv.vectors)
    np.testing.assert_array_equal(cbow.kv.vectors, again.kv.vectors)
    with pytest.raises(WrdscoreError, match="--sg must be 0"):
        train_embeddings(context_corpus, "word2vec", tmp_path / "x", sg=2, **kw)


def test_svd_on_context_defaults_to_window_2(context_corpus, tmp_path):
    default = train_embeddings(context_corpus, "svd", tmp_path / "d", dim=3, text="context")
    two = train_embeddings(context_corpus, "svd", tmp_path / "w", dim=3, window=2, text="context")
    assert default.meta["params"]["window"] == 2
    np.testing.assert_array_equal(default.kv.vectors, two.kv.vectors)


def test_cli_trains_on_names_and_context(context_corpus, tmp_path):
    out = tmp_path / "m"
    args = ["train", str(context_corpus), "--method", "fasttext", "-o", str(out), "--dim", "8"]
    args += ["--text", "names+context", "--sg", "0", "--epochs", "1", "--baseline-pairs", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "model.json").read_text())
    assert meta["params"]["text"] == "names+context" and meta["params"]["sg"] == 0


def test_old_format_corpus_cannot_train_on_context(tmp_path):
    corpus = write_corpus(tmp_path / "old", ["getName", "setName", "getValue"] * 3)
    assert open_corpus(corpus).format == 1
    runner = CliRunner()
    base = ["train", str(corpus), "--method", "svd", "--dim", "2", "--baseline-pairs", "0"]
    result = runner.invoke(app, [*base, "-o", str(tmp_path / "m"), "--text", "names+context"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "re-ingest" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "m").exists()
    # Names alone still train on it.
    ok = runner.invoke(app, [*base, "-o", str(tmp_path / "n")])
    assert ok.exit_code == 0, ok.output


def test_streaming_modules_are_used_by_training():
    assert _train.CorpusDocuments is _stream.CorpusDocuments
