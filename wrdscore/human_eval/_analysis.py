"""The analysis of a study: every statistic of every metric against the human scores."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError, counted
from wrdscore.human_eval._ratings import HumanRatings, deduplicate, select
from wrdscore.human_eval._scoring import MetricScores
from wrdscore.human_eval._stats import (
    Comparison,
    Correlation,
    Interval,
    bootstrap_indices,
    compare_errors,
    correlation_intervals,
    error_intervals,
    error_samples,
    krippendorff_alpha_interval,
    rater_vs_others,
)
from wrdscore.significance import check_resamples

#: Level of the percentile intervals of an analysis.
LEVEL = 0.95

_RENAMED = "n_boot is deprecated; it is called resamples, as in Metric.compare"


def renamed_resamples(resamples: int, n_boot: int | None) -> int:
    """``resamples``, or the deprecated ``n_boot`` where a caller still passes it.

    One name for the number of bootstrap resamples across the API and the command line
    (``wrdscore compare --resamples``, ``study analyze --resamples``).
    """
    if n_boot is None:
        return resamples
    warnings.warn(_RENAMED, DeprecationWarning, stacklevel=3)
    return n_boot


@dataclass(frozen=True)
class MetricAnalysis:
    """One metric's agreement with people.

    ``comparison`` (against the baseline metric) is ``None`` for the baseline itself;
    ``bootstrap`` holds the B resampled MSE and MAE values (for the plots).
    """

    metric: MetricScores
    errors: dict[str, Interval]
    correlations: dict[str, Correlation]
    comparison: dict[str, Comparison] | None
    bootstrap: dict[str, NDArray[np.float64]]

    def as_dict(self) -> dict[str, object]:
        """Every number, for ``report.json``."""
        return {
            "metric": self.metric.name,
            "label": self.metric.label,
            "signature": self.metric.signature,
            "errors": {k: v.as_dict() for k, v in self.errors.items()},
            "correlations": {k: v.as_dict() for k, v in self.correlations.items()},
            "vs_baseline": None
            if self.comparison is None
            else {k: v.as_dict() for k, v in self.comparison.items()},
            "bootstrap": {k: v.tolist() for k, v in self.bootstrap.items()},
        }


@dataclass(frozen=True)
class Agreement:
    """How much raters agree: Krippendorff's alpha (interval) and each rater vs the others."""

    alpha: float | None
    raters: list[str]
    rater_vs_others: list[float | None]

    @property
    def mean_vs_others(self) -> float | None:
        """Mean over raters of their correlation with the others (where defined)."""
        defined = [v for v in self.rater_vs_others if v is not None]
        return float(np.mean(defined)) if defined else None

    def as_dict(self) -> dict[str, object]:
        """Every number, for ``report.json``."""
        return {
            "krippendorff_alpha_interval": self.alpha,
            "rater_vs_others_pearson": dict(zip(self.raters, self.rater_vs_others, strict=True)),
            "rater_vs_others_mean": self.mean_vs_others,
        }


