"""Exact-match baselines over sub-tokens: ROUGE-1, ROUGE-L and code2seq's sub-token P/R/F1.

These need no embeddings: a predicted sub-token counts only when it is spelled
exactly like a reference sub-token. Tokens come from the shared splitter, so
``getUserName`` and ``get user name`` are the same three tokens.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from wrdscore.errors import WrdscoreError
from wrdscore.metrics._tokenise import alternatives
from wrdscore.metrics.base import (
    Metric,
    Prediction,
    Reference,
    ScoreResult,
    Tokens,
    register,
)

PRF = tuple[float, float, float]

SUBTOKEN_COUNTING = ("multiset", "code2seq")


def f_measure(precision: float, recall: float) -> float:
    """Harmonic mean ``2PR / (P + R)``, 0 when ``P + R = 0`` (never NaN).

    Examples
    --------
    >>> f_measure(0.5, 1.0)
    0.6666666666666666
    >>> f_measure(0.0, 0.0)
    0.0
    """
    total = precision + recall
    return 2.0 * precision * recall / total if total > 0 else 0.0


def _prf(hits: float, n_pred: int, n_ref: int) -> PRF:
    p = hits / n_pred if n_pred else 0.0
    r = hits / n_ref if n_ref else 0.0
    return p, r, f_measure(p, r)


def rouge1(reference: Sequence[str], prediction: Sequence[str]) -> PRF:
    """ROUGE-1 (Lin 2004) over sub-tokens: clipped unigram overlap.

    .. math::

        o = \\sum_t \\min(c_r(t), c_p(t)), \\quad P = o / m, \\quad R = o / l,
        \\quad F = 2PR / (P + R)

    with ``c_r``, ``c_p`` the token counts of the reference (length ``l``) and the
    prediction (length ``m``). Equal to Google's ``rouge-score`` package given the
    same tokens; an empty side scores 0.

    Returns
    -------
    (precision, recall, f1) : tuple of float

    Examples
    --------
    >>> rouge1(["get", "user", "name"], ["get", "name"])
    (1.0, 0.6666666666666666, 0.8)
    """
    overlap = sum((Counter(reference) & Counter(prediction)).values())
    return _prf(overlap, len(prediction), len(reference))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences.

    Examples
    --------
    >>> lcs_length(["a", "b", "c", "d"], ["b", "d", "c"])
    2
    """
    # One row of the classic dynamic-programming table is enough for the length.
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rougeL(reference: Sequence[str], prediction: Sequence[str]) -> PRF:
    """ROUGE-L (Lin 2004) over sub-tokens: longest common subsequence.

    .. math:: P = \\mathrm{LCS}(r, p) / m, \\quad R = \\mathrm{LCS}(r, p) / l, \\quad F = 2PR/(P+R)

    Unlike ROUGE-1 it rewards keeping the reference's token order.

    Examples
    --------
    >>> rougeL(["get", "user", "name"], ["name", "user"])
    (0.5, 0.3333333333333333, 0.4)
    """
    return _prf(lcs_length(reference, prediction), len(prediction), len(reference))


def _check_counting(counting: str) -> None:
    if counting not in SUBTOKEN_COUNTING:
        raise WrdscoreError(
            f"unknown sub-token counting {counting!r}; choose one of {', '.join(SUBTOKEN_COUNTING)}"
        )


