"""scripts/near_summary_synonyms.py: synonym candidates from summaries one word apart."""

from __future__ import annotations

import subprocess
from pathlib import Path

from corpus_fixtures import method_record, run_script, write_records


def corpus(tmp_path: Path) -> Path:
    recs = [
        # The same sentence about two classes, twice: length/size under both rules.
        method_record("getLength", "Sequence", "Returns the length of the sequence."),
        method_record("getSize", "List", "Returns the length of the list."),
        method_record("getLength", "Chain", "Returns the number of links in the chain."),
        method_record("getSize", "Queue", "Returns the number of links in the queue."),
        # One word apart, not a class name: pick/choose under "any" only.
        method_record("pick", "Urn", "Chooses one element at random from the pool."),
        method_record("choose", "Hat", "Chooses one element at random from the set."),
        method_record("pick", "Die", "Chooses a face of the die with equal odds."),
        method_record("choose", "Coin", "Chooses a face of the die with fair odds."),
        # The summaries say the names' own difference: never a candidate.
        method_record("getWidth", "Box", "Returns the width of the shape in pixels."),
        method_record("getHeight", "Pane", "Returns the height of the shape in pixels."),
        method_record("getWidth", "Tile", "Gets the current width of this area."),
        method_record("getHeight", "Slab", "Gets the current height of this area."),
        # Two summary pairs, but siblings in two classes: max/min alternates, dropped.
        method_record("max", "Ints", "Returns the greater of two values."),
        method_record("min", "Longs", "Returns the smaller of two values."),
        method_record("max", "Floats", "Returns the greater of two numbers."),
        method_record("min", "Doubles", "Returns the smaller of two numbers."),
        *[method_record(n, c) for c in ("Stats", "Range") for n in ("max", "min")],
    ]
    return write_records(tmp_path / "corpus", recs)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_script("near_summary_synonyms.py", *args)


def _rows(block: str) -> dict[str, list[str]]:
    return {line.split(" | ")[0]: line.split(" | ") for line in block.splitlines()[3:]}


def test_candidates_under_each_rule(tmp_path):
    done = run(str(corpus(tmp_path)), "default")
    assert done.returncode == 0, done.stderr
    _, any_rule, own_class = done.stdout.split("== ")
    assert any_rule.startswith("any\ncandidates 2, confirmed ")
    assert own_class.startswith("own-class\ncandidates 1, confirmed ")
    rows = _rows(any_rule)
    assert list(rows) == ["choose/pick", "length/size"]  # by support, then alphabetical
    # pair | summary pairs | classes | sibling classes | cosine | confirmed | example
    assert rows["length/size"][1:4] == ["2", "4", "0"]
    assert rows["choose/pick"][1:4] == ["2", "4", "0"]
    # The shortest of its examples, its two summaries in order, whatever the hash order.
    assert rows["length/size"][6] == (
        "returns the length of the list ~ returns the length of the sequence"
    )
    assert list(_rows(own_class)) == ["length/size"]


def test_bad_input_is_one_line(tmp_path):
    done = run(str(tmp_path / "none"), "default")
    assert done.returncode == 1
    assert done.stderr == f"error: corpus folder {tmp_path / 'none'} does not exist\n"
    done = run(str(corpus(tmp_path)), str(tmp_path / "nomodel"))
    assert done.stderr == f"error: embeddings {tmp_path / 'nomodel'} do not exist\n"
