"""`train` says how its model scores random pairs of names, and warns about a useless one.

A model that gives unrelated names nearly the score of identical ones (word2vec on a
library's names gave random pairs a mean F1 of 0.94) was written without a word, though
`train` computes that mean anyway: it is the rescaling baseline.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.cli.embeddings import USELESS_F1
from wrdscore.embeddings import TokenEmbeddings, save_embeddings

WORDS = ["name", "size", "count", "value", "user", "file", "path", "item", "list", "text"]
MEAN = re.compile(r"^random pairs of names: mean wrd F1 (.+?) \(identical names: 1\)$", re.M)


def _get_set_corpus(folder: Path) -> Path:
    # Every name is get/set + one word: each word occurs beside get or set only, so the
    # co-occurrence SVD puts every word on (nearly) one line and all names look alike.
    names = [f"{verb}{w.title()}" for verb in ("get", "set") for w in WORDS]
    return write_records(folder, [method_record(n, "A") for n in names])


def test_a_model_that_cannot_tell_names_apart_is_warned_about(tmp_path):
    corpus = _get_set_corpus(tmp_path / "c")
    args = ["train", str(corpus), "--method", "svd", "--dim", "4", "-o", str(tmp_path / "m")]
    result = CliRunner().invoke(app, [*args, "--baseline-pairs", "500"])
    assert result.exit_code == 0, result.output
    assert MEAN.search(result.stderr).group(1) == "about 1"
    assert "warning: unrelated names score about 1 on average, near the top" in result.stderr


def test_a_useful_model_gets_the_mean_and_no_warning(tmp_path):
    root = Path(__file__).resolve().parents[1]
    ingest = ["ingest", str(root / "examples" / "project"), "-o", str(tmp_path / "c"), "-q"]
    assert CliRunner().invoke(app, ingest).exit_code == 0
    args = ["train", str(tmp_path / "c"), "--method", "svd", "-o", str(tmp_path / "m")]
    result = CliRunner().invoke(app, [*args, "--baseline-pairs", "2000"])
    assert result.exit_code == 0, result.output
    mean = float(MEAN.search(result.stderr).group(1))
    assert 0.0 < mean < 0.1  # 0.024 on 10,000 pairs (docs/embeddings.md)
    assert "warning" not in result.stderr


def test_baseline_warns_at_a_mean_above_the_threshold(tmp_path):
    # Vectors a few degrees apart: random names score high, below 1.
    corpus = _get_set_corpus(tmp_path / "c")
    tokens = ["get", "set", *WORDS]
    angles = np.linspace(0.0, 0.5, len(tokens))
    emb = TokenEmbeddings.from_vectors(
        {t: [float(np.cos(a)), float(np.sin(a))] for t, a in zip(tokens, angles, strict=True)}
    )
    save_embeddings(emb.kv, tmp_path / "m", meta={"name": "close", "n_docs": 20}, doc_freq={})
    result = CliRunner().invoke(
        app, ["baseline", str(tmp_path / "m"), str(corpus), "--pairs", "500"]
    )
    assert result.exit_code == 0, result.output
    mean = float(MEAN.search(result.stderr).group(1))
    assert USELESS_F1 <= mean < 1.0
    assert f"warning: unrelated names score {mean:.3f} on average" in result.stderr
