"""Ranking signals: an AUC of positives against negatives, and name-to-summary retrieval."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
