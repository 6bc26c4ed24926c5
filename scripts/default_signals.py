"""Signals without ratings for choosing a default model (issue 26), beside the paper's ratings.

For each MODEL_DIR (``default`` is the bundled model; ``label=PATH`` names one) and for
ROUGE-1 as a baseline, prints one table (the signals, defined below, were fixed before any
candidate was scored):

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

In detail, every signal asks whether a scorer puts a pair that should be alike above one
that should not, so each is an AUC (the chance that a random positive scores above a
random negative, ties counting half; 0.5 is chance) or a rank:

* **renames**: the held-out part of the VarCLR rename pairs (:func:`split_renames`)
  against (a) *random* pairs, each held-out name paired with the new name of another
  held-out pair, and (b) *related* pairs, each held-out name paired with the new name of
  another held-out pair that shares a sub-token with it (:func:`negative_pairs`);
* **synonyms above opposites**: one-word pairs people call interchangeable
  (:data:`SYNONYMS`) against pairs of opposite operations (:data:`OPPOSITES`), the case
  lists of ``scripts/tune_card.py`` and ``scripts/model_card_tables.py``;
* **name-to-summary retrieval** on Java projects no candidate was trained on: each
  documented method's name against the Javadoc summaries of the other methods of its
  class (:func:`retrieval_queries`), as a mean reciprocal rank and an AUC.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata, spearmanr
from sklearn.metrics import roc_auc_score

from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.embeddings import default_model_path
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import Metric, get_metric

Pair = tuple[str, str]
#: A scorer: references and predictions in, one value per pair out.
Scorer = Callable[[list[str], list[str]], NDArray[np.float64]]

#: The rule that splits the renames, fixed once: a pair (in either order) is held out when
#: the first 8 bytes of the SHA-256 of its two names, sorted and joined by a tab, read as a
#: big-endian integer, are 0 modulo 5 (about 20%); the rest is the tuning part.
HELD_OUT_MODULUS = 5
#: The seed of every draw below (the partners of the negative pairs).
SEED = 26

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

_TEST_FOLDERS = {"test", "tests"}


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


def held_out(a: str, b: str) -> bool:
    """Whether the rename pair ``a``/``b`` (either order) is in the held-out part.

    Examples
    --------
    >>> held_out("index", "idx") == held_out("idx", "index")
    True
    """
    key = "\t".join(sorted((a, b))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % HELD_OUT_MODULUS == 0


def read_renames(path: Path) -> list[Pair]:
    """The ``old<TAB>new`` lines of a renames file, in file order."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        a, b = line.split("\t")
        pairs.append((a, b))
    return pairs


def split_renames(pairs: Iterable[Pair]) -> tuple[list[Pair], list[Pair]]:
    """The tuning and held-out parts of rename pairs, each without repeats.

    A pair given twice, in either order, is kept once, in its first order and place, so
    both parts are sets of unordered pairs and no pair is in both.
    """
    seen: set[tuple[str, ...]] = set()
    tune: list[Pair] = []
    test: list[Pair] = []
    for a, b in pairs:
        key = tuple(sorted((a, b)))
        if key in seen:
            continue
        seen.add(key)
        (test if held_out(a, b) else tune).append((a, b))
    return tune, test


def pairs_sha256(pairs: Sequence[Pair]) -> str:
    """SHA-256 of pairs written as ``a<TAB>b`` lines (the held-out part's fingerprint)."""
    return hashlib.sha256("".join(f"{a}\t{b}\n" for a, b in pairs).encode("utf-8")).hexdigest()


def negative_pairs(
    positives: Sequence[Pair], known: Iterable[Pair], *, related: bool, seed: int = SEED
) -> list[Pair]:
    """One negative pair per positive ``(a, b)`` where one can be drawn: ``(a, c)``.

    ``c`` is the new name of another positive, drawn uniformly with ``seed``: any such
    name (``related=False``), or one sharing at least one sub-token with ``a``
    (``related=True``). Never ``c == a`` or ``c == b``, and never a pair (either order)
    in ``known`` (every rename, so no negative is a rename someone made).
    """
    rng = np.random.default_rng(seed)
    renamed = {tuple(sorted(p)) for p in known}
    news = sorted({b for _, b in positives})
    by_token: dict[str, list[str]] = defaultdict(list)
    for c in news:
        for tok in set(c.split()):
            by_token[tok].append(c)

    def allowed(a: str, b: str, c: str) -> bool:
        return c not in (a, b) and tuple(sorted((a, c))) not in renamed

    out = []
    for a, b in positives:
        if related:
            # The related pools are small: filtered whole, then one drawn.
            pool = [
                c
                for c in sorted({c for t in set(a.split()) for c in by_token[t]})
                if allowed(a, b, c)
            ]
            if pool:
                out.append((a, pool[int(rng.integers(len(pool)))]))
            continue
        # In the big pool a few draws find an allowed partner.
        for _ in range(100):
            c = news[int(rng.integers(len(news)))]
            if allowed(a, b, c):
                out.append((a, c))
                break
    return out


