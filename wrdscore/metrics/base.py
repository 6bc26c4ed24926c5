"""What every metric shares: the base classes, results and the registry.

A metric subclasses :class:`Metric` (or :class:`EmbeddingMetric` when it reads token
vectors), implements :meth:`Metric._score_tokens` on a whole batch of token lists, and
registers itself with :func:`register` in its own module of :mod:`wrdscore.metrics`
(every public module there is imported on first use of the registry). Everything a
user can get wrong (lengths, shapes, empty names, unknown options) is checked once,
by the scoring engine (:mod:`wrdscore.metrics._engine`) or here, so each metric only
does its arithmetic.
"""

from __future__ import annotations

import importlib
import itertools
import math
import pkgutil
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import NDArray

from wrdscore import __version__
from wrdscore.corpora import DEFAULT_STRINGS, DEFAULT_TARGET, clean_prediction
from wrdscore.corpora._segment import WORDS_ID
from wrdscore.embeddings import OOV_POLICIES, TokenEmbeddings, load_embeddings
from wrdscore.errors import WrdscoreError, only_with
from wrdscore.metrics._centering import center, check_centering
from wrdscore.metrics._code import (
    CODE_KEYS,
    DEFAULT_CODE_WEIGHT,
    CodeItem,
    check_code_options,
    code_fields,
    refuse_code,
    score_with_code,
)
from wrdscore.metrics._engine import (
    FlatBatch,
    Prediction,
    Reference,
    Tokens,
    best_alternatives,
    degenerate_items,
    first_names,
    flatten,
    gc_paused,
    splitter,
)
from wrdscore.significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    BootstrapComparison,
    paired_bootstrap,
)

#: Distinct tokens an embedding metric keeps the rows of; past it the cache starts over,
#: so memory stays flat on streamed input (a model's vocabulary is far smaller).
CACHE_TOKENS = 500_000

if TYPE_CHECKING:
    # Imported when an encoder is asked for: the encoders subpackage is light, but
    # scoring without one should not even pay for that.
    from wrdscore.embeddings.encoders import ContextualVectors, Encoder


@dataclass
class ScoreResult:
    """Scores of a batch of (reference, prediction) pairs, per pair and for the corpus.

    Attributes
    ----------
    metric : str
        Registry name of the metric, e.g. ``"wrd"``.
    signature : str
        Every setting that changes the numbers, sacrebleu style
        (``"wrdscore|emb:jdk17-w2v-50@sha:1a2b3c4d|w:norm|...|v:0.1.0"``).
    values : dict of str to ndarray
        One float64 array per value (``precision``/``recall``/``f1`` or ``score``),
        one entry per pair.
    primary : str
        The key of the headline value.
    corpus : dict of str to float
        Corpus-level values, same keys as ``values``.
    oov_tokens : int
        Token occurrences not in the embeddings' vocabulary (0 for embedding-free metrics).
    oov_names : tuple of str
        The first few of those tokens in alphabetical order (:data:`OOV_NAMES` at most),
        to name them.
    empty_predictions : int
        Predictions without any token; they score 0.
    degenerate_pairs : int
        Pairs with a side whose token weights are all zero (e.g. only unseen tokens
        under ``oov="zero"``); they score 0.
    best_reference : ndarray of int64 or None
        Per pair, the 0-based number of the reference alternative its values come from
        (this metric's best: the highest primary value, the first on ties; the first
        where none was scored, as for an empty prediction); None when no reference of
        the batch is a list of alternatives.
    empty_code : int
        Scored against code: pairs whose code support had nothing to transport (code
        without tokens or token weight, e.g. only keywords and the masked name, or a
        prediction of only unseen tokens); their ``code`` value is 0.
    """

    metric: str
    signature: str
    values: dict[str, NDArray[np.float64]]
    primary: str
    corpus: dict[str, float]
    oov_tokens: int = 0
    empty_predictions: int = 0
    degenerate_pairs: int = 0
    oov_names: tuple[str, ...] = ()
    best_reference: NDArray[np.int64] | None = None
    empty_code: int = 0

    @property
    def scores(self) -> NDArray[np.float64]:
        """The headline value per pair (``values[primary]``)."""
        return self.values[self.primary]

    def _value(self, key: str) -> NDArray[np.float64]:
        if key not in self.values:
            raise AttributeError(f"metric {self.metric!r} has no {key}; it gives {self.primary}")
        return self.values[key]

    @property
    def precision(self) -> NDArray[np.float64]:
        """Per-pair precision (AttributeError for single-valued metrics)."""
        return self._value("precision")

    @property
    def recall(self) -> NDArray[np.float64]:
        """Per-pair recall (AttributeError for single-valued metrics)."""
        return self._value("recall")

    @property
    def f1(self) -> NDArray[np.float64]:
        """Per-pair F1 (AttributeError for single-valued metrics)."""
        return self._value("f1")

    def __len__(self) -> int:
        return len(self.scores)


