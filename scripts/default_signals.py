"""Signals without ratings for choosing a default model (issue 26), beside the paper's ratings.

For each MODEL_DIR (``default`` is the bundled model; ``label=PATH`` names one) and for
ROUGE-1 as a baseline, prints one table:

* renames: AUC of WRDScore F1 for held-out VarCLR renames against random pairs and
  against related pairs (sharing a sub-token);
* synonyms: AUC of the synonym cases against the opposite cases (the fraction of
  (synonym, opposite) combinations ordered right, ties half) and the difference of their
  means;
* retrieval: MRR and AUC of each method's own Javadoc summary among its class's others,
  per held-out project (each a corpus folder written by ``wrdscore ingest``);
* the WRDScore paper's 150 ratings: Spearman / MSE / MAE, reported, never used to choose.

The choice rule, written before the first score: each candidate (ROUGE-1 is not one) is
ranked on three signals, the mean of the two rename AUCs, the synonym AUC, and the mean
retrieval MRR over the projects (rank 1 the best, ties sharing the mean rank); the
candidate with the lowest mean rank is chosen, ties going to the one listed first
(list the smaller or simpler first). The ratings are not among them. A scorer named
with ``--reported LABEL`` (the shipped default, when it cannot be chosen) is scored
and shown but not ranked.

Usage::

    python scripts/default_signals.py default [label=MODEL_DIR ...] [--oov auto] \\
        [--renames ../shared/data/varclr-renames/renames.tsv] [--projects CORPUS_DIR ...] \\
        [--reported LABEL ...]

The projects of the model card's run are four Debian bookworm source packages outside the
training corpus (``commons-exec``, ``jasypt``, ``xom``, ``libjfreechart-java``), fetched
with ``apt-get source --download-only PKG`` through a private deb-src configuration as
``scripts/build_default_model.sh`` sets one up, and each ingested alone:
``wrdscore ingest PKG_*.orig.tar.* -o HELD_OUT/PKG``.

The signals are :mod:`wrdscore.signals`' (the rename split, negatives, retrieval and
AUC); the synonym and opposite cases are below. All were fixed before any candidate was
scored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
from scipy.stats import rankdata, spearmanr

from wrdscore.embeddings import default_model_path
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import Metric, get_metric
from wrdscore.signals import (
    auc,
    negative_pairs,
    pairs_sha256,
    read_renames,
    retrieval,
    retrieval_queries,
    split_renames,
)

Pair = tuple[str, str]

#: Interchangeable one-word pairs: ``scripts/tune_card.py``'s synonyms and the synonyms
#: and abbreviations of ``scripts/model_card_tables.py``'s token pairs.
SYNONYMS: list[Pair] = [
    ("get", "fetch"),
    ("remove", "delete"),
    ("size", "count"),
    ("size", "length"),
    ("init", "initialize"),
    ("num", "number"),
    ("cfg", "config"),
    ("blank", "empty"),
]
#: Opposite operations or ends, from the same two scripts.
OPPOSITES: list[Pair] = [
    ("get", "set"),
    ("add", "remove"),
    ("left", "right"),
    ("encode", "decode"),
    ("min", "max"),
]
ROOT = Path(__file__).resolve().parents[1]
RENAMES = ROOT.parent / "shared" / "data" / "varclr-renames" / "renames.tsv"
#: The held-out part of ``renames.tsv`` (sha256 of its ``old<TAB>new`` lines), so a
#: changed file or rule is noticed rather than scored.
HELD_OUT_SHA256 = "9089a3d0356907cab17ff663c9502717b01763dc7792c35bb5b6ae298d812c46"


def trained_cases(pairs_tsv: Path) -> list[str]:
    """The synonym and opposite cases among a model's specialisation pairs (its
    ``pairs.tsv``: ``kind<TAB>a<TAB>b...`` lines), as ``a/b kind``: on those the case
    signal measures whether specialisation took, not what carries over."""
    kinds = {}
    for line in pairs_tsv.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and not line.startswith("#"):
            kinds[frozenset(fields[1:3])] = fields[0]
    return [
        f"{a}/{b} {kinds[frozenset((a, b))]}"
        for a, b in SYNONYMS + OPPOSITES
        if frozenset((a, b)) in kinds
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="'default' or label=MODEL_DIR")
    parser.add_argument("--renames", type=Path, default=RENAMES)
    parser.add_argument(
        "--projects", type=Path, nargs="*", default=[], help="held-out corpus folders"
    )
    parser.add_argument("--oov", default="auto", help="the OOV policy of every WRDScore")
    parser.add_argument(
        "--reported", nargs="*", default=[], help="labels scored and shown, not ranked"
    )
    args = parser.parse_args()
    try:
        report(args)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


def scorers(specs: list[str], oov: str) -> dict[str, Metric]:
    """ROUGE-1 and WRDScore F1 of every model, by label, with names kept whole: the model
    card's signals were measured so, before segmentation became the default."""
    out: dict[str, Metric] = {"ROUGE-1 F": get_metric("rouge1", segment=False)}
    for spec in specs:
        label, _, path = spec.rpartition("=")
        label = label or path
        if label in out:
            raise WrdscoreError(f"label {label!r} is given twice")
        out[label] = get_metric(
            "wrd", embeddings=None if path == "default" else path, oov=oov, segment=False
        )
    return out


