"""Support models: what a metric's raw match in the code becomes as its code support.

A metric that reads code gives, for each pair, its *raw* support (its
:attr:`~wrdscore.metrics.Metric.code_key` value with the code's tokens on the reference
side: how well the prediction is grounded in the code's words). On its own that rewards
copying the code, so a *support model* turns it into the code support scoring reports:
it is given the raw values and everything read with them (:class:`SupportInput`: the
predictions' and the code's tokens, the languages they were read in, the target, and
the metric itself for anything else it needs, such as its token vectors) and returns one
value per pair. Its signature fields (``prior:src69-copied``) go into every code signature.

Models are chosen by name (``code_support=`` of a metric, ``--code-support`` of the CLI)
from a registry: :data:`SUPPORT_MODELS` lists them, :func:`register_support` adds one,
:func:`support_model` builds one. Shipped:

* ``distinct-coverage`` (the default of ``wrd``): for summaries, what the summary finds
  in the code and what of the code it covers, each distinct word once, gated by its copied
  share (:class:`DistinctCoverage`, chosen by agreement with people in issue 41); names as
  ``src69-copied``;
* ``src69-copied`` (the default of every other metric that reads code): the copied-share
  gate over the 69 sources' table, chosen in round 4 of issue 32
  (:mod:`~wrdscore.metrics._code_prior`, ``docs/history.md``);
* ``jdk17-seq``: round 2's priors (conciseness and plausibility over OpenJDK 17's
  table, q 0.05), shipped until round 4 and the row called R0 in rounds 3 and 4;
* ``none``: the raw support alone (the rows called "best match alone");
* ``coverage``: for summaries, what the summary finds in the code and what of the code it
  covers, gated by its copied share, each occurrence counted (:class:`Coverage`: issue
  41's C1, which agrees with people about as well as ``distinct-coverage`` but loses
  more often to padding and to repeats; names as ``src69-copied``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import CodeTokens, code_lengths, take_codes
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._code_prior import (
    COPIED_SHARE,
    LENGTH_SHARE,
    PRIOR_FILE,
    QUANTILE,
    TextPrior,
    copied_counts,
    read_prior,
)

if TYPE_CHECKING:
    from wrdscore.metrics._flatten import Tokens
    from wrdscore.metrics._metric import Metric


@dataclass(frozen=True)
class SupportInput:
    """What a support model is given for a batch of pairs.

    Attributes
    ----------
    raw : ndarray
        The metric's raw support of each pair (0 where a side had nothing to match).
    predictions, codes : list of token lists
        Each prediction's tokens, and its method's code as scoring read it (a corpus's
        stored identifiers as :class:`~wrdscore.corpora.CodeTokens`).
    languages : list of str or None
        The language each method was read in (None: no code).
    target : str
        ``name`` or ``summary``.
    metric : Metric
        The metric scoring: for a model that needs more of it than its raw values.
    """

    raw: NDArray[np.float64]
    predictions: list[Tokens]
    codes: list[Tokens] | CodeTokens
    languages: list[str | None]
    target: str
    metric: Metric


class SupportModel(ABC):
    """Turns a metric's raw match in the code into code support (see the module)."""

    #: The registry name (``--code-support NAME``).
    name: str

    @abstractmethod
    def support(self, given: SupportInput) -> NDArray[np.float64]:
        """The code support of each pair of ``given``, finite, one per pair."""

    def signature_fields(self) -> dict[str, str]:
        """Fields of every code signature this model scores under (``prior:NAME``)."""
        return {"prior": self.name}

    def prepare(self, target: str) -> None:
        """Load now what :meth:`support` of ``target`` loads on first use (the engine calls
        it before forking workers, so that they share it)."""
        return None

    def for_target(self, target: str) -> SupportModel:
        """The model that scores ``target``: this one, or the one it hands it to."""
        return self


class NoPrior(SupportModel):
    """The raw support itself: what the metric finds in the code, copying rewarded."""

    name = "none"

    def support(self, given: SupportInput) -> NDArray[np.float64]:
        return given.raw


@cache
def table_prior(table: str, target: str, quantile: float, copied_share: float | None) -> TextPrior:
    """The prior of ``target`` in the shipped table ``table`` (a file of
    :mod:`wrdscore.data`), read once per process."""
    data = resources.files("wrdscore.data").joinpath(table).read_bytes()
    return read_prior(data, target, quantile, LENGTH_SHARE, copied_share)


