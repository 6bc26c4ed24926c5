"""scripts/select_default.py: candidate folders are reused only for the same corpus and settings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import load_script, method_record, run_script, write_records

from wrdscore.corpora import open_corpus
from wrdscore.errors import WrdscoreError


def corpus(tmp_path: Path) -> Path:
    names = ["getSize", "getName", "setName", "addItem", "removeItem", "openFile", "closeFile"]
    recs = [method_record(n, c) for c in ("Bag", "Box", "Node") for n in names]
    return write_records(tmp_path / "corpus", recs)


def test_a_trained_candidate_is_reused(tmp_path):
    script = load_script("select_default")
    c = open_corpus(corpus(tmp_path))
    models = tmp_path / "models"
    base = script.model_for("names", c, models)
    assert base == models / "names"
    before = (base / "model.json").stat().st_mtime_ns
    assert script.model_for("names", c, models) == base
    assert (base / "model.json").stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        (("corpus", "manifest_sha256"), "0" * 64, "another corpus.manifest_sha256 (" + "0" * 64),
        (("params", "window"), 9, "another params ({'dim': 50"),
        (("method",), "word2vec", "another method (word2vec there, fasttext for this candidate)"),
    ],
)
def test_a_folder_with_another_model_is_refused(tmp_path, key, value, shown):
    script = load_script("select_default")
    path = corpus(tmp_path)
    c = open_corpus(path)
    settings = {**script.SHARED, **script.CANDIDATES["names"][0]}
    meta = {
        "method": settings.pop("method"),
        "params": settings,
        "corpus": {"manifest_sha256": c.manifest_sha256},
    }
    *outer, last = key
    node = meta
    for part in outer:
        node = node[part]
    node[last] = value
    folder = tmp_path / "models" / "names"
    folder.mkdir(parents=True)
    (folder / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(WrdscoreError, match="delete it or pick another --models folder") as err:
        script.model_for("names", c, tmp_path / "models")
    assert f"{folder} holds a model with {shown}" in str(err.value)
    # From the command line: one line, and the folder is left as it was.
    done = run_script(
        "select_default.py",
        str(path),
        "--models",
        str(tmp_path / "models"),
        "--output",
        str(tmp_path / "folds.md"),
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {folder} holds a model with {shown}")
    assert done.stderr.count("\n") == 1
    assert json.loads((folder / "model.json").read_text(encoding="utf-8")) == meta
    assert sorted(p.name for p in folder.iterdir()) == ["model.json"]


# --- the fold protocol, on synthetic scores --------------------------------------------


def test_fold_choices_pick_the_best_on_the_other_sets_and_ties_go_first():
    script = load_script("select_default")
    sets = np.repeat(np.array(["a", "b", "c"]), 4)
    human = np.arange(12) / 11

    def reversed_on(name):
        out = human.copy()
        idx = np.flatnonzero(sets == name)
        out[idx] = human[idx[::-1]]
        return out

    # Each candidate is exact on two sets and ranks the third backwards.
    scores = {"good-on-ab": reversed_on("c"), "good-on-bc": reversed_on("a")}
    scores["good-on-ac"] = reversed_on("b")
    candidates = list(scores)
    folds = script.fold_choices(scores, human, sets, candidates)
    assert [(held, best) for held, best, _ in folds] == [
        ("a", "good-on-bc"),
        ("b", "good-on-ac"),
        ("c", "good-on-ab"),
    ]
    assert [fit for _, _, fit in folds] == pytest.approx([1.0, 1.0, 1.0])
    # One vote each: the first listed is the default; a majority wins otherwise.
    assert script.chosen_default(folds, candidates) == "good-on-ab"
    assert (
        script.chosen_default([("a", "y", 0.0), ("b", "y", 0.0), ("c", "x", 0.0)], ["x", "y"])
        == "y"
    )
    # Equal fits: the first listed is chosen.
    same = {"first": human, "second": human.copy()}
    assert {best for _, best, _ in script.fold_choices(same, human, sets, ["first", "second"])} == {
        "first"
    }


def test_fold_tables_report_the_held_out_set():
    script = load_script("select_default")
    sets = np.repeat(np.array(["s1", "s2"]), 3)
    human = np.array([0.1, 0.5, 0.9, 0.2, 0.4, 0.6])
    scores = {
        "ROUGE-1 F": np.array([0.0, 0.5, 1.0, 0.3, 0.5, 0.4]),
        "x": human + 0.1,
        "y": human[::-1].copy(),
    }
    every, folds = script.fold_tables(scores, human, sets, "ROUGE-1 F")
    lines = every.splitlines()
    assert lines[0] == "| candidate | set 1 | set 2 | all 6 |"
    assert (
        lines[3]
        == "| x | 1.000 / 0.0100 / 0.1000 | 1.000 / 0.0100 / 0.1000 | 1.000 / 0.0100 / 0.1000 |"
    )
    assert lines[2].startswith(
        "| ROUGE-1 F (no embeddings) | 1.000 / 0.0067 / 0.0667 | 0.500 / 0.0200 / 0.1333 |"
    )
    rows = folds.splitlines()[2:]
    assert rows[0] == "| set 1 | x | 1.000 | 1.000 | 0.0100 | 0.1000 | 1.000 / 0.0067 / 0.0667 |"
    assert rows[1] == "| set 2 | x | 1.000 | 1.000 | 0.0100 | 0.1000 | 0.500 / 0.0200 / 0.1333 |"


def _candidate_dirs(script, models: Path, tokens: list[str]) -> None:
    """Every candidate as a small MODEL_DIR with random vectors, recording its settings."""
    from wrdscore.embeddings import TokenEmbeddings, save_embeddings

    for i, (label, (overrides, specialised)) in enumerate(script.CANDIDATES.items()):
        settings = {**script.SHARED, **overrides}
        rng = np.random.default_rng(i)
        emb = TokenEmbeddings.from_vectors({t: rng.normal(size=4) for t in tokens})
        meta = {
            "name": label,
            "n_docs": 10,
            "method": settings.pop("method"),
            "params": settings,
            "corpus": {"manifest_sha256": "ab" * 32},
        }
        if specialised:
            meta["specialise"] = {"method": script.DEFAULT_SPECIALISE_METHOD}
        base = label.removesuffix(", specialised").replace("+", "-")
        folder = models / (base + "-cf" if specialised else base)
        save_embeddings(emb.kv, folder, meta=meta, doc_freq={t: 1 for t in tokens})


def test_kept_candidates_regenerate_the_model_card_tables_without_the_corpus(tmp_path):
    from wrdscore.corpora import to_tokens
    from wrdscore.human_eval import load_paper_ratings

    script = load_script("select_default")
    pairs = load_paper_ratings()
    tokens = sorted(
        {t for item in [*pairs.references, *pairs.predictions] for t in to_tokens(item)}
    )
    models = tmp_path / "models"
    _candidate_dirs(script, models, tokens)
    out = tmp_path / "folds.md"
    done = run_script("select_default.py", "--models", str(models), "--output", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert "candidates trained on corpus abababab" in text
    lines = text.splitlines()
    # The tables' headers are those of the issue-19 protocol's record (the model card's until
    # issue 26, now in the history), so the output can be pasted there.
    card = (Path(script.__file__).parents[1] / "docs" / "history.md").read_text()
    every_header = "| candidate | set 1 | set 2 | set 3 | all 150 |"
    fold_header = next(line for line in card.splitlines() if line.startswith("| held out |"))
    assert every_header in card.splitlines() and every_header in lines and fold_header in lines
    start = lines.index(every_header)
    shown = [line.split(" | ")[0][2:] for line in lines[start + 2 : start + 8]]
    assert shown == ["ROUGE-1 F (no embeddings)", *script.CANDIDATES]
    # The fold rows are those the protocol computes from the same scores.
    from wrdscore import get_metric
    from wrdscore.embeddings import load_embeddings

    human, sets = pairs.human, np.array(pairs.sets)
    scores = {}
    for label in script.CANDIDATES:
        emb = load_embeddings(script.model_for(label, None, models))
        scores[label] = (
            get_metric("wrd", embeddings=emb).score(pairs.references, pairs.predictions).f1
        )
    folds = script.fold_choices(scores, human, sets, list(script.CANDIDATES))
    rows = lines[lines.index(fold_header) + 2 : lines.index(fold_header) + 5]
    assert [row.split(" | ")[1] for row in rows] == [best for _, best, _ in folds]
    assert [row.split(" | ")[2] for row in rows] == [f"{fit:.3f}" for _, _, fit in folds]


def test_without_the_corpus_a_missing_candidate_is_one_line(tmp_path):
    done = run_script(
        "select_default.py", "--models", str(tmp_path / "none"), "--output", str(tmp_path / "f.md")
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"error: {tmp_path / 'none' / 'names'} holds no model (candidate 'names'); "
        "give the CORPUS_DIR to train it\n"
    )
    assert not (tmp_path / "f.md").exists()
