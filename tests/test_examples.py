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
    assert rounded == {"wrd": [0.2838, 0.2583, 0.2686], "bertscore": [0.3352, 0.3419, 0.3275]}


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
        ["0.1660", "0.2029", "0.1826", "0.0000 |"],
        ["0.2620", "0.2578", "0.2599", "0.0000 |"],
        ["0.5795", "0.5500", "0.5644", "0.0000 |"],
        ["0.2965", "0.2783", "0.2871", "0.0000 |"],
        ["0.2620", "0.2578", "0.2599", "0.0000 |"],
        ["0.4115", "0.2551", "0.3149", "0.0000 |"],
        ["0.2543", "0.1983", "0.2228", "0.0000 |"],
        ["0.2933", "0.2453", "0.2672", "0.0000 |"],
        ["0.2553", "0.2575", "0.2564", "0.0000 |"],
        ["0.2094", "0.2016", "0.2054", "0.0000 |"],
        ["0.1315", "0.1362", "0.1338", "0.0000 |"],
    ]
    assert "| | mean | | 0.6840 | 0.6641 | 0.6734 | 0.2838 | 0.2583 | 0.2686 | 0.0000 |" in lines
    assert lines[-1].endswith(
        "Spearman correlation of our F1 with the paper's over the 11 pairs: 0.671. "
        "Mean cosine of two random tokens of the model: 0.146."
    )
