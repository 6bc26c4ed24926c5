"""Choose the bundled default model by agreement with human ratings.

Trains each candidate (method and training settings) on the default corpus, scores the
150 human-rated (reference, prediction) pairs of the WRDScore paper with WRDScore F1
under each scoring setting (token weights, OOV policy, clipping), and writes a markdown
table of MSE and MAE against ``score / 10`` (no bootstrap: this only ranks candidates),
with ROUGE-1 F as the embedding-free reference row.

Usage::

    python scripts/select_default.py CORPUS_DIR --ratings ../shared/data/wrdscore-human \\
        --models work-data/select --output work-data/select/comparison.md

Trained candidates are kept under ``--models`` and reused on the next run.
"""

from __future__ import annotations

import argparse
import csv
import itertools
from pathlib import Path
from typing import Any

import numpy as np

from wrdscore import get_metric
from wrdscore.atomic import atomic_write
from wrdscore.embeddings import load_embeddings, train_embeddings

# name -> train_embeddings keyword arguments.
CANDIDATES: dict[str, dict[str, Any]] = {
    "svd raw": {"method": "svd"},
    "svd ppmi": {"method": "svd", "weighting": "ppmi"},
    "svd ppmi w2": {"method": "svd", "weighting": "ppmi", "window": 2},
    "word2vec w2": {"method": "word2vec", "window": 2},
    "word2vec w5": {"method": "word2vec", "window": 5},
    "word2vec w2 e10": {"method": "word2vec", "window": 2, "epochs": 10},
    "word2vec w2 e20": {"method": "word2vec", "window": 2, "epochs": 20},
    "word2vec w5 e20": {"method": "word2vec", "window": 5, "epochs": 20},
    "fasttext w2": {"method": "fasttext", "window": 2},
    "fasttext w2 e10 mc2": {"method": "fasttext", "window": 2, "epochs": 10, "min_count": 2},
    "fasttext w5 e10 mc2": {"method": "fasttext", "window": 5, "epochs": 10, "min_count": 2},
    "fasttext w2 e20 mc2": {"method": "fasttext", "window": 2, "epochs": 20, "min_count": 2},
    "fasttext w5 e20 mc2": {"method": "fasttext", "window": 5, "epochs": 20, "min_count": 2},
    "fasttext w2 e40 mc2": {"method": "fasttext", "window": 2, "epochs": 40, "min_count": 2},
    "fasttext w2 e20 mc1": {"method": "fasttext", "window": 2, "epochs": 20},
}
WEIGHTS = ("norm", "norm*idf")
CLIP = (True, False)


def read_ratings(folder: Path) -> tuple[list[str], list[str], np.ndarray]:
    """All rows of set1..set3 (duplicates kept, as in the paper): refs, preds, score / 10."""
    refs, preds, scores = [], [], []
    for i in (1, 2, 3):
        with (folder / f"set{i}_res.csv").open(newline="", encoding="utf-8") as fh:
            for ref, pred, score in csv.reader(fh):
                refs.append(ref)
                preds.append(pred)
                scores.append(float(score) / 10)
    return refs, preds, np.array(scores)


def errors(pred: np.ndarray, human: np.ndarray) -> tuple[float, float]:
    """MSE and MAE of metric scores against human scores."""
    return float(np.mean((pred - human) ** 2)), float(np.mean(np.abs(pred - human)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--ratings", type=Path, default=Path("../shared/data/wrdscore-human"))
    parser.add_argument("--models", type=Path, default=Path("work-data/select"))
    parser.add_argument("--output", type=Path, default=Path("work-data/select/comparison.md"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    refs, preds, human = read_ratings(args.ratings)
    rouge = get_metric("rouge1").score(refs, preds)
    mse, mae = errors(rouge.values[rouge.primary], human)
    rows = [("ROUGE-1 F (no embeddings)", "-", "-", "-", mse, mae)]
    for label, params in CANDIDATES.items():
        folder = args.models / label.replace(" ", "-")
        if (folder / "model.json").is_file():
            emb = load_embeddings(folder)
        else:
            emb = train_embeddings(args.corpus, output=folder, seed=args.seed, **params)
        oovs = ("zero", "subword") if emb.has_subword else ("zero",)
        for weights, oov, clip in itertools.product(WEIGHTS, oovs, CLIP):
            metric = get_metric("wrd", embeddings=emb, weights=weights, oov=oov, clip=clip)
            mse, mae = errors(metric.score(refs, preds).f1, human)
            rows.append((label, weights, oov, "yes" if clip else "no", mse, mae))
            print(f"{label:24} {weights:9} {oov:8} clip={clip!s:5} MSE {mse:.4f} MAE {mae:.4f}")
    lines = [
        f"WRDScore F1 vs human score / 10 on all {len(human)} rated pairs (no bootstrap).",
        "",
        "| embeddings | weights | oov | clip | MSE | MAE |",
        "| --- | --- | --- | --- | ---: | ---: |",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e:.4f} | {f:.4f} |" for a, b, c, d, e, f in rows]
    with atomic_write(args.output) as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
