"""scripts/code_similarity_check.py: alike and different pairs from code, and their AUC."""

from __future__ import annotations

import subprocess
from pathlib import Path

from corpus_fixtures import method_record, run_script, write_records

DOC = "Returns the number of elements in this container."
NAME_DOC = "Returns the name this node was given when it was created."


def corpus(tmp_path: Path) -> Path:
    recs = [
        # Documented alike in two classes: an alike pair.
        method_record("getSize", "Bag", DOC),
        method_record("countItems", "Box", DOC),
        method_record("getName", "Node", NAME_DOC),
        method_record("getFullName", "Leaf", NAME_DOC),
        # Siblings one word apart in a slot of 2: different pairs.
        method_record("getWidth", "Shape"),
        method_record("getHeight", "Shape"),
        method_record("openFile", "Io"),
        method_record("closeFile", "Io"),
        # One class's seven one-word names fill one slot of 7: not pairs.
        *[method_record(n, "Big") for n in ("size", "clear", "add", "put", "run", "stop", "go")],
        # Numbered variants are not different words.
        method_record("query12", "Q"),
        method_record("query73", "Q"),
        # Test code is left out, its copied Javadoc too.
        method_record("testGetSize", "BagTest", DOC),
        method_record("testGetWidth", "ShapeTest"),
        method_record("testGetHeight", "ShapeTest"),
    ]
    return write_records(tmp_path / "corpus", recs)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_script("code_similarity_check.py", *args)


def test_pairs_and_auc(tmp_path):
    done = run(str(corpus(tmp_path)), "default", "--bootstrap", "20")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "2 alike pairs (same summary), 2 different pairs" in lines[0]
    rows = {line.split(" | ")[0][2:]: line.split(" | ") for line in lines if line.startswith("| ")}
    # ROUGE-1 F: alike get size / count items 0 and get name / get full name 0.8, different
    # get width / get height and open file / close file 0.5 each. Of the four (alike,
    # different) comparisons the alike pair wins two: AUC 0.5.
    rouge = rows["ROUGE-1 F"]
    assert rouge[1].startswith("0.500 [") and rouge[2:] == ["0.400", "0.500 |"]
    assert "WRDScore F1, default" in rows


def test_a_corpus_without_pairs_is_refused(tmp_path):
    empty = write_records(tmp_path / "c", [method_record("run", "A")])
    done = run(str(empty), "default")
    assert done.returncode == 1
    assert done.stderr.strip() == f"error: {empty} gives 0 alike and 0 different pairs"


def test_bad_input_is_one_line(tmp_path):
    done = run(str(tmp_path / "none"), "default")
    assert done.returncode == 1
    assert done.stderr == f"error: corpus folder {tmp_path / 'none'} does not exist\n"
    done = run(str(corpus(tmp_path)), f"x={tmp_path / 'nomodel'}")
    assert done.stderr == f"error: embeddings {tmp_path / 'nomodel'} do not exist\n"
    assert run(str(tmp_path), "default", "--pairs", "0").stderr == (
        "error: --pairs and --bootstrap must be at least 1\n"
    )
