"""Two systems compared on every headline value: the reference's, and the code's.

:meth:`Metric.compare <wrdscore.metrics.Metric.compare>` bootstraps one value;
:func:`compare_values` scores each system once and bootstraps each of its headline
values (:func:`~wrdscore.significance.paired_bootstrap`), so that ``wrdscore compare
--code`` tests the code support and the combined value as it tests F1.
:func:`corpus_comparison` reads two systems' predictions on an ingested corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
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


def corpus_comparison(
    corpus_dir: str | Path,
    predictions_a: str | Path,
    predictions_b: str | Path,
    target: str,
    workdir: Path,
    *,
    source: bool = True,
) -> tuple[list[str], list[Any], list[Any], list[Any]]:
    """References, code and both systems' predictions on an ingested corpus.

    Each predictions file is read as ``wrdscore score --corpus`` reads one
    (:func:`~wrdscore.metrics._code.corpus_inputs`): aligned by record order, or a
    ``.jsonl`` of ``{"id": ..., "prediction": ...}`` objects. A paired comparison needs
    the same methods in the same order, so two files by id must list the same ids in
    the same order, and one by id cannot be compared with one by record order.
    ``source=False`` reads a stored corpus's identifiers, not its sources (enough where
    string literals are dropped: ``corpus_inputs``'s ``code``).

    Raises
    ------
    WrdscoreError
        Files that predict different methods, or in another order (the first place
        they differ is named).
    """
    from wrdscore.inputs import id_predictions, read_items
    from wrdscore.metrics._code import corpus_inputs

    ids = [id_predictions(p) for p in (predictions_a, predictions_b)]
    if (ids[0] is None) != (ids[1] is None):
        by_id = predictions_a if ids[0] is not None else predictions_b
        raise WrdscoreError(
            f"{by_id} gives predictions by id, the other file by record order: give both "
            "the same way, so that they predict the same methods"
        )
    if ids[0] is not None and ids[1] is not None and list(ids[0]) != list(ids[1]):
        first, second = list(ids[0]), list(ids[1])
        at = next((i for i, (x, y) in enumerate(zip(first, second, strict=False)) if x != y), None)
        where = (
            f"line {at + 1} has id {first[at]!r} in {predictions_a}, {second[at]!r} in "
            f"{predictions_b}"
            if at is not None
            else f"{len(first)} ids in {predictions_a}, {len(second)} in {predictions_b}"
        )
        raise WrdscoreError(
            f"both --preds must predict the same methods in the same order: {where}"
        )
    out: list[Any] = []
    for k, path in enumerate((predictions_a, predictions_b)):
        folder = workdir / f"system-{k}"
        folder.mkdir()
        references, code, preds = corpus_inputs(corpus_dir, path, target, folder, code=source)
        out.append((references, code, read_items(preds)))
    (references, code, preds_a), (_, _, preds_b) = out
    return references, code, preds_a, preds_b
