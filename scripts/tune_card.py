"""Untuned against tuned scorers on the paper's 150 rated pairs, for the model card.

Issue 20 asks whether `wrdscore tune` helps: each tuned scorer (contextual `wrd` over a
tuned encoder, or `wrd` over a tuned static model) against the untuned one it started
from, on the WRDScore paper's 150 pairs:

- every candidate on every set (Spearman / MSE / MAE), with ROUGE-1, and the fold
  protocol of ``select_default.py`` within each family (choose on two sets by Spearman,
  report the held-out set; ties go to the untuned scorer, listed first);
- the paired bootstrap of tuned minus untuned (the same resampled pairs for both):
  Spearman, MSE and MAE differences with 95% percentile intervals;
- the cases: WRDScore F1 of one-word pairs, synonyms (`get`/`fetch`, `remove`/`delete`,
  `size`/`count`) against opposites (`get`/`set`, `add`/`remove`). Tuning never trains on
  these: they link words of rated pairs, which `tune` holds out.

Usage::

    python scripts/tune_card.py static:untuned=default \\
        static:renames=work-data/tune/static-renames \\
        encoder:untuned=sentence-transformers/all-MiniLM-L6-v2 \\
        encoder:renames=work-data/tune/ctx-renames

The first candidate of each kind is that kind's untuned scorer.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

# Run as a script, this folder is on sys.path: the fold protocol has one home.
from select_default import BASELINE, errors_row, fold_tables, spearman

from wrdscore import get_metric
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import Metric

KINDS = ("static", "encoder")
SYNONYMS = [("get", "fetch"), ("remove", "delete"), ("size", "count")]
OPPOSITES = [("get", "set"), ("add", "remove")]
RESAMPLES = 1000


def paired_bootstrap(
    tuned: np.ndarray, untuned: np.ndarray, human: np.ndarray, resamples: int, seed: int = 0
) -> dict[str, tuple[float, float, float]]:
    """Tuned minus untuned Spearman, MSE and MAE: the point value and a 95% percentile
    interval over ``resamples`` resamplings of the pairs (the same pairs for both)."""
    rng = np.random.default_rng(seed)
    n = len(human)

    def measures(idx: np.ndarray) -> np.ndarray:
        a, b, h = tuned[idx], untuned[idx], human[idx]
        return np.array(
            [
                spearman(a, h) - spearman(b, h),
                np.mean((a - h) ** 2) - np.mean((b - h) ** 2),
                np.mean(np.abs(a - h)) - np.mean(np.abs(b - h)),
            ]
        )

    point = measures(np.arange(n))
    draws = np.array([measures(rng.integers(0, n, n)) for _ in range(resamples)])
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return {
        name: (float(point[i]), float(low[i]), float(high[i]))
        for i, name in enumerate(("spearman", "mse", "mae"))
    }


def scorer(kind: str, path: str) -> Metric:
    """WRDScore over a static model, or over an encoder's contextual states."""
    if kind == "static":
        return get_metric("wrd", embeddings=path)
    return get_metric("wrd", encoder=path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", metavar="KIND:LABEL=PATH")
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    args = parser.parse_args()
    try:
        report(args)
    except WrdscoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def report(args: argparse.Namespace) -> None:
    families: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}
    for spec in args.candidates:
        kind, _, rest = spec.partition(":")
        label, sep, path = rest.partition("=")
        if kind not in KINDS or not (label and sep and path) or label in families[kind]:
            raise WrdscoreError(f"{spec!r}: expected a new static:LABEL=PATH or encoder:LABEL=PATH")
        families[kind][label] = path
    pairs = load_paper_ratings()
    refs, preds, human = list(pairs.references), list(pairs.predictions), pairs.human
    sets = np.array(pairs.sets)
    rouge = get_metric("rouge1").score(refs, preds)
    rouge_scores = np.asarray(rouge.values[rouge.primary])
    everything = np.ones(len(human), dtype=bool)
    cases: dict[str, list[float]] = {}
    for kind, models in families.items():
        if not models:
            continue
        scores = {BASELINE: rouge_scores}
        for label, path in models.items():
            metric = scorer(kind, path)
            scores[label] = metric.score(refs, preds).f1
            a = [w for w, _ in SYNONYMS + OPPOSITES]
            b = [w for _, w in SYNONYMS + OPPOSITES]
            cases[f"{kind} {label}"] = metric.score(a, b).f1.tolist()
        every, folds = fold_tables(scores, human, sets, BASELINE)
        print(f"## {kind}: every candidate on every set (Spearman / MSE / MAE)\n\n{every}\n")
        print(f"Folds: choose on two sets by Spearman.\n\n{folds}\n")
        untuned, *tuned = models
        print(f"Paired bootstrap, tuned minus {untuned} ({args.resamples} resamples, seed 0):\n")
        print("| tuned | Spearman | MSE | MAE | all 150: Spearman / MSE / MAE |")
        print("| --- | --- | --- | --- | --- |")
        for label in tuned:
            diff = paired_bootstrap(scores[label], scores[untuned], human, args.resamples)
            cells = [f"{p:+.3f} [{lo:+.3f}, {hi:+.3f}]" for p, lo, hi in diff.values()]
            r, m, e = errors_row(scores[label], human, everything)
            print(f"| {label} | " + " | ".join(cells) + f" | {r:.3f} / {m:.4f} / {e:.4f} |")
        print()
    header = [f"{a}/{b}" for a, b in SYNONYMS + OPPOSITES]
    print("Cases: WRDScore F1 of one-word pairs (synonyms, then opposites).\n")
    print("| scorer | " + " | ".join(header) + " | every synonym above every opposite |")
    print("| --- |" + " ---: |" * len(header) + " --- |")
    k = len(SYNONYMS)
    for label, values in cases.items():
        above = "yes" if min(values[:k]) > max(values[k:]) else "no"
        print(f"| {label} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {above} |")


if __name__ == "__main__":
    main()
