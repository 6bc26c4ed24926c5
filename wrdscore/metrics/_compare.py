"""Two systems compared on every headline value: the reference's, and the code's.

:meth:`Metric.compare <wrdscore.metrics.Metric.compare>` bootstraps one value;
:func:`compare_values` scores each system once and bootstraps each of its headline
values (:func:`~wrdscore.significance.paired_bootstrap`), so that ``wrdscore compare
--code`` tests the code support and the combined value as it tests F1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wrdscore.errors import WrdscoreError
from wrdscore.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, paired_bootstrap

if TYPE_CHECKING:
    from wrdscore.metrics._metric import Metric
    from wrdscore.metrics._result import ScoreResult
    from wrdscore.significance import BootstrapComparison

#: The values scoring against code adds, in the order they are compared.
CODE_VALUES = ("code", "combined")


def compare_values(
    metric: Metric,
    references: Sequence[Any] | None,
    predictions_a: Sequence[Any],
    predictions_b: Sequence[Any],
    *,
    code: Sequence[Any] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    allow_empty_reference: bool = False,
) -> tuple[ScoreResult, ScoreResult, dict[str, BootstrapComparison]]:
    """Score two systems on the same pairs, and test the difference of each headline value.

    Both prediction sets are scored once with ``metric`` (against ``references``, the
    methods' ``code``, or both: :meth:`~wrdscore.metrics.Metric.score`). The values
    compared are the result's primary one (F1 for most metrics; the code support
    when there are no references) and, with ``code``, the code support and the
    combined value too. Each is bootstrapped with the same ``seed``, so every value is
    judged on the same resamples of the pairs.

    Returns
    -------
    result_a, result_b : ScoreResult
    comparisons : dict of str to BootstrapComparison
        By value name (``f1``, ``code``, ``combined``), in that order.

    Examples
    --------
    >>> from wrdscore.metrics import get_metric
    >>> code = ["int size() { return count; }"] * 4
    >>> _, _, found = compare_values(get_metric("rouge1"), ["size"] * 4, ["count"] * 4,
    ...                              ["size", "count", "size", "x"], code=code)
    >>> list(found), round(found["f1"].difference, 4)
    (['f1', 'code', 'combined'], -0.5)
    """
    if references is None and code is None:
        raise WrdscoreError("nothing to compare against: give references, code or both")
    a, b = (
        metric.score(references, preds, code=code, allow_empty_reference=allow_empty_reference)
        for preds in (predictions_a, predictions_b)
    )
    # Without references the code support is the only value (and the primary one).
    names = [a.primary, *(k for k in CODE_VALUES if k in a.values and k != a.primary)]
    return (
        a,
        b,
        {
            k: paired_bootstrap(a.values[k], b.values[k], resamples=resamples, seed=seed)
            for k in names
        },
    )
