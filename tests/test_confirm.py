"""Distributional confirmation of mined synonyms before specialising (issue 11)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import method_record, specialise_records, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import (
    CONFIRM_QUANTILE,
    Constraints,
    MinedPair,
    TokenEmbeddings,
    confirm_synonyms,
    read_pairs,
    related_threshold,
    specialise_from_corpus,
    train_embeddings,
)
from wrdscore.errors import WrdscoreError

runner = CliRunner()


def test_threshold_of_identical_and_orthogonal_directions():
    same = np.tile([1.0, 2.0, 0.5], (50, 1)) * np.arange(1, 51)[:, None]
    assert related_threshold(same) == pytest.approx(1.0)
    # Rows of the identity: every pair of distinct rows is orthogonal.
    assert related_threshold(np.eye(40)) == pytest.approx(0.0)


def test_threshold_is_the_quantile_of_random_pair_cosines():
    # Two clusters of equal size, cosine 1 within and 0 across: about half the random
    # pairs of distinct rows fall within a cluster, so the 0.25 quantile is 0 and the
    # 0.75 quantile is 1.
    rows = np.vstack([np.tile([1.0, 0.0], (100, 1)), np.tile([0.0, 3.0], (100, 1))])
    assert related_threshold(rows, 0.25) == pytest.approx(0.0)
    assert related_threshold(rows, 0.75) == pytest.approx(1.0)
    # Zero rows take no part (they would add cosines of 0 and lower the 0.75 quantile).
    with_zeros = np.vstack([rows, np.zeros((400, 2))])
    assert related_threshold(with_zeros, 0.75) == pytest.approx(1.0)
    # Seeded: the same vectors always give the same threshold.
    rng = np.random.default_rng(3)
    v = rng.normal(size=(300, 10))
    assert related_threshold(v) == related_threshold(v.copy())


@pytest.mark.parametrize("q", [0.0, 1.0, -0.5, 2.0])
def test_threshold_rejects_a_quantile_outside_0_1(q):
    with pytest.raises(WrdscoreError, match="between 0 and 1"):
        related_threshold(np.eye(5), q)


def test_threshold_needs_two_non_zero_vectors():
    with pytest.raises(WrdscoreError, match="two non-zero vectors"):
        related_threshold(np.vstack([np.ones((1, 3)), np.zeros((5, 3))]))


def space() -> TokenEmbeddings:
    # 60 random directions in 12-d (random pairs: cosines about 0 +- 0.3), and pairs
    # placed at known cosines from them.
    rng = np.random.default_rng(0)
    vecs = {f"w{i}": rng.normal(size=12) for i in range(60)}
    base = vecs["w0"]
    other = vecs["w1"] - (vecs["w1"] @ base) / (base @ base) * base  # orthogonal to w0

    def at(cos: float) -> np.ndarray:
        return cos * base / np.linalg.norm(base) + np.sqrt(1 - cos**2) * other / np.linalg.norm(
            other
        )

    vecs.update({"listing": base, "listings": 2.0 * at(0.95), "get": base, "testable": at(0.0)})
    vecs.update({"find": base, "lookup": at(-0.2), "str": base, "string": at(0.0)})
    vecs.update({"add": base, "remove": at(0.0)})
    return TokenEmbeddings.from_vectors(vecs)


def test_only_mined_synonyms_below_the_threshold_are_dropped():
    emb = space()
    threshold = related_threshold(emb.kv.vectors)
    assert 0.1 < threshold < 0.9
    constraints = Constraints(
        contrast=[MinedPair("contrast", "add", "remove", 9, 4, "", "siblings")],
        synonym=[
            MinedPair("synonym", "listing", "listings", 2, 2, "", "summary"),
            MinedPair("synonym", "get", "testable", 2, 3, "", "summary"),
            MinedPair("synonym", "find", "lookup", 0, 0, "", "curated"),
            MinedPair("synonym", "get", "unseen", 3, 3, "", "body"),
        ],
        abbreviation=[MinedPair("abbreviation", "str", "string", 5, 9, "", "frames")],
    )
    kept, how = confirm_synonyms(constraints, emb.kv)
    assert [(p.a, p.b) for p in how.dropped] == [("get", "testable")]
    # The curated pair (far apart, the list is its confirmation), the pair with a token
    # outside the vocabulary, the contrast and the abbreviation all stay.
    assert [(p.a, p.b) for p in kept.synonym] == [
        ("listing", "listings"),
        ("find", "lookup"),
        ("get", "unseen"),
    ]
    assert kept.contrast == constraints.contrast
    assert kept.abbreviation == constraints.abbreviation
    assert how.kept == 2  # mined synonyms kept: listing/listings and get/unseen
    assert how.threshold == threshold and how.quantile == CONFIRM_QUANTILE
    summary = how.summary()
    assert summary["synonyms_dropped"] == 1 and summary["dropped"] == ["get/testable"]
    # Norms do not matter, only directions (listings is twice as long).
    assert json.loads(json.dumps(summary)) == summary


def test_a_higher_quantile_asks_for_more():
    # Two clusters (cosine 1 within, 0 across) and a pair at cosine 0.95 between them:
    # random pairs give a 0.25 quantile of 0 and a 0.75 quantile of 1.
    vecs = {f"x{i}": [1.0, 0.0] for i in range(100)} | {f"y{i}": [0.0, 1.0] for i in range(100)}
    vecs |= {"listing": [1.0, 0.0], "listings": [0.95, np.sqrt(1 - 0.95**2)]}
    emb = TokenEmbeddings.from_vectors(vecs)
    pairs = Constraints(
        contrast=[],
        abbreviation=[],
        synonym=[MinedPair("synonym", "listing", "listings", 2, 2, "", "summary")],
    )
    loose = confirm_synonyms(pairs, emb.kv, quantile=0.25)[1]
    strict = confirm_synonyms(pairs, emb.kv, quantile=0.75)[1]
    assert loose.dropped == [] and loose.threshold == pytest.approx(0.0, abs=1e-6)
    assert strict.threshold == pytest.approx(1.0) and len(strict.dropped) == 1


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_records(tmp_path / "corpus", specialise_records())


def test_specialise_from_corpus_drops_an_unrelated_mined_synonym(corpus):
    rng = np.random.default_rng(1)
    words = ["get", "set", "name", "value", "is", "buffer", "blank", "empty"]
    vecs = {w: rng.normal(size=10) for w in words} | {
        f"w{i}": rng.normal(size=10) for i in range(40)
    }
    b = vecs["blank"] / np.linalg.norm(vecs["blank"])
    o = vecs["is"] - (vecs["is"] @ b) * b
    # Cosine -0.6: below the 90th percentile of random pairs (about 0.4 in 10-d).
    vecs["empty"] = -0.6 * b + 0.8 * o / np.linalg.norm(o)
    emb = TokenEmbeddings.from_vectors(vecs)
    kv, meta, constraints = specialise_from_corpus(emb.kv, corpus, curated=False)
    assert constraints.synonym == []
    assert meta["confirm"]["dropped"] == ["blank/empty"]
    assert meta["constraints"]["sizes"]["synonym"] == 0
    assert meta["pairs_in_vocab"]["synonym"] == 0
    # Without confirmation the pair is used, and pulls the two together.
    kv2, meta2, kept = specialise_from_corpus(emb.kv, corpus, curated=False, confirm=False)
    assert meta2["confirm"] is None
    assert [(p.a, p.b) for p in kept.synonym] == [("blank", "empty")]
    assert kv2.similarity("blank", "empty") > kv.similarity("blank", "empty")


def test_cli_specialise_reports_and_records_confirmation(corpus, tmp_path):
    train_embeddings(corpus, "word2vec", tmp_path / "m", dim=8, epochs=2)
    out = tmp_path / "s"
    result = runner.invoke(app, ["specialise", str(tmp_path / "m"), str(corpus), "-o", str(out)])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "model.json").read_text())["specialise"]
    confirm = meta["confirm"]
    line = f"{confirm['synonyms_dropped']} mined synonyms dropped as unrelated"
    # Three decimals: a threshold of 0.9953 printed as "1.00" hid how close it is.
    assert f"{line} (cosine < {confirm['threshold']:.3f})" in result.output
    # pairs.tsv holds what was used: the dropped pairs are not in it.
    used = {f"{p.a}/{p.b}" for p in read_pairs(out / "pairs.tsv") if p.kind == "synonym"}
    assert not used & set(confirm["dropped"])
    assert confirm["synonyms_kept"] + confirm["synonyms_dropped"] == 1  # blank/empty
    plain = runner.invoke(
        app,
        ["specialise", str(tmp_path / "m"), str(corpus), "-o", str(tmp_path / "n"), "--no-confirm"],
    )
    assert plain.exit_code == 0, plain.output
    assert "dropped as unrelated" not in plain.output
    assert json.loads((tmp_path / "n" / "model.json").read_text())["specialise"]["confirm"] is None
    assert ("synonym", "blank", "empty") in {
        (p.kind, p.a, p.b) for p in read_pairs(tmp_path / "n" / "pairs.tsv")
    }


def test_nothing_to_check_needs_no_threshold():
    # A one-token model has no two vectors to compare; with no mined synonym in its
    # vocabulary there is nothing to confirm, and specialising must still work.
    emb = TokenEmbeddings.from_vectors({"run": [1.0, 0.0]})
    pairs = Constraints(
        contrast=[],
        abbreviation=[],
        synonym=[MinedPair("synonym", "run", "walk", 2, 2, "", "summary")],
    )
    kept, how = confirm_synonyms(pairs, emb.kv)
    assert kept == pairs
    assert (how.threshold, how.kept, how.dropped) == (None, 1, [])
    assert how.summary()["threshold"] is None


def test_cli_specialises_a_one_token_model(tmp_path):
    corpus = write_records(tmp_path / "c", [method_record("run", "A"), method_record("run", "B")])
    train_embeddings(corpus, "word2vec", tmp_path / "m", dim=8, epochs=1)
    result = runner.invoke(
        app, ["specialise", str(tmp_path / "m"), str(corpus), "-o", str(tmp_path / "s")]
    )
    assert result.exit_code == 0, result.output
    assert "dropped as unrelated" not in result.output
    meta = json.loads((tmp_path / "s" / "model.json").read_text())["specialise"]
    assert meta["confirm"]["threshold"] is None