def values(metric: Metric, refs: list[str], preds: list[str]) -> np.ndarray:
    result = metric.score(refs, preds)
    return np.asarray(result.values[result.primary], dtype=np.float64)


def pair_values(metric: Metric, pairs: Sequence[Pair]) -> np.ndarray:
    """The metric's primary value of each ``(reference, prediction)`` pair."""
    return values(metric, [a for a, _ in pairs], [b for _, b in pairs])


def rename_aucs(
    metric: Metric, test: Sequence[Pair], random: Sequence[Pair], related: Sequence[Pair]
) -> tuple[float, float]:
    """AUC of the held-out renames against the random and the related negatives."""
    pos = pair_values(metric, test)
    return auc(pos, pair_values(metric, random)), auc(pos, pair_values(metric, related))


def report(args: argparse.Namespace) -> None:
    """Score every signal with every scorer and print the table."""
    if not args.renames.is_file():
        raise WrdscoreError(f"{args.renames} is not a file (give --renames)")
    metrics = scorers(args.models, args.oov)
    unknown = [k for k in args.reported if k not in metrics]
    if unknown:
        raise WrdscoreError(f"--reported {unknown[0]!r} is not one of the models' labels")
    queries = {p.name: retrieval_queries(p) for p in args.projects}
    renames = read_renames(args.renames)
    _, test = split_renames(renames)
    sha = pairs_sha256(test)
    if sha != HELD_OUT_SHA256:
        raise WrdscoreError(f"the held-out renames have sha256 {sha}, not {HELD_OUT_SHA256}")
    random = negative_pairs(test, renames, related=False)
    related = negative_pairs(test, renames, related=True)
    ratings = load_paper_ratings()
    print(
        f"renames: {len(test)} held out (sha256 {sha[:12]}), {len(random)} random and "
        f"{len(related)} related negatives; cases: {len(SYNONYMS)} synonyms, "
        f"{len(OPPOSITES)} opposites; retrieval: "
        + (", ".join(f"{k} {len(q)} queries" for k, q in queries.items()) or "no --projects")
        + f"; ratings: {len(ratings.human)} pairs\n"
    )
    header = [
        "renames AUC: random",
        "related",
        "synonyms > opposites",
        "margin",
        *(f"{k} MRR / AUC" for k in queries),
        "paper (Spearman / MSE / MAE)",
    ]
    lines = ["| scorer | " + " | ".join(header) + " |", "| --- |" + " ---: |" * len(header)]
    signals: dict[str, list[float]] = {}
    signatures = []
    for label, metric in metrics.items():
        a_rand, a_rel = rename_aucs(metric, test, random, related)
        syn, opp = pair_values(metric, SYNONYMS), pair_values(metric, OPPOSITES)
        scorer = partial(values, metric)
        found = {k: retrieval(q, scorer) for k, q in queries.items()}
        paper = values(metric, list(ratings.references), list(ratings.predictions))
        err = paper - ratings.human
        rho = float(spearmanr(paper, ratings.human)[0])
        cells = [
            f"{a_rand:.3f}",
            f"{a_rel:.3f}",
            f"{auc(syn, opp):.3f}",
            f"{syn.mean() - opp.mean():+.3f}",
            *(f"{r.mrr:.3f} / {r.auc:.3f}" for r in found.values()),
            f"{rho:.3f} / {np.mean(err**2):.4f} / {np.mean(np.abs(err)):.4f}",
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
        signatures.append(metric.signature)
        if label != "ROUGE-1 F" and label not in args.reported:
            # Without --projects the rule has two signals, and says so.
            mrr = [float(np.mean([r.mrr for r in found.values()]))] if found else []
            signals[label] = [(a_rand + a_rel) / 2, auc(syn, opp), *mrr]
    print("\n".join(lines))
    for s in signatures:
        print(f"<!-- {s} -->")
    for spec in args.models:
        label, _, path = spec.rpartition("=")
        pairs = (default_model_path() if path == "default" else Path(path)) / "pairs.tsv"
        if pairs.is_file():
            cases = trained_cases(pairs)
            print(
                f"\n{label or path}: {len(cases)} of {len(SYNONYMS) + len(OPPOSITES)} cases are "
                f"among its specialisation pairs ({', '.join(cases) or 'none'})"
            )
    print("\n" + choice(signals))


def choice(signals: dict[str, list[float]]) -> str:
    """The choice rule's ranks and its pick (module docstring)."""
    labels = list(signals)
    table = np.array([signals[k] for k in labels])
    # rankdata ranks ascending; higher is better on every signal.
    ranks = np.column_stack([rankdata(-table[:, j]) for j in range(table.shape[1])])
    mean = ranks.mean(axis=1)
    best = labels[int(np.argmin(mean))]  # argmin keeps the first of equals
    shown = ", ".join(f"{k} {m:.2f}" for k, m in zip(labels, mean, strict=True))
    over = "renames, synonyms, retrieval" if table.shape[1] == 3 else "renames, synonyms"
    return f"Mean rank over {over}: {shown}; chosen: **{best}**."


if __name__ == "__main__":
    main()
