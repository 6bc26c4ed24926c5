"""Every argument that can be checked without a model is checked before one loads.

Loading an encoder imports sentence-transformers and transformers and reads the weights
(about 14 s on the reference machine): ``tune --pairs nope.tsv``, ``--layer 99`` and
``--device cuda`` without CUDA used to fail only after it. Each command here runs in a
fresh interpreter, which reports which of the torch stack's modules it imported before
it stopped: none (a missing file, a layer past the count in ``config.json``, an unknown
device), or torch alone (asking torch whether CUDA is there). No model was loaded, as
loading one imports sentence-transformers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HUNG, require
from corpus_fixtures import method_record, write_records

ROOT = Path(__file__).resolve().parents[1]
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
STACK = ("torch", "transformers", "sentence_transformers")

# Runs the command line in this interpreter and prints, last, its exit code and which
# modules of the torch stack it imported.
PROBE = f"""
import json, sys
from wrdscore.cli import app
try:
    app(sys.argv[1:], prog_name="wrdscore")
    code = 0
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "imported": [m for m in {STACK!r} if m in sys.modules]}}))
"""


@pytest.fixture
def encoders_extra() -> None:
    # The commands need the encoders extra (pip install -e '.[encoders]'); CI fails without.
    require("sentence_transformers")


needs_stack = pytest.mark.usefixtures("encoders_extra")


def run_cli(args: list[str], cwd: Path) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"},
        timeout=HUNG,
    )
    assert done.stdout, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    return report["code"], report["imported"], done.stderr


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("inputs")
    (root / "refs.txt").write_text("getName\nsize\n")
    (root / "preds.txt").write_text("fetchName\ncount\n")
    (root / "one.txt").write_text("getName\n")
    (root / "pairs.tsv").write_text("get\tfetch\nsize\tcount\n")
    (root / "bad.tsv").write_text("get fetch\n")
    records = [method_record(n, "A") for n in ("getName", "setName", "size", "isEmpty")]
    write_records(root / "corpus", records)
    return root


ENCODER = ["--encoder", MINILM]
CASES = [
    # tune: its pairs and held-out pairs, then the encoder's folder and device.
    (["tune", MINILM, "-o", "out", "--pairs", "nope.tsv"], "--pairs nope.tsv: no such file"),
    (["tune", MINILM, "-o", "out", "--pairs", "bad.tsv"], "bad.tsv:1: expected two fields"),
    (["tune", MINILM, "-o", "out", "--pairs", "pairs.tsv", "--held-out", "nope.csv"], "nope.csv"),
    (["tune", "default", "--static", "-o", "out", "--pairs", "nope.tsv"], "no such file"),
    (["tune", MINILM, "-o", "out", "--pairs", "pairs.tsv", "--device", "tpu"], "unknown device"),
    # score, explain, compare: the files, then the encoder's layer, device, batch size.
    (["score", "--refs", "refs.txt", "--preds", "preds.txt", *ENCODER, "--layer", "99"],
     "--layer 99 is out of range: encoder 'sentence-transformers/all-MiniLM-L6-v2' has "
     "layers 0 (embeddings) to 6"),
    (["score", "--refs", "nope.txt", "--preds", "preds.txt", *ENCODER], "nope.txt"),
    (["score", "--refs", "refs.txt", "--preds", "one.txt", *ENCODER],
     "2 references but 1 predictions"),
    (["score", "--refs", "refs.txt", "--preds", "preds.txt", *ENCODER, "--device", "tpu"],
     "unknown device 'tpu'"),
    (["score", "--refs", "refs.txt", "--preds", "preds.txt", *ENCODER, "--batch-size", "0"],
     "--batch-size must be at least 1"),
    (["explain", "getName", "fetchName", *ENCODER, "--layer", "-1"], "out of range"),
    (["compare", "--refs", "refs.txt", "--preds", "preds.txt", "--preds", "nope.txt", *ENCODER],
     "nope.txt"),
    # distill: the vocabulary, layer and dimension (hidden_size in config.json).
    (["distill", MINILM, "-o", "out", "--layer", "7"], "has layers 0 (embeddings) to 6"),
    (["distill", MINILM, "-o", "out", "--dim", "999"],
     "--dim 999 is larger than encoder 'sentence-transformers/all-MiniLM-L6-v2''s 384"),
    (["distill", MINILM, "-o", "out", "--vocab", "nope.txt"], "nope.txt"),
    # baseline, study: the corpus, the rated pairs and names, the layer.
    (["baseline", "nope", *ENCODER], "corpus folder nope does not exist"),
    (["baseline", "corpus", *ENCODER, "--layer", "7"], "out of range"),
    (["baseline", "corpus", *ENCODER, "-e", "nope"], "nope"),
    (["study", "analyze", "--pairs", "wrdscore-paper", "-m", "wrd", "-o", "r", *ENCODER,
      "--layer", "99"], "out of range"),
    (["study", "sample", "--refs", "refs.txt", "--preds", "nope.txt", "-o", "s", *ENCODER],
     "nope.txt"),
]  # fmt: skip


@needs_stack
@pytest.mark.parametrize(
    ("args", "message"), CASES, ids=[" ".join(a[:1] + a[-2:]) for a, _ in CASES]
)
def test_a_bad_argument_fails_before_the_torch_stack_is_imported(inputs, args, message):
    code, imported, err = run_cli(args, inputs)
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    assert imported == []


def _cuda() -> bool:
    torch = require("torch")
    return bool(torch.cuda.is_available())


@needs_stack
@pytest.mark.parametrize(
    "args",
    [
        ["tune", MINILM, "-o", "out", "--pairs", "pairs.tsv", "--device", "cuda"],
        ["tune", "default", "--static", "-o", "out", "--pairs", "pairs.tsv", "--device", "cuda"],
        ["score", "--refs", "refs.txt", "--preds", "preds.txt", *ENCODER, "--device", "cuda"],
        ["distill", MINILM, "-o", "out", "--device", "cuda"],
    ],
    ids=["tune", "tune --static", "score", "distill"],
)
def test_device_cuda_without_cuda_asks_torch_alone(inputs, args):
    if _cuda():
        pytest.skip("this machine has CUDA")
    code, imported, err = run_cli(args, inputs)
    assert code == 2
    assert err == "error: --device cuda: CUDA is not available here; use --device cpu\n"
    # torch, to ask it; not transformers or sentence-transformers, which a load imports.
    assert imported == ["torch"]
