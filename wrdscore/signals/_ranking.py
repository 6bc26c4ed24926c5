"""Ranking signals: an AUC of positives against negatives, and name-to-summary retrieval."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.errors import WrdscoreError

Pair = tuple[str, str]
#: A scorer: references and predictions in, one value per pair out.
Scorer = Callable[[list[str], list[str]], NDArray[np.float64]]

_TEST_FOLDERS = {"test", "tests"}


def auc(pos: ArrayLike, neg: ArrayLike) -> float:
    """The chance that a random positive scores above a random negative, ties counting half.

    .. math:: \\mathrm{AUC} = P(s^+ > s^-) + \\tfrac12 P(s^+ = s^-)

    the area under the ROC curve of positives against negatives
    (:func:`sklearn.metrics.roc_auc_score`); 0.5 is chance.

    Parameters
    ----------
    pos, neg : array_like of float
        The scores of the positive and of the negative pairs (at least one each).

    Raises
    ------
    WrdscoreError
        No positives or no negatives.

    Examples
    --------
    >>> auc([0.9, 0.4], [0.5, 0.4])
    0.625
    """
    from sklearn.metrics import roc_auc_score  # 0.5 s to import: only when one is computed

    p, n = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    if not (p.size and n.size):
        raise WrdscoreError(f"an AUC needs positives and negatives, got {p.size} and {n.size}")
    labels = np.r_[np.ones(p.size), np.zeros(n.size)]
    return float(roc_auc_score(labels, np.r_[p, n]))


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
class Ranking:
    """How well each query's own text ranks first among its candidates.

    ``mrr`` is the mean of ``1 / rank`` of each query's own text, the rank being 1 + the
    candidates scoring above it + half of those scoring the same; ``auc`` is the chance
    that the own text scores above one of its query's other candidates, over every
    (query, other candidate) pair, ties half; ``auc_hard`` the same over the candidates
    marked hard (NaN when none is).
    """

    queries: int
    comparisons: int
    mrr: float
    auc: float
    hard_comparisons: int = 0
    auc_hard: float = float("nan")


def rank_first(
    scores: Sequence[ArrayLike], hard: Sequence[Sequence[bool]] | None = None
) -> Ranking:
    """Rank each query's own text (its first score) among its other candidates.

    Parameters
    ----------
    scores : sequence of array_like of float
        One array per query: the own text's score, then each other candidate's.
    hard : sequence of sequence of bool, optional
        Per query, which other candidates are hard negatives (for ``auc_hard``).

    Raises
    ------
    WrdscoreError
        No query, a query without other candidates, or ``hard`` of another shape.

    Examples
    --------
    >>> r = rank_first([[0.5, 0.9, 0.5], [0.7, 0.1]], hard=[[True, False], [False]])
    >>> r.mrr, r.auc, r.auc_hard
    (0.7, 0.5, 0.0)
    """
    if not scores:
        raise WrdscoreError("a ranking needs at least one query")
    flags = hard if hard is not None else [[False] * (len(np.asarray(s)) - 1) for s in scores]
    if len(flags) != len(scores):
        raise WrdscoreError(f"{len(scores)} queries but hard flags for {len(flags)}")
    reciprocal, wins, hard_wins = [], [], []
    for at, (values, marks) in enumerate(zip(scores, flags, strict=True)):
        v = np.asarray(values, dtype=np.float64)
        own, others = v[0], v[1:]
        if not others.size or len(marks) != others.size:
            raise WrdscoreError(
                f"query {at + 1}: {others.size} other candidates and {len(marks)} hard flags"
            )
        pair = np.where(own > others, 1.0, np.where(own == others, 0.5, 0.0))
        reciprocal.append(1.0 / (1.0 + others.size - pair.sum()))
        wins.append(pair)
        hard_wins.append(pair[np.asarray(marks, dtype=bool)])
    every, tough = np.concatenate(wins), np.concatenate(hard_wins)
    return Ranking(
        queries=len(scores),
        comparisons=int(every.size),
        mrr=float(np.mean(reciprocal)),
        auc=float(every.mean()),
        hard_comparisons=int(tough.size),
        auc_hard=float(tough.mean()) if tough.size else float("nan"),
    )


def retrieval(queries: Sequence[Query], score: Scorer) -> Ranking:
    """Score every query's name against its candidates and rank its own summary."""
    refs = [q.name for q in queries for _ in q.candidates]
    preds = [c for q in queries for c in q.candidates]
    values = score(refs, preds)
    bounds = np.cumsum([0] + [len(q.candidates) for q in queries])
    return rank_first([values[a:b] for a, b in pairwise(bounds)])
