"""The curated list of similarity constraints, on top of the mined ones (issue 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import split_identifier
from wrdscore.embeddings import (
    KINDS,
    Constraints,
    MinedPair,
    add_curated,
    inflect_pairs,
    load_embeddings,
    read_curated,
    read_pairs,
    specialise_model,
    train_embeddings,
)
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_published_pairs, packaged_ratings_path


def test_the_list_links_no_token_of_a_rated_reference_to_its_prediction():
    # The numbers measured on the 150 shipped rated pairs must not measure the list:
    # no curated pair may connect a reference token with a token of its prediction.
    rated = load_published_pairs([packaged_ratings_path()], scale=10)
    assert len(rated.human) == 150
    linked = {
        frozenset((x, y))
        for ref, pred in zip(rated.references, rated.predictions, strict=True)
        for x in split_identifier(ref)
        for y in split_identifier(pred)
        if x != y
    }
    listed = read_curated()
    assert {p.kind for p in listed} == set(KINDS)
    # Specialisation carries the list's contrasts and synonyms over to inflected forms
    # (show/hide -> shown/hidden is irregular, showing/hiding is not): every spelling a
    # vocabulary could hold counts too.
    pairs = [*listed, *inflect_pairs(listed)]
    assert len(pairs) > len(listed)
    assert [p for p in pairs if frozenset((p.a, p.b)) in linked] == []
    # Nor through a chain of synonyms and abbreviations (image-picture-photo): the
    # tokens the list pulls together, as groups (union-find), join no rated pair.
    group: dict[str, str] = {}

    def find(t: str) -> str:
        while group.setdefault(t, t) != t:
            t = group[t]
        return t

    for p in pairs:
        if p.kind != "contrast":
            group[find(p.a)] = find(p.b)
    chained = [sorted(pair) for pair in linked if len({find(t) for t in pair}) == 1]
    assert chained == []
    # Nor a contrast between two such groups (image ~ picture, picture / photo).
    pushed = {frozenset((find(p.a), find(p.b))) for p in pairs if p.kind == "contrast"}
    assert [sorted(pair) for pair in linked if frozenset(map(find, pair)) in pushed] == []
    # Tokens are what the splitter writes, so each one can meet a vocabulary entry.
    assert all(split_identifier(t) == [t] for p in listed for t in (p.a, p.b))


def test_read_curated_orders_pairs_and_marks_the_source(tmp_path):
    f = tmp_path / "c.tsv"
    f.write_text("# comment\n\nsynonym\tget\tfetch\nabbreviation\tstr\tstring\n")
    assert read_curated(f) == [
        MinedPair("synonym", "fetch", "get", 0, 0, "curated list", "curated"),
        MinedPair("abbreviation", "str", "string", 0, 0, "curated list", "curated"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("antonym\tup\tdown\n", "line 1 is not 'kind<TAB>a<TAB>b'"),
        ("synonym up down\n", "line 1 is not"),
        ("synonym\tUp\tdown\n", "line 1: tokens must be two different lower-case"),
        ("synonym\tup\tup\n", "line 1: tokens must be two different"),
        ("contrast\tup\tdown\nsynonym\tdown\tup\n", "line 2: down/up is already on line 1"),
    ],
)
def test_read_curated_rejects_malformed_lists(tmp_path, text, message):
    f = tmp_path / "c.tsv"
    f.write_text(text)
    with pytest.raises(WrdscoreError, match=message):
        read_curated(f)


def test_read_curated_missing_file(tmp_path):
    with pytest.raises(WrdscoreError, match="does not exist"):
        read_curated(tmp_path / "nope.tsv")


def test_the_list_wins_over_mined_pairs():
    mined = Constraints(
        contrast=[
            MinedPair("contrast", "blank", "empty", 9, 3, "is blank|empty", "siblings"),
            MinedPair("contrast", "get", "set", 50, 9, "get|set name", "siblings"),
        ],
        synonym=[MinedPair("synonym", "add", "offer", 6, 15, "x", "summary")],
        abbreviation=[
            MinedPair("abbreviation", "str", "start", 4, 20, "str -> start", "frames"),
            MinedPair("abbreviation", "msg", "message", 5, 30, "msg -> message", "frames"),
        ],
        corpus_sha256="abc",
    )
    curated = [
        MinedPair("synonym", "blank", "empty", 0, 0, "", "curated"),
        MinedPair("abbreviation", "str", "string", 0, 0, "", "curated"),
        MinedPair("abbreviation", "msg", "message", 0, 0, "", "curated"),
        MinedPair("contrast", "down", "up", 0, 0, "", "curated"),
    ]
    both = add_curated(mined, curated)
    assert {(p.kind, p.a, p.b, p.source) for p in both} == {
        ("contrast", "get", "set", "siblings"),
        ("contrast", "down", "up", "curated"),
        ("synonym", "add", "offer", "summary"),
        ("synonym", "blank", "empty", "curated"),  # was a mined contrast
        ("abbreviation", "str", "string", "curated"),  # replaces str -> start
        ("abbreviation", "msg", "message", "curated"),  # listed once, not twice
    }
    assert both.curated_sizes() == {"contrast": 1, "synonym": 1, "abbreviation": 2}
    assert both.summary()["sizes"] == {"contrast": 2, "synonym": 2, "abbreviation": 2}
    assert both.corpus_sha256 == "abc"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    # find/search and show/hide fill the same frames in different classes, never as
    # siblings and never with a shared summary: nothing is mined for them, only the
    # curated list (synonym find/search, contrast show/hide) says anything.
    recs = []
    for i in range(8):
        for verb in ("find", "search", "show", "hide", "load", "read"):
            # One method per class: no siblings, so no contrast between data and page.
            recs += [method_record(f"{verb}{obj}", f"{verb}{obj}{i}") for obj in ("Data", "Page")]
    return write_records(tmp_path / "corpus", recs)


def test_specialise_with_and_without_the_list(corpus, tmp_path):
    base = train_embeddings(corpus, "word2vec", tmp_path / "m", dim=8, epochs=5, window=2)
    with_list = specialise_model(tmp_path / "m", corpus, tmp_path / "c")
    without = specialise_model(tmp_path / "m", corpus, tmp_path / "n", curated=False)
    assert without.meta["specialise"]["constraints"]["sizes"] == {
        "contrast": 0,
        "synonym": 0,
        "abbreviation": 0,
    }
    constraints = with_list.meta["specialise"]["constraints"]
    n_listed = {kind: sum(p.kind == kind for p in read_curated()) for kind in KINDS}
    assert constraints["curated"] == constraints["sizes"] == n_listed
    # find/search and show/hide are the curated pairs in this vocabulary.
    assert with_list.meta["specialise"]["pairs_in_vocab"] == {
        "contrast": 1,
        "synonym": 1,
        "abbreviation": 0,
    }
    assert {p.source for p in read_pairs(tmp_path / "c" / "pairs.tsv")} == {"curated"}
    # Without pairs nothing moves; with them the synonym rises and the contrast falls.
    assert without.kv.similarity("find", "search") == pytest.approx(
        base.kv.similarity("find", "search")
    )
    assert with_list.kv.similarity("find", "search") > base.kv.similarity("find", "search")
    assert with_list.kv.similarity("hide", "show") < base.kv.similarity("hide", "show")


runner = CliRunner()


def test_cli_curated_flags(corpus, tmp_path):
    args = ["train", str(corpus), "--method", "word2vec", "--dim", "8", "--specialise"]
    result = runner.invoke(app, [*args, "-o", str(tmp_path / "c"), "--baseline-pairs", "0"])
    assert result.exit_code == 0, result.output
    assert f"({len(read_curated())} of them curated" in result.output
    meta = json.loads((tmp_path / "c" / "model.json").read_text())
    assert sum(meta["specialise"]["constraints"]["curated"].values()) == len(read_curated())
    result = runner.invoke(
        app, [*args, "--no-curated", "-o", str(tmp_path / "n"), "--baseline-pairs", "0"]
    )
    assert result.exit_code == 0 and "of them curated" not in result.output
    assert load_embeddings(tmp_path / "n").meta["specialise"]["constraints"]["curated"] == {
        kind: 0 for kind in KINDS
    }
    mined = runner.invoke(app, ["corpus", "pairs", str(corpus)])
    assert mined.exit_code == 0 and mined.output.splitlines()[1:] == []
    listed = runner.invoke(app, ["corpus", "pairs", str(corpus), "--curated", "--kind", "synonym"])
    lines = listed.output.splitlines()[1:]
    assert listed.exit_code == 0 and len(lines) == sum(p.kind == "synonym" for p in read_curated())
    assert all(line.endswith("\tcurated") for line in lines)