class Metric(ABC):
    """Base class of every metric: validation, tokenisation, multi-reference, results.

    Subclasses set ``name`` (the registry name), ``keys`` and ``primary``, and
    implement :meth:`_score_tokens`. Options a subclass does not consume reach this
    constructor and are refused, so a misspelt option is an error, not ignored.

    Parameters
    ----------
    embeddings : TokenEmbeddings, path or None
        Ignored by metrics that need no embeddings (so every metric can be built the
        same way); see :class:`EmbeddingMetric` for those that do.
    code_weight : float
        Scoring against code (``score(..., code=...)``): the weight ``w`` of the code in
        ``combined = (1 - w) * primary + w * code``, from 0 to 1. The default 0.5 is the
        even mean of two independent views of what a method does, its reference and its
        code, neither known to be the better judge; chosen on that principle, not fitted
        (the repository's only ratings have no code).
    target : {"name", "summary"}
        What the predictions are; decides how code is read
        (:func:`wrdscore.corpora.read_code`: the declared name masked for names,
        comments removed for summaries).
    strings : {"drop", "keep"}
        String literals in code: left out, or split into words.
    segment : bool
        Split all-lowercase run-together sub-tokens (``getuserbyid`` -> ``get user by
        id``) of references and predictions into words (:func:`~wrdscore.corpora.segment`;
        signature ``seg:<word list>``, or ``seg:no`` when off).
    clean : bool
        Pass string predictions through :func:`~wrdscore.corpora.clean_prediction` (code
        fences, Javadoc markers and block tags, quotes, a trailing ``()``) before they
        are split, as chat models return them (signature ``clean:yes``).
    **options
        Metric settings; unknown ones raise :class:`~wrdscore.errors.WrdscoreError`.

    Examples
    --------
    >>> class Overlap(Metric):
    ...     name = "overlap-demo"
    ...     keys = ("score",)
    ...     primary = "score"
    ...     def _score_tokens(self, refs, preds):
    ...         return {"score": np.array([float(set(r) == set(p)) for r, p in zip(refs, preds)])}
    >>> Overlap().score(["getName", "size"], ["get name", "count"]).scores.tolist()
    [1.0, 0.0]
    """

    name: ClassVar[str]
    keys: ClassVar[tuple[str, ...]] = ("precision", "recall", "f1")
    primary: ClassVar[str] = "f1"
    #: Keys whose values are counts (whole numbers), not scores.
    count_keys: ClassVar[tuple[str, ...]] = ()
    #: Set by :func:`~wrdscore.metrics.score_files` for the length of a run: the items
    #: its earlier chunks tokenised (see ``memo`` in :func:`~wrdscore.metrics.flatten`).
    _token_memo: dict[str | tuple[str, ...], list[str]] | None = None
    #: First field of the signature; defaults to ``name``.
    label: ClassVar[str | None] = None
    #: Scored in the calling process only, never in forked workers: a loaded torch
    #: model cannot use CUDA after a fork, already uses every core, and counts it keeps
    #: (such as truncated inputs) would stay in the workers.
    in_process: bool = False
    #: Built only with a model of its own (bartscore's ``model`` option): code and tests
    #: that build every registered metric from its defaults leave it out.
    needs_model: ClassVar[bool] = False
    #: Whether 0 is the right score for an empty prediction (the worst a similarity in
    #: [0, 1] gives). Not for log-likelihoods (BARTScore), where 0 is the best: such a
    #: metric refuses empty predictions instead of ranking them first.
    empty_scores_zero: ClassVar[bool] = True
    #: Which of the metric's values against the code is its code support (the code's
    #: tokens on the reference side): ``"precision"`` for precision/recall metrics (the
    #: prediction matched onto the code), ``"score"`` for similarities; None when the
    #: metric cannot read code (:attr:`no_code_reason` says why).
    code_key: ClassVar[str | None] = None
    #: Why a metric with no :attr:`code_key` cannot read code (its one-line error).
    no_code_reason: ClassVar[str] = ""

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        code_weight: float = DEFAULT_CODE_WEIGHT,
        target: str = DEFAULT_TARGET,
        strings: str = DEFAULT_STRINGS,
        segment: bool = True,
        clean: bool = False,
        **options: Any,
    ) -> None:
        if options:
            raise WrdscoreError(
                f"unknown option(s) for metric {self.name!r}: {', '.join(sorted(options))}"
            )
        if (code_weight, target, strings) != (DEFAULT_CODE_WEIGHT, DEFAULT_TARGET, DEFAULT_STRINGS):
            check_code_options(code_weight, target, strings)
        #: Options of scoring against code (see :mod:`wrdscore.metrics._code`); they
        #: enter the signature only when code is read.
        self.code_weight = float(code_weight)
        self.target = target
        self.strings = strings
        check_flag("segment", segment)
        check_flag("clean", clean)
        self.segment, self.clean = segment, clean
        self._oov_count = 0
        self._oov_names: set[str] = set()
        # Set by _score_tokens: which scored entries (pair, alternative) had a side of
        # zero weights, so :meth:`_score_batch` can count the pairs all of whose
        # alternatives did.
        self._degenerate_entries: NDArray[np.bool_] | None = None
        self._progress: Callable[[int], None] | None = None

    # -- what subclasses provide ------------------------------------------------------

    @abstractmethod
    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, NDArray]:
        """Score non-empty token lists, the whole batch at once; one array per key."""

    def _signature_fields(self) -> dict[str, str]:
        """Settings that change the numbers, in signature order (subclasses extend)."""
        return {}

    def _corpus(self, values: dict[str, NDArray[np.float64]]) -> dict[str, float]:
        """Corpus-level values: :meth:`_corpus_values` of the values' sums."""
        return self._corpus_values(self._corpus_sums(values), len(next(iter(values.values()))))

    def _corpus_values(self, sums: dict[str, float], pairs: int) -> dict[str, float]:
        """Corpus values from summed :meth:`_corpus_sums`, the code's included.

        The reference's values are :meth:`_corpus_from_sums`'s; ``code`` is the mean
        code support, and ``combined`` mixes the corpus values as each pair's are mixed
        (for a metric whose corpus value is not a mean, such as subtoken's micro
        average, it is not the mean of the pairs' ``combined``).
        """
        reference = {k: v for k, v in sums.items() if k not in CODE_KEYS}
        out = self._corpus_from_sums(reference, pairs) if reference else {}
        if "code" in sums:
            out["code"] = sums["code"] / pairs
            if reference:
                w = self.code_weight
                out["combined"] = (1.0 - w) * out[self.primary] + w * out["code"]
        return out

    def _corpus_sums(self, values: dict[str, NDArray[np.float64]]) -> dict[str, float]:
        """Sums that corpus values are computed from; they add up over parts of a batch.

        The streaming engine scores a file in chunks and adds these up, so corpus
        values never need every pair in memory. Each sum is ``math.fsum`` (correctly
        rounded), so it does not depend on the order of the values within a chunk.
        """
        return {k: math.fsum(v.tolist()) for k, v in values.items()}

    def _corpus_from_sums(self, sums: dict[str, float], pairs: int) -> dict[str, float]:
        """Corpus values from summed :meth:`_corpus_sums`; the mean over pairs by default."""
        return {k: s / pairs for k, s in sums.items()}

    def prepare(self) -> None:
        """Import now what scoring would import on first use (nothing by default).

        The streaming engine calls it before forking worker processes, so that they
        share one import instead of each paying for its own.
        """
        return None

    def truncation_note(self) -> str:
        """A line saying how many inputs were cut at a model's maximum length ("" if none).

        Metrics that run a model (an encoder, BARTScore) count what they had to cut; the
        CLI prints this as a note, so truncation is never silent.
        """
        return ""

    @property
    def batch_centered(self) -> bool:
        """Whether scores center on the whole batch (``centering="batch"``).

        Only an :class:`EmbeddingMetric` can; the streaming engine then sums
        :meth:`EmbeddingMetric.batch_sums` over the whole input first.
        """
        return False

    def _advance(self, pairs: int) -> None:
        """Report ``pairs`` more pairs done to the caller's progress callback, if any."""
        if self._progress is not None:
            self._progress(pairs)

    # -- the public API ---------------------------------------------------------------

    def _output_fields(self) -> dict[str, str]:
        """Signature fields of what is done to the values after scoring (``rescale:yes``)."""
        return {}

    def _tokenising_fields(self) -> dict[str, str]:
        """Signature fields of how items become tokens (``seg``, and ``clean`` when on).

        Kept out of :meth:`_signature_fields`: rescaling baselines are keyed by those
        (:func:`baseline_key`), and were measured on camelCase names, which segmentation
        leaves as they are.
        """
        fields = {"seg": WORDS_ID if self.segment else "no"}
        if self.clean:
            fields["clean"] = "yes"
        return fields

    def tokens(self, item: Prediction, prediction: bool = False) -> Tokens:
        """The tokens this metric reads for one item (a ``prediction`` is cleaned first
        when ``clean`` is on), as :func:`~wrdscore.metrics.flatten` splits them."""
        if prediction and self.clean and isinstance(item, str):
            item = clean_prediction(item)
        return splitter(self.segment)(item)

    @property
    def signature(self) -> str:
        """``label|key:value|...|v:VERSION`` with every setting that changes the numbers."""
        return self._signature_with({})

    @property
    def code_signature(self) -> str:
        """:attr:`signature` of scoring against code: it adds that code was read, the code
        weight, the target, the masking and the string policy
        (``...|code:yes|cw:0.5|tgt:name|mask:name|str:drop|v:...``)."""
        return self._signature_with(code_fields(self))

    def _signature_with(self, extra: dict[str, str]) -> str:
        fields = {
            **self._signature_fields(),
            **self._tokenising_fields(),
            **self._output_fields(),
            **extra,
            "v": __version__,
        }
        return "|".join([self.label or self.name, *(f"{k}:{v}" for k, v in fields.items())])

    def check_reads_code(self) -> None:
        """A one-line error unless this metric, with its settings, can score against code."""
        refuse_code(self)

    def result_keys(self, code: bool = False, references: bool = True) -> tuple[str, ...]:
        """The values of a result (the per-pair columns): ``keys``, then ``code`` and
        ``combined`` when scored against code (only ``code`` without references)."""
        if not code:
            return tuple(self.keys)
        return (*self.keys, *CODE_KEYS) if references else ("code",)

    def score(
        self,
        references: Sequence[Reference] | None,
        predictions: Sequence[Prediction],
        *,
        code: Sequence[CodeItem] | None = None,
        allow_empty_reference: bool = False,
        progress: Callable[[int], None] | None = None,
        index_offset: int = 0,
    ) -> ScoreResult:
        """Score predictions against references and/or their methods' code.

        Parameters
        ----------
        references : sequence or None
            One item per pair: a raw identifier (``"getUserName"``), sub-tokens
            (``"get user name"``), free text, or a list of tokens. A list of lists is
            a set of alternative references; the pair scores as its best alternative
            (highest primary value, the first one on ties). None (reference-free
            scoring) only with ``code``.
        predictions : sequence
            One string or token list per pair.
        code : sequence, optional
            The code of each pair's method: its source text, or a mapping
            ``{"code": source, "name": declared_name}`` (the name masked when the
            metric's ``target`` is ``"name"``; by default the name the source
            declares). The result then also has ``code`` (the prediction's support
            in the code, see :attr:`code_key`) and, with references, ``combined``
            (``(1 - code_weight) * primary + code_weight * code``); without
            references its primary is ``code``. Its signature records the code options.
        allow_empty_reference : bool
            Score a reference without tokens as 0 instead of raising.
        progress : callable, optional
            Called with the number of pairs finished since the last call.
        index_offset : int
            Pairs before this batch, when it is a part of a larger input: error
            messages count items from it (``reference 100003 has no tokens``).

        Returns
        -------
        ScoreResult
            An empty prediction scores 0 on every value and is counted in
            ``empty_predictions``.

        Raises
        ------
        WrdscoreError
            Different lengths, no pairs, an item that is neither text nor a list of
            text, or an empty reference (unless allowed); with code, a metric that
            cannot read it, or code that cannot be read (empty, binary, over the cap).

        Examples
        --------
        >>> from wrdscore.embeddings import TokenEmbeddings
        >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6],
        ...                                     "items": [0.0, 1.0]})
        >>> res = get_metric("wrd", embeddings=emb).score(
        ...     ["size"], ["count"], code=["int size() { return items.count(); }"])
        >>> res.values["f1"].round(3).tolist(), res.values["code"].round(3).tolist()
        ([0.8], [0.8])
        >>> res.values["combined"].round(3).tolist()
        [0.8]
        """
        if code is not None:
            return score_with_code(
                self,
                references,
                predictions,
                code,
                allow_empty_reference=allow_empty_reference,
                progress=progress,
                index_offset=index_offset,
                result_type=ScoreResult,
            )
        if references is None:
            raise WrdscoreError("references may be None only when code is given (code=...)")
        return self._score(
            references,
            predictions,
            allow_empty_reference=allow_empty_reference,
            progress=progress,
            index_offset=index_offset,
        )

    def _score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        *,
        allow_empty_reference: bool = False,
        progress: Callable[[int], None] | None = None,
        index_offset: int = 0,
    ) -> ScoreResult:
        """:meth:`score` against references alone (subclasses extend this one)."""
        with gc_paused():
            return self._score_batch(
                references, predictions, allow_empty_reference, progress, index_offset
            )

    def _code_values(
        self, codes: list[Tokens], preds: list[Tokens]
    ) -> tuple[NDArray[np.float64], int]:
        """Code support of every pair, and how many had nothing to transport.

        Pairs with an empty side score 0 without reaching :meth:`_code_support`.
        """
        self._oov_count = 0
        self._oov_names = set()
        out = np.zeros(len(preds))
        scored = [i for i, (c, p) in enumerate(zip(codes, preds, strict=True)) if c and p]
        unmatched = sum(1 for c, p in zip(codes, preds, strict=True) if p and not c)
        if scored:
            values, degenerate = self._code_support(
                [codes[i] for i in scored], [preds[i] for i in scored]
            )
            if np.shape(values) != (len(scored),) or not np.all(np.isfinite(values)):
                raise RuntimeError(f"metric {self.name!r} returned bad code support values")
            out[scored] = values
            unmatched += int(np.count_nonzero(degenerate))
        return out, unmatched

    def _code_support(
        self, codes: list[Tokens], preds: list[Tokens]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Code support of non-empty pairs, and which had a side of zero weight.

        By default the metric's :attr:`code_key` value with the code's tokens on the
        reference side; metrics override it where the code's size calls for a faster way.
        """
        assert self.code_key is not None
        self._degenerate_entries = None
        raw = self._score_tokens(codes, preds)
        degenerate = self._degenerate_entries
        if degenerate is None:
            degenerate = np.zeros(len(preds), dtype=bool)
        return np.asarray(raw[self.code_key], dtype=np.float64), degenerate

    def _oov_result_names(self, earlier: tuple[str, ...] = ()) -> tuple[str, ...]:
        """The first few unseen tokens of this call, with ``earlier`` ones."""
        return first_names([*earlier, *self._oov_names])

    def _score_batch(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        allow_empty_reference: bool,
        progress: Callable[[int], None] | None,
        index_offset: int = 0,
    ) -> ScoreResult:
        batch = flatten(
            references,
            predictions,
            allow_empty_reference,
            index_offset,
            self._token_memo,
            self.segment,
            self.clean,
        )
        if not self.empty_scores_zero and batch.empty_predictions:
            first = index_offset + next(i for i, p in enumerate(batch.preds) if not p) + 1
            raise WrdscoreError(
                f"prediction {first} has no tokens, and {self.name} has no lowest score to give "
                f"it ({batch.empty_predictions} empty prediction(s)); remove them"
            )
        self._oov_count = 0
        self._oov_names = set()
        self._degenerate_entries = None
        self._progress = progress
        try:
            raw = self._score_tokens(batch.refs, batch.flat_preds) if batch.refs else {}
        finally:
            self._progress = None
        if raw:
            self._check_values(raw, len(batch.refs))
        values, best = best_alternatives(raw, batch, self.keys, self.primary)
        return ScoreResult(
            metric=self.name,
            signature=self.signature,
            values=values,
            primary=self.primary,
            corpus=self._corpus(values),
            oov_tokens=self._oov_count - self._repeated_prediction_oov(batch),
            empty_predictions=batch.empty_predictions,
            degenerate_pairs=degenerate_items(self._degenerate_entries, batch),
            oov_names=first_names(self._oov_names),
            best_reference=best,
        )

    def _repeated_prediction_oov(self, batch: FlatBatch) -> int:
        """Unseen tokens counted again because a prediction is scored once per reference
        alternative (none for metrics without vectors)."""
        return 0

    def sentence_score(self, reference: Reference, prediction: Prediction) -> ScoreResult:
        """:meth:`score` for one pair (a result of length 1).

        Examples
        --------
        >>> from wrdscore.embeddings import TokenEmbeddings
        >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "name": [0.0, 1.0]})
        >>> get_metric("wrd", embeddings=emb).sentence_score("getName", "get name").f1.tolist()
        [1.0]
        """
        return self.score([reference], [prediction])

    def corpus_score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], **kwargs: Any
    ) -> dict[str, float]:
        """Only the corpus-level values of :meth:`score` (same arguments).

        Examples
        --------
        >>> from wrdscore.embeddings import TokenEmbeddings
        >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "name": [0.0, 1.0]})
        >>> get_metric("wrd", embeddings=emb).corpus_score(["getName"], ["nameGet"])
        {'precision': 1.0, 'recall': 1.0, 'f1': 1.0}
        """
        return self.score(references, predictions, **kwargs).corpus

    def compare(
        self,
        references: Sequence[Reference],
        predictions_a: Sequence[Prediction],
        predictions_b: Sequence[Prediction],
        *,
        resamples: int = DEFAULT_RESAMPLES,
        seed: int = DEFAULT_SEED,
        allow_empty_reference: bool = False,
    ) -> tuple[ScoreResult, ScoreResult, BootstrapComparison]:
        """Score two systems on the same references and test their difference.

        Both prediction sets are scored with this metric's settings, then
        :func:`~wrdscore.significance.paired_bootstrap` compares the mean per-pair
        headline values (``scores``). With ``centering="batch"`` each system is
        centered on its own batch, as its own score would be.

        Returns
        -------
        result_a, result_b : ScoreResult
        comparison : BootstrapComparison
            Difference A - B, its percentile interval and p-value; its ``signature``
            (resamples, seed, level) completes the metric's.

        Examples
        --------
        A scores F1 = 1 on every pair, B 2/3 on three pairs and 1 on the fourth:

        >>> _, _, cmp = get_metric("rouge1").compare(["getName"] * 4, ["get name"] * 4,
        ...                                          ["get", "name", "get", "nameGet"])
        >>> round(cmp.difference, 4), cmp.signature
        (0.25, 'bootstrap|n:1000|seed:12345|ci:95%|paired:yes')
        """
        a, b = (
            self.score(references, preds, allow_empty_reference=allow_empty_reference)
            for preds in (predictions_a, predictions_b)
        )
        return a, b, paired_bootstrap(a.scores, b.scores, resamples=resamples, seed=seed)

    def _check_values(self, raw: dict[str, NDArray], size: int) -> None:
        # A metric bug must never surface as NaN in a user's results.
        for k in self.keys:
            v = raw.get(k)
            if v is None or np.shape(v) != (size,) or not np.all(np.isfinite(v)):
                raise RuntimeError(f"metric {self.name!r} returned bad values for {k!r}")


@dataclass
class TokenBatch:
    """Vectors of a batch of token lists: item ``i`` is ``table[rows[offsets[i]:offsets[i+1]]]``.

    Distinct vectors are stored once (``table``), so per-vector work (norms, unit
    vectors, weights) is done per distinct token, not per occurrence.

    Attributes
    ----------
    table : ndarray of shape (R, dim), float64
        Distinct vectors, after the OOV policy and centering.
    rows : ndarray of shape (N,), int64
        The ``table`` row of every kept token occurrence, item after item.
    offsets : ndarray of shape (n + 1,), int64
        Item boundaries in ``rows``.
    tokens : list of str
        The token of each ``table`` row.
    """

    table: NDArray[np.float64]
    rows: NDArray[np.int64]
    offsets: NDArray[np.int64]
    tokens: list[str] = field(repr=False)

    @property
    def vectors(self) -> NDArray[np.float64]:
        """One row per kept token occurrence, shape (N, dim)."""
        return self.table[self.rows]

    @property
    def row_tokens(self) -> list[str]:
        """The token of each occurrence."""
        return [self.tokens[r] for r in self.rows]

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> NDArray[np.float64]:
        return self.table[self.rows[self.offsets[i] : self.offsets[i + 1]]]

    def __iter__(self) -> Iterator[NDArray[np.float64]]:
        return (self[i] for i in range(len(self)))


def resolve_embeddings(embeddings: TokenEmbeddings | str | Path | None) -> TokenEmbeddings:
    """The embeddings a metric was given: an instance, a model path, or None (bundled default)."""
    if isinstance(embeddings, TokenEmbeddings):
        return embeddings
    if embeddings is not None and not isinstance(embeddings, str | Path):
        raise WrdscoreError(
            f"embeddings must be a model path or TokenEmbeddings, not {type(embeddings).__name__}"
        )
    return load_embeddings(None if embeddings is None else str(embeddings))


def contextual_vectors(
    encoder: Encoder | str | Path,
    static: TokenEmbeddings,
    *,
    fuse: bool,
    layer: int | None,
    device: str | None,
    batch_size: int | None,
    fuse_weights: tuple[float, float] | None,
) -> ContextualVectors:
    """The encoder side of an :class:`EmbeddingMetric`: load (or reuse) it, check options."""
    from wrdscore.embeddings.encoders import ContextualVectors, Encoder

    if isinstance(encoder, Encoder):
        stray = [
            k
            for k, v in (("layer", layer), ("device", device), ("batch_size", batch_size))
            if v is not None
        ]
        if stray:
            raise WrdscoreError(
                f"{', '.join(stray)}: set these when the encoder is loaded, not per metric"
            )
    else:
        encoder = Encoder(encoder, layer=layer, device=device, batch_size=batch_size)
    if fuse_weights is not None and not fuse:
        raise only_with(["fuse_weights"], "both an encoder and embeddings")
    return ContextualVectors(encoder, static, fuse=fuse, weights=fuse_weights or (1.0, 1.0))


def _check_vector_options(
    oov: str = "auto",
    centering: str = "none",
    rescale: bool = False,
    encoder: object = None,
    layer: int | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    fuse_weights: tuple[float, float] | None = None,
    fuse: bool | None = None,
) -> None:
    if oov not in OOV_POLICIES:
        raise WrdscoreError(f"unknown OOV policy {oov!r}; choose one of {', '.join(OOV_POLICIES)}")
    check_centering(centering)
    check_flag("rescale", rescale)


def check_flag(option: str, value: object) -> None:
    """Refuse a yes/no option given anything but a bool (``--set wrd.clip=no`` passes the
    string ``"no"``, which Python would take as true; ``--set wrd.clip=false`` is the way)."""
    if not isinstance(value, bool):
        raise WrdscoreError(f"{option} must be true or false, not {value!r}")


def baseline_key(metric: Metric) -> str:
    """The settings of ``metric`` that its rescaling baseline depends on, as one string.

    Its signature without the model (``emb``) and version fields: baselines are stored
    per model, and recomputed when the model is.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0]})
    >>> baseline_key(get_metric("bertscore", embeddings=emb, oov="drop"))
    'bertscore|c:none|oov:drop|idf:no|clip:yes'
    """
    fields = {k: v for k, v in metric._signature_fields().items() if k != "emb"}
    return "|".join([metric.label or metric.name, *(f"{k}:{v}" for k, v in fields.items())])


class EmbeddingMetric(Metric):
    """Base of the metrics that read token vectors: model, OOV policy, centering.

    Parameters
    ----------
    embeddings : TokenEmbeddings, path or None
        The token vectors; a path is loaded with ``wrdscore.embeddings.load_embeddings``
        and None means the bundled default model.
    oov : {"auto", "zero", "drop", "subword"}
        What an unseen token becomes: the zero vector, nothing, or its FastText
        sub-word vector or word pieces' mean (see :meth:`TokenEmbeddings.lookup`).
        ``auto`` (the default) is ``subword`` when the model has them and ``zero``
        otherwise, and ``zero`` for an encoder not fused with a model (an encoder
        meets no unknown token); it is resolved here, so :attr:`oov` and the signature
        hold the policy that runs. Unseen tokens are counted in
        :attr:`ScoreResult.oov_tokens` whatever the policy.
    centering : {"none", "dimension", "sentence", "corpus", "batch"}
        Subtract, before any normalisation, the mean of each vector's dimensions, of
        the item's vectors, of the vocabulary (frequency-weighted), or of every token
        vector in the batch being scored (so a score then depends on its batch; the
        signature says ``c:batch``). The arithmetic is :func:`wrdscore.metrics._centering.center`.
    rescale : bool
        Map every value ``s`` to ``(s - b) / (1 - b)``, with ``b`` that value's mean on
        random pairs of the model's training names under the same settings (stored in
        ``model.json`` by ``wrdscore train``; see :attr:`baseline`), so unrelated names
        score about 0 and identical names still exactly 1. Values below ``b`` become
        negative and are kept (as bert_score does). The signature says ``rescale:yes``.
    encoder : Encoder, str or path, optional
        A pretrained encoder (sentence-transformers or Hugging Face; a local folder or
        a hub name): each token's vector becomes its contextual state in its name
        (word pieces pooled back to the token). With ``embeddings`` given too, each
        state is concatenated with that model's vector of the token (fusion, see
        :class:`~wrdscore.embeddings.encoders.ContextualVectors`); without it, the
        bundled model only supplies document frequencies (IDF) and the probe tokens.
    layer : int, optional
        The encoder's hidden layer (default: the last).
    device : {"cpu", "cuda"}, optional
        Where the encoder runs (default: cuda when available).
    batch_size : int, optional
        Names per forward pass (default 64).
    fuse_weights : (float, float)
        ``(w_encoder, w_static)`` of the fusion (only with both ``encoder`` and
        ``embeddings``).
    fuse : bool, optional
        Whether an encoder's states are fused with ``embeddings``; by default, when
        ``embeddings`` is given (:func:`build_metrics` passes the bundled model
        resolved, and says whether the user named one).
    **options
        Passed on to :class:`Metric` (unknown ones are refused).
    """

    #: Whether the metric works only with an encoder (it reads no static vectors).
    needs_encoder: ClassVar[bool] = False

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        oov: str = "auto",
        centering: str = "none",
        rescale: bool = False,
        encoder: Encoder | str | Path | None = None,
        layer: int | None = None,
        device: str | None = None,
        batch_size: int | None = None,
        fuse_weights: tuple[float, float] | None = None,
        fuse: bool | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        _check_vector_options(oov, centering, rescale)
        if fuse is None:
            fuse = embeddings is not None
        self.embeddings = resolve_embeddings(embeddings)
        self.contextual: ContextualVectors | None = None
        if encoder is not None:
            self.in_process = True  # a torch model (see Metric.in_process)
            self.contextual = contextual_vectors(
                encoder,
                self.embeddings,
                fuse=fuse,
                layer=layer,
                device=device,
                batch_size=batch_size,
                fuse_weights=fuse_weights,
            )
        else:
            given = {
                "layer": layer,
                "device": device,
                "batch_size": batch_size,
                "fuse_weights": fuse_weights,
            }
            stray = [k for k, v in given.items() if v is not None]
            if stray:
                raise only_with(stray, "an encoder")
        if oov == "auto":
            unfused = self.contextual is not None and not self.contextual.fuse
            oov = "zero" if unfused else self.embeddings.resolve_oov(oov)
        if oov == "subword" and not self.embeddings.has_subword:
            raise WrdscoreError(
                f"embeddings {self.embeddings.name!r} have no subword vectors; "
                "use oov='zero' or 'drop', or a FastText or distilled model"
            )
        self.oov = oov
        self.centering = centering
        self.rescale = rescale
        # Each token's row in the model's vectors, or for an unseen token ``-1 - k``
        # with its vector (zero or subword) at ``_unseen_vectors[k]``: lookups dominate
        # small-pair scoring, and rows, unlike cached float64 copies (3 KB a token at
        # 384 dims), cost no memory per token. Bounded by CACHE_TOKENS.
        self._cache: dict[str, int] = {}
        self._unseen_vectors: list[NDArray[np.float64]] = []
        # What centering="batch" subtracts when the batch is scored in parts (set by
        # the streaming engine from batch_sums over the whole input).
        self._batch_mean: NDArray[np.float64] | None = None

    def truncation_note(self) -> str:
        """Names longer than the encoder's maximum, whose tokens past it count as unseen."""
        c = self.contextual
        if c is None:
            return ""
        notes = []
        if c.encoder.truncated:
            notes.append(
                f"{c.encoder.truncated} name(s) longer than the encoder's maximum of "
                f"{c.encoder.max_length} word pieces were truncated (tokens past it count as "
                "unseen)"
            )
        if c.encoder.chunked:
            notes.append(
                f"{c.encoder.chunked} method(s) whose code is longer than the encoder's maximum "
                f"of {c.encoder.max_length} word pieces were encoded in runs of whole tokens"
            )
        return "; ".join(notes)

    def _signature_fields(self) -> dict[str, str]:
        emb = self.embeddings
        # The vectors' sha, and of the statistics a setting reads beside them: two models
        # with the same vectors but other document frequencies (or counts) give other
        # IDF weights (or corpus means), so their scores must not share a signature.
        model = f"{emb.name}@sha:{emb.sha}" if self.contextual is None else self.contextual.label
        if self._uses_idf():
            model += f"+df:{emb.df_sha}"
        if self.centering == "corpus":
            model += f"+counts:{emb.counts_sha}"
        return {"emb": model, "c": self.centering, "oov": self.oov}

    @property
    def batch_centered(self) -> bool:
        return self.centering == "batch"

    def _uses_idf(self) -> bool:
        """Whether the metric's settings read document frequencies (IDF weights)."""
        return False

    def _repeated_prediction_oov(self, batch: FlatBatch) -> int:
        # Every entry's tokens were counted; a prediction of k alternatives k times.
        if batch.owner is None:
            return 0
        copies = np.bincount(batch.owner, minlength=batch.n) - 1
        repeated = np.flatnonzero(copies > 0)
        return int(self._unseen_counts([batch.preds[i] for i in repeated]) @ copies[repeated])

    def _unseen_counts(self, token_lists: Sequence[Tokens]) -> NDArray[np.int64]:
        """Tokens of each embedded list that are not in the vocabulary (cached flags)."""
        if self.contextual is not None:
            return np.array(
                [int(self.contextual.vectors([t], self.oov)[1].sum()) for t in token_lists],
                dtype=np.int64,
            )
        # One C-level pass over every token, not a Python generator per list.
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        at = self._cached_rows(list(itertools.chain.from_iterable(token_lists)))
        owner = np.repeat(np.arange(len(token_lists)), lengths)
        return np.bincount(owner[at < 0], minlength=len(token_lists))

    def _cached_rows(self, tokens: Sequence[str]) -> NDArray[np.int64]:
        """The cached entries of tokens already embedded: a row of the model's vectors, or
        below 0 for an unseen token (see ``_cache``)."""
        return np.fromiter(map(self._cache.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    @property
    def _rows_number_tokens(self) -> bool:
        """Whether :meth:`embed` gives a batch one row per distinct token, numbered in
        order of first occurrence, with every occurrence kept (static vectors, no
        per-occurrence centering, nothing dropped): then its ``rows`` number the tokens.
        """
        return (
            self.contextual is None
            and self.oov != "drop"
            and self.centering in ("none", "dimension", "corpus")
        )

    def _output_fields(self) -> dict[str, str]:
        return {"rescale": "yes"} if self.rescale else {}

    @property
    def baseline(self) -> dict[str, float]:
        """The rescaling baseline ``b`` of each value under this metric's settings.

        Read from the model's ``model.json`` (``baselines.settings``, keyed by
        :func:`baseline_key`).

        Raises
        ------
        WrdscoreError
            The model has no baseline for these settings (a plain vector file, a model
            trained before baselines existed, ``centering="batch"``, or an option value
            outside the stored grid), its baselines were computed for other vectors, or
            rescaling is undefined for these settings.
        """
        key = baseline_key(self)
        if self.contextual is not None:
            block = self.contextual.baselines()
            where = f"encoder {self.contextual.encoder.name!r} ({self.contextual.scope})"
            how = "`wrdscore baseline --encoder ENCODER CORPUS` (with the same --layer, -e)"
        else:
            block = self.embeddings.meta.get("baselines", {})
            where = f"embeddings {self.embeddings.name!r}"
            how = "`wrdscore baseline MODEL_DIR CORPUS`"
        if self.contextual is None and block and block.get("vectors_sha") != self.embeddings.sha:
            # model.json kept beside new vectors: its baselines belong to the old ones.
            raise WrdscoreError(
                f"the rescaling baselines of embeddings {self.embeddings.name!r} were computed "
                f"for other vectors (sha {block.get('vectors_sha')}, these are "
                f"{self.embeddings.sha}); recompute them with `wrdscore baseline MODEL_DIR CORPUS`"
            )
        stored = block.get("settings", {})
        if key not in stored:
            if self.centering == "batch":
                why = "centering 'batch' has none: its scores depend on the batch"
            elif not stored:
                whose = "the model has" if self.contextual is None else "this encoder has"
                why = f"{whose} none; add them with {how}"
            else:
                why = "outside the stored settings (see the README's rescaling section)"
            raise WrdscoreError(f"no rescaling baseline for {key} in {where}: {why}")
        if stored[key] is None:
            raise WrdscoreError(
                f"rescaling is undefined for {key} on {where}: random names score 1 on average"
            )
        return dict(stored[key])

    def _score(self, *args: Any, **kwargs: Any) -> ScoreResult:
        """:meth:`Metric.score`, then rescaled against :attr:`baseline` if ``rescale``.

        Rescaling is monotone per value, so the best reference alternative, the order
        of pairs and every rank correlation are unchanged.
        """
        result = super()._score(*args, **kwargs)
        if not self.rescale:
            return result
        b = self.baseline
        # (1 - b) / (1 - b) is exactly 1.0 in floating point: identity still scores 1.
        values = {k: (v - b[k]) / (1.0 - b[k]) for k, v in result.values.items()}
        return replace(result, values=values, corpus=self._corpus(values))

    def embed(self, token_lists: Sequence[Tokens]) -> TokenBatch:
        """Vectors of many token lists, OOV-handled, counted and centered, in one flat batch.

        Under ``oov="drop"`` unseen tokens have no row (an item may become empty);
        otherwise every token has one. Centering sees the whole batch, so call this
        once with every item of the batch (references and predictions together).

        Returns
        -------
        TokenBatch
            ``batch[i]`` is the ``(k_i, dim)`` array of item ``i``.

        Examples
        --------
        >>> emb = TokenEmbeddings.from_vectors({"get": [3.0, 4.0]})
        >>> class Demo(EmbeddingMetric):
        ...     name = "demo"
        ...     def _score_tokens(self, refs, preds):
        ...         return {}
        >>> batch = Demo(emb).embed([["get", "nope"], ["get"]])
        >>> batch[0].tolist(), batch[1].tolist()
        ([[3.0, 4.0], [0.0, 0.0]], [[3.0, 4.0]])
        """
        if self.contextual is not None:
            return self._embed_contextual(token_lists)
        rows, tokens, table, unseen = self._distinct_vectors(token_lists)
        unseen_at = unseen[rows]
        self._oov_count += int(unseen_at.sum())
        if unseen.any():
            self._oov_names.update(tokens[i] for i in np.flatnonzero(unseen))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        if self.oov == "drop":
            item_of = np.repeat(np.arange(len(token_lists)), lengths)
            lengths = np.bincount(item_of[~unseen_at], minlength=len(token_lists))
            rows = rows[~unseen_at]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if self.centering in ("dimension", "corpus"):
            # These means do not depend on the batch: center each distinct vector once.
            table = center(table, [0, len(table)], self.centering, self.embeddings)
        elif self.centering != "none":
            tokens = [tokens[r] for r in rows]
            table = center(table[rows], offsets, self.centering, self.embeddings, self._batch_mean)
            rows = np.arange(len(rows))
        return TokenBatch(table=table, rows=rows, offsets=offsets, tokens=tokens)

    def _distinct_vectors(
        self, token_lists: Sequence[Tokens]
    ) -> tuple[NDArray[np.int64], list[str], NDArray[np.float64], NDArray[np.bool_]]:
        """Row of every occurrence, the distinct tokens, their raw vectors and OOV flags."""
        flat = list(itertools.chain.from_iterable(token_lists))
        # Distinct tokens in order of first occurrence, and each occurrence's row, at
        # C speed (no Python call per token).
        tokens = list(dict.fromkeys(flat))
        index = dict(zip(tokens, range(len(tokens)), strict=True))
        rows = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
        self._fill_cache(tokens)
        at = self._cached_rows(tokens)
        unseen = at < 0
        table = np.zeros((len(tokens), self.embeddings.dim))
        # One gather of the stored rows (float16 or float32, exact in float64) instead
        # of a copy per token.
        table[~unseen] = self.embeddings.vectors[at[~unseen]]
        if unseen.any():
            extra = self._unseen_vectors
            table[unseen] = np.stack([extra[-1 - k] for k in at[unseen].tolist()])
        return rows, tokens, table, unseen

    def batch_sums(self, token_lists: Sequence[Tokens]) -> tuple[NDArray[np.float64], int]:
        """Sum and count of the non-zero token vectors (OOV policy applied) of token lists.

        What ``centering="batch"`` averages, in a form that adds up over the parts of
        a batch: the mean over a whole file is the summed sums over the summed counts.
        Nothing is counted as unseen.

        Examples
        --------
        >>> emb = TokenEmbeddings.from_vectors({"get": [3.0, 4.0]})
        >>> total, count = get_metric("wrd", embeddings=emb).batch_sums([["get", "x"], ["get"]])
        >>> total.tolist(), count
        ([6.0, 8.0], 2)
        """
        if self.contextual is not None:
            table, unseen = self.contextual.vectors(token_lists, self.oov)
            keep = np.any(table != 0.0, axis=1) & ~(unseen if self.oov == "drop" else False)
            return table[keep].sum(axis=0), int(keep.sum())
        rows, _, table, unseen = self._distinct_vectors(token_lists)
        if self.oov == "drop":
            rows = rows[~unseen[rows]]
        counts = np.bincount(rows, minlength=len(table)).astype(np.float64)
        known = np.any(table != 0.0, axis=1)
        return counts[known] @ table[known], int(counts[known].sum())

    def _code_values(
        self, codes: list[Tokens], preds: list[Tokens]
    ) -> tuple[NDArray[np.float64], int]:
        """:meth:`Metric._code_values`; with an encoder, code longer than its maximum is
        encoded in runs of whole tokens, each token in its own run's context, never cut
        (:meth:`~wrdscore.embeddings.encoders.Encoder.chunking`)."""
        if self.contextual is None:
            return super()._code_values(codes, preds)
        with self.contextual.encoder.chunking():
            return super()._code_values(codes, preds)

    def _embed_contextual(self, token_lists: Sequence[Tokens]) -> TokenBatch:
        """:meth:`embed` with an encoder: a row per token occurrence (its state in its name)."""
        assert self.contextual is not None
        table, unseen = self.contextual.vectors(token_lists, self.oov)
        self._oov_count += int(unseen.sum())
        tokens = list(itertools.chain.from_iterable(token_lists))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        if self.oov == "drop":
            item_of = np.repeat(np.arange(len(token_lists)), lengths)
            lengths = np.bincount(item_of[~unseen], minlength=len(token_lists))
            table = table[~unseen]
            tokens = [t for t, u in zip(tokens, unseen.tolist(), strict=True) if not u]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if self.centering != "none":
            table = center(table, offsets, self.centering, self.contextual, self._batch_mean)
        return TokenBatch(
            table=table, rows=np.arange(len(table), dtype=np.int64), offsets=offsets, tokens=tokens
        )

    def _fill_cache(self, tokens: list[str]) -> None:
        """Cache the rows of the distinct ``tokens`` of a batch that are not cached yet."""
        todo = [t for t in tokens if t not in self._cache]
        if len(self._cache) + len(todo) > CACHE_TOKENS:
            # Memory stays flat on streamed input with ever new (unseen) tokens; the
            # whole batch is cached again, since scoring it reads every token's entry.
            self._cache.clear()
            self._unseen_vectors.clear()
            todo = tokens
        if not todo:
            return
        at = self.embeddings.rows(todo)
        unseen = np.flatnonzero(at < 0)
        if len(unseen):
            new = [todo[i] for i in unseen.tolist()]
            # Under "drop" the vector of an unseen token is never used; zero is a placeholder.
            policy = "zero" if self.oov == "drop" else self.oov
            vecs, _ = self.embeddings.lookup(new, oov=policy)
            first = len(self._unseen_vectors)
            self._unseen_vectors.extend(vecs)
            at[unseen] = -1 - np.arange(first, first + len(new))
        self._cache.update(zip(todo, at.tolist(), strict=True))


M = TypeVar("M", bound=type[Metric])

_REGISTRY: dict[str, type[Metric]] = {}


def register(cls: M) -> M:
    """Class decorator: make a metric available by its ``name`` to :func:`get_metric`."""
    name = cls.name
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"metric name {name!r} registered twice")
    _REGISTRY[name] = cls
    return cls


def _load_metric_modules() -> None:
    # Every public module of wrdscore.metrics may register metrics (a new metric is a
    # new module there); importing them on first use keeps `import wrdscore` light
    # and needs no hand-kept list. The package's __path__ (which may be extended) is
    # read from sys.modules, where it is whenever this runs: importing the package
    # here would be an import circle (it imports this module).
    package = sys.modules[__name__.rpartition(".")[0]]
    for mod in pkgutil.iter_modules(package.__path__):
        if not mod.ispkg and not mod.name.startswith("_"):
            importlib.import_module(f"wrdscore.metrics.{mod.name}")


class _Registry(Mapping[str, type[Metric]]):
    """Read-only view of the registered metrics, loading them on first use."""

    def _all(self) -> dict[str, type[Metric]]:
        _load_metric_modules()
        return _REGISTRY

    def __getitem__(self, name: str) -> type[Metric]:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._all()))

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"METRICS({', '.join(self)})"


