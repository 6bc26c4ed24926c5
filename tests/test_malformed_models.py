"""Malformed embedding files stop at load time with one line naming the word and problem.

Every loader is covered: word2vec text and binary files, KeyedVectors files, MODEL_DIRs,
and TokenEmbeddings built in Python.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest
from gensim.models import KeyedVectors
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings, load_embeddings, save_embeddings
from wrdscore.embeddings.store._vectors import check_vectors
from wrdscore.errors import WrdscoreError


def _binary(path: Path, rows: list[tuple[str, list[float]]], dim: int, count=None) -> Path:
    """Write a word2vec binary file by hand (word, space, float32 LE values, newline)."""
    body = b"".join(w.encode() + b" " + struct.pack(f"<{len(v)}f", *v) + b"\n" for w, v in rows)
    path.write_bytes(f"{count if count is not None else len(rows)} {dim}\n".encode() + body)
    return path


def _kv(words: list[str], matrix) -> KeyedVectors:
    """A KeyedVectors object holding exactly these rows, duplicates included."""
    mat = np.asarray(matrix, dtype=np.float32)
    kv = KeyedVectors(vector_size=mat.shape[1], count=len(words))
    kv.index_to_key = list(words)
    kv.key_to_index = {w: i for i, w in enumerate(words)}
    kv.vectors = mat
    return kv


# --- word2vec text -------------------------------------------------------------------

TEXT_CASES = [
    (
        "2 3\nsize nan nan nan\nget inf 1 2\n",
        r"word 'size' \(line 2\) has a non-finite value \(nan\) in dimension 1",
    ),
    (
        "2 3\nsize 1 2 3\nget 1 -inf 2\n",
        r"word 'get' \(line 3\) has a non-finite value \(-inf\) in dimension 2",
    ),
    ("3 3\nsize 1 0 0\nsize 0 1 0\nget 0 0 1\n", r"word 'size' appears twice \(lines 2 and 3\)"),
    ("2 3\nsize 1 0\nget 0 0 1\n", r"line 2: word 'size' has 2 values, the header says 3"),
    ("2 3\nsize 1 0 0\nget 0 0 1 1\n", r"line 3: word 'get' has 4 values, the header says 3"),
    ("3 3\nsize 1 0 0\nget 0 0 1\n", r"the header says 3 vectors but the file has 2 rows"),
    ("1 3\nsize 1 0 0\nget 0 0 1\n", r"the header says 1 vectors but the file has 2 rows"),
    ("2 3\nsize 0 0 0\nget 0 0 0\n", r"every vector is zero"),
    ("1 3\nsize 1 x 0\n", r"line 2: word 'size': 'x' is not a number"),
    ("1 3\nsize 1 1e39 0\n", r"line 2: word 'size': 1e39 in dimension 2 is too large for float32"),
    ("2 3\nsize 1 0 0\n 0 0 1\n", r"line 3 has no word"),
    ("", r"the file is empty"),
    ("\n\n", r"the file is empty"),
    ("size 1 0 0\n", r"the first line must be '<count> <dim>'"),
    ("0 3\n", r"the header says 0 vectors of dimension 3"),
    ("2 0\na\nb\n", r"the header says 2 vectors of dimension 0"),
    # gensim's binary fallback loads this as the float whose bytes spell "1.5x".
    ("1 1\nab 1.5x\n", r"line 2: word 'ab': '1.5x' is not a number"),
]


@pytest.mark.parametrize(("content", "message"), TEXT_CASES)
def test_malformed_word2vec_text(tmp_path, content, message):
    path = tmp_path / "bad.vec"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(WrdscoreError, match=rf"^{path}: .*{message}"):
        load_embeddings(path)


def test_well_formed_text_variants_load(tmp_path):
    # fastText's .vec writes a trailing space on each row; CRLF line ends and a blank
    # last line are fine; a zero vector among others is allowed (an isolated SVD token).
    path = tmp_path / "ok.vec"
    path.write_bytes(b"3 2\r\nget 1 0 \r\nset 0.5 0.5 \r\nlonely 0 0\r\n\r\n")
    emb = load_embeddings(path)
    assert emb.kv.index_to_key == ["get", "set", "lonely"]
    np.testing.assert_array_equal(emb.lookup(["set", "lonely"])[0], [[0.5, 0.5], [0, 0]])


def test_plain_vectors_file_has_no_invented_counts(tmp_path):
    # gensim's reader makes up descending counts; a vectors file has none, so corpus
    # centering must use the unweighted mean (as the README says).
    path = tmp_path / "v.txt"
    path.write_text("2 2\nget 1 0\nset 0 3\n")
    np.testing.assert_allclose(load_embeddings(path).mean_vector(), [0.5, 1.5])


# --- word2vec binary -----------------------------------------------------------------


def test_binary_nan_names_the_word(tmp_path):
    path = _binary(tmp_path / "v.bin", [("get", [1, 0, 0]), ("size", [0, float("nan"), 1])], 3)
    with pytest.raises(
        WrdscoreError,
        match=r"word 'size' \(vector 2\) has a non-finite value \(nan\) in dimension 2",
    ):
        load_embeddings(path)


def test_binary_duplicate_word(tmp_path):
    path = _binary(
        tmp_path / "v.bin", [("size", [1, 0, 0]), ("get", [0, 0, 1]), ("size", [0, 1, 0])], 3
    )
    with pytest.raises(WrdscoreError, match=r"word 'size' appears twice \(vectors 1 and 3\)"):
        load_embeddings(path)


def test_binary_truncated_and_trailing(tmp_path):
    path = _binary(tmp_path / "v.bin", [("size", [1, 0, 0]), ("get", [0, 0, 1])], 3, count=3)
    with pytest.raises(WrdscoreError, match=r"ends in vector 3"):
        load_embeddings(path)
    path = _binary(tmp_path / "w.bin", [("size", [1, 0, 0]), ("get", [0, 0, 1])], 3, count=1)
    with pytest.raises(WrdscoreError, match=r"bytes follow the 1 vectors"):
        load_embeddings(path)


def test_binary_zero_model(tmp_path):
    path = _binary(tmp_path / "v.bin", [("size", [0, 0]), ("get", [0, 0])], 2)
    with pytest.raises(WrdscoreError, match="every vector is zero"):
        load_embeddings(path)


def test_binary_written_by_gensim_round_trips(tmp_path):
    emb = TokenEmbeddings.from_vectors({"get": [0.1, 0.2, 0.3], "set": [1.5, -2.0, 0.25]})
    path = tmp_path / "g.bin"
    emb.kv.save_word2vec_format(str(path), binary=True)
    back = load_embeddings(path)
    assert back.kv.index_to_key == ["get", "set"]
    np.testing.assert_array_equal(back.kv.vectors, emb.kv.vectors)


# --- KeyedVectors files and MODEL_DIRs -----------------------------------------------


def test_keyed_vectors_file_with_nan(tmp_path):
    path = tmp_path / "m.kv"
    _kv(["get", "size"], [[1, 0], [np.nan, 1]]).save(str(path))
    with pytest.raises(WrdscoreError, match=rf"^{path}: word 'size' \(vector 2\) has a non-finite"):
        load_embeddings(path)


def test_keyed_vectors_file_with_duplicate(tmp_path):
    path = tmp_path / "m.kv"
    _kv(["size", "size", "get"], [[1, 0], [0, 1], [1, 1]]).save(str(path))
    with pytest.raises(WrdscoreError, match=r"word 'size' appears twice \(vectors 1 and 2\)"):
        load_embeddings(path)


def test_keyed_vectors_file_with_missing_word(tmp_path):
    path = tmp_path / "m.kv"
    _kv(["size", None], [[1, 0], [0, 1]]).save(str(path))
    with pytest.raises(WrdscoreError, match=r"vector 2 has no word \(None\)"):
        load_embeddings(path)


def test_keyed_vectors_file_with_fewer_words_than_vectors(tmp_path):
    path = tmp_path / "m.kv"
    kv = _kv(["size", "get"], [[1, 0], [0, 1]])
    kv.vectors = np.ones((3, 2), dtype=np.float32)
    kv.save(str(path))
    with pytest.raises(WrdscoreError, match=r"2 (words|tokens) but 3 vectors"):
        load_embeddings(path)


def test_model_dir_with_inf(tmp_path):
    # save_embeddings refuses such vectors, so a good MODEL_DIR is damaged afterwards,
    # as a disk error or an edit would.
    good = _kv(["get", "size"], [[1, 0], [1, 1]])
    folder = save_embeddings(good, tmp_path / "m", meta={"name": "m", "n_docs": 2}, doc_freq={})
    kv = _kv(["get", "size"], [[1, 0], [1, np.inf]])
    kv.save(str(folder / "vectors.kv"))
    np.save(folder / "fast" / "vectors.npy", kv.vectors)
    message = r"word 'size' \(vector 2\) has a non-finite value \(inf\) in dimension 2"
    # The fast-loading arrays (fast/vectors.npy) are checked like the gensim file...
    with pytest.raises(WrdscoreError, match=rf"fast/vectors\.npy: {message}"):
        load_embeddings(folder)
    # ...which is read when they are absent (a MODEL_DIR written before they existed).
    shutil.rmtree(folder / "fast")
    with pytest.raises(WrdscoreError, match=rf"vectors\.kv: {message}"):
        load_embeddings(folder)


def test_fasttext_ngrams_with_nan(tmp_path):
    from gensim.models import FastText

    model = FastText(vector_size=4, min_count=1, bucket=50, seed=1, workers=1)
    sentences = [["get", "size"], ["set", "size"]]
    model.build_vocab(sentences)
    model.train(sentences, total_examples=2, epochs=1)
    kv = model.wv
    kv.vectors_ngrams[7, 2] = np.nan
    with pytest.raises(
        WrdscoreError, match=r"ft: subword \(n-gram\) vector 7 has a non-finite value"
    ):
        TokenEmbeddings(kv, name="ft")


def test_from_vectors_in_python_is_checked_too():
    with pytest.raises(WrdscoreError, match=r"custom: word 'b' \(vector 2\) has a non-finite"):
        TokenEmbeddings.from_vectors({"a": [1.0, 0.0], "b": [np.nan, 0.0]})


def test_check_vectors_accepts_a_good_matrix_and_one_zero_vector():
    check_vectors(["a", "b"], np.array([[1.0, 0.0], [0.0, 0.0]]), "x")


# --- the two commands, through the CLI ---------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "2 3\nsize nan nan nan\nget inf 1 2\n",
            "word 'size' (line 2) has a non-finite value (nan) in dimension 1",
        ),
        ("3 3\nsize 1 0 0\nsize 0 1 0\nget 0 0 1\n", "word 'size' appears twice (lines 2 and 3)"),
    ],
)
def test_cli_one_line_exit_2(tmp_path, content, message):
    (tmp_path / "r.txt").write_text("get size\n")
    (tmp_path / "p.txt").write_text("size\n")
    vec = tmp_path / "bad.vec"
    vec.write_text(content)
    result = CliRunner().invoke(
        app,
        [
            "score",
            "--refs",
            str(tmp_path / "r.txt"),
            "--preds",
            str(tmp_path / "p.txt"),
            "--embeddings",
            str(vec),
            "-m",
            "wrd",
            "-m",
            "bertscore",
        ],
    )
    assert result.exit_code == 2, result.output
    assert result.output == f"error: {vec}: {message}\n"
