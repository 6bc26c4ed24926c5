"""scripts/select_default.py: candidate folders are reused only for the same corpus and settings."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from corpus_fixtures import method_record, run_script, write_records

from wrdscore.corpora import open_corpus
from wrdscore.errors import WrdscoreError

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "select_default.py"


def load_script():
    spec = importlib.util.spec_from_file_location("select_default", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("select_default", module)
    spec.loader.exec_module(module)
    return module


def corpus(tmp_path: Path) -> Path:
    names = ["getSize", "getName", "setName", "addItem", "removeItem", "openFile", "closeFile"]
    recs = [method_record(n, c) for c in ("Bag", "Box", "Node") for n in names]
    return write_records(tmp_path / "corpus", recs)


def test_a_trained_candidate_is_reused(tmp_path):
    script = load_script()
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
    script = load_script()
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