def subtoken_counts(
    reference: Sequence[str], prediction: Sequence[str], counting: str = "multiset"
) -> tuple[int, int, int]:
    """True positives, false positives and false negatives of one pair.

    ``counting="multiset"`` (the default) is the sub-token multiset overlap:
    ``TP = sum_t min(c_r(t), c_p(t))``, ``FP = m - TP``, ``FN = l - TP``, so a
    repeated token only matches as often as it occurs on the other side.
    ``counting="code2seq"`` reproduces code2seq's evaluation code (Alon et al. 2019,
    ``update_per_subtoken_statistics`` in ``tech-srl/code2seq/model.py``): if the
    tokens concatenate to the same string, every reference token is a true positive;
    otherwise each predicted token found anywhere in the reference is a TP (else an
    FP), and each reference token absent from the prediction is an FN, i.e. repeated
    tokens count by membership. The two agree whenever no token repeats and the
    names do not concatenate to the same string; the multiset form is the default
    because it cannot reward repeating a correct token (``get get`` for ``get name``).

    Examples
    --------
    >>> subtoken_counts(["get", "name"], ["get", "get"])
    (1, 1, 1)
    >>> subtoken_counts(["get", "name"], ["get", "get"], counting="code2seq")
    (2, 0, 1)
    """
    _check_counting(counting)
    if counting == "multiset":
        tp = sum((Counter(reference) & Counter(prediction)).values())
        return tp, len(prediction) - tp, len(reference) - tp
    if "".join(reference) == "".join(prediction):
        return len(reference), 0, 0
    ref, pred = set(reference), set(prediction)
    tp = sum(t in ref for t in prediction)
    fn = sum(t not in pred for t in reference)
    return tp, len(prediction) - tp, fn


def subtoken_prf(tp: float, fp: float, fn: float) -> PRF:
    """Precision ``TP/(TP+FP)``, recall ``TP/(TP+FN)`` and F1, each 0 on a zero denominator.

    Applied to one pair's counts it gives the per-pair score; applied to counts summed
    over a data set it gives code2seq's corpus-level (micro-averaged) score.

    Examples
    --------
    >>> subtoken_prf(2, 0, 1)
    (1.0, 0.6666666666666666, 0.8)
    """
    p = tp / (tp + fp) if tp + fp > 0 else 0.0
    r = tp / (tp + fn) if tp + fn > 0 else 0.0
    return p, r, f_measure(p, r)


def subtoken(
    reference: Sequence[str], prediction: Sequence[str], counting: str = "multiset"
) -> PRF:
    """code2seq's sub-token precision, recall and F1 of one pair.

    .. math:: P = TP / (TP + FP), \\quad R = TP / (TP + FN), \\quad F = 2PR / (P + R)

    with the counts of :func:`subtoken_counts`. For a whole data set code2seq sums
    TP, FP and FN over all pairs first (a micro average), which is what the
    ``subtoken`` metric reports as its corpus score.

    Examples
    --------
    >>> subtoken(["get", "user", "name"], ["get", "name"])
    (1.0, 0.6666666666666666, 0.8)
    >>> subtoken(["set", "up"], ["setup"], counting="code2seq")
    (1.0, 1.0, 1.0)
    """
    return subtoken_prf(*subtoken_counts(reference, prediction, counting))


