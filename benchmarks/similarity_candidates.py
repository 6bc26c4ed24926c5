"""Issue 33's selection of a tuned default: every candidate on the held-out signals.

The rule and the candidates were written into ``docs/history.md`` before any was scored
("Tuning for similarity: the rule"). For each scorer, WRDScore F1 (default settings) on:

* **renames**: the held-out VarCLR renames against random and related negatives, as
  ``segment_renames.py`` draws them (seed 33);
* **abbreviations**: the held-out mined pairs against another pair's words, as
  ``abbreviation_cosines.py`` builds them;
* **opposites**: its synonym cases over its opposite cases.

Each AUC is printed with the 95% paired bootstrap interval of its difference against the
first scorer (the shipped default), items resampled together (1,000 draws, seed 33), and
the rule's verdict for each candidate. A scorer is ``label=MODEL_DIR`` (``label=default``
for the bundled model) or ``label=encoder:NAME_OR_PATH`` (WRDScore with ``--encoder``:
reported, never a candidate)::

    python benchmarks/similarity_candidates.py A=default B=TUNED_STATIC C=DISTILLED \\
        --abbreviations jdk17-abbr.tsv \\
        --reported untuned=encoder:sentence-transformers/all-MiniLM-L6-v2 tuned=encoder:TUNED
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from abbreviation_cosines import OPPOSITES, SYNONYMS, held_out_pairs, random_pairs
from numpy.typing import NDArray
from segment_renames import RENAMES, bootstrap_difference, negatives, read_held_out

from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.signals import auc

Pair = tuple[str, str]
Scorer = Callable[[list[Pair]], NDArray[np.float64]]


def scorer(spec: str) -> Scorer:
    """WRDScore F1 of pairs under ``spec`` (``default``, a MODEL_DIR or ``encoder:NAME``)."""
    if spec.startswith("encoder:"):
        metric = get_metric("wrd", encoder=spec.removeprefix("encoder:"))
    elif spec == "default":
        metric = get_metric("wrd")
    else:
        metric = get_metric("wrd", embeddings=spec)

    def score(pairs: list[Pair]) -> NDArray[np.float64]:
        res = metric.score([a for a, _ in pairs], [b for _, b in pairs])
        return np.asarray(res.f1, dtype=np.float64)

    return score


def paired(
    pos: tuple[NDArray[np.float64], NDArray[np.float64]],
    neg: tuple[NDArray[np.float64], NDArray[np.float64]],
) -> tuple[float, float, float]:
    """AUC(first) - AUC(second) and its 95% paired percentile bootstrap interval
    (``segment_renames.py``'s, items resampled together)."""
    lo, hi = bootstrap_difference(pos, neg)
    return auc(pos[0], neg[0]) - auc(pos[1], neg[1]), lo, hi


SIGNALS = ("renames, random", "renames, related", "abbreviations", "synonyms over opposites")


def better(diffs: dict[str, tuple[float, float, float]], opposites: float) -> bool:
    """The rule: one primary interval above 0, neither primary nor the related one below."""
    primary = [diffs["renames, random"], diffs["abbreviations"]]
    return (
        any(lo > 0 for _, lo, _ in primary)
        and not any(hi < 0 for _, _, hi in [*primary, diffs["renames, related"]])
        and opposites >= 0.5
    )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scorers", nargs="+", help="label=MODEL_DIR, label=default")
    ap.add_argument("--abbreviations", type=Path, required=True, help="mined TSV")
    ap.add_argument("--renames", type=Path, default=RENAMES)
    ap.add_argument("--reported", nargs="*", default=[], help="label=encoder:NAME (not ranked)")
    args = ap.parse_args(argv)
    for path, flag in ((args.abbreviations, "--abbreviations"), (args.renames, "--renames")):
        if not path.is_file():
            raise WrdscoreError(f"{flag} {path} is not a file")
    specs = dict(s.split("=", 1) for s in [*args.scorers, *args.reported])
    test, renamed = read_held_out(args.renames)
    held = held_out_pairs(args.abbreviations)
    cases: dict[str, tuple[list[Pair], list[Pair]]] = {
        "renames, random": (test, negatives(test, renamed, related=False)),
        "renames, related": (test, negatives(test, renamed, related=True)),
        "abbreviations": (held, random_pairs(held)),
        "synonyms over opposites": (SYNONYMS, OPPOSITES),
    }
    print(
        f"held-out renames {len(test)}, abbreviation pairs {len(held)}, "
        f"synonyms {len(SYNONYMS)}, opposites {len(OPPOSITES)}"
    )
    values = {}
    for label, spec in specs.items():
        score = scorer(spec)
        values[label] = {k: (score(p), score(n)) for k, (p, n) in cases.items()}
    first = next(iter(specs))
    print(f"| scorer | {' | '.join(SIGNALS)} | better than {first} |")
    print("|---|" + "---|" * (len(SIGNALS) + 1))
    for label in specs:
        cells, diffs = [], {}
        for k in SIGNALS:
            pos, neg = values[label][k]
            value = auc(pos, neg)
            if label == first:
                cells.append(f"{value:.4f}")
                continue
            diffs[k] = paired((pos, values[first][k][0]), (neg, values[first][k][1]))
            d, lo, hi = diffs[k]
            cells.append(f"{value:.4f} ({d:+.4f} [{lo:+.4f}, {hi:+.4f}])")
        if label == first:
            verdict = "-"
        elif label in dict(s.split("=", 1) for s in args.reported):
            verdict = "reported"
        else:
            opposites = auc(*values[label]["synonyms over opposites"])
            verdict = "yes" if better(diffs, opposites) else "no"
        print(f"| {label} | {' | '.join(cells)} | {verdict} |")


if __name__ == "__main__":
    try:
        main()
    except WrdscoreError as exc:
        raise SystemExit(f"error: {exc}") from None
