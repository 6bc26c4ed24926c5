"""Benchmark scoring: WRDScore against a naive per-pair loop, and pairs/s of every metric.

Builds 100,000 realistic (reference, prediction) pairs from the method names in the
OpenJDK sources (``src.zip``): the reference is a method name of 1 to 6 sub-tokens;
the prediction is another method of the same source file, or the name with a token
dropped, two tokens swapped, or a token replaced by its nearest embedding neighbour.

In the same run it times a naive WRDScore kept here (a Python loop: per pair, look
up vectors, cosine matrix, ``ot.emd``, P/R/F1), checks the library gives the same
numbers (max abs difference < 1e-9) and prints the speed-up (target: >= 20x). Then
it prints pairs/s for every registered metric on the same pairs.

Usage::

    flock /tmp/wrdscore-bench.lock python benchmarks/score.py
    flock /tmp/wrdscore-bench.lock python benchmarks/score.py --pairs 20000 --model DIR
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import time
import zipfile
from pathlib import Path

import numpy as np
import ot

SRC_ZIP = Path("/usr/lib/jvm/openjdk-17/lib/src.zip")
SPEEDUP_TARGET = 20.0
# A method declaration: a modifier or type, then the name, then "(".
METHOD = re.compile(
    r"^\s*(?:(?:public|protected|private|static|final|abstract|synchronized|native|default)"
    r"\s+)+[\w<>\[\].,? ]+?\s+([a-zA-Z_$][\w$]*)\s*\(",
    re.M,
)


def method_names(src_zip: Path, limit_files: int) -> list[list[str]]:
    """Method names per source file (each a list of raw names), in zip order."""
    files: list[list[str]] = []
    with zipfile.ZipFile(src_zip) as zf:
        for info in zf.infolist():
            if not info.filename.endswith(".java"):
                continue
            text = zf.read(info).decode("utf-8", errors="replace")
            names = sorted(set(METHOD.findall(text)))
            if len(names) >= 2:
                files.append(names)
            if len(files) >= limit_files:
                break
    return files


def build_pairs(files, emb, n: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    """``n`` (reference, prediction) token lists of 1 to 6 tokens each."""
    from wrdscore.corpora import split_identifier
    from wrdscore.metrics import unit_rows

    rng = random.Random(seed)
    tokenised = [
        [t for t in (split_identifier(m) for m in names) if 1 <= len(t) <= 6] for names in files
    ]
    tokenised = [f for f in tokenised if len(f) >= 2]
    vocab = emb.kv.index_to_key
    unit = unit_rows(np.asarray(emb.kv.vectors, dtype=np.float64))
    neighbour: dict[str, str] = {}

    def near(token: str) -> str:
        if token not in neighbour:
            if token in emb:
                sims = unit @ unit[emb.kv.key_to_index[token]]
                sims[emb.kv.key_to_index[token]] = -np.inf
                neighbour[token] = vocab[int(np.argmax(sims))]
            else:
                neighbour[token] = token
        return neighbour[token]

    refs, preds = [], []
    while len(refs) < n:
        names = rng.choice(tokenised)
        ref = rng.choice(names)
        kind = rng.random()
        if kind < 0.4:
            pred = rng.choice([m for m in names if m is not ref])
        elif kind < 0.6 and len(ref) > 1:
            pred = ref[:]
            del pred[rng.randrange(len(pred))]
        elif kind < 0.75 and len(ref) > 1:
            pred = ref[:]
            i, j = rng.sample(range(len(pred)), 2)
            pred[i], pred[j] = pred[j], pred[i]
        else:
            pred = ref[:]
            i = rng.randrange(len(pred))
            pred[i] = near(pred[i])
        refs.append(ref)
        preds.append(pred)
    return refs, preds


def naive_wrd(emb, refs, preds) -> np.ndarray:
    """WRDScore the plain way: one pair at a time, ot.emd, loops for P and R."""
    out = np.zeros((len(refs), 3))
    zero = np.zeros(emb.dim)
    for k, (ref, pred) in enumerate(zip(refs, preds, strict=True)):
        if sorted(ref) == sorted(pred):
            out[k] = 1.0
            continue
        x = np.array([emb.kv[t] if t in emb else zero for t in ref], dtype=np.float64)
        y = np.array([emb.kv[t] if t in emb else zero for t in pred], dtype=np.float64)
        nx_, ny_ = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
        if nx_.sum() == 0 or ny_.sum() == 0:
            continue
        ux = x / np.where(nx_ > 0, nx_, 1)[:, None]
        uy = y / np.where(ny_ > 0, ny_, 1)[:, None]
        cos = ux @ uy.T
        flow = ot.emd(nx_ / nx_.sum(), ny_ / ny_.sum(), 1.0 - cos)
        c = np.clip(cos, 0.0, 1.0)
        col, row = flow.sum(axis=0), flow.sum(axis=1)
        p = np.mean(
            [(flow[:, j] @ c[:, j]) / col[j] if col[j] > 0 else 0.0 for j in range(len(pred))]
        )
        r = np.mean([(flow[i] @ c[i]) / row[i] if row[i] > 0 else 0.0 for i in range(len(ref))])
        out[k] = p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)
    return out


def timed(fn, *args):
    t = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--src-zip", type=Path, default=SRC_ZIP)
    parser.add_argument("--files", type=int, default=8000, help="Java files to read.")
    parser.add_argument("--model", default=None, help="MODEL_DIR [default: bundled model].")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from wrdscore.embeddings import load_embeddings
    from wrdscore.metrics.base import METRICS, get_metric

    emb = load_embeddings(args.model)
    files = method_names(args.src_zip, args.files)
    refs, preds = build_pairs(files, emb, args.pairs, args.seed)
    lens = np.array([len(r) for r in refs] + [len(p) for p in preds])
    distinct = len(set(zip(map(tuple, refs), map(tuple, preds), strict=True)))
    print(f"model {emb.name}@{emb.sha} dim {emb.dim}; {len(files)} source files")
    print(
        f"{len(refs)} pairs, {distinct} distinct; tokens per name: mean {lens.mean():.2f}, "
        f"share of 1-token names {np.mean(lens == 1):.2f}"
    )

    naive, t_naive = timed(naive_wrd, emb, refs, preds)
    # The library is timed three times (a fresh scorer, so cold caches, each time) and
    # the median kept: on a shared machine single runs of ~1 s are noisy.
    runs = [timed(lambda: get_metric("wrd", embeddings=emb).score(refs, preds)) for _ in range(3)]
    lib, t_lib = sorted(runs, key=lambda r: r[1])[1]
    got = np.stack([lib.precision, lib.recall, lib.f1], axis=1)
    diff = float(np.max(np.abs(got - naive)))
    speedup = t_naive / t_lib
    print(f"naive loop   {t_naive:8.2f} s  {len(refs) / t_naive:10.0f} pairs/s")
    print(f"wrdscore     {t_lib:8.2f} s  {len(refs) / t_lib:10.0f} pairs/s")
    print(f"speed-up     {speedup:8.1f}x (target >= {SPEEDUP_TARGET:.0f}x)")
    print(f"max |diff|   {diff:.2e} (target < 1e-9)")
    print(
        f"corpus P/R/F1 {lib.corpus['precision']:.4f} {lib.corpus['recall']:.4f} "
        f"{lib.corpus['f1']:.4f}; OOV tokens {lib.oov_tokens}"
    )

    print("\nevery registered metric, same pairs, default options:")
    for name in METRICS:
        metric = get_metric(name, embeddings=emb)
        res, t = timed(metric.score, refs, preds)
        print(
            f"  {name:10s} {t:8.2f} s  {len(refs) / t:10.0f} pairs/s  corpus "
            f"{res.primary} {res.corpus[res.primary]:.4f}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory {peak:.0f} MB")
    if diff >= 1e-9 or speedup < SPEEDUP_TARGET:
        raise SystemExit("FAILED: a target was missed")


if __name__ == "__main__":
    main()
