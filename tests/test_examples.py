"""The bundled examples are the paper's eleven pairs; docs/scoring.md's table script runs."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from wrdscore.cli import app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _paper_rows() -> list[dict[str, str]]:
    with (EXAMPLES / "paper-scores.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_example_files_are_the_papers_eleven_pairs():
    rows = _paper_rows()
    assert len(rows) == 11
    assert (EXAMPLES / "refs.txt").read_text().splitlines() == [r["reference"] for r in rows]
    assert (EXAMPLES / "preds.txt").read_text().splitlines() == [r["prediction"] for r in rows]
    # Spot checks against the paper's section 4 (first pair, and pair 2 = pair 5).
    assert (rows[0]["reference"], rows[0]["prediction"], rows[0]["f1"]) == (
        "update image",
        "set artwork entry",
        "0.5158",
    )
    assert rows[1] == rows[4]


def test_readme_first_command_scores_the_eleven_pairs():
    result = CliRunner().invoke(
        app,
        [
            "score",
            "--refs",
            str(EXAMPLES / "refs.txt"),
            "--preds",
            str(EXAMPLES / "preds.txt"),
            "-m",
            "wrd",
            "-m",
            "rouge1",
            "-m",
            "bertscore",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["pairs"] == 11
    # The paper chose these pairs because ROUGE-1 is zero on all of them.
    assert out["metrics"]["rouge1"]["corpus"]["f1"] == 0.0
    # The README's table, on the bundled default: any drift (model, metric, solver) fails.
    rounded = {
        m: [round(out["metrics"][m]["corpus"][k], 4) for k in ("precision", "recall", "f1")]
        for m in ("wrd", "bertscore")
    }
    assert rounded == {"wrd": [0.1954, 0.1952, 0.1946], "bertscore": [0.2159, 0.2524, 0.2268]}


def test_paper_examples_script_prints_the_table():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "paper_examples.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    rows = [line for line in lines if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 11
    assert "| 3 | size | get count | 0.7669 | 0.7597 | 0.7632 |" in rows[2]
    # Our columns (P, R, F1, ROUGE-1 F) as the README publishes them, for the bundled default.
    ours = [row.split(" | ")[6:10] for row in rows]
    assert ours == [
        ["0.2185", "0.2087", "0.2135", "0.0000 |"],
        ["0.1604", "0.1574", "0.1589", "0.0000 |"],
        ["0.0904", "0.0894", "0.0899", "0.0000 |"],
        ["0.1335", "0.1335", "0.1335", "0.0000 |"],
        ["0.1604", "0.1574", "0.1589", "0.0000 |"],
        ["0.4026", "0.4738", "0.4353", "0.0000 |"],
        ["0.1579", "0.1590", "0.1584", "0.0000 |"],
        ["0.3082", "0.2863", "0.2968", "0.0000 |"],
        ["0.2547", "0.2525", "0.2536", "0.0000 |"],
        ["0.1590", "0.1645", "0.1617", "0.0000 |"],
        ["0.1042", "0.0649", "0.0800", "0.0000 |"],
    ]
    assert "| | mean | | 0.6840 | 0.6641 | 0.6734 | 0.1954 | 0.1952 | 0.1946 | 0.0000 |" in lines
    assert lines[-1].endswith(
        "Spearman correlation of our F1 with the paper's over the 11 pairs: -0.233. "
        "Mean cosine of two random tokens of the model: 0.076."
    )
