"""Similarity specialisation: mined constraints, counter-fitting and attract-repel (issue 11)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import EMPTY, EMPTY2, blank_empty_records, specialise_records, write_records
from corpus_fixtures import method_record as record
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import (
    PAIRS_HEADER,
    CounterFitSettings,
    MinedPair,
    MiningSettings,
    SpecialiseSettings,
    TokenEmbeddings,
    attract_repel,
    counter_fit,
    load_embeddings,
    mine_records,
    read_pairs,
    specialise_model,
    specialise_vectors,
    train_embeddings,
    write_pairs,
)
from wrdscore.errors import WrdscoreError


def pairs_of(constraints, kind: str) -> dict[tuple[str, str], MinedPair]:
    return {(p.a, p.b): p for p in constraints.pairs(kind)}


# --- contrasts ------------------------------------------------------------------------


def test_getter_setter_siblings_yield_a_contrast():
    recs = [
        record(n, c)
        for c in ("A", "B", "C")
        for n in ("getName", "setName", "getSize", "setSize", "clear")
    ]
    contrast = pairs_of(mine_records(recs), "contrast")
    # get/set alternate in 3 classes and 2 frames (_ name, _ size), and so do name/size
    # (get _, set _); clear is alone in its frame (the empty frame).
    assert list(contrast) == [("get", "set"), ("name", "size")]
    assert (contrast["get", "set"].support, contrast["get", "set"].frames) == (3, 2)
    assert (contrast["name", "size"].support, contrast["name", "size"].frames) == (3, 2)
    assert contrast["get", "set"].example == "get|set name"


def test_contrast_confidence_rule_needs_classes_and_frames():
    two_classes = [record(n, c) for c in ("A", "B") for n in ("getName", "setName", "getX")]
    assert mine_records(two_classes).contrast == []  # 2 classes < min_types 3
    one_frame = [record(n, c) for c in ("A", "B", "C") for n in ("rotateLeft", "rotateRight")]
    assert mine_records(one_frame).contrast == []  # 1 frame < min_frames 2
    loose = MiningSettings(min_frames=1)
    contrast = pairs_of(mine_records(one_frame, loose), "contrast")
    assert contrast["left", "right"].support == 3


def test_contrast_needs_the_pair_to_alternate_where_both_are_named():
    # count/size alternate as siblings (getCount/getSize) in 3 classes and 2 frames, but
    # 7 more classes name both in other shapes (size() beside countItems()): 3 of 10
    # classes is under the rate of 1/3, so they are not paired operations. get/set
    # alternate in every class that names both.
    paired = [record(n, c) for c in "ABC" for n in ("getCount", "getSize", "count", "size")]
    apart = [record(n, c) for c in "DEFGHIJ" for n in ("size", "countItems")]
    beans = [record(n, c) for c in "ABC" for n in ("getName", "setName", "getKey", "setKey")]

    def by_class(recs):  # ingest writes a class's methods together
        return sorted(recs, key=lambda r: r["path"])

    recs = by_class(paired + apart + beans)
    contrast = pairs_of(mine_records(recs), "contrast")
    assert ("count", "size") not in contrast and ("get", "set") in contrast
    # 3 of 9 classes is a third: kept, with the same support as without the rule.
    contrast = pairs_of(mine_records(by_class(paired + apart[2:] + beans)), "contrast")
    assert contrast["count", "size"].support == 3
    everything = MiningSettings(min_alternation_rate=0.0)
    assert ("count", "size") in pairs_of(mine_records(recs, everything), "contrast")


def test_contrast_skips_crowded_slots():
    # getA..getF in each class: the slot "get _" has 6 fillers > max_fillers 5.
    # (ingest writes the methods of a file consecutively, and the miner relies on it)
    recs = [record(f"{v}{x}", c) for c in "ABC" for v in ("get", "set") for x in "ABCDEF"[:6]]
    recs = [r for r in recs if not (r["name"].startswith("set") and r["name"][-1] > "B")]
    contrast = pairs_of(mine_records(recs), "contrast")
    assert set(contrast) == {("get", "set")}


# --- synonyms -------------------------------------------------------------------------


def test_identical_summaries_yield_a_synonym():
    recs = blank_empty_records()
    synonym = pairs_of(mine_records(recs), "synonym")
    assert list(synonym) == [("blank", "empty")]
    assert (synonym["blank", "empty"].support, synonym["blank", "empty"].frames) == (2, 4)
    # One shared summary is not enough under the default rule (min_summaries 2) ...
    assert mine_records(recs[:2]).synonym == []
    # ... and is under a looser one.
    loose = MiningSettings(min_summaries=1)
    assert list(pairs_of(mine_records(recs[:2], loose), "synonym")) == [("blank", "empty")]


def test_synonym_rules_skip_boilerplate_short_and_same_class_summaries():
    boiler = "This method is not supported here."
    recs = [record(n, f"C{i}", boiler) for i, n in enumerate(["sizeA", "countA", "lengthA"])]
    recs += [record(n, f"D{i}", boiler) for i, n in enumerate(["lenA", "numA", "totalA"])]
    loose = MiningSettings(min_summaries=1)
    assert mine_records(recs, loose).synonym == []  # 6 distinct names > 5: boilerplate
    short = [record("isEmpty", "A", "Empty check."), record("isBlank", "B", "Empty check.")]
    assert mine_records(short, loose).synonym == []  # 2 words < 4
    same = [record("isEmpty", "A", EMPTY), record("isBlank", "A", EMPTY)]
    assert mine_records(same, loose).synonym == []  # one class: siblings, not wording


def test_a_synonym_needs_names_that_differ_in_one_token():
    loose = MiningSettings(min_summaries=1)
    # A getter and a property accessor of another shape, sharing JavaFX-style Javadoc.
    shapes = [record("getLineJoin", "A", EMPTY), record("strokeLineJoinProperty", "B", EMPTY)]
    assert mine_records(shapes, loose).synonym == []
    # Two words changed: different methods, however alike their Javadoc.
    two = [record("removeAll", "A", EMPTY2), record("replaceValues", "B", EMPTY2)]
    assert mine_records(two, loose).synonym == []
    one = [record("getLineJoin", "A", EMPTY), record("getLineCap", "B", EMPTY)]
    assert list(pairs_of(mine_records(one, loose), "synonym")) == [("cap", "join")]


def test_copied_javadoc_does_not_turn_a_contrast_into_a_synonym():
    doc1, doc2 = "The name of the underlying user account.", "The size of the data in bytes."
    recs = []
    for c in ("A", "B", "C"):
        recs += [record("getName", c, doc1), record("setName", c, doc1)]
        recs += [record("getSize", c, doc2), record("setSize", c, doc2)]
    mined = mine_records(recs, MiningSettings(min_summaries=1))
    # get/set share 2 summaries but alternate in 3 classes: a contrast.
    assert mined.synonym == []
    assert list(pairs_of(mined, "contrast")) == [("get", "set"), ("name", "size")]


# --- synonyms from method bodies (format-2 context) ----------------------------------

#: Contexts long and varied enough to count (>= 12 words, >= 6 distinct).
BODIES = [
    "returns the number of elements int n elements length minus removed n",
    "string builder sb append prefix sb append value sb to string trimmed",
    "list items iterator it has next item it next item clear removed",
    "map entries key value put entries key value old value return old",
]


def test_identical_bodies_in_different_classes_yield_a_synonym():
    recs = []
    for i, body in enumerate(BODIES[:3]):
        recs += [
            record("getSize", f"A{i}", context=body),
            record("getCount", f"B{i}", context=body.split()),  # a list works too
        ]
    synonym = pairs_of(mine_records(recs), "synonym")
    assert list(synonym) == [("count", "size")]
    pair = synonym["count", "size"]
    # 3 distinct contexts, 6 classes; the example shows both names and the context.
    assert (pair.support, pair.frames, pair.source) == (3, 6, "body")
    assert pair.example == "get count / get size: " + " ".join(BODIES[0].split()[:12])
    # Two bodies are not enough (min_bodies 3) ...
    assert mine_records(recs[:4]).synonym == []
    # ... nor are three bodies from only two type names (min_body_types 3).
    two_types = [dict(r, type=r["type"][0]) for r in recs]
    assert mine_records(two_types).synonym == []
    # A corpus without context (format 1) mines no body synonyms.
    plain = [{k: v for k, v in r.items() if k != "context"} for r in recs]
    assert mine_records(plain).synonym == []


def test_body_and_summary_evidence_combine():
    recs = blank_empty_records()
    for i, body in enumerate(BODIES[:3]):
        recs += [record("checkEmpty", f"E{i}", context=body)]
        recs += [record("checkBlank", f"F{i}", context=body)]
    pair = pairs_of(mine_records(recs), "synonym")["blank", "empty"]
    assert (pair.support, pair.frames, pair.source) == (5, 10, "summary+body")
    assert mine_records(recs).synonym_sources() == {"summary": 1, "body": 1}


def test_sibling_bodies_short_bodies_and_boilerplate_are_not_synonyms():
    loose = MiningSettings(min_bodies=1, min_body_types=1)
    # getX/setX with the same (copied) body in one class: siblings, never evidence.
    same_class = [
        record("getName", "A", context=BODIES[0]),
        record("setName", "A", context=BODIES[0]),
    ]
    assert mine_records(same_class, loose).synonym == []
    # The same class name under two paths (a vendored copy) is still one class.
    vendored = [dict(r, path=f"p{i}/A.java") for i, r in enumerate(same_class)]
    assert mine_records(vendored, loose).synonym == []
    # `return count;` gives a short context: shared by chance, ignored.
    short = [record("size", "A", context="int count"), record("length", "B", context="int count")]
    assert mine_records(short, loose).synonym == []
    # Long but repetitive (5 distinct words < 6).
    rep = "a b c d e " * 3
    rep_recs = [record("size", "A", context=rep), record("length", "B", context=rep)]
    assert mine_records(rep_recs, loose).synonym == []
    # The same body under 4 distinct names (> max_context_names 3): a stub.
    stub = [
        record(n, f"S{i}", context=BODIES[1])
        for i, n in enumerate(["getA", "getB", "getC", "getD"])
    ]
    assert mine_records(stub, loose).synonym == []
    assert [(p.a, p.b) for p in mine_records(stub[:2], loose).synonym] == [("a", "b")]


def test_body_synonym_that_alternates_as_siblings_is_a_contrast():
    recs = []
    for i, body in enumerate(BODIES[:3]):
        recs += [record("getName", f"A{i}", context=body), record("setName", f"B{i}", context=body)]
    assert list(pairs_of(mine_records(recs), "synonym")) == [("get", "set")]
    # get/set alternate as siblings in 4 classes, more than the 3 bodies: no synonym.
    for c in "PQRS":
        recs += [record("getX", c), record("setX", c), record("getY", c), record("setY", c)]
    mined = mine_records(recs)
    assert mined.synonym == []
    assert ("get", "set") in pairs_of(mined, "contrast")


# --- abbreviations --------------------------------------------------------------------


def abbreviation_corpus() -> list[dict]:
    recs = []
    for i, frame in enumerate(["get{}", "{}Roles", "max{}", "to{}", "parse{}"]):
        recs.append(record(frame.format("Num"), f"N{i}"))
        recs.append(record(frame.format("Number"), f"M{i}", f"Returns the number {i} here."))
        # keymap = key + map is a compound; indexes an inflection of index.
        recs.append(record(frame.format("Key"), f"K{i}"))
        recs.append(record(frame.format("Keymap"), f"L{i}", f"The keymap {i} is used."))
        recs.append(record(frame.format("Map"), f"P{i}"))
        recs.append(record(frame.format("Index"), f"I{i}"))
        recs.append(record(frame.format("Indexes"), f"J{i}", f"All indexes of {i}."))
    return recs


def test_abbreviation_by_prefix_confirmed_by_shared_frames():
    abbreviation = pairs_of(mine_records(abbreviation_corpus()), "abbreviation")
    assert list(abbreviation) == [("num", "number")]
    assert abbreviation["num", "number"].support == 5  # 5 shared frames
    # Fewer shared frames than min_shared_frames: no abbreviation.
    strict = MiningSettings(min_shared_frames=6)
    assert mine_records(abbreviation_corpus(), strict).abbreviation == []


def test_a_rare_token_spelling_the_remainder_does_not_make_a_compound():
    recs = abbreviation_corpus()
    # "ber" (ASN.1's Basic Encoding Rules) is a vocabulary token, but rarer in names than
    # "number", so number is not num + ber: num still abbreviates it.
    recs += [record(f"toBer{i}", f"B{i}") for i in range(5)]
    recs += [record(f"getNumber{i}", f"C{i}") for i in range(5)]
    assert list(pairs_of(mine_records(recs), "abbreviation")) == [("num", "number")]
    # As common as "number": a compound, like key + map.
    recs += [record(f"toBer{i}", f"D{i}") for i in range(5)]
    assert mine_records(recs).abbreviation == []


def test_a_two_letter_token_is_not_an_abbreviation():
    recs = []
    for i, frame in enumerate(["get{}", "{}Value", "to{}", "parse{}"]):
        recs += [record(frame.format("Do"), f"A{i}{j}") for j in range(2)]
        recs += [record(frame.format("Double"), f"B{i}{j}", "The double value.") for j in range(2)]
    assert mine_records(recs).abbreviation == []
    two = MiningSettings(min_short_length=2)
    assert list(pairs_of(mine_records(recs, two), "abbreviation")) == [("do", "double")]


def test_abbreviation_by_consonant_skeleton():
    recs = []
    for i, frame in enumerate(["get{}", "{}Text", "format{}"]):
        for j in range(2):
            recs.append(record(frame.format("Msg"), f"A{i}{j}"))
            recs.append(record(frame.format("Message"), f"B{i}{j}", "The message to show."))
    # msg: 6 occurrences >= min_count 5, no vowel after m, subsequence of message.
    assert list(pairs_of(mine_records(recs), "abbreviation")) == [("msg", "message")]


def test_a_word_used_in_prose_is_not_an_abbreviation():
    recs = abbreviation_corpus()
    # "num" written in summaries more often than "number": a word, not an abbreviation.
    recs += [record("helper", f"Z{i}", "num num num num num num") for i in range(2)]
    assert mine_records(recs).abbreviation == []


# --- attract-repel --------------------------------------------------------------------


def cos(m: np.ndarray, i: int, j: int) -> float:
    return float(m[i] @ m[j] / np.linalg.norm(m[i]) / np.linalg.norm(m[j]))


@pytest.fixture
def space() -> np.ndarray:
    rng = np.random.default_rng(3)
    base = rng.normal(size=(40, 12))
    base[1] = base[0] + 0.3 * rng.normal(size=12)  # 0, 1: related (a contrast pair)
    return base * rng.uniform(0.5, 3.0, size=(40, 1))


def test_attract_repel_moves_constrained_pairs_the_right_way(space):
    attract = [(2, 3), (4, 5), (6, 7)]
    repel = [(0, 1), (8, 9), (10, 11)]
    out = attract_repel(space, attract, repel)
    for i, j in attract:
        assert cos(out, i, j) > cos(space, i, j) + 0.05
    for i, j in repel:
        assert cos(out, i, j) < cos(space, i, j) - 0.05
    # Words in no pair do not move at all; a pair of them keeps its cosine exactly.
    np.testing.assert_array_equal(out[20:], space[20:])
    assert cos(out, 20, 21) == pytest.approx(cos(space, 20, 21), abs=1e-12)
    # Every norm is kept (WRDScore's norm weights).
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(space, axis=1))


def test_attract_repel_deterministic_with_seed(space):
    a = attract_repel(space, [(2, 3), (4, 5)], [(0, 1), (8, 9)], SpecialiseSettings(seed=1))
    b = attract_repel(space, [(2, 3), (4, 5)], [(0, 1), (8, 9)], SpecialiseSettings(seed=1))
    np.testing.assert_array_equal(a, b)
    none = attract_repel(space, [(2, 3)], [(0, 1)], SpecialiseSettings(epochs=0))
    np.testing.assert_allclose(none, space)


def test_attract_repel_one_step_matches_hand_computation():
    # One attract pair, one epoch of one batch: no in-batch negative, so the impostor
    # is orthogonal and the loss is [0.6 - x_l . x_r]_+ = 0.6 (x_l . x_r = 0).
    v = np.array([[2.0, 0.0], [0.0, 1.0]])
    out = attract_repel(v, [(0, 1)], [], SpecialiseSettings(epochs=1, regularisation=0.0))
    # Both hinge terms (anchored on l and on r) hold x_l . x_r, so the gradient with
    # respect to the unit vectors is d/dx_l = -2 x_r = (0, -2), d/dx_r = -2 x_l = (-2, 0);
    # both are tangent, so the normalisation (|w0| = 1) leaves them unchanged.
    # AdaGrad from accumulator 0.1: w -= 0.05 * g / sqrt(0.1 + g^2) per coordinate.
    step = 0.05 * 2.0 / np.sqrt(0.1 + 4.0)
    left = np.array([1.0, step]) / np.hypot(1.0, step) * 2.0
    right = np.array([step, 1.0]) / np.hypot(1.0, step) * 1.0
    np.testing.assert_allclose(out, [left, right], atol=1e-12)


def test_attract_repel_rejects_bad_pairs(space):
    with pytest.raises(WrdscoreError, match="outside the vectors"):
        attract_repel(space, [(0, 99)], [])


# --- models ---------------------------------------------------------------------------


def test_specialise_vectors_on_keyed_vectors():
    rng = np.random.default_rng(0)
    words = ["get", "set", "fetch", "name", "value", "size", "count", "left", "right", "x"]
    vecs = {w: rng.normal(size=6) for w in words}
    # Opposites are related: close before specialisation.
    vecs["set"] = vecs["get"] + 0.3 * rng.normal(size=6)
    vecs["right"] = vecs["left"] + 0.3 * rng.normal(size=6)
    emb = TokenEmbeddings.from_vectors(vecs)
    pairs = [
        MinedPair("contrast", "get", "set", 5, 3, ""),
        MinedPair("contrast", "left", "right", 4, 2, ""),
        MinedPair("synonym", "count", "size", 2, 2, ""),
        MinedPair("abbreviation", "fetch", "missing", 3, 9, ""),  # not in the vocabulary
    ]
    res = specialise_vectors(emb.kv, pairs)
    assert res.used == {"contrast": 2, "synonym": 1, "abbreviation": 0}
    before, after = emb.kv, res.kv
    assert after.similarity("count", "size") > before.similarity("count", "size")
    assert after.similarity("get", "set") < before.similarity("get", "set")
    assert after.similarity("left", "right") < before.similarity("left", "right")
    assert after.similarity("name", "value") == pytest.approx(before.similarity("name", "value"))
    # The input is not changed.
    np.testing.assert_array_equal(emb.kv["get"], np.asarray(vecs["get"], dtype=np.float32))


# --- corpora, train --specialise and the CLI ------------------------------------------


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    recs = abbreviation_corpus() + specialise_records()
    for c in ("R1", "R2", "R3", "R4"):
        recs += [record(n, c) for n in ("rotateLeft", "rotateRight", "shiftLeft", "shiftRight")]
    return write_records(tmp_path / "corpus", recs)


def test_train_specialise_fasttext_writes_pairs_and_sizes(corpus, tmp_path):
    plain = train_embeddings(corpus, "fasttext", tmp_path / "p", dim=8, epochs=2, bucket=500)
    # Every mined pair, as mined, here: tests/test_curated.py adds the curated list, and
    # tests/test_confirm.py drops synonyms the vectors do not relate (two epochs over a
    # few names do not relate blank and empty).
    emb = train_embeddings(
        corpus,
        "fasttext",
        tmp_path / "s",
        dim=8,
        epochs=2,
        bucket=500,
        specialise=True,
        curated=False,
        confirm=False,
    )
    meta = json.loads((tmp_path / "s" / "model.json").read_text())
    assert meta["name"] == emb.name == "fixture-ft-8-cf"
    sizes = meta["specialise"]["constraints"]["sizes"]
    assert sizes == {"contrast": 4, "synonym": 1, "abbreviation": 1}
    # The fixture corpus has no context: its one synonym comes from summaries.
    assert meta["specialise"]["constraints"]["synonym_sources"] == {"summary": 1, "body": 0}
    assert meta["specialise"]["method"] == "counter-fitting"
    assert meta["specialise"]["settings"]["delta"] == 1.0
    pairs = read_pairs(tmp_path / "s" / "pairs.tsv")
    assert {(p.kind, p.a, p.b) for p in pairs} == {
        ("contrast", "get", "set"),
        ("contrast", "left", "right"),
        ("contrast", "name", "value"),
        ("contrast", "rotate", "shift"),
        ("synonym", "blank", "empty"),
        ("abbreviation", "num", "number"),
    }
    assert {p.kind: p.source for p in pairs} == {
        "contrast": "siblings",
        "synonym": "summary",
        "abbreviation": "frames",
    }
    loaded = load_embeddings(tmp_path / "s")
    # gensim recomposes FastText word vectors on load: they are the specialised ones,
    # the same as specialising the plain model's word vectors directly.
    np.testing.assert_allclose(loaded.kv.vectors, emb.kv.vectors, atol=1e-5)
    direct = counter_fit(plain.kv.vectors, *_index_pairs(plain.kv, pairs))
    np.testing.assert_allclose(loaded.kv.vectors, direct, atol=1e-5)
    assert not np.allclose(loaded.kv.vectors, plain.kv.vectors, atol=1e-3)
    # Unseen tokens keep the original subword vectors.
    np.testing.assert_array_equal(loaded.kv.get_vector("zzgetq"), plain.kv.get_vector("zzgetq"))


def _index_pairs(kv, pairs) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    ix = kv.key_to_index
    attract = [(ix[p.a], ix[p.b]) for p in pairs if p.kind != "contrast"]
    return attract, [(ix[p.a], ix[p.b]) for p in pairs if p.kind == "contrast"]


def test_specialise_model_refuses_twice_and_plain_files(corpus, tmp_path):
    train_embeddings(corpus, "word2vec", tmp_path / "m", dim=8, epochs=2)
    emb = specialise_model(tmp_path / "m", corpus, tmp_path / "s")
    assert emb.name == "fixture-w2v-8-cf" and (tmp_path / "s" / "pairs.tsv").is_file()
    ar = specialise_model(tmp_path / "m", corpus, tmp_path / "a", method="attract-repel")
    assert ar.name == "fixture-w2v-8-ar" and ar.meta["specialise"]["settings"]["epochs"] == 5
    with pytest.raises(WrdscoreError, match="unknown specialisation method 'retrofit'"):
        specialise_model(tmp_path / "m", corpus, tmp_path / "b", method="retrofit")
    with pytest.raises(WrdscoreError, match="already specialised"):
        specialise_model(tmp_path / "s", corpus, tmp_path / "t")
    plain = tmp_path / "v.txt"
    plain.write_text("2 2\nget 1 0\nset 0 1\n")
    with pytest.raises(WrdscoreError, match="plain vectors file"):
        specialise_model(plain, corpus, tmp_path / "u")


def test_pairs_file_round_trip_and_errors(tmp_path):
    pairs = [
        MinedPair("contrast", "get", "set", 3, 2, "get|set name", "siblings"),
        MinedPair("synonym", "count", "size", 3, 4, "x", "summary+body"),
        MinedPair("synonym", "a", "b", 1, 1, "y"),  # no source: written "-"
    ]
    write_pairs(pairs, tmp_path / "p.tsv")
    assert (tmp_path / "p.tsv").read_text().splitlines()[3] == "synonym\ta\tb\t1\t1\ty\t-"
    assert read_pairs(tmp_path / "p.tsv") == pairs
    # A file written before the source column is still read.
    (tmp_path / "old.tsv").write_text(
        "kind\ta\tb\tsupport\tframes\texample\ncontrast\tget\tset\t3\t2\tget|set name\n"
    )
    assert read_pairs(tmp_path / "old.tsv") == [
        MinedPair("contrast", "get", "set", 3, 2, "get|set name")
    ]
    (tmp_path / "short.tsv").write_text(PAIRS_HEADER + "\ncontrast\tget\tset\t3\t2\tx\n")
    with pytest.raises(WrdscoreError, match="line 2 is not"):
        read_pairs(tmp_path / "short.tsv")
    (tmp_path / "bad.tsv").write_text("hello\n")
    with pytest.raises(WrdscoreError, match="not a pairs file"):
        read_pairs(tmp_path / "bad.tsv")
    with pytest.raises(WrdscoreError, match="does not exist"):
        read_pairs(tmp_path / "missing.tsv")


runner = CliRunner()


def test_cli_corpus_pairs(corpus, tmp_path):
    result = runner.invoke(app, ["corpus", "pairs", str(corpus), "--kind", "contrast"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "kind\ta\tb\tsupport\tframes\texample\tsource"
    assert [line.split("\t")[:5] for line in lines[1:]] == [
        ["contrast", "get", "set", "4", "2"],
        ["contrast", "left", "right", "4", "2"],
        ["contrast", "name", "value", "4", "2"],
        ["contrast", "rotate", "shift", "4", "2"],
    ]
    out = tmp_path / "pairs.tsv"
    result = runner.invoke(app, ["corpus", "pairs", str(corpus), "-o", str(out)])
    assert result.exit_code == 0 and "contrast 4, synonym 1, abbreviation 1" in result.output
    assert len(read_pairs(out)) == 6
    bad = runner.invoke(app, ["corpus", "pairs", str(corpus), "--kind", "antonym"])
    assert bad.exit_code == 2
    assert bad.output.strip() == (
        "error: unknown pair kind 'antonym'; choose one of contrast, synonym, abbreviation"
    )


def test_cli_train_specialise_and_specialise_command(corpus, tmp_path):
    out = tmp_path / "m"
    args = ["train", str(corpus), "--method", "word2vec", "--dim", "8", "-o", str(out)]
    result = runner.invoke(app, [*args, "--specialise", "--no-curated"])
    assert result.exit_code == 0, result.output
    assert "specialised (counter-fitting) with 4 of 4 contrast pairs" in result.output
    assert "of them curated" not in result.output
    plain = tmp_path / "plain"
    assert runner.invoke(app, ["train", *args[1:-1], str(plain)]).exit_code == 0
    result = runner.invoke(app, ["specialise", str(plain), str(corpus), "-o", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert "fixture-w2v-8-cf" in result.output
    # Fresh rescaling baselines, computed on the specialised vectors.
    special = load_embeddings(tmp_path / "s")
    assert special.meta["baselines"]["vectors_sha"] == special.sha
    assert special.sha != load_embeddings(plain).sha
    again = runner.invoke(app, ["specialise", str(out), str(corpus), "-o", str(tmp_path / "t")])
    assert again.exit_code == 2 and "already specialised" in again.output


# --- counter-fitting ------------------------------------------------------------------


def test_counter_fit_moves_constrained_pairs_and_keeps_far_words(space):
    attract = [(2, 3), (4, 5), (6, 7)]
    repel = [(0, 1), (8, 9), (10, 11)]
    out = counter_fit(space, attract, repel)
    for i, j in attract:
        assert cos(out, i, j) > cos(space, i, j) + 0.05
    for i, j in repel:
        # pushed towards the margin: cosine distance delta = 1, i.e. orthogonal
        assert cos(out, i, j) < min(cos(space, i, j), 0.0) + 0.1
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(space, axis=1))
    # In 12 random dimensions no unconstrained word is an original neighbour
    # (cosine >= 0.8) of a constrained one, so none moves, bit for bit.
    np.testing.assert_array_equal(out[12:], space[12:])


def test_counter_fit_one_iteration_by_hand():
    # Rows: 0 and 1 a contrast pair at 60 degrees; 2 and 3 a synonym pair at 90;
    # 4 a neighbour of 0 (cosine 0.9 >= 1 - rho), 5 far from all.
    v = np.array(
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.5, np.sqrt(0.75), 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [0.9, 0.0, 0.0, np.sqrt(0.19)],
            [0.0, -1.0, 0.0, 0.0],
        ]
    )
    settings = CounterFitSettings(iterations=1)
    out = counter_fit(v, attract=[(2, 3)], repel=[(0, 1)], settings=settings)

    def unit(a):
        return a / np.linalg.norm(a)

    # Contrast: x_0 += k1 (x_0 (x_0.x_1) - x_1), one term, mean = itself.
    x0, x1 = v[0], v[1]
    exp0 = unit(x0 + 0.1 * (x0 * (x0 @ x1) - x1))
    exp1 = unit(x1 + 0.1 * (x1 * (x1 @ x0) - x0))
    # Synonym: x_3 -= k2 (x_3 (x_3.x_2) - x_2) and symmetrically.
    exp2 = unit(v[2] - 0.1 * (v[2] * 0.0 - v[3]))
    exp3 = unit(v[3] - 0.1 * (v[3] * 0.0 - v[2]))
    np.testing.assert_allclose(out[:4], [exp0, exp1, exp2, exp3], atol=1e-12)
    # In the first iteration nothing has moved yet, so no preservation term is active:
    # the neighbour 4 and the far row 5 are unchanged.
    np.testing.assert_array_equal(out[4:], v[4:])
    # With a second iteration, 0 has moved away from 4, which is pulled after it.
    out2 = counter_fit(v, [(2, 3)], [(0, 1)], CounterFitSettings(iterations=2))
    assert not np.allclose(out2[4], v[4]) and np.array_equal(out2[5], v[5])
    assert cos(out2, 0, 4) > cos(out, 0, 4)


def test_train_rejects_unknown_specialise_method(corpus, tmp_path):
    with pytest.raises(WrdscoreError, match="unknown --specialise-method 'x'"):
        train_embeddings(corpus, "word2vec", tmp_path / "m", specialise=True, specialise_method="x")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("method", ["counter-fitting", "attract-repel"])
def test_no_pairs_changes_nothing(space, method):
    emb = TokenEmbeddings.from_vectors({f"w{i}": row for i, row in enumerate(space)})
    res = specialise_vectors(emb.kv, [], method)
    assert res.used == {"contrast": 0, "synonym": 0, "abbreviation": 0}
    np.testing.assert_array_equal(res.kv.vectors, emb.kv.vectors)


def test_cli_corpus_pairs_missing_corpus(tmp_path):
    result = runner.invoke(app, ["corpus", "pairs", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: corpus folder {tmp_path / 'nope'} does not exist"