#: Names of every registered metric (a mapping of name to class).
METRICS: Mapping[str, type[Metric]] = _Registry()


def get_metric(name: str, **options: Any) -> Metric:
    """Build the metric registered as ``name`` with ``options`` (e.g. ``embeddings=``).

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> round(float(get_metric("wrd", embeddings=emb).sentence_score("size", "count").f1[0]), 2)
    0.8
    """
    return metric_class(name)(**options)


def metric_class(name: str) -> type[Metric]:
    """The class registered as ``name``; a one-line error listing the choices otherwise.

    A metric that lives in the module of its own name (``wrd`` in ``wrd.py``) is found
    without importing the other metric modules, some of which import large libraries
    (start-up time of ``wrdscore score``); any other name loads them all.
    """
    if name not in _REGISTRY and name.isidentifier():
        import importlib.util

        if importlib.util.find_spec(f"wrdscore.metrics.{name}") is not None:
            importlib.import_module(f"wrdscore.metrics.{name}")
    if name not in _REGISTRY and name not in METRICS:
        raise WrdscoreError(f"unknown metric {name!r}; choose one of {', '.join(METRICS)}")
    return _REGISTRY[name]


def build_metrics(
    names: Sequence[str],
    embeddings: TokenEmbeddings | str | Path | None = None,
    per_metric: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    segment: bool = True,
    clean: bool = False,
    **embedding_options: Any,
) -> list[Metric]:
    """Build several metrics that share one loaded model (what ``wrdscore score`` runs).

    The model is loaded once, and only if some metric reads vectors;
    ``embedding_options`` (``oov``, ``centering``) are checked, then go to those
    metrics only. ``segment`` and ``clean`` (see :class:`Metric`) go to every metric.
    ``per_metric`` gives options to one metric by name (``{"wrd": {"weights": "idf"}}``);
    they win over the others.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0]})
    >>> metrics = build_metrics(["wrd"], emb, {"wrd": {"clip": False}}, oov="drop")
    >>> [m.signature for m in metrics]  # doctest: +ELLIPSIS
    ['wrdscore|emb:custom@sha:...|w:norm|c:none|oov:drop|clip:no|solver:emd|seg:jdk17c20+wiki|v:0.1.0']
    """
    # Checked even when no metric reads vectors, so a typo is never silently ignored.
    _check_vector_options(**embedding_options)
    names = list(dict.fromkeys(names))
    per_metric = dict(per_metric or {})
    stray = sorted(set(per_metric) - set(names))
    if stray:
        raise WrdscoreError(f"options given for {', '.join(stray)}, which is not being scored")
    classes = [metric_class(n) for n in names]
    if any(issubclass(c, EmbeddingMetric) for c in classes):
        given = embeddings is not None
        embeddings = resolve_embeddings(embeddings)
        encoder = embedding_options.get("encoder")
        if encoder is not None:
            from wrdscore.embeddings.encoders import Encoder

            if not isinstance(encoder, Encoder):
                # One encoder loaded once, shared by every metric (bert_score's one scorer).
                embedding_options["encoder"] = Encoder(
                    encoder,
                    layer=embedding_options.pop("layer", None),
                    device=embedding_options.pop("device", None),
                    batch_size=embedding_options.pop("batch_size", None),
                )
            embedding_options["fuse"] = given
    shared = {"segment": segment, "clean": clean}
    return [
        c(embeddings, **{**shared, **embedding_options, **per_metric.get(n, {})})
        if issubclass(c, EmbeddingMetric)
        else c(embeddings, **{**shared, **per_metric.get(n, {})})
        for n, c in zip(names, classes, strict=True)
    ]
