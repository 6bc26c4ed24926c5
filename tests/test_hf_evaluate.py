"""The Hugging Face ``evaluate`` module shipped in the package, loaded with no network.

``evaluate.load`` of its folder must score the example pairs as ``wrdscore score`` does,
for WRDScore and against the code (the code-aware values), with every Hugging Face
variable that forbids downloads set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HUNG, require
from typer.testing import CliRunner

from wrdscore import EVALUATE_MODULE
from wrdscore.cli import app

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}

SCRIPT = """
import json, sys
import evaluate
refs, preds, code = (json.loads(a) for a in sys.argv[1:4])
module = evaluate.load(sys.argv[4])
out = {
    "wrd": module.compute(predictions=preds, references=refs),
    "rouge1": module.compute(predictions=preds, references=refs, metric="rouge1"),
    "code": module.compute(predictions=preds, references=refs, code=code),
}
print(json.dumps(out))
"""


def _lines(name: str) -> list[str]:
    return (EXAMPLES / name).read_text(encoding="utf-8").splitlines()


def test_the_module_has_its_metric_card():
    card = (EVALUATE_MODULE / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\ntitle: WRDScore\n") and "## How to Use" in card
    assert (EVALUATE_MODULE / f"{EVALUATE_MODULE.name}.py").is_file()


def test_evaluate_load_scores_the_examples_as_wrdscore_score(tmp_path):
    require("evaluate")
    refs, preds = _lines("refs.txt"), _lines("preds.txt")
    code = [json.loads(line) for line in _lines("code.jsonl")]
    # A fresh process with the offline variables set before evaluate is imported, and a
    # cache of its own: nothing may come from, or go to, the hub.
    env = {**os.environ, **OFFLINE, "HF_HOME": str(tmp_path / "hf")}
    args = [json.dumps(x) for x in (refs, preds, code)]
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args, str(EVALUATE_MODULE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=HUNG,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.splitlines()[-1])
    runner = CliRunner()
    files = ["--refs", str(EXAMPLES / "refs.txt"), "--preds", str(EXAMPLES / "preds.txt")]
    for key, extra in (
        ("wrd", ["-m", "wrd"]),
        ("rouge1", ["-m", "rouge1"]),
        ("code", ["-m", "wrd", "--code", str(EXAMPLES / "code.jsonl")]),
    ):
        res = runner.invoke(app, ["score", *files, *extra, "-q", "--format", "json"])
        assert res.exit_code == 0, res.output
        cli = json.loads(res.stdout)
        (name,) = cli["metrics"]
        primary = cli["metrics"][name]["primary"]
        for value, expected in cli["metrics"][name]["corpus"].items():
            assert got[key][value] == pytest.approx(expected, abs=1e-9), (key, value)
        per_pair = [row[name][primary] for row in cli["per_pair"]]
        assert got[key]["scores"] == pytest.approx(per_pair, abs=1e-9)
        assert got[key]["signature"] == cli["metrics"][name]["signature"]
