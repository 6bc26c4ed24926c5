"""The code scorer: everything scoring against code needs besides a metric's arithmetic.

A :class:`CodeScorer` holds the options of scoring against code (weight, target, string
policy, language, support model) and does the work around a metric's raw match: it
reads each batch's code once (:func:`~wrdscore.metrics.code.read_codes`, shared by the
metrics of an engine's chunk), asks the metric for its raw support of the non-empty
pairs (:meth:`~wrdscore.metrics.Metric._code_support`), hands it to the support model,
applies the empty-side rules, mixes ``combined`` (:func:`combine`) and names all of it in
the code part of the signature (:meth:`CodeScorer.signature_fields`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import (
    DEFAULT_STRINGS,
    DEFAULT_TARGET,
    STRING_POLICIES,
    TARGETS,
    code_lengths,
    take_codes,
)
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._call import nested, running
from wrdscore.metrics._code_models import (
    DEFAULT_SUPPORT,
    SupportInput,
    SupportModel,
    support_model,
)
from wrdscore.metrics._code_read import (
    CodeItem,
    ReadCode,
    long_code,
    prediction_tokens,
    read_codes,
    read_stored_codes,
)
from wrdscore.metrics._flatten import Prediction, Reference, Tokens, gc_paused
from wrdscore.metrics._result import Scored, ScoreResult, first_names

if TYPE_CHECKING:
    from wrdscore.metrics._metric import Metric

#: The values scoring against code adds: the support, and (with references) the mix.
CODE_KEYS = ("code", "combined")
#: The even mean of the reference's and the code's view (see :mod:`wrdscore.metrics.code`).
DEFAULT_CODE_WEIGHT = 0.5
#: The constructor options of a metric that reads code, which build its scorer.
CODE_OPTIONS = ("code_weight", "target", "strings", "language", "code_support", "allow_unmasked")


def check_code_options(code_weight: object, target: object, strings: object) -> None:
    """Refuse a code weight outside [0, 1], an unknown target or string policy."""
    if not (
        isinstance(code_weight, int | float)
        and not isinstance(code_weight, bool)
        and math.isfinite(code_weight)
        and 0.0 <= code_weight <= 1.0
    ):
        raise WrdscoreError(f"code weight must be a number from 0 to 1, not {code_weight!r}")
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    if strings not in STRING_POLICIES:
        raise WrdscoreError(
            f"unknown string policy {strings!r}; choose one of {', '.join(STRING_POLICIES)}"
        )


def combine(
    values: dict[str, NDArray[np.float64]] | None,
    support: NDArray[np.float64],
    primary: str,
    weight: float,
    nothing: NDArray[np.bool_],
    no_reference: NDArray[np.bool_] | None = None,
) -> dict[str, NDArray[np.float64]]:
    """The values of a code-aware result: the reference's, ``code``, and ``combined``.

    Where a pair's code had ``nothing`` to match (no code token with weight), the code
    cannot judge its prediction: ``combined`` is the reference's value, so an empty
    method never punishes a perfect prediction. Likewise where a pair has
    ``no_reference`` (an empty reference, when allowed: a method without a docstring),
    ``combined`` is the code support, not half of it.

    Examples
    --------
    >>> out = combine({"f1": np.array([1.0, 0.5, 0.0])}, np.array([0.0, 0.7, 0.8]), "f1",
    ...               0.5, np.array([True, False, False]), np.array([False, False, True]))
    >>> out["combined"].tolist()
    [1.0, 0.6, 0.8]
    """
    if values is None:
        return {"code": support}
    mixed = (1.0 - weight) * values[primary] + weight * support
    if no_reference is not None:
        mixed = np.where(no_reference, support, mixed)
    return {**values, "code": support, "combined": np.where(nothing, values[primary], mixed)}


class CodeScorer:
    """How a metric scores against code: its options, the support model and the rules.

    Parameters
    ----------
    weight : float
        The weight ``w`` of the code in ``combined = (1 - w) * primary + w * code``,
        from 0 to 1. The default 0.5 is the even mean of two independent views of what a
        method does, its reference and its code, neither known to be the better judge;
        chosen on that principle, not fitted (the repository's only ratings have no code).
    target : {"name", "summary"}
        What the predictions are; decides how code is read
        (:func:`wrdscore.corpora.read_code`: the declared name masked for names,
        comments removed for summaries).
    strings : {"drop", "keep"}
        String literals in code: left out, or split into words.
    language : str, optional
        The language every code item is read in (signature ``lang:<language>``). By
        default (``lang:auto``) each item's own (a
        :class:`~wrdscore.corpora.SourceCode`'s), or the one it is told to be in
        (:func:`~wrdscore.corpora.detect_language`).
    support : str or SupportModel
        The support model, by name (:data:`~wrdscore.metrics.code.SUPPORT_MODELS`) or
        itself: what the metric's raw match in the code becomes.
    allow_unmasked : bool
        With target ``name``, score code whose name cannot be masked (read in its
        language, it declares no function, or not the name given: a wrong language or
        name) as before masking was checked, counted in the result's
        :attr:`~wrdscore.metrics.ScoreResult.unmasked_code` and signed
        ``mask:name-if-declared``, instead of refusing it
        (:func:`~wrdscore.corpora.read_method`).

    Examples
    --------
    >>> CodeScorer(0.25, support="none").signature_fields()["prior"]
    'none'
    """

    def __init__(
        self,
        weight: float = DEFAULT_CODE_WEIGHT,
        target: str = DEFAULT_TARGET,
        strings: str = DEFAULT_STRINGS,
        language: str | None = None,
        support: str | SupportModel = DEFAULT_SUPPORT,
        allow_unmasked: bool = False,
    ) -> None:
        if (weight, target, strings) != (DEFAULT_CODE_WEIGHT, DEFAULT_TARGET, DEFAULT_STRINGS):
            check_code_options(weight, target, strings)
        if language is not None:
            from wrdscore.corpora import check_language

            check_language(language)
        self.weight = float(weight)
        self.target = target
        self.strings = strings
        self.language = language
        self.support = support_model(support)
        if not isinstance(allow_unmasked, bool):
            raise WrdscoreError(f"allow_unmasked must be true or false, not {allow_unmasked!r}")
        self.allow_unmasked = allow_unmasked

    def signature_fields(self) -> dict[str, str]:
        """The signature fields of scoring against code."""
        return {
            "code": "yes",
            "cw": f"{self.weight:g}",
            "tgt": self.target,
            # With allow_unmasked, code whose name is not found declared is read unmasked.
            "mask": "none"
            if self.target != "name"
            else "name-if-declared"
            if self.allow_unmasked
            else "name",
            "str": self.strings,
            # The language given for all code (--language), or auto: each item's own (a
            # CODE.jsonl line's language key, a corpus record's) or, without one, the one
            # detect_language tells (Java if Java parses it cleanly, else the grammar that
            # parses it with the fewest errors).
            "lang": self.language or "auto",
            # The support model (the priors scaling every raw support), and the
            # empty-code rule of combine.
            **self.support.signature_fields(),
            "empty": "ref",
        }

    def prepare(self) -> None:
        """Load now what scoring against code loads on first use: the code reader (the
        grammars' queries) and the support model's tables.

        Called before forking worker processes: each worker loaded them again (0.02 s
        and 0.07 s of CPU) when the engine scored code.
        """
        from wrdscore.corpora import read_code  # noqa: F401  (loads the reader)

        self.support.prepare(self.target)

    def corpus_values(
        self,
        sums: dict[str, float],
        reference: dict[str, float],
        pairs: int,
        primary: str,
        means: bool,
    ) -> dict[str, float]:
        """``code`` and, with the ``reference``'s corpus values, ``combined`` of a corpus
        from its summed values: the mean code support, and the mean of the pairs'
        ``combined`` where the metric's corpus values are ``means``, else (subtoken's
        micro average) the mix of the corpus values, as each pair's are mixed.

        Examples
        --------
        >>> CodeScorer().corpus_values({"code": 1.5, "combined": 1.0}, {"f1": 0.2}, 2, "f1",
        ...                            means=False)
        {'code': 0.75, 'combined': 0.475}
        """
        out = {"code": sums["code"] / pairs}
        if reference and means:
            # The mean of the pairs' combined, which takes the reference's value where the
            # code had nothing to match, and the code's where the reference was empty.
            out["combined"] = sums["combined"] / pairs
        elif reference:
            out["combined"] = (1.0 - self.weight) * reference[primary] + self.weight * out["code"]
        return out

    def read(self, metric: Metric, code: list[CodeItem], index_offset: int) -> ReadCode:
        """:func:`~wrdscore.metrics.code.read_codes` as ``metric`` reads code, or what
        another metric of the same chunk read the same way (the run's ``code_memo``):
        the metrics of a run used to read, and split, every method once each."""
        how = (self.target, self.strings, metric.segment, self.language, self.allow_unmasked)
        memo = metric._call.code_memo
        found = None if memo is None else memo.get(how)
        if found is None and self.strings == "drop":
            # A corpus's stored identifiers: read as token ids, all at once.
            found = read_stored_codes(
                code, self.target, index_offset, metric.segment, self.language
            )
        if found is None:
            found = read_codes(code, self.target, self.strings, index_offset, *how[2:])
        if memo is not None:
            # Either reading serves the chunk's other metrics.
            memo[how] = found
        return found

    def values(self, metric: Metric, read: ReadCode, preds: list[Tokens]) -> Scored:
        """Code support of every pair (``values["code"]``), which pairs had nothing to
        match in their code (``degenerate``), and what the metric counted.

        The metric's raw support of the pairs with both sides
        (:meth:`~wrdscore.metrics.Metric._code_support`), turned into support by the
        support model, so that copying the code's words does not win. Pairs with an
        empty side have raw support 0 without reaching the metric.
        """
        codes = read.tokens
        raw = np.zeros(len(preds))
        if len(codes) != len(preds):
            raise ValueError(f"{len(codes)} code items for {len(preds)} predictions")
        has_code = code_lengths(codes) > 0
        has_pred = np.fromiter(map(bool, preds), bool, len(preds))
        nothing = has_pred & ~has_code
        scored = np.flatnonzero(has_pred & has_code).tolist()
        side = Scored({})
        if scored:
            # Token ids to a metric that reads them (WRDScore's static vectors), lists
            # to any other.
            chosen = (
                take_codes(codes, scored) if metric._reads_code_ids else [codes[i] for i in scored]
            )
            with metric.reading_code():
                side = metric._code_support(chosen, [preds[i] for i in scored])  # type: ignore[arg-type]
            found = side.values["code"]
            if np.shape(found) != (len(scored),) or not np.all(np.isfinite(found)):
                raise RuntimeError(f"metric {metric.name!r} returned bad code support values")
            # A support's best is 1, the prediction found as it is in the code: TRWMD's
            # normalisation passes it where the code repeats a token (its log-sum-exp
            # adds T log k), and combined must mix values in [0, 1].
            raw[scored] = np.minimum(found, 1.0)
            if side.degenerate is not None:
                nothing[scored] = side.degenerate
        given = SupportInput(raw, preds, codes, read.languages, self.target, metric)
        support = np.asarray(self.support.support(given), dtype=np.float64)
        if np.shape(support) != (len(preds),) or not np.all(np.isfinite(support)):
            raise RuntimeError(f"support model {self.support.name!r} returned bad values")
        return replace(side, values={"code": support}, degenerate=nothing)

    def score(
        self,
        metric: Metric,
        references: Sequence[Reference] | None,
        predictions: Sequence[Prediction],
        code: Sequence[CodeItem],
        *,
        allow_empty_reference: bool,
        progress: Callable[[int], None] | None,
        index_offset: int,
    ) -> ScoreResult:
        """:meth:`~wrdscore.metrics.Metric.score` with ``code``: the reference's values
        (if any), ``code`` and ``combined``."""
        metric.check_reads_code()
        if isinstance(code, str):
            raise WrdscoreError("code must be a list of items (one per prediction), not one string")
        code = list(code)
        predictions = list(predictions)
        if len(code) != len(predictions):
            raise WrdscoreError(
                f"{len(code)} code items but {len(predictions)} predictions; "
                "every prediction needs the code of its method"
            )
        # All of it one batch, as reference scoring is: reading the code allocates a list
        # per method and more per identifier, none in cycles, which the collector would
        # otherwise rescan again and again (a sixth to a quarter of reading OpenJDK's code).
        with gc_paused():
            preds = prediction_tokens(predictions, index_offset, metric._prediction_tokens())
            # The code's run-together words meet the prediction's split the same way.
            read = self.read(metric, code, index_offset)
            cut = long_code(code)
            result = None
            no_reference = None
            if references is not None:
                if allow_empty_reference:
                    no_reference = _no_reference(metric, references, index_offset)
                result = metric._score(
                    references,
                    predictions,
                    allow_empty_reference=allow_empty_reference,
                    progress=None,
                    index_offset=index_offset,
                )
            with running(metric, nested(metric)):
                side = self.values(metric, read, preds)
            support, nothing = side.values["code"], side.degenerate
            assert nothing is not None
        if progress is not None:
            progress(len(preds))
        values = combine(
            None if result is None else result.values,
            support,
            metric.primary,
            self.weight,
            nothing,
            no_reference,
        )
        unmatched = int(np.count_nonzero(nothing))
        if result is None:
            return ScoreResult(
                metric=metric.name,
                signature=metric.code_signature,
                values=values,
                primary="code",
                corpus=metric._corpus(values),
                oov_tokens=side.oov_count,
                empty_predictions=sum(1 for p in preds if not p),
                oov_names=first_names(side.oov_names),
                empty_code=unmatched,
                cut_code=cut,
                unmasked_code=read.unmasked,
                cuts=dict(+side.cuts),  # the kinds counted, without zeros
            )
        return replace(
            result,
            signature=metric.code_signature,
            values=values,
            corpus=metric._corpus(values),
            oov_tokens=result.oov_tokens + side.oov_count,
            oov_names=first_names([*result.oov_names, *side.oov_names]),
            empty_code=unmatched,
            cut_code=cut,
            cuts=dict(Counter(result.cuts) + side.cuts),
            empty_references=0 if no_reference is None else int(np.count_nonzero(no_reference)),
            unmasked_code=read.unmasked,
        )


def _no_reference(
    metric: Metric, references: Sequence[Reference], index_offset: int
) -> NDArray[np.bool_]:
    """Which pairs' references have no token (no alternative with one), as ``metric``
    splits them: only asked where empty references are allowed."""
    references = list(references)
    # A stand-in prediction of one token: each reference alternative with a token is an
    # entry of the flat batch, and an item without entries has no reference.
    batch = metric._flatten(references, [["x"]] * len(references), True, index_offset)
    out = np.ones(len(references), dtype=bool)
    out[list(range(len(batch.refs))) if batch.owner is None else batch.owner] = False
    return out