@dataclass(frozen=True)
class SetView:
    """The analysis of part of the sets: one set on its own, or every set but one.

    ``analysis`` is ``None`` where the part cannot be analysed, with the reason in
    ``reason`` (fewer than 2 pairs, or a baseline without error there).
    """

    set: str
    pairs: int
    analysis: Analysis | None
    reason: str | None = None

    def as_dict(self) -> dict[str, object]:
        """Every number, for ``report.json``."""
        return {
            "set": self.set,
            "pairs": self.pairs,
            "analysis": None if self.analysis is None else self.analysis.as_dict(),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Analysis:
    """Everything ``report.md``/``report.json`` show, for one set of rated pairs.

    ``deduplicated`` is the analysis of the distinct pairs where some pair was rated more
    than once, ``None`` otherwise or, with the reason in ``deduplicated_reason``, where the
    distinct pairs cannot be analysed (fewer than 2, or a baseline without error there).
    ``by_set`` holds the analysis of each set on its own and ``leave_one_out`` that of
    all sets but one (``SetView.set`` names the set left out), in the order the sets
    first appear; both are empty for one set, and ``leave_one_out`` for two (leaving
    one of two sets out is the other set on its own).
    """

    ratings: HumanRatings
    resamples: int
    seed: int
    level: float
    baseline: str | None
    metrics: list[MetricAnalysis]
    agreement: Agreement | None
    deduplicated: Analysis | None
    deduplicated_reason: str | None = None
    by_set: list[SetView] = field(default_factory=list)
    leave_one_out: list[SetView] = field(default_factory=list)

    @property
    def n_boot(self) -> int:
        """The old name of :attr:`resamples` (deprecated; ``compare`` says resamples)."""
        warnings.warn(_RENAMED, DeprecationWarning, stacklevel=2)
        return self.resamples

    @property
    def sets(self) -> list[str]:
        """The sets of the rated pairs, in the order they first appear."""
        return list(dict.fromkeys(self.ratings.sets))

    def as_dict(self) -> dict[str, object]:
        """Every number, for ``report.json``."""
        return {
            "pairs": len(self.ratings),
            "sets": self.sets,
            "resamples": self.resamples,
            "seed": self.seed,
            "interval_level": self.level,
            "baseline": self.baseline,
            "metrics": [m.as_dict() for m in self.metrics],
            "agreement": None if self.agreement is None else self.agreement.as_dict(),
            "per_pair": {
                "id": self.ratings.ids,
                "set": self.ratings.sets,
                "human": self.ratings.human.tolist(),
                **{m.metric.name: m.metric.scores.tolist() for m in self.metrics},
            },
            "deduplicated": None if self.deduplicated is None else self.deduplicated.as_dict(),
            "deduplicated_reason": self.deduplicated_reason,
            "by_set": [v.as_dict() for v in self.by_set],
            "leave_one_set_out": [v.as_dict() for v in self.leave_one_out],
        }


def analyze(
    ratings: HumanRatings,
    scores: Mapping[str, MetricScores],
    *,
    resamples: int = 100,
    seed: int = 0,
    baseline: str | None = "rouge1",
    level: float = LEVEL,
    with_deduplicated: bool = True,
    with_sets: bool = True,
    n_boot: int | None = None,
) -> Analysis:
    """Compare each metric's scores with the human ground truth.

    All metrics share the same ``resamples`` resamples of the pairs (drawn with ``seed``), so
    their bootstrap errors are paired. Where the ratings repeat a pair, the same analysis
    of the distinct pairs (scores averaged) is attached as ``deduplicated``, or the reason
    there is none as ``deduplicated_reason`` (a single distinct pair, say). Where the
    ratings span several sets, the same analysis of each set on its own, and (from three
    sets on) of all sets but one, is attached as ``by_set`` and ``leave_one_out``: each
    part is resampled on its own pairs with the same ``resamples`` and ``seed``.

    Parameters
    ----------
    ratings : HumanRatings
        Ground truth per pair (mean over raters, 0-1), rater-level scores if known.
    scores : mapping of name to MetricScores
        Per-pair scores of each metric, in the order of ``ratings``.
    resamples : int
        Number of bootstrap resamples B (100 in the WRDScore paper), at least
        :func:`~wrdscore.significance.min_resamples` of ``level`` (40 for 95%); the
        name :meth:`~wrdscore.metrics.Metric.compare` and ``wrdscore compare`` use.
    seed : int
        Seed of the resamples.
    baseline : str or None
        The metric the others are tested against (ROUGE-1 in the paper).
    level : float
        Level of the percentile intervals.
    with_deduplicated : bool
        Attach the analysis of the distinct pairs when some pairs repeat.
    with_sets : bool
        Attach the set-by-set and leave-one-set-out analyses when there are several sets.
    n_boot : int, optional
        The old name of ``resamples``: still taken, with a :class:`DeprecationWarning`.

    Examples
    --------
    >>> r = HumanRatings(["a", "b", "c"], ["1"] * 3, ["x", "y", "z"], ["x", "q", "z"],
    ...                  np.array([1.0, 0.2, 0.8]), [], None)
    >>> s = {"m": MetricScores("m", np.array([1.0, 0.0, 1.0]), "m|v:0")}
    >>> round(analyze(r, s, baseline=None).metrics[0].errors["mse"].point, 4)
    0.0267
    """
    resamples = renamed_resamples(resamples, n_boot)
    if baseline is not None and baseline not in scores:
        raise WrdscoreError(f"the baseline metric {baseline} is not among the metrics analysed")
    for metric in scores.values():
        if metric.scores.shape != ratings.human.shape:
            raise WrdscoreError(
                f"{metric.name}: {counted(metric.scores.size, 'score')} for "
                f"{counted(len(ratings), 'rated pair')}"
            )
    # The same rule as `wrdscore compare`'s: fewer resamples give intervals whose ends
    # are not resamples (one resample: a "95%" interval of zero width).
    check_resamples(resamples, level)
    indices = bootstrap_indices(len(ratings), resamples, seed)
    human = ratings.human
    results = [
        MetricAnalysis(
            metric,
            error_intervals(metric.scores, human, indices, level),
            correlation_intervals(metric.scores, human, indices, level),
            None
            if baseline is None or name == baseline
            else compare_errors(metric.scores, scores[baseline].scores, human, indices),
            error_samples(metric.scores, human, indices),
        )
        for name, metric in scores.items()
    ]
    agreement = None
    if ratings.by_rater is not None and len(ratings.raters) >= 2:
        agreement = Agreement(
            krippendorff_alpha_interval(ratings.by_rater),
            ratings.raters,
            rater_vs_others(ratings.by_rater),
        )
    # The same settings for every sub-analysis (deduplicated pairs, each set).
    options: dict[str, Any] = {
        "resamples": resamples,
        "seed": seed,
        "baseline": baseline,
        "level": level,
    }
    deduplicated, deduplicated_reason = None, None
    if with_deduplicated:
        distinct, kept = deduplicate(ratings)
        if len(distinct) < len(ratings):
            deduplicated, deduplicated_reason = _part(
                distinct, _subset(scores, kept), options, "distinct pair"
            )
    by_set: list[SetView] = []
    leave_one_out: list[SetView] = []
    sets = np.asarray(ratings.sets, dtype=object)
    names = list(dict.fromkeys(ratings.sets))
    if with_sets and len(names) > 1:
        by_set = [_view(ratings, scores, name, sets == name, options) for name in names]
    if with_sets and len(names) > 2:
        leave_one_out = [_view(ratings, scores, name, sets != name, options) for name in names]
    return Analysis(
        ratings,
        resamples,
        seed,
        level,
        baseline,
        results,
        agreement,
        deduplicated,
        deduplicated_reason,
        by_set,
        leave_one_out,
    )


def _subset(scores: Mapping[str, MetricScores], at: NDArray[np.intp]) -> dict[str, MetricScores]:
    return {k: MetricScores(m.name, m.scores[at], m.signature) for k, m in scores.items()}


def _part(
    ratings: HumanRatings,
    scores: Mapping[str, MetricScores],
    options: Mapping[str, Any],
    pairs: str = "pair",
) -> tuple[Analysis | None, str | None]:
    """The analysis of part of the rated pairs, or ``None`` and why there is none."""
    if len(ratings) < 2:
        return None, f"{counted(len(ratings), pairs)}: too few for statistics"
    try:
        return analyze(ratings, scores, **options, with_deduplicated=False, with_sets=False), None
    except WrdscoreError as exc:
        # A part can fail where the whole does not (its baseline may make no error at all);
        # the report says so instead of losing every other number.
        return None, str(exc)


def _view(
    ratings: HumanRatings,
    scores: Mapping[str, MetricScores],
    name: str,
    mask: NDArray[np.bool_],
    options: Mapping[str, Any],
) -> SetView:
    """The analysis of the pairs in ``mask``, or why there is none."""
    at = np.flatnonzero(mask)
    part, reason = _part(select(ratings, at), _subset(scores, at), options)
    return SetView(name, int(at.size), part, reason)
