"""BLEU and chrF through sacrebleu, the metrics code-summarisation studies report.

Both score the text ``" ".join(tokens)``: each side's sub-tokens from the shared
splitter (:func:`wrdscore.corpora.to_tokens`) joined by single spaces, so
``getUserName`` is fed to sacrebleu as ``"get user name"`` and the summary
``"Returns the user's name."`` as ``"returns the user s name"``. Identifiers have no
words but their sub-tokens, and this makes BLEU's n-grams sub-token n-grams, as
ROUGE-1 and the sub-token F1 here count them. The numbers are sacrebleu's own for that
text (sacrebleu's default ``13a`` tokenizer leaves it unchanged), on a 0-1 scale
(sacrebleu's score / 100, float noise above 1 clipped) like every metric of the family.

- ``bleu``: per pair sacrebleu's sentence BLEU (``sentence_bleu``: smoothing ``exp``,
  effective order); for the corpus sacrebleu's corpus BLEU (``corpus_bleu``: n-gram
  counts and lengths summed over the pairs, then one BLEU), not a mean of sentence
  scores. ``smooth="codexglue"`` gives CodeXGLUE code-to-text's smoothed BLEU-4
  instead, per pair and as its mean over pairs, as CodeXGLUE reports it.
- ``chrf``: per pair sacrebleu's sentence chrF, for the corpus its corpus chrF
  (character n-gram statistics summed over the pairs); ``word_order=2`` gives chrF++.

With alternative references a pair scores as its best alternative, as for every metric
here, and the corpus value uses each pair's best alternative as its one reference; that
is not sacrebleu's multi-reference BLEU, which pools n-gram counts over references.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sacrebleu.metrics import BLEU, CHRF

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

BLEU_SMOOTHING = ("exp", "codexglue")


def codexglue_bleu(
    correct: Sequence[int], total: Sequence[int], sys_len: int, ref_len: int
) -> float:
    """CodeXGLUE code-to-text's smoothed sentence BLEU-4, on 0-1, from n-gram statistics.

    CodeXGLUE's evaluator (after Lin and Och 2004) adds one to the matched and the
    predicted n-gram counts of orders 2-4 (not unigrams), takes the geometric mean of
    the four precisions, and uses a brevity penalty with one added to both lengths::

        p_1 = c_1 / t_1,   p_n = (c_n + 1) / (t_n + 1)  for n = 2..4
        BP  = exp(min(0, 1 - (r + 1) / (c + 1)))
        BLEU = BP * exp(mean_n ln p_n)

    This is sacrebleu's ``add-k`` smoothing with ``k = 1``
    (:meth:`sacrebleu.metrics.BLEU.compute_bleu`) given the lengths plus one. Where no
    unigram matches, sacrebleu returns 0 and CodeXGLUE ``exp(-177)`` or less (it adds
    the smallest float to the count before taking logs): they differ below 1e-76.

    Parameters
    ----------
    correct, total : sequence of 4 int
        Matched and predicted n-gram counts, orders 1-4 (sacrebleu's ``counts`` and
        ``totals``).
    sys_len, ref_len : int
        Prediction and reference lengths in tokens.

    Examples
    --------
    ``"get name"`` against ``"get user name"``: p = (2/2, 1/2, 1/1, 1/1), BP =
    exp(1 - 4/3):

    >>> round(codexglue_bleu([2, 0, 0, 0], [2, 1, 0, 0], 2, 3), 6)
    0.602529
    """
    score = BLEU.compute_bleu(
        list(correct), list(total), sys_len + 1, ref_len + 1, smooth_method="add-k", smooth_value=1
    )
    return score.score / 100.0


def _text(tokens: Tokens) -> str:
    return " ".join(tokens)


def _unit(value: float) -> float:
    # sacrebleu gives 100.00000000000004 for some identical names (a geometric mean of
    # 100s in floating point); the family's values stay within [0, 1].
    return min(value, 1.0)


def _sacrebleu_fields(signature: object) -> dict[str, str]:
    """sacrebleu's signature (``nrefs:1|case:mixed|...``) as ordered fields."""
    return dict(part.split(":", 1) for part in str(signature).split("|"))


class _StatsValues(dict):  # type: ignore[type-arg]
    """Per-pair values that also carry the batch's summed sacrebleu statistics.

    The streaming engine adds up :meth:`Metric._corpus_sums` of every chunk's values;
    these statistics (n-gram and length counts) add up over chunks exactly as over
    pairs, so the corpus value is sacrebleu's for the whole input, chunked or not.
    """

    stats: list[int]


_Memo = dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[list[int], float]]

# The memo of each running :meth:`_SacreMetric._score` call, by the id of its metric, in
# this context (thread or task): per call, not on the object, so a call made from inside
# another (a progress callback) or from another thread neither clears the other's memo
# nor ends its scoring (issue 35: metric objects reentrant). A new mapping per call, as
# in wrdscore.metrics._call.
_MEMOS: ContextVar[Mapping[int, _Memo]] = ContextVar(
    "wrdscore_sacre_memos", default=MappingProxyType({})
)


