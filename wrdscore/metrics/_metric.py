"""The base class of every metric: sentence and corpus scores, and the signature.

A metric subclasses :class:`Metric` (or :class:`~wrdscore.metrics.EmbeddingMetric` when
it reads token vectors) and implements :meth:`Metric._score_tokens` on a whole batch of
token lists; the rest is shared, each part in a module of its own:

- checking what a user gives (options, items, lengths): :mod:`~wrdscore.metrics._validate`;
- tokenising, with segmentation and cleaning: :mod:`~wrdscore.metrics._tokenise`, once
  per distinct item of a batch by :func:`~wrdscore.metrics._flatten.flatten`;
- multiple references, each item's best alternative: :mod:`~wrdscore.metrics._alternatives`;
- two systems compared by paired bootstrap: :mod:`~wrdscore.metrics._compare`;
- what a run lends a call (progress, a file's token memo): :mod:`~wrdscore.metrics._call`;
- scoring against code: the metric's :class:`~wrdscore.metrics.code.CodeScorer`, which
  asks the metric only for its raw match in the code (:meth:`Metric._code_support`);
  which code options a metric takes: :mod:`~wrdscore.metrics._reads_code`.

Scoring returns what it counts with its values
(:class:`~wrdscore.metrics._result.Scored`), never on the object, so a metric is reentrant.
"""

from __future__ import annotations

import contextlib
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from wrdscore import __version__
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._alternatives import best_alternatives, degenerate_items
from wrdscore.metrics._call import CallState, nested, running
from wrdscore.metrics._flatten import FlatBatch, Prediction, Reference, Tokens, flatten, gc_paused
from wrdscore.metrics._reads_code import code_refusal, take_code_scorer
from wrdscore.metrics._result import Scored, ScoreResult, first_names
from wrdscore.metrics._tokenise import item_tokens, memo_splitter, tokenising_fields
from wrdscore.metrics._validate import (
    check_flag,
    check_values,
    refuse_empty_predictions,
    refuse_options,
)
from wrdscore.metrics.code import CODE_KEYS, CODE_OPTIONS, DEFAULT_SUPPORT, CodeItem
from wrdscore.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, BootstrapComparison

if TYPE_CHECKING:
    from wrdscore.embeddings import TokenEmbeddings


