"""Contrasts and synonyms carried over to inflected forms before specialising (issue 11)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import (
    Constraints,
    MinedPair,
    TokenEmbeddings,
    add_inflections,
    inflect_pairs,
    inflected_forms,
    read_pairs,
    specialise_from_corpus,
    train_embeddings,
)


@pytest.mark.parametrize(
    ("token", "forms"),
    [
        ("add", {"s": ("adds",), "ed": ("added",), "ing": ("adding",)}),
        ("remove", {"s": ("removes",), "ed": ("removed",), "ing": ("removing",)}),
        ("box", {"s": ("boxes",), "ed": ("boxed",), "ing": ("boxing",)}),
        ("push", {"s": ("pushes",), "ed": ("pushed",), "ing": ("pushing",)}),
        ("copy", {"s": ("copies",), "ed": ("copied",), "ing": ("copying",)}),
        ("key", {"s": ("keys",), "ed": ("keyed",), "ing": ("keying",)}),
        # Consonant-vowel-consonant: both spellings, the vocabulary picks.
        ("get", {"s": ("gets",), "ed": ("geted", "getted"), "ing": ("geting", "getting")}),
        ("open", {"s": ("opens",), "ed": ("opened", "openned"), "ing": ("opening", "openning")}),
        ("show", {"s": ("shows",), "ed": ("showed",), "ing": ("showing",)}),
    ],
)
def test_regular_spellings(token, forms):
    assert inflected_forms(token) == forms


def pair(kind: str, a: str, b: str, source: str = "siblings") -> MinedPair:
    return MinedPair(kind, a, b, 7, 3, f"{a}|{b}", source)


def test_contrasts_and_synonyms_carry_over_when_the_vocabulary_has_both_forms():
    vocab = {"adds", "removes", "added", "removed", "getting", "setting", "finds", "searches"}
    vocab |= {"nums", "numbers", "opened"}
    pairs = [
        pair("contrast", "add", "remove"),
        pair("contrast", "get", "set"),
        pair("synonym", "find", "search", "curated"),
        pair("abbreviation", "num", "number"),  # nums is not an abbreviation of numbers
        pair("contrast", "close", "open"),  # opened is there, closed is not
    ]
    derived = inflect_pairs(pairs, vocab)
    assert [(p.kind, p.a, p.b) for p in derived] == [
        ("contrast", "adds", "removes"),
        ("contrast", "added", "removed"),
        ("contrast", "getting", "setting"),  # the doubled spelling, the one in vocab
        ("synonym", "finds", "searches"),
    ]
    first = derived[0]
    assert (first.support, first.frames, first.source) == (7, 3, "inflection")
    assert first.example == "adds|removes <- add|remove"


def test_existing_pairs_win_and_conflicting_derivations_are_dropped():
    vocab = {"rows", "columns", "sets", "lists", "starts", "ends"}
    pairs = [
        pair("contrast", "column", "row"),
        # rows/columns is already known as a synonym (say, from the corpus): kept as is.
        pair("synonym", "columns", "rows", "summary"),
        # list/set derive lists/sets twice, as a contrast and as a synonym: dropped.
        pair("contrast", "list", "set"),
        pair("synonym", "list", "set", "curated"),
        pair("contrast", "end", "start"),
    ]
    assert [(p.kind, p.a, p.b) for p in inflect_pairs(pairs, vocab)] == [
        ("contrast", "ends", "starts")
    ]


def test_short_and_non_alphabetic_tokens_are_not_inflected():
    vocab = {"xs", "ys", "as", "bs", "ids", "keys", "arg1s", "arg2s"}
    pairs = [
        pair("contrast", "x", "y"),
        pair("contrast", "a", "b"),
        pair("contrast", "id", "key"),  # id has two letters
        pair("contrast", "arg1", "arg2"),
    ]
    assert inflect_pairs(pairs, vocab) == []


def test_a_derived_pair_never_holds_a_word_of_its_parent():
    # "tests" + "s"? No: the plural of "test" is "tests", which is the other word here.
    pairs = [pair("synonym", "test", "tests")]
    assert inflect_pairs(pairs, {"tests", "testses"}) == []


def test_without_a_vocabulary_every_spelling_is_listed():
    derived = inflect_pairs([pair("contrast", "get", "set")])
    assert {(p.a, p.b) for p in derived} == {
        ("gets", "sets"),
        ("geted", "seted"),
        ("geted", "setted"),
        ("getted", "seted"),
        ("getted", "setted"),
        ("geting", "seting"),
        ("geting", "setting"),
        ("getting", "seting"),
        ("getting", "setting"),
    }


def test_add_inflections_appends_and_counts():
    c = Constraints(
        contrast=[pair("contrast", "add", "remove")],
        synonym=[pair("synonym", "find", "search", "summary")],
        abbreviation=[pair("abbreviation", "num", "number", "frames")],
    )
    out = add_inflections(c, {"added", "removed", "finding", "searching"})
    assert [(p.a, p.b) for p in out.contrast] == [("add", "remove"), ("added", "removed")]
    assert [(p.a, p.b) for p in out.synonym] == [("find", "search"), ("finding", "searching")]
    assert out.abbreviation == c.abbreviation
    assert out.inflected_sizes() == {"contrast": 1, "synonym": 1, "abbreviation": 0}
    assert out.summary()["inflected"] == out.inflected_sizes()


@pytest.fixture
def corpus(tmp_path):
    # add/remove alternate as siblings in three classes: a mined contrast. isAdded and
    # isRemoved, one per class, put the past forms in a names model's vocabulary.
    recs = [
        method_record(f"{verb}{obj}", c)
        for c in ("A", "B", "C")
        for verb in ("add", "remove")
        for obj in ("Listener", "Item")
    ]
    recs += [method_record("isAdded", "D"), method_record("isRemoved", "E")]
    return write_records(tmp_path / "corpus", recs)


def test_specialising_pushes_the_inflected_contrast_apart(corpus):
    rng = np.random.default_rng(0)
    words = ["add", "remove", "listener", "item", "added", "removed", "adding", "removing"]
    vecs = {w: rng.normal(size=8) for w in words + [f"w{i}" for i in range(30)]}
    # Related forms, as distributional vectors make them.
    vecs["removed"] = vecs["added"] + 0.2 * rng.normal(size=8)
    vecs["removing"] = vecs["adding"] + 0.2 * rng.normal(size=8)
    emb = TokenEmbeddings.from_vectors(vecs)
    kv, meta, constraints = specialise_from_corpus(emb.kv, corpus, curated=False)
    assert [(p.a, p.b, p.source) for p in constraints.contrast] == [
        ("add", "remove", "siblings"),
        ("item", "listener", "siblings"),  # no items or listeners in this vocabulary
        ("added", "removed", "inflection"),
        ("adding", "removing", "inflection"),
    ]
    assert meta["constraints"]["inflected"] == {"contrast": 2, "synonym": 0, "abbreviation": 0}
    assert meta["pairs_in_vocab"]["contrast"] == 4
    for a, b in (("added", "removed"), ("adding", "removing")):
        assert kv.similarity(a, b) < emb.kv.similarity(a, b) - 0.3
    plain, meta2, only = specialise_from_corpus(emb.kv, corpus, curated=False, inflect=False)
    assert [(p.a, p.b) for p in only.contrast] == [("add", "remove"), ("item", "listener")]
    assert meta2["constraints"]["inflected"] == {"contrast": 0, "synonym": 0, "abbreviation": 0}
    assert plain.similarity("added", "removed") == pytest.approx(
        emb.kv.similarity("added", "removed"), abs=0.05
    )


def test_cli_inflection_flags(corpus, tmp_path):
    runner = CliRunner()
    train_embeddings(corpus, "word2vec", tmp_path / "m", dim=8, epochs=2)
    base = ["specialise", str(tmp_path / "m"), str(corpus), "--no-curated", "--baseline-pairs"]
    lines = {}
    for flag, out in (("--inflections", "i"), ("--no-inflections", "n")):
        result = runner.invoke(app, [*base, "0", "-o", str(tmp_path / out), flag])
        assert result.exit_code == 0, result.output
        lines[out] = result.output
    meta = json.loads((tmp_path / "i" / "model.json").read_text())["specialise"]
    assert meta["constraints"]["inflected"] == {"contrast": 1, "synonym": 0, "abbreviation": 0}
    assert "(1 carried over to inflected forms)" in lines["i"]
    assert "inflected" not in lines["n"]
    used = read_pairs(tmp_path / "i" / "pairs.tsv")
    assert ("contrast", "added", "removed", "inflection") in {
        (p.kind, p.a, p.b, p.source) for p in used
    }
    assert {p.source for p in read_pairs(tmp_path / "n" / "pairs.tsv")} == {"siblings"}