class _SacreMetric(Metric):
    """One value per pair from a sacrebleu metric; the corpus value from sacrebleu too.

    Subclasses set ``_pair_metric`` (scores a pair from its statistics) and
    ``_corpus_metric`` (the corpus value from summed statistics, or None for the
    mean over pairs). Both are sacrebleu objects, fed the joined sub-tokens.
    """

    keys = ("score",)
    primary = "score"
    _pair_metric: Any
    _corpus_metric: Any

    def __init__(self, embeddings: object = None, **options: Any) -> None:
        super().__init__(**options)

    @property
    def _memo(self) -> _Memo | None:
        """The running :meth:`_score` call's memo in this context; None outside one."""
        return _MEMOS.get().get(id(self))

    @contextlib.contextmanager
    def _memoising(self) -> Iterator[None]:
        """A fresh memo for the ``with`` block, this context's alone (see ``_MEMOS``)."""
        token = _MEMOS.set({**_MEMOS.get(), id(self): {}})
        try:
            yield
        finally:
            _MEMOS.reset(token)

    def _stats(self, ref: Tokens, pred: Tokens) -> tuple[list[int], float]:
        """sacrebleu's statistics of one pair and its value on 0-1 (memoised per call)."""
        memo = self._memo
        key = (tuple(ref), tuple(pred))
        found = None if memo is None else memo.get(key)
        if found is None:
            # What sacrebleu's sentence_score does, keeping the statistics for the corpus.
            # These two methods are sacrebleu's internals (hence sacrebleu<3 in the
            # dependencies); tests compare every value with its public sentence_bleu,
            # corpus_bleu, sentence_chrf and corpus_chrf.
            stats = self._pair_metric._extract_corpus_statistics([_text(pred)], [[_text(ref)]])[0]
            found = (stats, _unit(self._value(stats)))
            if memo is not None:
                memo[key] = found
        return found

    def _value(self, stats: list[int]) -> float:
        """The per-pair value on 0-1 from a pair's statistics."""
        return self._pair_metric._compute_score_from_stats(stats).score / 100.0

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, NDArray]:
        out = np.fromiter(
            (self._stats(r, p)[1] for r, p in zip(refs, preds, strict=True)),
            dtype=np.float64,
            count=len(refs),
        )
        self._advance(len(refs))
        return {"score": out}

    def _score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        **kwargs: Any,
    ) -> ScoreResult:
        """Score as :meth:`Metric.score`; the corpus value is sacrebleu's over all pairs.

        Every pair counts in the corpus value, empty predictions included (they add
        their reference's length), each against the alternative that scored it.
        """
        # Read twice below: an iterator would be empty the second time.
        references, predictions = list(references), list(predictions)
        with self._memoising():
            res = super()._score(references, predictions, **kwargs)
            total: list[int] | None = None
            for i, (ref, pred) in enumerate(zip(references, predictions, strict=True)):
                pred_tokens = self.tokens(pred, prediction=True)
                chosen = self._chosen(alternatives(ref, i, self.segment), pred_tokens)
                stats = self._stats(chosen, pred_tokens)[0]
                total = (
                    list(stats)
                    if total is None
                    else [a + b for a, b in zip(total, stats, strict=True)]
                )
        values = _StatsValues(res.values)
        values.stats = total or []
        return replace(res, values=values, corpus=self._corpus(values))

    def _chosen(self, options: list[Tokens], pred: Tokens) -> Tokens:
        """The alternative a pair scored as: the highest value, the first on ties."""
        if len(options) == 1 or not pred:
            return next((a for a in options if a), options[0])
        best, best_value = options[0], -math.inf
        for alt in options:
            if alt:
                value = self._stats(alt, pred)[1]
                if value > best_value:
                    best, best_value = alt, value
        return best

    def _corpus_sums(self, values: dict[str, NDArray[np.float64]]) -> dict[str, float]:
        sums = super()._corpus_sums({"score": values["score"]})
        for k, v in enumerate(getattr(values, "stats", [])):
            sums[f"stat{k}"] = float(v)
        return sums

    def _corpus_from_sums(self, sums: dict[str, float], pairs: int) -> dict[str, float]:
        if self._corpus_metric is None or (self._memo is not None and "stat0" not in sums):
            # codexglue's mean; or Metric.score's first pass, before score() above has
            # attached the statistics (that value is replaced, never returned).
            return {"score": sums["score"] / pairs}
        if "stat0" not in sums:
            # A mean of sentence scores is not corpus BLEU/chrF: never pass one off as it.
            raise RuntimeError(f"metric {self.name!r}: corpus value without its statistics")
        stats = [int(sums[f"stat{k}"]) for k in range(len(sums) - 1)]
        value = self._corpus_metric._compute_score_from_stats(stats).score / 100.0
        if not math.isfinite(value):
            raise RuntimeError(f"metric {self.name!r} returned a bad corpus value")
        return {"score": _unit(value)}


