"""Start-up and throughput of plain ``wrdscore score`` here beside another checkout.

For a change of the bundled default (issue 19: the new default must keep ``score``'s
start-up and speed, >= 0.9x the old one's): the same command, the bundled default as a
user gets it, run in a checkout of the commit before the change (``git worktree add
/tmp/before COMMIT``) and in this one, alternated, each in a fresh process
(``python -c`` imports the checkout it runs in), on two inputs:

- start-up: ``examples/refs.txt`` / ``examples/preds.txt`` (11 pairs);
- throughput: ``--pairs`` pairs drawn with replacement from the paper's 150 rated pairs.

The first run of each is a warm-up and not counted. Prints the median and minimum wall
seconds of each and after / before (below 1: faster).

Usage::

    python benchmarks/models.py BEFORE_CHECKOUT [--runs 15] [--pairs 200000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from wrdscore.human_eval import load_paper_ratings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def timed(cmd: list[str], cwd: Path) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def score_cmd(refs: Path, preds: Path) -> list[str]:
    app = "from wrdscore.cli import app; app()"
    return [sys.executable, "-c", app, "score", "--refs", str(refs), "--preds", str(preds), "-q"]


def write_pairs(folder: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    ratings = load_paper_ratings()
    picks = np.random.default_rng(seed).integers(0, len(ratings), n)
    refs, preds = folder / "refs.txt", folder / "preds.txt"
    refs.write_text("".join(ratings.references[i] + "\n" for i in picks), encoding="utf-8")
    preds.write_text("".join(ratings.predictions[i] + "\n" for i in picks), encoding="utf-8")
    return refs, preds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="checkout of the commit to compare with")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--pairs", type=int, default=200_000)
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {
            "start-up (examples/, 11 pairs)": (EXAMPLES / "refs.txt", EXAMPLES / "preds.txt"),
            f"{args.pairs:,} pairs": write_pairs(Path(tmp), args.pairs),
        }
        for label, (refs, preds) in inputs.items():
            cmd = score_cmd(refs, preds)
            walls: dict[str, list[float]] = {name: [] for name in checkouts}
            for run in range(args.runs + 1):
                for name, cwd in checkouts.items():
                    wall = timed(cmd, cwd)
                    if run:  # the first is a warm-up (file cache, .pyc files)
                        walls[name].append(wall)
            med = {name: statistics.median(w) for name, w in walls.items()}
            low = {name: min(w) for name, w in walls.items()}
            print(
                f"{label}: before {med['before']:.3f} s (min {low['before']:.3f}), after "
                f"{med['after']:.3f} s (min {low['after']:.3f}), medians of {args.runs}; "
                f"after / before {med['after'] / med['before']:.2f}"
            )


if __name__ == "__main__":
    main()
