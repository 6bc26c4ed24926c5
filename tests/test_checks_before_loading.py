"""Every argument that can be checked without a model is checked before one loads.

Loading an encoder imports sentence-transformers and transformers and reads the weights
(about 14 s on the reference machine): ``tune --pairs nope.tsv``, ``--layer 99`` and
``--device cuda`` without CUDA used to fail only after it. Each command here runs in a
child forked from one interpreter that has imported the CLI and torch-free libraries
only (:data:`PROBE`: paid once, not per command), which reports which of the torch
stack's modules it imported before it stopped: none (a missing file, a layer past the
count in ``config.json``, an unknown device), or torch alone (asking torch whether CUDA
is there). No model was loaded, as loading one imports sentence-transformers.
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

# Imports the CLI once, and the torch-free libraries the commands read before their
# checks (human_eval's statistics and plots: seconds), then runs each command line (a
# JSON list of them, the first argument) in a child forked from it. What a child imports
# of the torch stack is what its command imported: the parent has none of it (checked).
# Prints one JSON list: each command's exit code, standard error and which modules of
# the torch stack it imported.
PROBE = f"""
import json, os, sys, tempfile
from wrdscore.cli import app
import wrdscore.embeddings.encoders, wrdscore.human_eval
STACK = {STACK!r}
assert not [m for m in STACK if m in sys.modules], "the probe itself imports the stack"
reports = []
for args in json.loads(sys.argv[1]):
    err, out = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        os.dup2(err.fileno(), 2)
        try:
            app(args, prog_name="wrdscore")
            code = 0
        except SystemExit as exc:
            code = exc.code
        sys.stderr.flush()
        imported = [m for m in STACK if m in sys.modules]
        out.write(json.dumps({{"code": code, "imported": imported}}).encode())
        out.flush()
        os._exit(0)
    os.waitpid(pid, 0)
    err.seek(0), out.seek(0)
    reports.append({{**json.loads(out.read()), "stderr": err.read().decode()}})
print(json.dumps(reports))
"""


@pytest.fixture
def encoders_extra() -> None:
    # The commands need the encoders extra (pip install -e '.[encoders]'); CI fails without.
    require("sentence_transformers")


needs_stack = pytest.mark.usefixtures("encoders_extra")


def run_cli(cases: list[list[str]], cwd: Path) -> list[tuple[int, list[str], str]]:
    """Each command line's exit code, the torch stack's modules it imported, its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(cases)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"},
        timeout=HUNG,
    )
    assert done.returncode == 0 and done.stdout, done.stderr
    return [(r["code"], r["imported"], r["stderr"]) for r in json.loads(done.stdout)]


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
FUSE = "error: --fuse-weights only applies with both --encoder and --embeddings\n"
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
    # After the encoder loaded, as "the number of baseline pairs must be at least 1".
    (["baseline", "corpus", *ENCODER, "--pairs", "0"], "--pairs must be at least 1, not 0\n"),
    (["study", "analyze", "--pairs", "wrdscore-paper", "-m", "wrd", "-o", "r", *ENCODER,
      "--layer", "99"], "out of range"),
    (["study", "sample", "--refs", "refs.txt", "--preds", "nope.txt", "-o", "s", *ENCODER],
     "nope.txt"),
    # --fuse-weights without the --embeddings it weighs: refused after the encoder
    # loaded, naming the library's parameter ("fuse_weights only applies with ...").
    (["score", "--refs", "refs.txt", "--preds", "preds.txt", *ENCODER, "--fuse-weights", "1,2"],
     FUSE),
    (["compare", "--refs", "refs.txt", "--preds", "preds.txt", "--preds", "preds.txt",
      *ENCODER, "--fuse-weights", "1,2"], FUSE),
    (["explain", "getName", "fetchName", *ENCODER, "--fuse-weights", "1,2"], FUSE),
    (["baseline", "corpus", *ENCODER, "--fuse-weights", "1,2"], FUSE),
    (["study", "sample", "--refs", "refs.txt", "--preds", "preds.txt", "-o", "s",
      "--stratum", "1:wrd>0", *ENCODER, "--fuse-weights", "1,2"], FUSE),
    (["study", "analyze", "--pairs", "wrdscore-paper", "-m", "wrd", "-o", "r", *ENCODER,
      "--fuse-weights", "1,2"], FUSE),
]  # fmt: skip


CUDA_CASES = [
    ["tune", MINILM, "-o", "out", "--pairs", "pairs.tsv", "--device", "cuda"],
    ["tune", "default", "--static", "-o", "out", "--pairs", "pairs.tsv", "--device", "cuda"],
    ["score", "--refs", "refs.txt", "--preds", "preds.txt", *ENCODER, "--device", "cuda"],
    ["distill", MINILM, "-o", "out", "--device", "cuda"],
]


def _cuda() -> bool:
    torch = require("torch")
    return bool(torch.cuda.is_available())


@pytest.fixture(scope="module")
def probed(inputs) -> dict[tuple[str, ...], tuple[int, list[str], str]]:
    """Every case's report (see :data:`PROBE`), by its command line."""
    require("sentence_transformers")
    # With CUDA the cuda cases would load a model; their test skips there.
    cases = [args for args, _ in CASES] + ([] if _cuda() else CUDA_CASES)
    return dict(zip(map(tuple, cases), run_cli(cases, inputs), strict=True))


@needs_stack
@pytest.mark.parametrize(
    ("args", "message"), CASES, ids=[" ".join(a[:1] + a[-2:]) for a, _ in CASES]
)
def test_a_bad_argument_fails_before_the_torch_stack_is_imported(probed, args, message):
    code, imported, err = probed[tuple(args)]
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    assert imported == []


@needs_stack
@pytest.mark.parametrize("args", CUDA_CASES, ids=["tune", "tune --static", "score", "distill"])
def test_device_cuda_without_cuda_asks_torch_alone(probed, args):
    if _cuda():
        pytest.skip("this machine has CUDA")
    code, imported, err = probed[tuple(args)]
    assert code == 2
    assert err == "error: --device cuda: CUDA is not available here; use --device cpu\n"
    # torch, to ask it; not transformers or sentence-transformers, which a load imports.
    assert imported == ["torch"]