@register
class Bleu(_SacreMetric):
    """BLEU through sacrebleu: sentence BLEU per pair, corpus BLEU for the set.

    Parameters
    ----------
    smooth : {"exp", "codexglue"}
        ``exp`` (default): sacrebleu's ``sentence_bleu`` per pair (its default
        smoothing, effective n-gram order) and ``corpus_bleu`` for the corpus.
        ``codexglue``: CodeXGLUE's smoothed BLEU-4 per pair (:func:`codexglue_bleu`)
        and, as CodeXGLUE reports it, the mean over pairs for the corpus.

    Corpus BLEU-4 is 0 when no prediction has 4 sub-tokens (no 4-gram to match):
    sacrebleu's answer for short names, where ``codexglue`` or ``chrf`` say more.

    Examples
    --------
    >>> res = Bleu().score(["getUserNameById", "size"], ["get user name by id", "get size"])
    >>> res.scores.round(4).tolist(), round(res.corpus["score"], 4)
    ([1.0, 0.5], 0.91)
    >>> Bleu().score(["getUserName", "size"], ["get user name", "get size"]).corpus
    {'score': 0.0}
    >>> Bleu(smooth="codexglue").score(["getUserName"], ["get name"]).scores.round(4).tolist()
    [0.6025]
    """

    name = "bleu"
    no_code_reason = (
        "its n-gram precisions need the prediction's word order in the reference, and its "
        "brevity penalty compares lengths: against a method's code neither means anything; "
        "use rouge1 or subtoken"
    )

    def __init__(self, embeddings: object = None, *, smooth: str = "exp", **options: Any) -> None:
        super().__init__(**options)
        if smooth not in BLEU_SMOOTHING:
            raise WrdscoreError(
                f"bleu: unknown smoothing {smooth!r}; choose one of {', '.join(BLEU_SMOOTHING)}"
            )
        self.smooth = smooth
        # What sacrebleu.sentence_bleu uses. Under codexglue only its n-gram statistics
        # are read, which neither smoothing nor effective order changes.
        self._pair_metric = BLEU(effective_order=True)
        self._corpus_metric = None
        if smooth == "exp":
            self._corpus_metric = BLEU()  # what sacrebleu.corpus_bleu uses
            named = self._pair_metric
        else:
            named = BLEU(smooth_method="add-k", smooth_value=1)
        # sacrebleu only knows nrefs once it has scored something.
        named.corpus_score(["a"], [["a"]])
        self._fields = _sacrebleu_fields(named.get_signature())

    def _signature_fields(self) -> dict[str, str]:
        if self.smooth == "codexglue":
            # Only the statistics come from sacrebleu; BP and corpus are CodeXGLUE's.
            return {**self._fields, "bp": "codexglue", "corpus": "mean"}
        return {**self._fields, "corpus": "corpus_bleu"}

    def _value(self, stats: list[int]) -> float:
        if self.smooth == "codexglue":
            # sacrebleu's BLEU statistics: sys_len, ref_len, 4 matched, 4 predicted counts.
            return codexglue_bleu(stats[2:6], stats[6:10], stats[0], stats[1])
        return super()._value(stats)


@register
class Chrf(_SacreMetric):
    """chrF through sacrebleu: sentence chrF per pair, corpus chrF for the set.

    Parameters
    ----------
    word_order : int
        Word n-gram order: 0 (default) is chrF, 2 is chrF++ (sacrebleu's
        ``word_order``). Character order 6 and beta 2, sacrebleu's defaults.

    Examples
    --------
    >>> res = Chrf().score(["getUserName", "size"], ["get user name", "get size"])
    >>> res.scores.round(4).tolist(), round(res.corpus["score"], 4)
    ([1.0, 0.7907], 0.9694)
    """

    name = "chrf"
    no_code_reason = (
        "it is an F-score that weighs recall twice (beta 2), and recall of a whole "
        "method's characters is not what a name or summary is judged by; use rouge1 or subtoken"
    )

    def __init__(self, embeddings: object = None, *, word_order: int = 0, **options: Any) -> None:
        super().__init__(**options)
        if (
            isinstance(word_order, bool)
            or not isinstance(word_order, int)
            or not 0 <= word_order <= 6
        ):
            raise WrdscoreError(f"chrf: word_order must be an integer 0-6, got {word_order!r}")
        self.word_order = word_order
        self._pair_metric = self._corpus_metric = CHRF(word_order=word_order)
        self._pair_metric.corpus_score(["a"], [["a"]])
        self._fields = _sacrebleu_fields(self._pair_metric.get_signature())

    def _signature_fields(self) -> dict[str, str]:
        return {**self._fields, "corpus": "corpus_chrf"}
