"""benchmarks/code_roles.py: its counts, its weighted best match, and a run end to end on
the example project (no work-data, no shared set: a two-method stand-in is written)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import code_roles as bench

from wrdscore.corpora import ingest

ROOT = Path(__file__).resolve().parents[1]
METHODS = [
    ("int computeTotal(List<Item> items) { int total = 0; "
     "for (Item item : items) total += item.price(); return total; }",
     "Computes the total price of the items."),
    ("boolean isEmpty() { return count == 0; }", "Tells whether nothing is held."),
]  # fmt: skip


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    out = tmp_path_factory.mktemp("roy")
    (out / "code.jsonl").write_text(
        "".join(json.dumps({"method_id": i, "code": c}) + "\n" for i, (c, _) in enumerate(METHODS))
    )
    rows = ["method_id\tmodel_id\tis_reference_itself\treference\tsummary"]
    for i, (_, ref) in enumerate(METHODS):
        rows += [f"{i}\t0\t1\t{ref}\t{ref}", f"{i}\t1\t0\t{ref}\tsomething else"]
    (out / "pairs.tsv").write_text("\n".join(rows) + "\n")
    return out


def test_counts_give_shares_and_lifts_over_distinct_words(shared):
    m = bench._read(bench.ROY, METHODS[0][0], "computeTotal", "computeTotal", {}, "name")
    assert m.roles["total"] == {"local", "written", "returned"}
    assert m.roles["items"] == {"parameter", "other"}
    assert m.template_roles == m.roles["item"]  # item: 3 times, items and total 2 and 3
    c = bench.Counts()
    c.add(m, ["compute", "total"])
    body = len(m.roles)  # list, item, items, total, price
    assert (c.body_words, c.truth_words, c.found) == (body, 2, 1)
    assert c.share("body", "returned") == pytest.approx(1 / body)
    assert c.share("truth", "returned") == 1.0
    assert c.lifts(["returned"])["returned"] == pytest.approx(body)


def test_the_weighted_best_match_is_the_engines_when_every_weight_is_one(shared):
    from wrdscore.metrics import get_metric

    every, left = bench.load(ROOT, [], "name", 10, shared)
    assert [m.name for m in every] == ["computeTotal", "isEmpty"] and not left
    for m in every:
        m.lifts = {r: 1.0 for roles in m.roles.values() for r in roles}
    check: list[float] = []
    model = bench.role_weighted(every, "max", None, check)
    weighted = bench.scores(get_metric("wrd", target="name", code_support=model), every)
    plain = bench.scores(get_metric("wrd", target="name", code_support="none"), every)
    assert check and max(check) < 1e-12
    for a, b in zip(weighted, plain, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    # Every code word at half weight: every best match halves.
    for m in every:
        m.lifts = dict.fromkeys(m.lifts, 0.5)
    model = bench.role_weighted(every, "mean", None, [])
    halved = bench.scores(get_metric("wrd", target="name", code_support=model), every)
    for a, b in zip(halved, plain, strict=True):
        assert b.max() > 0
        np.testing.assert_allclose(a, b / 2, atol=1e-12)


@pytest.mark.parametrize("target", ["name", "summary"])
def test_a_run_prints_every_role_and_row(tmp_path, shared, target, capsys):
    ingest([ROOT / "examples" / "project"], tmp_path / "example", quiet=True)
    bench.main(
        ["--corpora", str(tmp_path), "--projects", "example", "--target", target,
         "--methods", "8", "--data", str(shared)]
    )  # fmt: skip
    out = capsys.readouterr().out
    for role in ("returned", "written", "called", "condition", "parameter", "type", "local"):
        assert re.search(rf"^\| {role} \| \d\.\d{{3}} \|", out, re.M), role
    assert out.count("| role-weighted best match") == 4
    assert re.search(r"within \d\.\de-\d+ of the engine's", out)


def test_a_missing_corpus_is_one_error_line(tmp_path):
    with pytest.raises(SystemExit, match="no corpus"):
        bench.main(["--corpora", str(tmp_path), "--projects", "nothing"])
