"""Code-aware scoring against reference-only scoring of the same pairs (issue 25, item 8).

The pairs are the methods of an ingested corpus (OpenJDK 17's ``src.zip``, 174k
methods): the reference is the method's name, the prediction the name of the method
before it in the corpus (mostly a sibling of the same class: a plausible wrong
answer), the code the method's source. Both runs are ``wrdscore score`` in a fresh
process, as users run it (default ``--jobs``, the bundled static model, per-pair
output to a file): reference-only, then with ``--code CODE.jsonl``, alternating for
``--rounds`` rounds so that load on the machine hits both alike. The ratio is the
median of the rounds' code-aware over reference-only wall (and CPU) times.

    python benchmarks/code.py --corpus jdk --workdir /tmp/code-bench
    python benchmarks/code.py --methods methods.jsonl --workdir /tmp/code-bench

``--methods`` reads the pairs from a JSON-lines file of ``{"code": ..., "name": ...}``
objects instead (the ``--code`` format).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from _proc import run_measured


def write_inputs(methods: list[tuple[str, str]], workdir: Path) -> tuple[Path, Path, Path]:
    """refs.txt, preds.txt and code.jsonl of ``(name, code)`` pairs, aligned."""
    workdir.mkdir(parents=True, exist_ok=True)
    refs, preds, code = workdir / "refs.txt", workdir / "preds.txt", workdir / "code.jsonl"
    names = [n for n, _ in methods]
    refs.write_text("".join(n + "\n" for n in names), encoding="utf-8")
    preds.write_text("".join(n + "\n" for n in [names[-1], *names[:-1]]), encoding="utf-8")
    with code.open("w", encoding="utf-8") as fh:
        for name, source in methods:
            fh.write(json.dumps({"code": source, "name": name}) + "\n")
    return refs, preds, code


def read_methods(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.methods is not None:
        rows = (json.loads(line) for line in args.methods.open(encoding="utf-8"))
        return [(r["name"], r["code"]) for r in rows]
    from wrdscore.corpora import corpus_methods

    # A record without code (the fallback parser could not place it) cannot be a line
    # of a --code file: such methods are left out of both runs.
    return [(m.name, m.code) for m in corpus_methods(args.corpus, target="name") if m.code]


def breakdown(methods: list[tuple[str, str]]) -> None:
    """Where code-aware scoring's time goes, in this process (CPU seconds, one core):
    reference-only scoring, reading the code (``read_code``; and, apart, what
    tree-sitter alone costs of it: parsing each method and running the reader's query),
    segmenting the code's tokens and the code support."""
    import time

    from tree_sitter import QueryCursor

    from wrdscore.corpora import segment, to_tokens
    from wrdscore.corpora._code import _CAPTURES
    from wrdscore.corpora._treesitter import warm_up
    from wrdscore.metrics import get_metric
    from wrdscore.metrics._code import read_codes

    names = [n for n, _ in methods]
    preds = [names[-1], *names[:-1]]
    metric = get_metric("wrd")
    metric.score(names[:100], preds[:100])  # loads the model and the solver
    clock = time.process_time
    t0 = clock()
    metric.score(names, preds)
    t1 = clock()
    codes = read_codes([{"code": c, "name": n} for n, c in methods], "name", "drop")
    t2 = clock()
    codes = [segment(c) for c in codes]
    t3 = clock()
    metric._code_values(codes, [segment(to_tokens(p)) for p in preds])
    t4 = clock()
    parser, parse, query = warm_up(), 0.0, 0.0
    for _, source in methods:
        t = clock()
        root = parser.parse(source.encode("utf-8", "replace")).root_node
        t_parsed = clock()
        QueryCursor(_CAPTURES).captures(root)
        parse, query = parse + t_parsed - t, query + clock() - t_parsed
    print(
        f"in-process CPU s, one core: reference-only {t1 - t0:.2f}, read_code {t2 - t1:.2f} "
        f"({sum(map(len, codes)):,} code tokens; tree-sitter's parse {parse:.2f} and "
        f"query {query:.2f} of it), segmenting the code {t3 - t2:.2f}, code support "
        f"{t4 - t3:.2f}; scoring alone {(t1 - t0 + t4 - t3) / (t1 - t0):.2f}x reference-only"
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
    methods = read_methods(args)[: args.limit]
    if args.breakdown:
        breakdown(methods)
    refs, preds, code = write_inputs(methods, args.workdir)
    base = [sys.executable, "-m", "wrdscore", "score", "--refs", str(refs), "--preds", str(preds)]
    base += ["-q", "--force", "--per-pair"]
    commands = {
        "reference-only": [*base, str(args.workdir / "ref.tsv")],
        "code-aware": [*base, str(args.workdir / "code.tsv"), "--code", str(code)],
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
