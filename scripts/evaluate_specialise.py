"""Measure what attract-repel specialisation does to WRDScore's agreement with people.

Mines constraints from CORPUS_DIR (never from ratings), specialises each model with
the published attract-repel hyperparameters (nothing is tuned on the ratings), and
scores the WRDScore paper's 150 rated pairs with WRDScore F1 (default settings:
``weights="norm"``, ``oov="zero"``, clipped cosines) before and after. Prints
Spearman's rho against the human scores overall, on the pairs with ROUGE-1 = 0, and
per set; then the cases of issue 11.

Usage::

    python scripts/evaluate_specialise.py CORPUS_DIR [--model default ...] \\
        --ratings ../shared/data/wrdscore-human [--output report.md]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from wrdscore.atomic import atomic_write
from wrdscore.base import get_metric
from wrdscore.embeddings import (
    TokenEmbeddings,
    load_embeddings,
    mine_constraints,
    specialise_vectors,
)
from wrdscore.human_eval import load_published_pairs

#: The rank errors listed in issue 11 (reference, prediction).
CASES = [
    ("rotate right", "rotate left"),
    ("get", "set"),
    ("darken color", "lighten color"),
    ("encode block", "decode block"),
    ("is blank", "is empty"),
    ("pick", "sample"),
    ("get number of roles", "get num roles"),
    ("is image", "is photo"),
]


def rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation."""
    return float(spearmanr(x, y)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--model", action="append", help="MODEL_DIR or 'default' (repeatable)")
    parser.add_argument("--ratings", type=Path, default=Path("../shared/data/wrdscore-human"))
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()

    ratings = load_published_pairs([args.ratings], scale=10)
    refs, preds, human = list(ratings.references), list(ratings.predictions), ratings.human
    sets = np.array(ratings.sets)
    rouge = get_metric("rouge1").score(refs, preds)
    r1 = np.asarray(rouge.values[rouge.primary])
    zero = r1 == 0

    started = time.perf_counter()
    constraints = mine_constraints(args.corpus)
    lines = [
        f"Constraints mined from {args.corpus} in {time.perf_counter() - started:.1f} s: "
        + ", ".join(f"{k} {v}" for k, v in constraints.sizes().items()),
        "",
        "| model | | all 150 | ROUGE-1 = 0 "
        + f"({int(zero.sum())}) | "
        + " | ".join(sorted(set(sets)))
        + " |",
        "| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in set(sets)) + " |",
    ]

    def row(label: str, kind: str, s: np.ndarray) -> str:
        per_set = [rho(s[sets == k], human[sets == k]) for k in sorted(set(sets))]
        cells = [rho(s, human), rho(s[zero], human[zero]), *per_set]
        return f"| {label} | {kind} | " + " | ".join(f"{c:.3f}" for c in cells) + " |"

    lines.append(row("ROUGE-1 F", "-", r1))
    cases = []
    for model in args.model or ["default"]:
        emb = load_embeddings(model)
        started = time.perf_counter()
        res = specialise_vectors(emb.kv, constraints)
        seconds = time.perf_counter() - started
        special = TokenEmbeddings(
            res.kv, name=f"{emb.name}-ar", doc_freq=emb.doc_freq, n_docs=emb.n_docs
        )
        before = get_metric("wrd", embeddings=emb).score(refs, preds).f1
        after = get_metric("wrd", embeddings=special).score(refs, preds).f1
        lines.append(row(emb.name, "before", before))
        lines.append(row(emb.name, f"after ({seconds:.1f} s; pairs used {res.used})", after))
        cb = get_metric("wrd", embeddings=emb).score(*map(list, zip(*CASES, strict=True))).f1
        ca = get_metric("wrd", embeddings=special).score(*map(list, zip(*CASES, strict=True))).f1
        cases.append((emb.name, cb, ca))
    people = {}
    for ref, pred, h in zip(refs, preds, human, strict=True):
        people.setdefault((ref, pred), []).append(h)
    lines += [
        "",
        "| reference | prediction | people | "
        + " | ".join(f"{n} before | after" for n, _, _ in cases)
        + " |",
    ]
    lines.append("| --- | --- | ---: | " + " | ".join("---: | ---:" for _ in cases) + " |")
    for i, (ref, pred) in enumerate(CASES):
        h = people.get((ref, pred))
        hs = f"{np.mean(h):.2f}" if h else "-"
        lines.append(
            f"| {ref} | {pred} | {hs} | "
            + " | ".join(f"{b[i]:.2f} | {a[i]:.2f}" for _, b, a in cases)
            + " |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with atomic_write(args.output) as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
