"""The per-pair ``.tsv`` reads back whole with the csv module's and pandas' defaults.

A prediction starting with a double quote used to be written bare: csv and pandas took
it for the start of a quoted cell, merged rows and read ``wrd.f1`` as nothing. And with
``--per-pair -`` the header reached standard output before a bad item was refused.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from conftest import require
from typer.testing import CliRunner

from wrdscore.cli import EXIT_USER_ERROR, app
from wrdscore.inputs import number_cells, per_pair_text, read_per_pair

# Quotes where a CSV reader looks for them (first, last, alone, doubled, unbalanced),
# written as a chat model might, with a TAB and a line break that become spaces.
PREDICTIONS = [
    '"getName',
    'say "hi" to',
    '"',
    '""',
    'size"',
    '"count" of items',
    "is\tEmpty",
    "get\u2028value",
]
REFERENCES = ["getName", "sayHi", "quote", "empty", "size", "count", "isEmpty", "getValue"]


def _score(tmp_path, out: str) -> list[str]:
    refs = tmp_path / "refs.txt"
    refs.write_text("\n".join(REFERENCES) + "\n", encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in PREDICTIONS), encoding="utf-8")
    args = ["score", "--refs", str(refs), "--preds", str(preds), "-m", "wrd", "-m", "rouge1"]
    result = CliRunner().invoke(app, [*args, "--per-pair", str(tmp_path / out)])
    assert result.exit_code == 0, result.output
    return [" ".join(p.split()) for p in PREDICTIONS]  # TABs and breaks made spaces


def test_the_tsv_round_trips_through_the_csv_module(tmp_path):
    shown = _score(tmp_path, "pairs.tsv")
    _score(tmp_path, "pairs.jsonl")
    with open(tmp_path / "pairs.tsv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, dialect="excel-tab"))
    expected = read_per_pair(tmp_path / "pairs.jsonl")
    assert [r["prediction"] for r in rows] == shown
    assert [r["reference"] for r in rows] == REFERENCES
    assert [int(r["index"]) for r in rows] == [e["index"] for e in expected]
    for row, want in zip(rows, expected, strict=True):
        assert float(row["wrd.f1"]) == want["wrd"]["f1"]
        assert float(row["rouge1.f1"]) == want["rouge1"]["f1"]
    # wrdscore's own reader reads the quoted cells as the csv module does.
    for e, text in zip(expected, shown, strict=True):
        e["prediction"] = text
    assert read_per_pair(tmp_path / "pairs.tsv") == expected


def test_the_tsv_round_trips_through_pandas_defaults(tmp_path):
    pandas = require("pandas")
    shown = _score(tmp_path, "pairs.tsv")
    _score(tmp_path, "pairs.jsonl")
    frame = pandas.read_csv(tmp_path / "pairs.tsv", sep="\t")
    expected = read_per_pair(tmp_path / "pairs.jsonl")
    assert len(frame) == len(PREDICTIONS)
    assert frame["prediction"].tolist() == shown
    assert frame["wrd.f1"].tolist() == [e["wrd"]["f1"] for e in expected]
    assert frame["wrd.f1"].notna().all()


def test_no_header_before_a_bad_item_is_refused(tmp_path):
    (tmp_path / "refs.txt").write_text("getName\nsize\n\n", encoding="utf-8")
    (tmp_path / "preds.txt").write_text("getName\nsize\ncount\n", encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            *("score", "--refs", str(tmp_path / "refs.txt")),
            *("--preds", str(tmp_path / "preds.txt"), "--per-pair", "-"),
        ],
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert result.stdout == ""
    assert "reference 3 has no tokens" in result.stderr


class _Values:
    """A result as the per-pair writer reads one (:class:`~wrdscore.inputs.PairValues`)."""

    def __init__(self, values: dict, best=None) -> None:
        self.metric, self.values, self.best_reference = "m", values, best


def _csv_rows(rows) -> str:
    """The rows as the csv module writes them with the per-pair dialect (TAB, LF)."""
    buffer = io.StringIO()
    csv.writer(buffer, delimiter="\t", lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def test_number_cells_are_what_the_csv_module_writes():
    # Repeats (formatted once), both zeros, the non-finite, a subnormal, and values
    # whose shortest repr is long; then arrays that are not float64.
    rng = np.random.default_rng(7)
    floats = np.concatenate(
        [rng.random(500), rng.random(200).round(3), [0.0, -0.0, np.inf, -np.inf, np.nan]]
    )
    floats = np.concatenate([floats, floats[::3], [5e-324, 1e300, -1.5, 1 / 3]])
    single = floats[:-4].astype(np.float32)
    for values in [floats, single, np.arange(-3, 40), np.array([True])]:
        cells = number_cells(values)
        assert _csv_rows([cells]) == _csv_rows([values.tolist()])
    assert number_cells(np.array([0.1, -0.0, 0.0])) == ["0.1", "-0.0", "0.0"]


def test_per_pair_rows_are_the_csv_modules_rows(tmp_path):
    # Text cells that the csv module quotes, numbers, and the alternatives' numbers.
    n = len(PREDICTIONS)
    refs = [f"ref{i}" if i % 2 else 'a "b"' for i in range(n)]
    rng = np.random.default_rng(3)
    values = {"x": rng.random(n), "y": np.array([0.5, -0.0] * (n // 2))}
    res = _Values(values, best=np.arange(n) % 2)
    got = per_pair_text(tmp_path / "p.tsv", 4, refs, PREDICTIONS, [res], alternatives=True)
    pairs = enumerate(zip(refs, PREDICTIONS, strict=True))
    texts = [[i + 5, r, " ".join(p.split())] for i, (r, p) in pairs]
    best = (res.best_reference + 1).tolist()
    numbers = zip(values["x"].tolist(), values["y"].tolist(), best, strict=True)
    assert got == _csv_rows([*t, *v] for t, v in zip(texts, numbers, strict=True))
    # A metric's values for other pairs than the texts' are refused, not cut short.
    with pytest.raises(ValueError):
        per_pair_text(tmp_path / "p.tsv", 0, ["a", "b"], ["c", "d"], [_Values({"x": values["x"]})])
    # Without any metric, the rows are the text cells alone.
    assert per_pair_text(tmp_path / "p.tsv", 0, ["a"], ["b"], []) == "1\ta\tb\n"
