"""Benchmark `wrdscore train` on a corpus (the OpenJDK 17 sources by default).

Measures, each phase in a fresh process so its peak memory is its own:

* co-occurrence counting, vectorised (``cooccurrence_matrix``) against a naive
  pure-Python double loop over every name's position pairs, with the ratio;
* the truncated SVD (k = 50) with scipy's PROPACK solver, which ``svd_embeddings``
  uses, against ARPACK, on the raw and the PPMI matrix;
* the whole SVD model (read corpus, count, SVD, save), raw and PPMI;
* Word2Vec, 5 epochs, with 1 worker (deterministic) and 2 workers.

Targets (2 cores): SVD model < 20 s, Word2Vec (5 epochs) < 60 s, peak memory < 2 GB.

Usage::

    wrdscore ingest /usr/lib/jvm/openjdk-17/lib/src.zip -o work-data/jdk17
    flock /tmp/wrdscore-bench.lock python benchmarks/train.py work-data/jdk17
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

TARGETS = {"svd": 20.0, "word2vec": 60.0}
PEAK_TARGET_MB = 2048


def naive_cooccurrence(sentences: list[list[str]]) -> Counter:
    """The baseline: a dictionary of counts filled by a double loop per name."""
    counts: Counter = Counter()
    for doc in sentences:
        for p, a in enumerate(doc):
            for q, b in enumerate(doc):
                if p != q:
                    counts[a, b] += 1
    return counts


def phase(name: str, corpus: str) -> dict:
    """Run one phase in this process; return seconds and the process's peak RSS."""
    from scipy.sparse.linalg import svds

    from wrdscore.embeddings import TokenDocuments, corpus_documents, ppmi, train_embeddings
    from wrdscore.embeddings import cooccurrence_matrix as vectorised

    out: dict = {}
    if name == "count":
        docs = TokenDocuments.from_token_lists(corpus_documents(corpus))
        sentences = list(docs.sentences())
        t = time.perf_counter()
        fast = vectorised(docs)
        out["vectorised_s"] = time.perf_counter() - t
        t = time.perf_counter()
        slow = naive_cooccurrence(sentences)
        out["naive_s"] = time.perf_counter() - t
        # Same counts, or the comparison means nothing.
        assert fast.sum() == sum(slow.values()) and fast.nnz == len(slow)
        out["nnz"], out["vocab"], out["names"] = fast.nnz, len(docs.vocab), docs.n_docs
        for label, matrix in (("raw", fast), ("ppmi", ppmi(fast))):
            for solver in ("propack", "arpack"):
                t = time.perf_counter()
                svds(matrix, k=50, solver=solver, random_state=0)
                out[f"{label}_{solver}_s"] = time.perf_counter() - t
    else:
        method, _, variant = name.partition(":")
        kwargs: dict[str, Any] = {"weighting": "ppmi"} if variant == "ppmi" else {}
        if method == "word2vec":
            kwargs = {"epochs": 5, "workers": int(variant)}
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            train_embeddings(corpus, method, Path(tmp) / "m", **kwargs)
            out["seconds"] = time.perf_counter() - t
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="work-data/jdk17")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.corpus)))
        return

    def run(name: str) -> dict:
        cmd = [sys.executable, __file__, args.corpus, "--phase", name]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)

    count = run("count")
    print(
        f"corpus {args.corpus}: {count['names']:,} names, {count['vocab']:,} tokens, "
        f"{count['nnz']:,} non-zero co-occurrence cells"
    )
    print(
        f"co-occurrence counting: vectorised {count['vectorised_s']:.3f} s, "
        f"naive double loop {count['naive_s']:.3f} s, "
        f"speed-up x{count['naive_s'] / count['vectorised_s']:.1f}"
    )
    for label in ("raw", "ppmi"):
        fast, slow = count[f"{label}_propack_s"], count[f"{label}_arpack_s"]
        print(
            f"SVD k=50 of the {label} matrix: PROPACK {fast:.2f} s, ARPACK {slow:.2f} s, "
            f"speed-up x{slow / fast:.1f}"
        )
    ok = True
    for name in ("svd", "svd:ppmi", "word2vec:1", "word2vec:2"):
        res = run(name)
        target = TARGETS[name.partition(":")[0]]
        good = res["seconds"] < target and res["peak_mb"] < PEAK_TARGET_MB
        ok &= good
        print(
            f"train {name:11} {res['seconds']:6.1f} s (target < {target:.0f} s), "
            f"peak RSS {res['peak_mb']:6.0f} MB (target < {PEAK_TARGET_MB} MB) "
            f"{'ok' if good else 'MISSED'}"
        )
    print("all targets met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
