"""scripts/code_support_signal.py: its items, its AUC and MRR, and the rule that chose the
code-reading rules (docs/code.md and docs/ingest.md publish its numbers; the held-out
projects are downloaded by its `prepare`, so the run itself is not repeated here)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from corpus_fixtures import (
    load_script,
    method_record,
    write_records,
)

from wrdscore.errors import WrdscoreError

signal = load_script("code_support_signal")


def coded(name: str, cls: str, summary: str | None, body: str) -> dict:
    record = method_record(name, cls, summary)
    record["code"] = f"public int {name}() {{ {body} }}"
    return record


def test_items_take_their_class_siblings_as_negatives_hard_ones_first(tmp_path):
    recs = [
        coded("getWidth", "Shape", "Returns the shape width.", "return width * scale + offset;"),
        coded("setWidth", "Shape", "Sets the shape width.", "width = value; notify(listeners);"),
        coded("computeArea", "Shape", "Computes the area here.", "return width * height * factor;"),
        coded("run", "Shape", "Runs it now please.", "loop(); loop(); loop();"),  # one token
        coded("getName", "Other", "Returns the name now.", "return name + suffix + tail;"),  # alone
    ]
    corpus = write_records(tmp_path / "c", recs)
    items = signal.build_items(corpus, "name", random.Random(0))
    by_name = {item.name: item for item in items}
    assert set(by_name) == {"getWidth", "setWidth", "computeArea"}
    width = by_name["getWidth"]
    assert width.candidates[0] == "getWidth" and set(width.candidates[1:]) == {
        "setWidth",
        "computeArea",
        "run",
    }
    # setWidth shares "width" with getWidth: the one hard negative, listed first.
    assert width.candidates[1] == "setWidth" and width.hard == [True, False, False]
    summaries = signal.build_items(corpus, "summary", random.Random(0))
    assert {item.candidates[0] for item in summaries} >= {"Returns the shape width."}


def test_a_class_whose_names_are_a_rated_pair_is_refused(tmp_path):
    # "is blank" / "is empty" is one of the 150 rated pairs: no signal may hold it.
    recs = [
        coded("isBlank", "Text", None, "return value == null || value.trim().isEmpty();"),
        coded("isEmpty", "Text", None, "return value == null || value.length() == 0;"),
    ]
    corpus = write_records(tmp_path / "c", recs)
    with pytest.raises(WrdscoreError, match=r"is a rated pair$"):
        signal.build_items(corpus, "name", random.Random(0))


def test_summarise_counts_ties_half_for_auc_and_mrr():
    items = [
        signal.Item("", "a", ["t", "n1", "n2"], [True, False]),
        signal.Item("", "b", ["t", "n1"], [False]),
    ]
    scores = [np.array([0.5, 0.9, 0.5]), np.array([0.7, 0.1])]
    got = signal.summarise(scores, items)
    # a: below n1, tied with n2 -> wins 0 + 0.5, rank 2.5; b: above its one -> 1, rank 1.
    assert got["auc"] == pytest.approx(1.5 / 3)
    assert got["auc_hard"] == 0.0  # a's only hard negative scores above it
    assert got["mrr"] == pytest.approx((1 / 2.5 + 1) / 2)
    assert (got["methods"], got["pairs"], got["hard_pairs"]) == (2, 3, 1)


def test_the_rule_adopts_a_variant_only_past_the_tie_margin():
    keys = [("p", "name"), ("q", "name"), ("p", "summary")]

    def rows(auc: float) -> dict:
        return {k: {"auc": auc} for k in keys}

    tie = signal.TIE
    results = {
        "baseline": rows(0.70),
        "strings keep": rows(0.70 + tie / 2),  # not past the margin: not adopted
        "no comments for names": rows(0.70 - tie / 2),  # simpler: a near-tie adopts it
        "true/false/null kept": rows(0.70 + 2 * tie),  # past the margin: adopted
        "name not masked (check)": rows(0.99),  # a check, never a candidate
    }
    decisions = signal.choose(results)
    assert {k: v["adopted"] for k, v in decisions.items()} == {
        "strings keep": False,
        "no comments for names": True,
        "true/false/null kept": True,
    }


def test_an_unprepared_project_is_one_error_line(tmp_path, monkeypatch):
    monkeypatch.setattr(signal, "WORK", tmp_path)  # no corpora prepared there
    with pytest.raises(SystemExit) as done:
        signal.main(["library"])
    message = str(done.value.code)
    assert message.startswith(f"error: corpus folder {tmp_path / 'corpora'}")
    assert message.endswith("(run `python scripts/code_support_signal.py prepare` first)")
    assert "\n" not in message