def micro_prf(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> dict[str, float]:
    """Corpus precision, recall and F1 from per-pair counts summed first (code2seq).

    Examples
    --------
    >>> micro_prf(np.array([2, 0]), np.array([0, 2]), np.array([1, 1]))
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    p, r, f = subtoken_prf(float(np.sum(tp)), float(np.sum(fp)), float(np.sum(fn)))
    return {"precision": p, "recall": r, "f1": f}


class _TokenPairMetric(Metric):
    """A metric computed pair by pair from the two token lists by :meth:`_pair`."""

    @abstractmethod
    def _pair(self, ref: Tokens, pred: Tokens) -> tuple[float, ...]:
        """Values of one pair, in ``keys`` order."""

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, np.ndarray]:
        rows = np.array(
            [self._pair(r, p) for r, p in zip(refs, preds, strict=True)], dtype=np.float64
        )
        self._advance(len(refs))
        return {k: rows[:, j] for j, k in enumerate(self.keys)}


@register
class Rouge1(_TokenPairMetric):
    """ROUGE-1 precision, recall and F1 over sub-tokens (:func:`rouge1`); no embeddings.

    Examples
    --------
    >>> Rouge1().score(["getUserName"], ["get name"]).f1.tolist()
    [0.8]
    """

    name = "rouge1"
    code_key = "precision"

    def _pair(self, ref: Tokens, pred: Tokens) -> tuple[float, ...]:
        return rouge1(ref, pred)


@register
class RougeL(_TokenPairMetric):
    """ROUGE-L precision, recall and F1 over sub-tokens (:func:`rougeL`); no embeddings.

    Examples
    --------
    >>> RougeL().score(["getUserName"], ["name user"]).f1.tolist()
    [0.4]
    """

    name = "rougeL"
    no_code_reason = (
        "its longest common subsequence rewards the reference's token order, and a "
        "method's code has no order a name follows; use rouge1 or subtoken"
    )

    def _pair(self, ref: Tokens, pred: Tokens) -> tuple[float, ...]:
        return rougeL(ref, pred)


@register
class Subtoken(_TokenPairMetric):
    """code2seq's sub-token precision, recall and F1 (:func:`subtoken`); no embeddings.

    Per pair it gives :func:`subtoken`; besides P/R/F1 the values carry each pair's
    ``tp``, ``fp`` and ``fn`` counts, and the corpus score is code2seq's micro
    average (:func:`micro_prf` of the summed counts), not the mean of per-pair F1.
    An empty prediction adds its reference tokens to FN, an empty reference (when
    allowed) adds the predicted tokens to FP, as in code2seq.

    Parameters
    ----------
    counting : {"multiset", "code2seq"}
        How tokens are counted, see :func:`subtoken_counts` (default ``"multiset"``).

    Examples
    --------
    >>> res = Subtoken().score(["getUserName", "isEmpty"], ["get name", "size"])
    >>> res.f1.tolist(), round(res.corpus["f1"], 4)
    ([0.8, 0.0], 0.5)
    """

    name = "subtoken"
    code_key = "precision"
    keys = ("precision", "recall", "f1", "tp", "fp", "fn")
    count_keys = ("tp", "fp", "fn")

    def __init__(self, embeddings: object = None, *, counting: str = "multiset", **options: Any):
        super().__init__(**options)
        _check_counting(counting)
        self.counting = counting

    def _signature_fields(self) -> dict[str, str]:
        return {"count": self.counting}

    def _pair(self, ref: Tokens, pred: Tokens) -> tuple[float, ...]:
        counts = subtoken_counts(ref, pred, self.counting)
        return (*subtoken_prf(*counts), *counts)

    def _corpus_from_sums(self, sums: dict[str, float], pairs: int) -> dict[str, float]:
        tp, fp, fn = sums["tp"], sums["fp"], sums["fn"]
        p, r, f = subtoken_prf(tp, fp, fn)
        return {"precision": p, "recall": r, "f1": f, "tp": tp, "fp": fp, "fn": fn}

    def _score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        **kwargs: Any,
    ) -> ScoreResult:
        """Score as :meth:`Metric.score`, counting empty sides as code2seq does."""
        # Read twice below: an iterator would be empty the second time.
        references, predictions = list(references), list(predictions)
        res = super()._score(references, predictions, **kwargs)
        # Pairs that never reached _score_tokens (an empty prediction, or no reference
        # alternative with tokens) still count their tokens: a missed name is all false
        # negatives. Such a pair scores 0 against every alternative, so it takes the
        # counts of the first, as ties do. A pair scored through any alternative keeps
        # the counts that alternative gave.
        values = {k: v.copy() for k, v in res.values.items()}
        for i, (ref, pred) in enumerate(zip(references, predictions, strict=True)):
            pred_tokens = self.tokens(pred, prediction=True)
            alts = alternatives(ref, i, self.segment)
            if not pred_tokens or not any(alts):
                counts = subtoken_counts(alts[0], pred_tokens, self.counting)
                values["tp"][i], values["fp"][i], values["fn"][i] = counts
        return replace(res, values=values, corpus=self._corpus(values))
