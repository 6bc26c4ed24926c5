"""Untuned against tuned scorers on the paper's 150 rated pairs, for the model card.

Issue 20 asks whether `wrdscore tune` helps: each tuned scorer (contextual `wrd` over a
tuned encoder, or `wrd` over a tuned static model) against the untuned one it started
from, on the WRDScore paper's 150 pairs:

- every candidate on every set (Spearman / MSE / MAE), with ROUGE-1, and the fold
  protocol within each family (for each set held out, the candidate with the best
  Spearman on the other two is chosen and reported on the held-out set; ties go to the
  untuned scorer, listed first);
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
from scipy.stats import bootstrap, spearmanr

from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import Metric, get_metric
from wrdscore.significance import paired_bootstrap

KINDS = ("static", "encoder")
SYNONYMS = [("get", "fetch"), ("remove", "delete"), ("size", "count")]
OPPOSITES = [("get", "set"), ("add", "remove")]
RESAMPLES = 1000
BASELINE = "ROUGE-1 F"

Row = tuple[float, float, float]


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation."""
    return float(spearmanr(x, y)[0])


def errors_row(scores: np.ndarray, human: np.ndarray, mask: np.ndarray) -> Row:
    """Spearman, MSE and MAE of ``scores`` against ``human`` on the pairs in ``mask``."""
    err = scores[mask] - human[mask]
    return spearman(scores[mask], human[mask]), float(np.mean(err**2)), float(np.mean(np.abs(err)))


def fold_choices(
    scores: dict[str, np.ndarray], human: np.ndarray, sets: np.ndarray, candidates: list[str]
) -> list[tuple[str, str, float]]:
    """For each set held out (in name order): the candidate with the highest Spearman on
    the other sets, and that Spearman. Ties go to the candidate listed first."""
    folds = []
    for name in sorted(set(sets.tolist())):
        train = sets != name
        fits = {label: spearman(scores[label][train], human[train]) for label in candidates}
        best = max(candidates, key=fits.__getitem__)  # max keeps the first of equals
        folds.append((name, best, fits[best]))
    return folds


def fold_tables(
    scores: dict[str, np.ndarray], human: np.ndarray, sets: np.ndarray, baseline: str
) -> tuple[str, str]:
    """Two tables: every row on every set, and the folds.

    ``scores`` holds the baseline's and every candidate's per-pair scores, in the rows'
    order; the candidates are every key but ``baseline``.
    """
    names = sorted(set(sets.tolist()))
    label_of = {name: f"set {i}" for i, name in enumerate(names, 1)}
    everything = np.ones(len(human), dtype=bool)
    header = [label_of[n] for n in names] + [f"all {len(human)}"]
    lines = ["| candidate | " + " | ".join(header) + " |", "| --- |" + " ---: |" * len(header)]
    for label, s in scores.items():
        cells = [errors_row(s, human, sets == name) for name in names]
        cells.append(errors_row(s, human, everything))
        shown = f"{baseline} (no embeddings)" if label == baseline else label
        lines.append(
            f"| {shown} | " + " | ".join(f"{r:.3f} / {m:.4f} / {a:.4f}" for r, m, a in cells) + " |"
        )
    every = "\n".join(lines)
    candidates = [label for label in scores if label != baseline]
    lines = [
        "| held out | chosen on the other two | Spearman there | held-out Spearman "
        f"| held-out MSE | held-out MAE | {baseline.split()[0]} held out (Spearman / MSE / MAE) |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, best, fit in fold_choices(scores, human, sets, candidates):
        r, m, a = errors_row(scores[best], human, sets == name)
        br, bm, ba = errors_row(scores[baseline], human, sets == name)
        lines.append(
            f"| {label_of[name]} | {best} | {fit:.3f} | {r:.3f} | {m:.4f} | {a:.4f} "
            f"| {br:.3f} / {bm:.4f} / {ba:.4f} |"
        )
    return every, "\n".join(lines)


def bootstrap_differences(
    tuned: np.ndarray, untuned: np.ndarray, human: np.ndarray, resamples: int, seed: int = 0
) -> dict[str, tuple[float, float, float]]:
    """Tuned minus untuned Spearman, MSE and MAE: the point value and a 95% percentile
    interval over ``resamples`` resamplings of the pairs (the same pairs for both).

    MSE and MAE are means of per-pair errors, so their differences are
    :func:`wrdscore.significance.paired_bootstrap`'s; Spearman is not a mean, so its
    difference is resampled by the scipy bootstrap that function runs, with the same
    seed and so the same resampled pairs.
    """
    out: dict[str, tuple[float, float, float]] = {}

    def rho_difference(a: np.ndarray, b: np.ndarray, h: np.ndarray) -> float:
        return spearman(a, h) - spearman(b, h)

    res = bootstrap(
        (tuned, untuned, human),
        rho_difference,
        paired=True,
        vectorized=False,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    interval = res.confidence_interval
    out["spearman"] = (
        rho_difference(tuned, untuned, human),
        float(interval.low),
        float(interval.high),
    )
    for name, error in (("mse", np.square), ("mae", np.abs)):
        diff = paired_bootstrap(
            error(tuned - human), error(untuned - human), resamples=resamples, seed=seed
        )
        out[name] = (diff.difference, diff.ci_low, diff.ci_high)
    return out


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
            diff = bootstrap_differences(scores[label], scores[untuned], human, args.resamples)
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