@dataclass(frozen=True)
class PriorGate(SupportModel):
    """Raw support times the priors of a shipped table (:class:`TextPrior.factor`).

    ``copied_share`` None: conciseness times plausibility (round 2); a share: the gate
    softened by copying, with its copied-count conciseness (round 4).
    """

    name: str  # type: ignore[misc]  # a field here, a class attribute in the base
    table: str
    quantile: float
    copied_share: float | None

    def prior(self, target: str) -> TextPrior:
        """The :class:`TextPrior` of ``target``."""
        return table_prior(self.table, target, self.quantile, self.copied_share)

    def support(self, given: SupportInput) -> NDArray[np.float64]:
        factor = self.prior(given.target).factor(given.predictions, given.codes, given.languages)
        return given.raw * factor

    def prepare(self, target: str) -> None:
        self.prior(target)


class Coverage(SupportModel):
    r"""Summaries judged for what they say of the code: issue 41's candidate C1.

    For a summary ``p`` of ``m`` tokens, ``k`` of them copied from its code,

    .. math:: \mathrm{code}(p) = F(s_{bm}, r_{bm})\, P(p)^{k/m}

    with :math:`s_{bm}` the best-match precision (the raw support: what the summary's
    words find in the code), :math:`r_{bm}` its mirror over the code (each code token's
    best match in the summary, weighted by its mass times its count:
    ``WRDScore.code_coverage``), :math:`F` their harmonic mean, and :math:`P^{k/m}` the
    gate's copied-share plausibility. The gate's two length priors are left out, so a
    summary does not lose support for saying more that the code supports. Names are
    scored as by ``src69-copied``. Only ``wrd`` offers the recall.

    On the shared ratings made against the code it agrees better with people than the
    gate (Spearman .467 against .390 over 995 summaries), but the true summary beats the
    body's frequent words appended to it less often (.233 against .309) and ties its own
    repeat more often: the floors of issue 41's first round ruled it out
    (``docs/history.md``, "Code support chosen by people").
    """

    name = "coverage"
    #: Count each distinct token once (:class:`DistinctCoverage`).
    distinct = False

    def prior(self) -> TextPrior:
        """The default's summary prior, whose plausibility and copied counts gate."""
        return table_prior(PRIOR_FILE, "summary", QUANTILE, COPIED_SHARE)

    def for_target(self, target: str) -> SupportModel:
        return self if target == "summary" else support_model(GATE_SUPPORT)

    def support(self, given: SupportInput) -> NDArray[np.float64]:
        if given.target != "summary":
            return self.for_target(given.target).support(given)
        precision, recall, gate = self.parts(given)
        total = precision + recall
        f = np.divide(2 * precision * recall, total, out=np.zeros(len(total)), where=total > 0)
        return f * gate

    def parts(
        self, given: SupportInput
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Each summary's precision in the code, recall over it (0 for a pair with an empty
        side) and copied-share plausibility gate; the support is ``F(precision, recall)
        x gate``."""
        coverage = getattr(given.metric, "code_coverage", None)
        if coverage is None:
            raise WrdscoreError(
                f"code support {self.name!r} reads the code's side through WRDScore's best "
                f"match: metric {given.metric.name!r} has none (use -m wrd)"
            )
        preds, codes = given.predictions, given.codes
        has_code = code_lengths(codes) > 0
        both = np.flatnonzero(has_code & np.fromiter(map(bool, preds), bool, len(preds))).tolist()
        precision, recall = np.zeros(len(preds)), np.zeros(len(preds))
        if both:
            precision[both], recall[both], _ = coverage(
                take_codes(codes, both),
                [preds[i] for i in both],
                distinct=self.distinct,
            )
        sizes = np.fromiter(map(len, preds), np.int64, len(preds))
        copied = copied_counts(preds, codes, given.languages)
        gate = self.prior().plausibility(preds) ** (copied / np.maximum(sizes, 1))
        return precision, recall, gate

    def prepare(self, target: str) -> None:
        # Only the table the target reads: the gate's for names, the summary prior here.
        if target == "summary":
            self.prior()
        else:
            self.for_target(target).prepare(target)


class DistinctCoverage(Coverage):
    r"""Coverage over distinct words: the default of ``wrd`` for summaries (issue 41's D1).

    As :class:`Coverage`, with each distinct token counted once on both sides
    (``WRDScore.code_coverage(..., distinct=True)``):

    .. math:: s_d = \frac1m \sum_{t \in \mathrm{set}(p)} \max_i c_{ti}, \qquad
       r_d = \frac{\sum_{i \in \mathrm{set}(code)} \mu_i \max_t c_{ti}}
       {\sum_{i \in \mathrm{set}(code)} \mu_i},

    ``m`` all the summary's tokens, :math:`\mu_i` a code token's mass (once, not times its
    count); the support is :math:`F(s_d, r_d)\, P(p)^{k/m}`. A word said again earns
    nothing the second time, so repeating a summary halves its precision, and the body's
    most frequent words weigh no more than its others. Names are scored as by
    ``src69-copied``.

    Chosen in issue 41's fourth round by agreement with people who rated summaries against
    the code (Spearman .464 against .390 over 995 summaries, ``docs/history.md``, "Code
    support chosen by people"), meeting the attack floors; it still loses to a true summary
    with three of the body's frequent words appended about as often as the old gate did.
    """

    name = "distinct-coverage"
    distinct = True


def code_prior(target: str, quantile: float = QUANTILE) -> TextPrior:
    """The default support model's prior of ``target`` (``name`` or ``summary``), read
    once: the gate softened by copying, as chosen in round 4."""
    return table_prior(PRIOR_FILE, target, quantile, COPIED_SHARE)


#: Round 4's copied-share gate over the 69 sources' table: the default of every metric
#: but ``wrd``, and of names under the coverage models.
GATE_SUPPORT = "src69-copied"
#: The model of a metric that reads the code's side (``wrd``), unless told otherwise:
#: issue 41's choice for summaries, the gate for names.
COVERAGE_SUPPORT = "distinct-coverage"
#: The model scoring uses unless told otherwise, where the metric does not name its own
#: (:attr:`~wrdscore.metrics.Metric.default_code_support`).
DEFAULT_SUPPORT = GATE_SUPPORT

_MODELS: dict[str, Callable[[], SupportModel]] = {
    GATE_SUPPORT: lambda: PriorGate(GATE_SUPPORT, PRIOR_FILE, QUANTILE, COPIED_SHARE),
    "jdk17-seq": lambda: PriorGate("jdk17-seq", "code_prior_jdk17_seq.zip", 0.05, None),
    "none": NoPrior,
    "coverage": Coverage,
    COVERAGE_SUPPORT: DistinctCoverage,
}


def register_support(name: str, factory: Callable[[], SupportModel]) -> None:
    """Make the support model ``factory()`` available as ``name`` (``--code-support NAME``).

    Examples
    --------
    >>> class Halved(SupportModel):
    ...     name = "halved-demo"
    ...     def support(self, given):
    ...         return given.raw / 2
    >>> register_support("halved-demo", Halved)
    >>> support_model("halved-demo").signature_fields()
    {'prior': 'halved-demo'}
    """
    if name in _MODELS and _MODELS[name] is not factory:
        raise ValueError(f"support model {name!r} registered twice")
    _MODELS[name] = factory


class _Models(Mapping[str, Callable[[], SupportModel]]):
    """Read-only view of the registered support models."""

    def __getitem__(self, name: str) -> Callable[[], SupportModel]:
        return _MODELS[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(_MODELS))

    def __len__(self) -> int:
        return len(_MODELS)


#: The support models by name (a mapping of name to factory).
SUPPORT_MODELS: Mapping[str, Callable[[], SupportModel]] = _Models()


def support_model(name: str | SupportModel) -> SupportModel:
    """The support model registered as ``name`` (a model is returned as it is); a
    one-line error listing the names otherwise."""
    if isinstance(name, SupportModel):
        return name
    factory = _MODELS.get(name) if isinstance(name, str) else None
    if factory is None:
        raise WrdscoreError(
            f"unknown code support {name!r}; choose one of {', '.join(SUPPORT_MODELS)}"
        )
    return factory()
