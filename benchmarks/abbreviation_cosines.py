"""What the bundled default gets right and wrong: abbreviations, synonyms, opposites.

For the model card (issue 33 item 5). Cases, fixed before any was scored:

* **abbreviations**: the held-out part of the pairs ``wrdscore corpus abbreviations`` mines
  from a Java corpus (its ``part`` column; OpenJDK 17's ``src.zip`` for the card), each
  abbreviation against its words (``sb`` / ``string builder``), beside *random* pairs: the
  same abbreviation against the words of another held-out pair of another abbreviation
  (one each, seed :data:`SEED`);
* **synonyms** (:data:`SYNONYMS`) and **opposites** (:data:`OPPOSITES`): one-word pairs of
  general programming vocabulary, none of them a case of the default's selection
  (``get``/``fetch``, ``get``/``set``, ``left``/``right``, ``encode``/``decode``... are left
  out for that reason: several come from rated pairs).

No case is one of the 150 rated pairs or a pair of their differing words: mined pairs that
are (``num``/``number``) are dropped, and tests/test_abbreviation_cases.py checks it. A
pair's value is the default's WRDScore F1 (for one token against one, its cosine clipped at
0), with the default settings. AUC: the chance a positive scores above a negative (ties
half), with a percentile bootstrap interval
(:data:`BOOTSTRAP` draws).

Usage::

    wrdscore corpus abbreviations /usr/lib/jvm/openjdk-17/lib/src.zip -o jdk17-abbr.tsv
    python benchmarks/abbreviation_cosines.py jdk17-abbr.tsv
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import read_abbreviations
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.signals import auc, rated_cases

SEED = 33
BOOTSTRAP = 1000
Pair = tuple[str, str]

#: Words people use for the same operation or thing.
SYNONYMS: list[Pair] = [
    ("begin", "start"),
    ("finish", "end"),
    ("erase", "delete"),
    ("construct", "build"),
    ("retrieve", "fetch"),
    ("modify", "change"),
    ("halt", "stop"),
    ("verify", "check"),
    ("locate", "find"),
    ("append", "add"),
]
#: Opposite operations or ends: a name with one where the other belongs is wrong.
OPPOSITES: list[Pair] = [
    ("open", "close"),
    ("push", "pop"),
    ("lock", "unlock"),
    ("enable", "disable"),
    ("show", "hide"),
    ("connect", "disconnect"),
    ("increment", "decrement"),
    ("first", "last"),
    ("upper", "lower"),
    ("read", "write"),
]


def held_out_pairs(path: Path) -> list[Pair]:
    """The held-out (abbreviation, words) pairs of a mined TSV, in file order, less any
    that is a rated case (:func:`wrdscore.signals.rated_cases`; ``num``/``number`` in OpenJDK's)."""
    rated = rated_cases()
    return [
        (p.abbreviation, p.words)
        for p in read_abbreviations(path)
        if p.part == "held-out" and frozenset((p.abbreviation, p.words)) not in rated
    ]


def random_pairs(pairs: list[Pair]) -> list[Pair]:
    """Each abbreviation against the words of a pair of another abbreviation."""
    rng = np.random.default_rng(SEED)
    out = []
    for short, words in pairs:
        others = [w for s, w in pairs if s != short and w != words]
        out.append((short, others[int(rng.integers(len(others)))]))
    return out


def values(pairs: list[Pair]) -> NDArray[np.float64]:
    res = get_metric("wrd").score([a for a, _ in pairs], [b for _, b in pairs])
    return np.asarray(res.f1, dtype=np.float64)


def auc_interval(pos: NDArray[np.float64], neg: NDArray[np.float64]) -> tuple[float, float, float]:
    """AUC and its 95% percentile bootstrap interval."""
    rng = np.random.default_rng(SEED)
    draws = [
        auc(pos[rng.integers(len(pos), size=len(pos))], neg[rng.integers(len(neg), size=len(neg))])
        for _ in range(BOOTSTRAP)
    ]
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return auc(pos, neg), float(lo), float(hi)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path, help="TSV from `wrdscore corpus abbreviations`.")
    args = parser.parse_args()
    if not args.pairs.is_file():
        raise WrdscoreError(f"{args.pairs} is not a file")
    held = held_out_pairs(args.pairs)
    if len(held) < 2:
        raise WrdscoreError(f"{args.pairs} holds fewer than 2 held-out pairs")
    rand = random_pairs(held)
    pos, neg = values(held), values(rand)
    syn, opp = values(SYNONYMS), values(OPPOSITES)
    print(f"held-out abbreviation pairs: {len(held)} ({len({a for a, _ in held})} abbreviations)")
    print("| cases | n | mean F1 | median F1 |")
    print("| --- | ---: | ---: | ---: |")
    for label, v in (
        ("abbreviation / its words (held out)", pos),
        ("abbreviation / another pair's words", neg),
        ("synonyms", syn),
        ("opposites", opp),
    ):
        print(f"| {label} | {len(v)} | {v.mean():.3f} | {np.median(v):.3f} |")
    for label, (p, n) in (
        ("abbreviations over random", (pos, neg)),
        ("synonyms over opposites", (syn, opp)),
    ):
        a, lo, hi = auc_interval(p, n)
        print(f"AUC {label}: {a:.3f} [{lo:.3f}, {hi:.3f}]")
    order = np.argsort(pos)
    print(
        "lowest held-out pairs:",
        ", ".join(f"{held[i][0]}/{held[i][1]} {pos[i]:.2f}" for i in order[:8]),
    )
    print("highest:", ", ".join(f"{held[i][0]}/{held[i][1]} {pos[i]:.2f}" for i in order[::-1][:8]))
    for label, cases, v in (("synonyms", SYNONYMS, syn), ("opposites", OPPOSITES, opp)):
        print(
            f"{label}:", ", ".join(f"{a}/{b} {x:.2f}" for (a, b), x in zip(cases, v, strict=True))
        )


if __name__ == "__main__":
    try:
        main()
    except WrdscoreError as exc:
        raise SystemExit(f"error: {exc}") from None
