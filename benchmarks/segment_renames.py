"""Does segmentation hurt? Held-out rename AUC with and without it (issue 33 item 1).

The rule, fixed before anything was scored: segmentation stays on by default only if the
held-out rename AUC of the bundled default's WRDScore F1 with segmentation is at least as
high as without it, against both kinds of negatives below.

* Positives: the held-out part of the VarCLR renames
  (``/work/shared/data/varclr-renames/renames.tsv``, ``old<TAB>new``, sub-tokens separated
  by spaces), each pair given once. Held out is the rule the default's selection fixed
  (:func:`wrdscore.signals.split_renames`): a pair (either order) whose SHA-256 of its two
  names, sorted and joined by a tab, has first 8 bytes (big-endian) divisible by 5;
  about 20%, never used for tuning.
* Negatives, one per positive ``(a, b)``, seeded (:data:`SEED`): *random*, ``a`` with the
  new name of another held-out pair; *related*, with one sharing a sub-token with ``a``.
  Never ``b`` or ``a`` itself, never a pair someone renamed.
* AUC: the chance that a positive scores above a negative (ties half). The interval is
  a paired percentile bootstrap of the difference (on - off), positives and negatives
  resampled together, :data:`BOOTSTRAP` draws.

Only tokens the segmenter can change differ between the two settings (run-together
lower-case tokens the model lacks); the script also prints how many pairs have one.

Usage::

    python benchmarks/segment_renames.py [--renames PATH]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import segment
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.signals import auc, read_renames, split_renames

RENAMES = Path("/work/shared/data/varclr-renames/renames.tsv")
SEED = 33
BOOTSTRAP = 1000
Pair = tuple[str, str]


def read_held_out(path: Path) -> tuple[list[Pair], set[tuple[str, ...]]]:
    """The held-out pairs (each once, first order) and every rename, unordered."""
    renames = read_renames(path)
    _, test = split_renames(renames)
    return test, {tuple(sorted(p)) for p in renames}


def negatives(test: list[Pair], renamed: set[tuple[str, ...]], related: bool) -> list[Pair]:
    """One negative per positive where one can be drawn (see the module docstring)."""
    rng = np.random.default_rng(SEED)
    news = sorted({b for _, b in test})
    by_token: dict[str, list[str]] = defaultdict(list)
    for c in news:
        for tok in set(c.split()):
            by_token[tok].append(c)
    out = []
    for a, b in test:
        if related:
            pool = sorted({c for t in set(a.split()) for c in by_token[t]})
        else:
            pool = [news[int(i)] for i in rng.integers(len(news), size=20)]
        pool = [c for c in pool if c not in (a, b) and tuple(sorted((a, c))) not in renamed]
        if pool:
            out.append((a, pool[int(rng.integers(len(pool)))]))
    return out


def f1(pairs: list[Pair], segmented: bool) -> NDArray[np.float64]:
    metric = get_metric("wrd", segment=segmented)
    res = metric.score([a for a, _ in pairs], [b for _, b in pairs])
    return np.asarray(res.f1, dtype=np.float64)


def bootstrap_difference(
    pos: tuple[NDArray[np.float64], NDArray[np.float64]],
    neg: tuple[NDArray[np.float64], NDArray[np.float64]],
) -> tuple[float, float]:
    """95% percentile interval of AUC(on) - AUC(off), pairs resampled together."""
    rng = np.random.default_rng(SEED)
    diffs = []
    for _ in range(BOOTSTRAP):
        i = rng.integers(len(pos[0]), size=len(pos[0]))
        j = rng.integers(len(neg[0]), size=len(neg[0]))
        on = auc(pos[0][i], neg[0][j])
        off = auc(pos[1][i], neg[1][j])
        diffs.append(on - off)
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return float(lo), float(hi)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renames", type=Path, default=RENAMES)
    args = parser.parse_args()
    if not args.renames.is_file():
        raise SystemExit(f"error: {args.renames} is not a file (give --renames)")
    test, renamed = read_held_out(args.renames)
    changed = sum(
        segment(a.split()) != a.split() or segment(b.split()) != b.split() for a, b in test
    )
    print(f"held-out renames: {len(test)}; {changed} have a token segmentation splits")
    pos = (f1(test, True), f1(test, False))
    print("| negatives | n | AUC, segmented | AUC, --no-segment | on - off, 95% CI |")
    print("| --- | ---: | ---: | ---: | --- |")
    for related in (False, True):
        neg_pairs = negatives(test, renamed, related)
        neg = (f1(neg_pairs, True), f1(neg_pairs, False))
        on, off = auc(pos[0], neg[0]), auc(pos[1], neg[1])
        lo, hi = bootstrap_difference(pos, neg)
        kind = "related" if related else "random"
        interval = f"{on - off:+.4f} [{lo:+.4f}, {hi:+.4f}]"
        print(f"| {kind} | {len(neg_pairs)} | {on:.4f} | {off:.4f} | {interval} |")


if __name__ == "__main__":
    try:
        main()
    except WrdscoreError as exc:
        raise SystemExit(f"error: {exc}") from None
