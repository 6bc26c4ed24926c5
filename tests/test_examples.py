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
    assert rounded == {"wrd": [0.271, 0.2702, 0.2705], "bertscore": [0.2926, 0.3546, 0.3147]}


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
        ["0.2784", "0.2769", "0.2777", "0.0000 |"],
        ["0.2440", "0.2442", "0.2441", "0.0000 |"],
        ["0.1330", "0.1316", "0.1323", "0.0000 |"],
        ["0.2740", "0.2737", "0.2739", "0.0000 |"],
        ["0.2440", "0.2442", "0.2441", "0.0000 |"],
        ["0.4344", "0.4606", "0.4471", "0.0000 |"],
        ["0.2859", "0.2857", "0.2858", "0.0000 |"],
        ["0.3892", "0.3646", "0.3765", "0.0000 |"],
        ["0.2946", "0.2896", "0.2921", "0.0000 |"],
        ["0.2637", "0.2650", "0.2644", "0.0000 |"],
        ["0.1397", "0.1362", "0.1380", "0.0000 |"],
    ]
    assert "| | mean | | 0.6840 | 0.6641 | 0.6734 | 0.2710 | 0.2702 | 0.2705 | 0.0000 |" in lines
    assert lines[-1].endswith(
        "Spearman correlation of our F1 with the paper's over the 11 pairs: -0.233. "
        "Mean cosine of two random tokens of the model: 0.180."
    )