class Metric(CallState, ABC):
    """Base class of every metric: sentence and corpus scores, and the signature.

    Subclasses set ``name`` (the registry name), ``keys`` and ``primary``, and
    implement :meth:`_score_tokens`. Options a subclass does not consume reach this
    constructor and are refused, so a misspelt option is an error, not ignored.

    Parameters
    ----------
    embeddings : TokenEmbeddings, path or None
        Ignored by metrics that need no embeddings (so every metric can be built the
        same way); see :class:`EmbeddingMetric` for those that do.
    segment : bool
        Split all-lowercase run-together sub-tokens (``getuserbyid`` -> ``get user by
        id``) of references and predictions into words (:func:`~wrdscore.corpora.segment`;
        signature ``seg:<word list>``, or ``seg:no`` when off). Only a token that the
        bundled model and the word list do not know as a word is split, so a name as
        LLMs write it scores as its camelCase form. On by default: most names scored
        today are written by LLMs (docs/history.md, "Names as LLMs write them").
    clean : bool
        Pass string predictions through :func:`~wrdscore.corpora.clean_prediction` (code
        fences, Javadoc markers and block tags, quotes, a trailing ``()``) before they
        are split, as chat models return them (signature ``clean:yes``).
    **options
        Metric settings; unknown ones raise :class:`~wrdscore.errors.WrdscoreError`. A
        metric that reads code (one with a :attr:`code_key`) also takes the code options
        ``code_weight``, ``target``, ``strings``, ``language``, ``code_support`` and
        ``allow_unmasked`` (a :class:`~wrdscore.metrics.code.CodeScorer`'s ``weight``,
        ``target``, ``strings``, ``language``, ``support`` and ``allow_unmasked``), or a
        ready ``code_scorer``; a metric that cannot read code takes none of them, and
        says why.

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
    #: The support model scoring against code uses unless ``code_support`` names one.
    default_code_support: ClassVar[str] = DEFAULT_SUPPORT
    #: Whether :meth:`_code_support` takes a corpus's code as token ids
    #: (:class:`~wrdscore.corpora.CodeTokens`), not lists of strings.
    _reads_code_ids: ClassVar[bool] = False

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        segment: bool = True,
        clean: bool = False,
        **options: Any,
    ) -> None:
        #: How this metric scores against code (None: it cannot); its options enter the
        #: signature only when code is read.
        self.code_scorer = take_code_scorer(self, options)
        refuse_options(self.name, options)
        check_flag("segment", segment)
        check_flag("clean", clean)
        self.segment, self.clean = segment, clean

    @classmethod
    def taken_code_options(cls) -> tuple[str, ...]:
        """The code options this metric's constructor takes: every one when it reads
        code (:attr:`code_key`), none when it cannot (the command line gives each metric
        only these)."""
        return CODE_OPTIONS if cls.code_key is not None else ()

    # -- what subclasses provide ------------------------------------------------------

    @abstractmethod
    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, NDArray] | Scored:
        """Score non-empty token lists, the whole batch at once: one array per key, or
        :class:`~wrdscore.metrics._result.Scored` with what the scoring counted (unseen
        tokens, entries with a side of zero weight, inputs a model cut)."""

    def _signature_fields(self) -> dict[str, str]:
        """Settings that change the numbers, in signature order (subclasses extend)."""
        return {}

    def _output_fields(self) -> dict[str, str]:
        """Signature fields of what is done to the values after scoring (``rescale:yes``)."""
        return {}

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

    def _corpus_values(self, sums: dict[str, float], pairs: int) -> dict[str, float]:
        """Corpus values from summed :meth:`_corpus_sums`: the reference's are
        :meth:`_corpus_from_sums`'s, the code's the scorer's
        (:meth:`~wrdscore.metrics.code.CodeScorer.corpus_values`)."""
        reference = {k: v for k, v in sums.items() if k not in CODE_KEYS}
        out = self._corpus_from_sums(reference, pairs) if reference else {}
        if "code" in sums:
            assert self.code_scorer is not None
            means = type(self)._corpus_from_sums is Metric._corpus_from_sums
            out.update(self.code_scorer.corpus_values(sums, out, pairs, self.primary, means))
        return out

    def _repeated_prediction_oov(self, batch: FlatBatch) -> int:
        """Unseen tokens counted again because a prediction is scored once per reference
        alternative (none for metrics without vectors)."""
        return 0

    def prepare(self) -> None:
        """Import now what scoring would import on first use (nothing by default).

        The streaming engine calls it before forking worker processes, so that they
        share one import instead of each paying for its own.
        """
        return None

    def truncation_note(self, cuts: Mapping[str, int]) -> str:
        """A line saying how many inputs were cut at a model's maximum length ("" if none).

        Metrics that run a model (an encoder, BARTScore) count what each call had to cut,
        in its result's :attr:`~wrdscore.metrics.ScoreResult.cuts`; this words those
        ``cuts`` (a result's, or a whole file's), and the CLI prints it as a note, so
        truncation is never silent.
        """
        return ""

    @property
    def reads_all_references(self) -> bool:
        """Whether scores weigh by statistics of every reference of the input (bertscore's
        word-piece IDF, as bert_score computes it): the streaming engine then computes
        them once with :meth:`reference_statistics` and lends them to every part of the
        input through :meth:`scoring_run`."""
        return False

    def reference_statistics(self, references: Iterable[Reference]) -> object | None:
        """The statistics :attr:`reads_all_references` names, of ``references``, for
        :meth:`scoring_run` (``reference_stats``); None by default. Nothing is kept on
        the metric, so other calls are not affected."""
        return None

    @property
    def batch_centered(self) -> bool:
        """Whether scores center on the whole batch (``centering="batch"``).

        Only an :class:`EmbeddingMetric` can; the streaming engine then sums
        :meth:`EmbeddingMetric.batch_sums` over the whole input first.
        """
        return False

    # -- scoring ------------------------------------------------------------------------

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
        >>> from wrdscore.metrics import get_metric
        >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6],
        ...                                     "items": [0.0, 1.0]})
        >>> res = get_metric("wrd", embeddings=emb).score(
        ...     ["size"], ["count"], code=["int size() { return items.count(); }"])
        >>> res.values["f1"].round(3).tolist(), res.values["code"].round(3).tolist()
        ([0.8], [0.686])
        >>> res.values["combined"].round(3).tolist()
        [0.743]

        ``count`` is in the code (its best match is 1), times the priors of a one-token
        name (:mod:`wrdscore.metrics.code`); combined is the even mean.
        """
        if code is not None:
            self.check_reads_code()
            assert self.code_scorer is not None
            return self.code_scorer.score(
                self,
                references,
                predictions,
                code,
                allow_empty_reference=allow_empty_reference,
                progress=progress,
                index_offset=index_offset,
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

    def _score_batch(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        allow_empty_reference: bool,
        progress: Callable[[int], None] | None,
        index_offset: int = 0,
    ) -> ScoreResult:
        """Check and tokenise a batch, score its pairs, keep each item's best alternative."""
        batch = self._flatten(references, predictions, allow_empty_reference, index_offset)
        if not self.empty_scores_zero:
            refuse_empty_predictions(self.name, batch.preds, batch.empty_predictions, index_offset)
        with running(self, nested(self, progress)):
            scored = self._scored(
                self._score_tokens(batch.refs, batch.flat_preds) if batch.refs else {}
            )
            repeated = self._repeated_prediction_oov(batch)
        if scored.values:
            check_values(self.name, self.keys, scored.values, len(batch.refs))
        return self._batch_result(batch, scored, repeated)

    def _flatten(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        allow_empty_reference: bool,
        index_offset: int,
    ) -> FlatBatch:
        """:func:`~wrdscore.metrics._flatten.flatten` as this metric tokenises: with the
        run's token memo, its segmenting and its cleaning (every path that tokenises a
        batch for it goes through here, so none can tokenise it otherwise)."""
        return flatten(
            references,
            predictions,
            allow_empty_reference,
            index_offset,
            self._token_memo,
            self.segment,
            self.clean,
        )

    def _batch_result(self, batch: FlatBatch, scored: Scored, repeated: int = 0) -> ScoreResult:
        """The result of a flat batch's ``scored`` entries: each item's best alternative,
        the corpus values and the counts. ``repeated``: unseen token occurrences counted
        again (:meth:`_repeated_prediction_oov`), taken off ``scored.oov_count``."""
        values, best = best_alternatives(scored.values, batch, self.keys, self.primary)
        return ScoreResult(
            metric=self.name,
            signature=self.signature,
            values=values,
            primary=self.primary,
            corpus=self._corpus(values),
            oov_tokens=scored.oov_count - repeated,
            empty_predictions=batch.empty_predictions,
            degenerate_pairs=degenerate_items(scored.degenerate, batch),
            oov_names=first_names(scored.oov_names),
            best_reference=best,
            cuts=dict(+scored.cuts),  # the kinds counted, without zeros
        )

    @staticmethod
    def _scored(raw: dict[str, NDArray] | Scored) -> Scored:
        """What :meth:`_score_tokens` gave, as :class:`Scored` (a plain dict counts nothing)."""
        return raw if isinstance(raw, Scored) else Scored(raw)

    def _corpus(self, values: dict[str, NDArray[np.float64]]) -> dict[str, float]:
        """Corpus-level values: :meth:`_corpus_values` of the values' sums."""
        return self._corpus_values(self._corpus_sums(values), len(next(iter(values.values()))))

    def sentence_score(self, reference: Reference, prediction: Prediction) -> ScoreResult:
        """:meth:`score` for one pair (a result of length 1).

        Examples
        --------
        >>> from wrdscore.embeddings import TokenEmbeddings
        >>> from wrdscore.metrics import get_metric
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
        >>> from wrdscore.metrics import get_metric
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
        code: Sequence[CodeItem] | None = None,
        resamples: int = DEFAULT_RESAMPLES,
        seed: int = DEFAULT_SEED,
        allow_empty_reference: bool = False,
    ) -> tuple[ScoreResult, ScoreResult, BootstrapComparison]:
        """Score two systems on the same references and test their difference.

        Both prediction sets are scored with this metric's settings, then
        :func:`~wrdscore.significance.paired_bootstrap` compares the mean per-pair
        headline values (``scores``). With ``centering="batch"`` each system is
        centered on its own batch, as its own score would be. With ``code`` (the
        methods' code, as :meth:`score` takes it) the pairs are scored against it too;
        :func:`~wrdscore.metrics.compare_values` compares the code support and the
        combined value as well.

        Returns
        -------
        result_a, result_b : ScoreResult
        comparison : BootstrapComparison
            Difference A - B, its percentile interval and p-value; its ``signature``
            (resamples, seed, level) completes the metric's.

        Examples
        --------
        A scores F1 = 1 on every pair, B 2/3 on three pairs and 1 on the fourth:

        >>> from wrdscore.metrics import get_metric
        >>> _, _, cmp = get_metric("rouge1").compare(["getName"] * 4, ["get name"] * 4,
        ...                                          ["get", "name", "get", "nameGet"])
        >>> round(cmp.difference, 4), cmp.signature
        (0.25, 'bootstrap|n:1000|seed:12345|ci:95%|paired:yes')
        """
        from wrdscore.metrics._compare import compare_values

        a, b, found = compare_values(
            self, references, predictions_a, predictions_b, code=code, resamples=resamples,
            seed=seed, allow_empty_reference=allow_empty_reference,
        )  # fmt: skip
        return a, b, found[a.primary]

    # -- tokens and the signature ------------------------------------------------------

    def tokens(self, item: Prediction, prediction: bool = False) -> Tokens:
        """The tokens this metric reads for one item (a ``prediction`` is cleaned first
        when ``clean`` is on), as :func:`~wrdscore.metrics._flatten.flatten` splits them."""
        return item_tokens(item, self.segment, self.clean, prediction)

    def _prediction_tokens(self) -> Callable[[Prediction], Tokens]:
        """:meth:`tokens` of a prediction, through the run's token memo when there is one."""
        return memo_splitter(self._token_memo, self.segment, self.clean)

    def _tokenising_fields(self) -> dict[str, str]:
        """Signature fields of how items become tokens (``seg``, and ``clean`` when on).

        Kept out of :meth:`_signature_fields`: rescaling baselines are keyed by those
        (:func:`baseline_key`), and were measured on camelCase names, which segmentation
        leaves as they are.
        """
        return tokenising_fields(self.segment, self.clean)

    @property
    def signature(self) -> str:
        """``label|key:value|...|v:VERSION`` with every setting that changes the numbers."""
        return self._signature_with({})

    def _signature_with(self, extra: dict[str, str]) -> str:
        fields = {
            **self._signature_fields(),
            **self._tokenising_fields(),
            **self._output_fields(),
            **extra,
            "v": __version__,
        }
        return "|".join([self.label or self.name, *(f"{k}:{v}" for k, v in fields.items())])

    # -- what the code scorer asks of the metric ---------------------------------------

    @property
    def code_signature(self) -> str:
        """:attr:`signature` of scoring against code: it adds that code was read, the code
        weight, the target, the masking and the string policy
        (``...|code:yes|cw:0.5|tgt:name|mask:name|str:drop|lang:auto|...|v:...``)."""
        self.check_reads_code()
        assert self.code_scorer is not None
        return self._signature_with(self.code_scorer.signature_fields())

    def check_reads_code(self) -> None:
        """A one-line error unless this metric, with its settings, can score against code."""
        refusal = code_refusal(self)
        if refusal is not None:
            raise WrdscoreError(refusal)

    def result_keys(self, code: bool = False, references: bool = True) -> tuple[str, ...]:
        """The values of a result (the per-pair columns): ``keys``, then ``code`` and
        ``combined`` when scored against code (only ``code`` without references)."""
        if not code:
            return tuple(self.keys)
        return (*self.keys, *CODE_KEYS) if references else ("code",)

    def reading_code(self) -> contextlib.AbstractContextManager[None]:
        """What :meth:`_code_support` runs in (nothing by default; an encoder encodes
        long code in runs of whole tokens)."""
        return contextlib.nullcontext()

    def _code_support(self, codes: list[Tokens], preds: list[Tokens]) -> Scored:
        """Raw code support of non-empty pairs (its ``values["code"]``), with what was
        counted (which pairs had a side of zero weight, unseen tokens, cuts).

        By default the metric's :attr:`code_key` value with the code's tokens on the
        reference side; metrics override it where the code's size calls for a faster way.
        """
        assert self.code_key is not None
        scored = self._scored(self._score_tokens(codes, preds))
        return replace(scored, values={"code": np.asarray(scored.values[self.code_key], float)})
