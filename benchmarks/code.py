"""Code-aware scoring against reference-only scoring of the same pairs (issue 25, item 8).

The pairs are the methods of an ingested corpus (OpenJDK 17's ``src.zip``, 174k
methods): the reference is the method's name, the prediction the name of the method
before it in the corpus (mostly a sibling of the same class: a plausible wrong
answer), the code the method's source. Both runs are ``wrdscore score`` in a fresh
process, as users run it (default ``--jobs``, the bundled static model, per-pair
output to a file): reference-only (``--refs``), then code-aware, ``score --corpus
CORPUS`` (which reads a format 4 corpus's stored identifiers and parses a format 3
one's code), alternating for ``--rounds`` rounds so that load on the machine hits
both alike. The ratio is the median of the rounds' code-aware over reference-only
wall (and CPU) times.

    python benchmarks/code.py --corpus jdk --workdir /tmp/code-bench
    python benchmarks/code.py --methods methods.jsonl --workdir /tmp/code-bench

``--methods`` reads the pairs from a JSON-lines file of ``{"code": ..., "name": ...}``
objects instead (the ``--code`` format), and scores them with ``--code``: parsed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _proc import run_measured


def write_inputs(methods: list[tuple[str, Any]], workdir: Path) -> tuple[Path, Path, Path]:
    """refs.txt, preds.txt and code.jsonl (the ``--methods`` run's) of the pairs, aligned."""
    workdir.mkdir(parents=True, exist_ok=True)
    refs, preds, code = workdir / "refs.txt", workdir / "preds.txt", workdir / "code.jsonl"
    names = [n for n, _ in methods]
    refs.write_text("".join(n + "\n" for n in names), encoding="utf-8")
    preds.write_text("".join(n + "\n" for n in [names[-1], *names[:-1]]), encoding="utf-8")
    with code.open("w", encoding="utf-8") as fh:
        for _, item in methods:
            if isinstance(item, dict):
                fh.write(json.dumps(item) + "\n")
    return refs, preds, code


def read_methods(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """``(name, code item)`` pairs: a corpus's items as ``score --corpus`` reads them."""
    if args.methods is not None:
        rows = (json.loads(line) for line in args.methods.open(encoding="utf-8"))
        return [(r["name"], {"code": r["code"], "name": r["name"]}) for r in rows]
    from wrdscore.corpus_inputs import corpus_inputs

    with tempfile.TemporaryDirectory() as tmp:
        names = Path(tmp) / "names.txt"
        names.write_text("x\n")  # aligned by record order: corpus_inputs only keeps the path
        refs, code, _ = corpus_inputs(args.corpus, names, "name", Path(tmp))
    return list(zip(refs, code, strict=True))


def corpus_language(corpus: Path | None) -> str | None:
    """The one language a corpus's code is in (None for ``--methods``: told per item)."""
    if corpus is None:
        return None
    from wrdscore.corpora import open_corpus

    said = open_corpus(corpus).manifest.get("language", "java")
    return said if isinstance(said, str) and said != "all" else None


def breakdown(methods: list[tuple[str, Any]], language: str | None) -> None:
    """Where code-aware scoring's time goes, in this process (CPU seconds, one core):
    reference-only scoring, reading the code as ``score`` does (from the stored
    identifiers of a format 4 corpus) and, apart, by parsing it (``read_code``) in
    ``language`` (a corpus's), segmenting the code's tokens and the code support."""
    import time

    from wrdscore.corpora import segment, to_tokens
    from wrdscore.metrics import get_metric
    from wrdscore.metrics.code import read_codes

    names = [n for n, _ in methods]
    preds = [names[-1], *names[:-1]]
    metric = get_metric("wrd")
    metric.score(names[:100], preds[:100])  # loads the model and the solver
    clock = time.process_time
    t0 = clock()
    metric.score(names, preds)
    t1 = clock()
    # As score reads it: segmented under the metric's segment setting (on by default).
    codes = read_codes([c for _, c in methods], "name", "drop", segmented=metric.segment)
    t2 = clock()
    t3 = clock()  # segmentation, if on, is part of reading (memoised per identifier)
    scorer = metric.code_scorer
    assert scorer is not None  # wrd reads code
    scorer.values(
        metric, codes, [segment(to_tokens(p)) if metric.segment else to_tokens(p) for p in preds]
    )
    t4 = clock()
    parsed = read_codes(
        [c if c is None or isinstance(c, dict) else {"code": c.code, "name": c.name}
         for _, c in methods],
        "name",
        "drop",
        # The corpus's language, as ingest read it: told from the code instead, a method
        # cut at the cap (no longer valid Java) can be read as Go or C and differ.
        language=language,
    )  # fmt: skip
    t5 = clock()
    stored = sum(1 for _, c in methods if c is not None and not isinstance(c, dict))
    print(
        f"in-process CPU s, one core: reference-only {t1 - t0:.2f}, reading the code "
        f"{t2 - t1:.2f} ({stored:,} of {len(methods):,} from stored identifiers; "
        f"{sum(map(len, codes.tokens)):,} code tokens; parsing it all instead: {t5 - t4:.2f}), "
        f"segmenting the code {t3 - t2:.2f}, code support {t4 - t3:.2f}; scoring alone "
        f"{(t1 - t0 + t4 - t3) / (t1 - t0):.2f}x reference-only"
    )
    fresh = map(segment, parsed.tokens) if metric.segment else parsed.tokens
    assert all(a == b for a, b in zip(codes.tokens, fresh, strict=True))


def check_same_package() -> None:
    """Stop if ``python -m wrdscore`` here would import another wrdscore than this process.

    A subprocess puts its working directory first on ``sys.path``: run from a checkout's
    root it imports that checkout whatever ``PYTHONPATH`` says, so timing an exported
    tree (``PYTHONPATH=TREE``) from there times the checkout instead.
    """
    import subprocess

    import wrdscore

    probe = [sys.executable, "-c", "import wrdscore; print(wrdscore.__file__)"]
    theirs = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    if Path(theirs).resolve() != Path(wrdscore.__file__).resolve():
        sys.exit(
            f"python -m wrdscore would import {theirs}, this process {wrdscore.__file__}: "
            "run the benchmark from another folder"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", type=Path, help="an ingested corpus with code")
    source.add_argument("--methods", type=Path, help='JSON lines of {"code", "name"}')
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N methods only")
    parser.add_argument(
        "--breakdown", action="store_true", help="also time the parts in this process"
    )
    args = parser.parse_args()
    if args.limit is not None and args.corpus is not None:
        parser.error("--limit applies to --methods: score --corpus scores every record")
    check_same_package()
    methods = read_methods(args)[: args.limit]
    if args.breakdown:
        breakdown(methods, corpus_language(args.corpus))
    refs, preds, code = write_inputs(methods, args.workdir)
    score = [sys.executable, "-m", "wrdscore", "score", "--preds", str(preds), "-q", "--force"]
    with_code = ["--code", str(code)] if args.methods else ["--corpus", str(args.corpus)]
    commands = {
        "reference-only": [
            *score,
            "--refs",
            str(refs),
            "--per-pair",
            str(args.workdir / "ref.tsv"),
        ],
        "code-aware": [*score, *with_code, "--per-pair", str(args.workdir / "code.tsv")],
    }
    print(f"{len(methods):,} (name, code) pairs; {' '.join(commands['code-aware'])}")
    print("| round | reference-only wall / CPU s | code-aware wall / CPU s | x wall | x CPU |")
    print("|---:|---:|---:|---:|---:|")
    ratios: list[tuple[float, float]] = []
    for r in range(1, args.rounds + 1):
        ref = run_measured(commands["reference-only"])
        coded = run_measured(commands["code-aware"])
        ratios.append((coded.wall / ref.wall, coded.cpu / ref.cpu))
        print(
            f"| {r} | {ref.wall:.2f} / {ref.cpu:.2f} | {coded.wall:.2f} / {coded.cpu:.2f} "
            f"| {ratios[-1][0]:.2f} | {ratios[-1][1]:.2f} |",
            flush=True,
        )
    wall = statistics.median(w for w, _ in ratios)
    cpu = statistics.median(c for _, c in ratios)
    print(f"median ratio: wall {wall:.2f}x, CPU {cpu:.2f}x (target: at most 4x)")


if __name__ == "__main__":
    main()
