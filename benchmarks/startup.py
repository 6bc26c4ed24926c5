"""Start-up: the README's first scoring command beside sacrebleu's CLI on the same small files.

Runs ``wrdscore score --refs examples/refs.txt --preds examples/preds.txt`` and
``sacrebleu examples/refs.txt -i examples/preds.txt -m bleu`` alternately, each in a fresh
process (``python -m``-free: the installed console scripts' Python, no shell shim), and
prints the median and minimum wall and CPU (user + system) seconds of each and their ratio.
Target (issue 8): wrdscore at most 2x sacrebleu; guard (issue 26): at most 3x. Also lists
the heavy modules the scoring command imports (none of gensim, scikit-learn, scipy, POT,
matplotlib is expected).

Usage::

    python benchmarks/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TARGET = 2.0
GUARD = 3.0
HEAVY = (
    "gensim",
    "sklearn",
    "scipy",
    "ot",
    "matplotlib",
    "javalang",
    "tree_sitter",
    "sacrebleu",
)


def commands() -> dict[str, list[str]]:
    sacrebleu = shutil.which("sacrebleu")
    if sacrebleu is None:
        raise SystemExit("sacrebleu is not installed: pip install sacrebleu")
    refs, preds = str(EXAMPLES / "refs.txt"), str(EXAMPLES / "preds.txt")
    return {
        "wrdscore": [
            sys.executable,
            "-c",
            "from wrdscore.cli import app; app()",
            "score",
            "--refs",
            refs,
            "--preds",
            preds,
        ],
        # The sacrebleu console script's own code, run by this Python (no pyenv shim).
        "sacrebleu": [
            sys.executable,
            "-c",
            "import sys; from sacrebleu.sacrebleu import main; sys.exit(main())",
            refs,
            "-i",
            preds,
            "-m",
            "bleu",
        ],
    }


#: The commands' environment: as a user's, with bytecode caching on. Where
#: PYTHONDONTWRITEBYTECODE is set (as in some sandboxes), every run of an editable install
#: compiled its 22 modules again (0.12 s), while sacrebleu's came compiled by pip.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> tuple[float, float]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=ENV)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def heavy_imports() -> str:
    code = (
        "import sys\n"
        "from wrdscore.cli import app\n"
        f"sys.argv = ['wrdscore', 'score', '--refs', {str(EXAMPLES / 'refs.txt')!r}, "
        f"'--preds', {str(EXAMPLES / 'preds.txt')!r}]\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        f"print(sorted({set(HEAVY)!r} & {{m.split('.')[0] for m in sys.modules}}), "
        "file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stderr.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    cmds = commands()
    for cmd in cmds.values():
        timed(cmd)  # warm the file cache and the .pyc files
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            times[name].append(timed(cmd))
    stats = {}
    for name, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        stats[name] = (statistics.median(walls), min(walls), statistics.median(cpus), min(cpus))
        print(
            f"{name:>9}: wall median {stats[name][0]:.3f} s (min {stats[name][1]:.3f}), "
            f"cpu median {stats[name][2]:.3f} s (min {stats[name][3]:.3f})"
        )
    w, s = stats["wrdscore"], stats["sacrebleu"]
    ratios = [w[i] / s[i] for i in range(4)]
    print(
        f"wrdscore / sacrebleu: wall median {ratios[0]:.2f}x (min {ratios[1]:.2f}x), "
        f"cpu median {ratios[2]:.2f}x (min {ratios[3]:.2f}x); target <= {TARGET:.0f}x, "
        f"guard <= {GUARD:.0f}x"
    )
    print(f"heavy modules imported by the scoring command: {heavy_imports()}")


if __name__ == "__main__":
    main()