def auc(pos: NDArray[np.float64], neg: NDArray[np.float64]) -> float:
    """P(pos > neg) + P(pos = neg) / 2: scikit-learn's ROC AUC of positives against negatives.

    Examples
    --------
    >>> auc(np.array([0.9, 0.4]), np.array([0.5, 0.4]))
    0.625
    """
    labels = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    return float(roc_auc_score(labels, np.r_[pos, neg]))


@dataclass(frozen=True)
class Query:
    """One documented method: its name, and the summaries it is ranked among.

    ``candidates[0]`` is its own summary; the rest are the other summaries of its class.
    """

    name: str
    candidates: tuple[str, ...]


def retrieval_queries(corpus_dir: Path | str) -> list[Query]:
    """The name-to-summary queries of a corpus.

    A method counts when it has a Javadoc summary and is not test code (a name starting
    with ``test``, or a file under a ``test``/``tests`` folder: their Javadoc is copied
    from case to case). Its candidates are the distinct summaries of the other counted
    methods of the same class (same file and type) whose names differ from its own
    (overloads share a name, and their summaries describe it too) and whose summary
    differs from its own. A method with no candidate left gives no query; a name and
    summary written twice in a class give one query.
    """
    by_class: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for r in open_corpus(corpus_dir).iter_methods():
        summary, name = r.get("summary"), str(r.get("name") or "")
        tokens = split_identifier(name)
        if not summary or not tokens or tokens[0] == "test":
            continue
        if _TEST_FOLDERS & set(str(r.get("path")).split("/")):
            continue
        by_class[(str(r.get("path")), str(r.get("type")))].append((name, str(summary)))
    queries = []
    for methods in by_class.values():
        for name, own in dict.fromkeys(methods):
            others = dict.fromkeys(s for n, s in methods if n != name and s != own)
            if others:
                queries.append(Query(name, (own, *others)))
    return queries


@dataclass(frozen=True)
class Retrieval:
    """Mean reciprocal rank and AUC of a scorer's name-to-summary ranking.

    ``mrr`` is the mean of ``1 / rank`` of each method's own summary among its
    candidates, the rank being 1 + the candidates scoring above it + half of those
    scoring the same; ``auc`` is the chance that a method's own summary scores above one
    of its other candidates, over every (method, other candidate) pair, ties half.
    """

    queries: int
    comparisons: int
    mrr: float
    auc: float


def retrieval(queries: Sequence[Query], score: Scorer) -> Retrieval:
    """Score every query's name against its candidates and rank its own summary."""
    refs = [q.name for q in queries for _ in q.candidates]
    preds = [c for q in queries for c in q.candidates]
    values = score(refs, preds)
    reciprocal, above, total, start = [], 0.0, 0, 0
    for q in queries:
        own, others = values[start], values[start + 1 : start + len(q.candidates)]
        start += len(q.candidates)
        higher, tied = float(np.sum(others > own)), float(np.sum(others == own))
        reciprocal.append(1.0 / (1.0 + higher + tied / 2))
        above += len(others) - higher - tied / 2
        total += len(others)
    return Retrieval(len(queries), total, float(np.mean(reciprocal)), above / total)


# --- the report ------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
RENAMES = ROOT.parent / "shared" / "data" / "varclr-renames" / "renames.tsv"
#: The held-out part of ``renames.tsv`` (sha256 of its ``old<TAB>new`` lines), so a
#: changed file or rule is noticed rather than scored.
HELD_OUT_SHA256 = "9089a3d0356907cab17ff663c9502717b01763dc7792c35bb5b6ae298d812c46"


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
    """ROUGE-1 and WRDScore F1 of every model, by label."""
    out: dict[str, Metric] = {"ROUGE-1 F": get_metric("rouge1")}
    for spec in specs:
        label, _, path = spec.rpartition("=")
        label = label or path
        if label in out:
            raise WrdscoreError(f"label {label!r} is given twice")
        out[label] = get_metric("wrd", embeddings=None if path == "default" else path, oov=oov)
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
