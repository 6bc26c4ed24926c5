"""Inspecting models: identifier vectors, similarity, neighbours, and their commands."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import (
    TokenEmbeddings,
    identifier_vector,
    neighbors,
    save_embeddings,
    similarity,
)
from wrdscore.errors import WrdscoreError

VECTORS = {
    "get": [1.0, 0.0],
    "fetch": [0.9, 0.1],
    "count": [0.0, 1.0],
    "size": [0.1, 0.9],
    "put": [-1.0, 0.2],
}
EMB = TokenEmbeddings.from_vectors(VECTORS)


def test_identifier_vector_is_mean_of_tokens():
    got = identifier_vector(EMB, "getCount")
    assert got.tokens == ["get", "count"] and got.unseen == []
    np.testing.assert_allclose(got.vector, [0.5, 0.5])
    partly = identifier_vector(EMB, "get_unknown_size")
    assert partly.unseen == ["unknown"]
    np.testing.assert_allclose(partly.vector, [0.55, 0.45])


def test_similarity_by_hand():
    # getCount = (0.5, 0.5), fetchSize = (0.5, 0.5): identical directions.
    assert similarity(EMB, "getCount", "fetchSize") == pytest.approx(1.0)
    # get = (1, 0), put = (-1, 0.2): cos = -1 / sqrt(1.04).
    assert similarity(EMB, "get", "put") == pytest.approx(-1 / np.sqrt(1.04))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(list(VECTORS)), st.sampled_from(list(VECTORS)))
def test_similarity_symmetric_and_bounded(a, b):
    s = similarity(EMB, a, b)
    assert s == pytest.approx(similarity(EMB, b, a))
    assert -1 - 1e-12 <= s <= 1 + 1e-12


def test_neighbors_sorted_and_exclude_query_tokens():
    found = neighbors(EMB, "getCount", k=3)
    # fetch = (0.9, 0.1) and size = (0.1, 0.9) are equally close to (0.5, 0.5).
    assert {t for t, _ in found[:2]} == {"fetch", "size"} and found[2][0] == "put"
    assert all(t not in ("get", "count") for t, _ in found)
    sims = [s for _, s in found]
    assert sims == sorted(sims, reverse=True)
    assert neighbors(EMB, "get", k=1) == [("fetch", pytest.approx(0.9 / np.sqrt(0.82)))]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: identifier_vector(EMB, "__"), "no sub-tokens"),
        (lambda: neighbors(EMB, "frobnicateWidget"), "none of the tokens"),
        (lambda: neighbors(EMB, "get", k=0), "-k must be at least 1"),
    ],
)
def test_bad_queries(call, message):
    with pytest.raises(WrdscoreError, match=message):
        call()


def test_an_identifier_the_model_does_not_know_has_the_zero_vector():
    # Issue 26: an unseen token gives a vector, not an error; without subword vectors that
    # is zero, so its cosine with anything is 0 (it weighs nothing when scored).
    got = identifier_vector(EMB, "frobnicateWidget")
    assert got.tokens == got.unseen == ["frobnicate", "widget"]
    assert got.vector.tolist() == [0.0, 0.0]
    for a, b in [("frobnicate", "get"), ("get", "frobnicate"), ("zzz", "zzz")]:
        assert similarity(EMB, a, b) == 0.0


def test_neighbors_top_searches_only_the_first_tokens():
    # VECTORS' order: get, fetch, count, size, put. size is nearest to count, but not
    # among the first three tokens.
    assert neighbors(EMB, "count", k=1) == [("size", pytest.approx(0.9 / np.sqrt(0.82)))]
    assert [t for t, _ in neighbors(EMB, "count", k=2, top=3)] == ["fetch", "get"]
    assert neighbors(EMB, "count", k=5, top=10) == neighbors(EMB, "count", k=5)


def test_zero_vector_has_no_neighbors():
    emb = TokenEmbeddings.from_vectors({"a": [0.0, 0.0], "b": [1.0, 0.0]})
    with pytest.raises(WrdscoreError, match="zero vector"):
        neighbors(emb, "a")
    # similarity refuses it the same way, on either side (it printed a silent 0.0000).
    for a, b in [("a", "b"), ("b", "a"), ("a", "a")]:
        with pytest.raises(WrdscoreError, match=r"^'a' has a zero vector, so it has no direction$"):
            similarity(emb, a, b)


def test_neighbors_leave_out_zero_rows_without_a_warning():
    # gensim divided the zero row by its norm (RuntimeWarning on stderr) and listed it
    # with a NaN cosine.
    vectors = {"get": [1.0, 0.0], "zero": [0.0, 0.0], "put": [0.0, 1.0], "fetch": [0.9, 0.1]}
    emb = TokenEmbeddings.from_vectors(vectors)
    without = TokenEmbeddings.from_vectors({t: v for t, v in vectors.items() if t != "zero"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert neighbors(emb, "get", k=5) == neighbors(without, "get", k=5)
        assert [t for t, _ in neighbors(emb, "get", k=2)] == ["fetch", "put"]
        # The zero row among the first --top tokens does not shorten the list.
        assert [t for t, _ in neighbors(emb, "put", k=1, top=3)] == ["get"]


def test_cli_similarity_refuses_a_zero_vector(tmp_path):
    emb = TokenEmbeddings.from_vectors({"study": [0.0, 0.0], "b": [1.0, 0.0]})
    path = tmp_path / "v.txt"
    emb.kv.save_word2vec_format(str(path))
    result = runner.invoke(app, ["similarity", str(path), "study", "study"])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == "error: 'study' has a zero vector, so it has no direction"


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    return save_embeddings(
        EMB.kv, tmp_path / "m", meta={"name": "tiny", "n_docs": 5}, doc_freq={"get": 2}
    )


runner = CliRunner()


def test_cli_neighbors_table(model_dir):
    result = runner.invoke(app, ["neighbors", str(model_dir), "getUnknown", "-k", "2"])
    assert result.exit_code == 0, result.output
    assert "fetch" in result.output and "tiny" in result.output
    assert "not in the vocabulary: unknown" in result.output
    top = runner.invoke(app, ["neighbors", str(model_dir), "count", "-k", "1", "--top", "3"])
    assert top.exit_code == 0, top.output
    assert "fetch" in top.output and "size" not in top.output


def test_cli_similarity_table(model_dir):
    result = runner.invoke(app, ["similarity", str(model_dir), "getCount", "fetchSize"])
    assert result.exit_code == 0, result.output
    assert "1.0000" in result.output


def test_cli_similarity_of_an_unseen_token_is_zero_with_a_note(model_dir):
    result = runner.invoke(app, ["similarity", str(model_dir), "keyup", "getCount"])
    assert result.exit_code == 0, result.output
    assert "0.0000" in result.output
    assert (
        "note: keyup: not in the vocabulary: keyup (no subword vectors: a zero vector, cosine 0)"
        in result.output
    )
    partly = runner.invoke(app, ["similarity", str(model_dir), "getKeyup", "get"])
    assert partly.exit_code == 0, partly.output
    assert "1.0000" in partly.output
    assert "note: getKeyup: not in the vocabulary: keyup (left out of the mean)" in partly.output


def test_cli_errors_are_one_line(model_dir, tmp_path):
    for args in (
        ["neighbors", str(model_dir), "zzz"],
        ["neighbors", str(tmp_path / "nope"), "get"],
        ["neighbors", str(model_dir), "get", "--top", "0"],
        ["similarity", str(model_dir), "get", "__"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert result.output.strip().startswith("error: ")
        assert len(result.output.strip().splitlines()) == 1
