"""What a scoring call of a metric is lent while it runs, apart from the metric object.

A metric object holds only its settings and caches, and its scoring returns what it
counts (:class:`~wrdscore.metrics._result.Scored`); whom a call reports progress to, and
what the streaming engine lends it for a run (its token memo, a whole file's batch mean)
live in a :class:`Call`, found through a :class:`~contextvars.ContextVar` (a metric
reads it through :class:`CallState`). So one metric can score in two threads at once, or
score again from inside a call (a progress callback that scores), and every call gives
the numbers it would give alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from wrdscore.metrics.code import ReadCode

Tokens = list[str]


@dataclass
class Call:
    """The state of one scoring call (or, for the engine, of one run's chunk).

    Attributes
    ----------
    memo : dict or None
        Items the run's earlier chunks tokenised, by text (see ``memo`` in
        :func:`~wrdscore.metrics._flatten.flatten`); None outside a run.
    batch_mean : ndarray or None
        The whole input's mean token vector under ``centering="batch"`` when the input
        is scored in parts; None otherwise.
    reference_stats : object or None
        Statistics of every reference of the input (bertscore's word-piece IDF), from
        :meth:`~wrdscore.metrics.Metric.reference_statistics`, when the input is scored
        in parts; None: each call's own references.
    code_memo : dict or None
        The code this run's chunk has read, by how it was read (target, strings,
        segmentation, language): every metric scoring the chunk reads the same code
        items, so each reading of them is done once, not once per metric. None outside
        the engine's chunks.
    progress : callable or None
        The caller's progress callback.
    """

    memo: dict[str | tuple[str, ...], Tokens] | None = None
    batch_mean: NDArray[np.float64] | None = None
    reference_stats: object | None = None
    code_memo: dict[tuple[object, ...], ReadCode] | None = None
    progress: Callable[[int], None] | None = None


# The calls running in this context (thread or task), by the id of their metric. A new
# mapping per call (copy on write): a context variable's value must not be mutated, or
# an outer call, or another thread's copy of the context, would see the change.
_CALLS: ContextVar[Mapping[int, Call]] = ContextVar("wrdscore_calls", default=MappingProxyType({}))


def current(owner: object) -> Call | None:
    """The innermost call of ``owner`` running in this context, or None."""
    return _CALLS.get().get(id(owner))


@contextlib.contextmanager
def running(owner: object, call: Call) -> Iterator[Call]:
    """Make ``call`` the current call of ``owner`` for the ``with`` block."""
    token = _CALLS.set({**_CALLS.get(), id(owner): call})
    try:
        yield call
    finally:
        _CALLS.reset(token)


def nested(owner: object, progress: Callable[[int], None] | None = None) -> Call:
    """A fresh call of ``owner``: new counts, the enclosing run's memo and batch mean."""
    outer = current(owner)
    if outer is None:
        return Call(progress=progress)
    return Call(
        memo=outer.memo,
        batch_mean=outer.batch_mean,
        reference_stats=outer.reference_stats,
        progress=progress,
    )


class CallState:
    """What a metric reads of the call running it (a base of
    :class:`~wrdscore.metrics.Metric`): nothing of a call is set on the object."""

    @property
    def _call(self) -> Call:
        """This metric's innermost call running in this thread (an empty one outside any)."""
        return current(self) or Call()

    @property
    def _token_memo(self) -> dict[str | tuple[str, ...], Tokens] | None:
        """The items the run's earlier chunks tokenised (:meth:`scoring_run`)."""
        return self._call.memo

    def _advance(self, pairs: int) -> None:
        """Report ``pairs`` more pairs done to the caller's progress callback, if any."""
        progress = self._call.progress
        if progress is not None:
            progress(pairs)

    @contextlib.contextmanager
    def scoring_run(
        self,
        *,
        memo: dict[str | tuple[str, ...], Tokens] | None = None,
        batch_mean: NDArray[np.float64] | None = None,
        reference_stats: object | None = None,
        code_memo: dict[tuple[object, ...], ReadCode] | None = None,
    ) -> Iterator[None]:
        """What the calls of this metric inside the ``with`` block share, in this thread.

        :func:`~wrdscore.metrics.score_files` scores a file in chunks: ``memo`` holds the
        items its earlier chunks tokenised (see ``memo`` in
        :func:`~wrdscore.metrics._flatten.flatten`), ``batch_mean`` the whole file's
        mean vector under ``centering="batch"``, ``reference_stats`` the whole file's
        :meth:`~wrdscore.metrics.Metric.reference_statistics`, ``code_memo`` the code one
        chunk's metrics have read (shared by every metric scoring that chunk, and only by
        those: it is keyed by how the code is read, not by which code). Nothing is set on
        the metric, so other calls, in other threads or outside the block, are not
        affected.
        """
        call = Call(
            memo=memo, batch_mean=batch_mean, reference_stats=reference_stats, code_memo=code_memo
        )
        with running(self, call):
            yield
