"""Multiple references: each item's best alternative, from the scores of all of them.

:func:`~wrdscore.metrics._flatten.flatten` scores every (alternative, prediction) pair
in one batch; here each item takes the values of its best alternative (the highest
primary value, the first on ties), and the items none of whose alternatives could be
scored are counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from wrdscore.metrics._flatten import FlatBatch


def best_alternatives(
    raw: dict[str, NDArray],
    batch: FlatBatch,
    keys: Sequence[str],
    primary: str,
) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.int64] | None]:
    """Per-item values from per-entry ones: each item's best alternative, 0 if none.

    The best alternative has the highest ``primary`` value, the first one on ties.

    Returns
    -------
    values : dict of str to ndarray
        One float64 array per key, one entry per item.
    best : ndarray of int64 or None
        The 0-based number of each item's best alternative (0, the first, where none
        was scored: an empty prediction scores 0 against every alternative, a tie), or
        None when the batch has no list of alternatives.

    Examples
    --------
    >>> b = FlatBatch(n=2, preds=[["a"], ["b"]], refs=[["x"], ["y"], ["z"]],
    ...               flat_preds=[["a"], ["a"], ["b"]], owner=[0, 0, 1], alternative=[0, 1, 0])
    >>> values, best = best_alternatives({"s": np.array([0.2, 0.5, 0.1])}, b, ["s"], "s")
    >>> values["s"].tolist(), best.tolist()
    ([0.5, 0.1], [1, 0])
    """
    best = None if batch.alternative is None else np.zeros(batch.n, dtype=np.int64)
    if raw and batch.owner is None:
        return {k: np.asarray(raw[k], dtype=np.float64) for k in keys}, best
    values = {k: np.zeros(batch.n, dtype=np.float64) for k in keys}
    if raw:
        # Sort by item, then by descending primary value (stable, so the first
        # alternative wins ties).
        owners = np.asarray(batch.owner)
        order = np.lexsort((-raw[primary], owners))
        first = order[np.r_[True, owners[order][1:] != owners[order][:-1]]]
        for k in keys:
            values[k][owners[first]] = raw[k][first]
        if best is not None:
            best[owners[first]] = np.asarray(batch.alternative)[first]
    return values, best


def degenerate_items(entries: NDArray[np.bool_] | None, batch: FlatBatch) -> int:
    """Items all of whose scored entries (one per reference alternative) were degenerate.

    An item with another, scoreable alternative is scored by it, so it does not count.

    Examples
    --------
    >>> b = FlatBatch(n=2, preds=[["a"], ["b"]], refs=[["x"], ["y"], ["z"]],
    ...               flat_preds=[["a"], ["a"], ["b"]], owner=[0, 0, 1])
    >>> degenerate_items(np.array([True, False, True]), b)
    1
    """
    if entries is None or not entries.any():
        return 0
    if batch.owner is None:
        return int(entries.sum())
    owners = np.asarray(batch.owner)
    scoreable = np.bincount(owners, weights=~entries, minlength=batch.n)
    return int(np.count_nonzero((scoreable == 0) & (np.bincount(owners, minlength=batch.n) > 0)))
