"""The scoring engine: from raw items to the flat token batch a metric scores, and back.

Every metric shares it: input checks, tokenising (once per distinct item), multiple
references (flattened to one batch, then the best alternative per item) and empty
items. A metric's arithmetic sees only non-empty token lists
(:meth:`wrdscore.metrics.Metric._score_tokens`). For files (``wrdscore score``)
:func:`score_files` streams: it reads, scores and writes chunk by chunk, in worker
processes when asked, with the same numbers whatever the chunking or job count.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import itertools
import math
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, cast

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import clean_prediction, segment, to_tokens
from wrdscore.corpora._segment import default_segmenter
from wrdscore.errors import WrdscoreError
from wrdscore.inputs import DEFAULT_CHUNK_PAIRS

if TYPE_CHECKING:
    from wrdscore.metrics.base import EmbeddingMetric, Metric

Tokens = list[str]
# One reference item: a string, a token list, or a list of alternatives (each a string
# or a token list).
Reference = str | Sequence[str] | Sequence[str | Sequence[str]]
Prediction = str | Sequence[str]

#: Most sub-tokens one reference or prediction may have. Names have a handful and the
#: first sentence of a Javadoc comment rarely a hundred; far longer items are a file
#: that is not one item per line (a 10 MB line is ~3 million sub-tokens), and would
#: cost the transport metrics quadratic memory (a 5,000-token pair needs over 1 GB).
MAX_TOKENS = 1000
#: Most characters the text of one item may have, checked before splitting: a 10 MB line
#: would take seconds to split, and character n-gram metrics (chrF) would need gigabytes.
MAX_CHARS = 50_000
_TOO_LONG = "(is the file one name or sentence per line?)"


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector for the duration of a batch."""
    # Scoring allocates several small lists and tuples per pair, none in cycles; on
    # 100k pairs CPython's cyclic collector rescans them often enough to cost a third
    # of the run time, so it waits until the batch is done.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _is_token_list(item: object) -> TypeGuard[Sequence[Any]]:
    # Lists and tuples first: the Sequence ABC check is slow on 100k-pair batches.
    return isinstance(item, list | tuple) or (
        not isinstance(item, str) and isinstance(item, Sequence)
    )


class ItemError(WrdscoreError):
    """A bad item: ``side`` ("reference" or "prediction") ``index`` (0-based, global)."""

    def __init__(self, side: str, index: int, problem: str) -> None:
        super().__init__(f"{side} {index} {problem}")
        self.side, self.index = side, index


def segmented_tokens(item: str | Sequence[str]) -> Tokens:
    """:func:`~wrdscore.corpora.to_tokens`, then run-together words segmented
    (:func:`~wrdscore.corpora.segment`): what metrics read under ``segment=True``."""
    return segment(to_tokens(item))


def splitter(segmented: bool) -> Callable[[str | Sequence[str]], Tokens]:
    """The tokeniser of a metric's ``segment`` setting."""
    return segmented_tokens if segmented else to_tokens


def _tokens_of(item: object, what: str, i: int, split: Callable[..., Tokens] = to_tokens) -> Tokens:
    if isinstance(item, str) or _is_token_list(item):
        try:
            return split(item)
        except TypeError:
            pass  # a piece that is not a string: reported below
    raise ItemError(what, i, "must be a string or a list of strings")


def alternatives(item: object, i: int, segmented: bool = True) -> list[Tokens]:
    """The reference alternatives of item ``i``: one, unless a list of lists is given."""
    split = splitter(segmented)
    if not isinstance(item, str) and _is_token_list(item) and item and _is_token_list(item[0]):
        return [_tokens_of(a, "reference", i, split) for a in item]
    return [_tokens_of(item, "reference", i, split)]


@dataclass
class FlatBatch:
    """A batch of items, tokenised and flattened to (reference, prediction) token pairs.

    Attributes
    ----------
    n : int
        Items (pairs) in the batch.
    preds : list of token lists
        The prediction tokens of every item (empty ones included).
    refs : list of token lists
        One entry per scored pair: a non-empty reference alternative.
    flat_preds : list of token lists
        The (non-empty) prediction of each entry of ``refs``.
    owner : list of int or None
        The item of each entry, or None when entries and items coincide (one
        reference per item and no empty side, the common case).
    alternative : list of int or None
        The 0-based number of each entry's alternative within its item, or None when
        no item of the batch is a list of alternatives.
    """

    n: int
    preds: list[Tokens]
    refs: list[Tokens]
    flat_preds: list[Tokens]
    owner: list[int] | None
    alternative: list[int] | None = None

    @property
    def empty_predictions(self) -> int:
        """Items whose prediction has no token."""
        return self.n - sum(map(bool, self.preds))


def _check_text_sizes(
    references: list[Reference],
    predictions: list[Prediction],
    offset: int,
    kinds: tuple[set[type], set[type]],
) -> None:
    """``kinds``: the types of the references' and of the predictions' items (flatten
    needs them too, so they are found once)."""
    ref_kinds, pred_kinds = kinds
    for side, items, item_kinds in (
        ("prediction", predictions, pred_kinds),
        ("reference", references, ref_kinds),
    ):
        # Lengths at C speed first: the loop below runs only when some item is too long,
        # holds alternatives or has no length (a bad item, reported later).
        with contextlib.suppress(TypeError):
            most = max(map(len, items), default=0)
            if most <= MAX_CHARS and item_kinds <= {str}:
                continue
            # Token lists (their len counts tokens): no item's text is longer than its
            # len times the longest piece plus a space (a string's pieces are its
            # characters). A per-item loop cost 1.5 s on a million pairs.
            if set(map(type, itertools.chain.from_iterable(items))) <= {str}:
                longest = max(map(len, itertools.chain.from_iterable(items)), default=0)
                if most * (longest + 1) <= MAX_CHARS:
                    continue
        for i, item in enumerate(items):
            size = _characters(item)
            if size > MAX_CHARS:
                raise ItemError(
                    side,
                    offset + i,
                    f"is {size:,} characters long, more than the {MAX_CHARS:,} an item "
                    f"may have {_TOO_LONG}",
                )


def _characters(item: object) -> int:
    """Characters of an item's text: a string's, a token list's (tokens plus the spaces
    between them) or, for alternatives, the longest alternative's; 0 for a bad item."""
    if isinstance(item, str):
        return len(item)
    if not isinstance(item, list | tuple):
        return 0  # not text: flatten reports it
    if all(isinstance(t, str) for t in item):
        return sum(map(len, item)) + max(len(item) - 1, 0)
    return max(map(_characters, item), default=0)


def _check_sizes(
    preds: list[Tokens],
    refs: Iterable[list[Tokens]],
    offset: int,
    distinct: Iterable[Tokens] | None = None,
) -> None:
    # ``distinct``: every token list of the batch, each once; when none is too long
    # (always, on sane input) the items need no look.
    if distinct is not None and max(map(len, distinct), default=0) <= MAX_TOKENS:
        return
    for side, groups in (("prediction", ([p] for p in preds)), ("reference", refs)):
        for i, group in enumerate(groups):
            size = max(map(len, group), default=0)
            if size > MAX_TOKENS:
                raise ItemError(
                    side,
                    offset + i,
                    f"has {size:,} sub-tokens, more than the {MAX_TOKENS:,} an item may have "
                    f"{_TOO_LONG}",
                )


def flatten(
    references: Sequence[Reference],
    predictions: Sequence[Prediction],
    allow_empty_reference: bool = False,
    offset: int = 0,
    memo: dict[str | tuple[str, ...], Tokens] | None = None,
    segmented: bool = True,
    clean: bool = False,
) -> FlatBatch:
    """Check and tokenise a batch, and flatten its alternatives into scoreable pairs.

    ``offset`` (the pairs before this batch in a larger input) only shifts the item
    numbers in error messages. ``memo`` maps items already tokenised (by an earlier
    batch of the same input, with the same ``segmented``) to their tokens; new items
    are added to it, so the batches of one input share the work and the token lists of
    equal items. ``segmented`` splits run-together words (:func:`segmented_tokens`);
    ``clean`` passes string predictions through
    :func:`~wrdscore.corpora.clean_prediction` first.

    Raises
    ------
    WrdscoreError
        Single strings instead of lists, different lengths, no pairs, an item that
        is neither text nor a list of text (:class:`ItemError`), an item of more
        than :data:`MAX_CHARS` characters or :data:`MAX_TOKENS` sub-tokens, or an
        empty reference (unless allowed); :class:`ItemError` for each item.
    """
    if isinstance(references, str) or isinstance(predictions, str):
        raise WrdscoreError("references and predictions must be lists of items, not single strings")
    # Generators and arrays are fine too; the checks below need lengths and indexing.
    references = references if isinstance(references, list) else list(references)
    predictions = predictions if isinstance(predictions, list) else list(predictions)
    n = len(references)
    if n != len(predictions):
        raise WrdscoreError(
            f"{n} references but {len(predictions)} predictions; "
            "every prediction needs exactly one reference item"
        )
    if n == 0:
        raise WrdscoreError("nothing to score: no pairs given")
    kinds = set(map(type, references)), set(map(type, predictions))
    _check_text_sizes(references, predictions, offset, kinds)
    if clean:
        # Before the memo: it is keyed by the text that is split, the cleaned one.
        predictions = [clean_prediction(p) if isinstance(p, str) else p for p in predictions]
    split = splitter(segmented)
    # Strings and token lists, by far the common cases, go straight to the splitter,
    # once per distinct item: equal items then share one token list (metrics must
    # not modify them), which also lets metrics deduplicate cheaply.
    if memo is None:
        memo = {}
    distinct = None  # every token list of the batch, when known cheaply

    def tokens(item: str | list[str]) -> Tokens:
        key = item if type(item) is str else tuple(item)
        found = memo.get(key)
        if found is None:
            found = memo[key] = split(item)
        return found

    try:
        if kinds[0] | kinds[1] == {str}:
            # Only strings (every file read by `wrdscore score`): split each distinct
            # one once, then look every item up at C speed.
            new = set(references)
            new.update(predictions)
            new -= memo.keys()
            fresh = [split(s) for s in new]
            memo.update(zip(new, fresh, strict=True))
            preds = list(map(memo.__getitem__, predictions))
            single: list[Tokens | None] = list(map(memo.__getitem__, references))
            distinct = fresh  # the others passed the checks in an earlier chunk
        else:
            preds = [
                tokens(p) if type(p) in (str, list) else _tokens_of(p, "prediction", i, split)
                for i, p in enumerate(predictions)
            ]
            # None marks an item that is not one plain reference (alternatives, or bad).
            single = [
                tokens(r)
                if type(r) is str or (type(r) is list and (not r or type(r[0]) is str))
                else None
                for r in references
            ]
    except TypeError:
        # A list holding something other than strings: the slow path names the item.
        for i, p in enumerate(predictions):
            _tokens_of(p, "prediction", offset + i, split)
        for i, r in enumerate(references):
            alternatives(r, offset + i, segmented)
        raise
    alts = (
        [
            [t] if t is not None else alternatives(r, offset + i, segmented)
            for i, (t, r) in enumerate(zip(single, references, strict=True))
        ]
        if None in single
        else None
    )
    # Read only when alts is None, that is when no entry of single is None.
    plain = cast("list[Tokens]", single)
    _check_sizes(
        preds,
        alts or ([t] for t in plain),
        offset,
        # Without alternatives every token list is a prediction or a plain reference:
        # their lengths at C speed spare the per-item loop (0.15 s on 100,000 pairs).
        None if alts is not None else distinct if distinct is not None else [*preds, *plain],
    )
    if not allow_empty_reference and (alts is not None or not all(single)):
        for i, group in enumerate(alts or ([t] for t in plain)):
            if not all(group):
                # An empty alternative beside real ones is a data error too (a stray
                # column), so it is refused like an empty reference, but named.
                what = (
                    "has no tokens (letters or digits)"
                    if len(group) == 1
                    else f"has an alternative without tokens (letters or digits), number "
                    f"{group.index([]) + 1} of {len(group)}"
                )
                raise ItemError(
                    "reference",
                    offset + i,
                    f"{what}; remove it or allow empty references (--allow-empty-reference)",
                )

    # Flatten (alternative, prediction) pairs with both sides non-empty into one
    # batch: metrics such as batch centering need the whole batch at once. With one
    # reference per item and no empty item (the common case) that is the input.
    if alts is None and all(single) and all(preds):
        return FlatBatch(n, preds, plain, preds, None)
    kept = [
        (i, j, alt)
        for i, (group, pred) in enumerate(zip(alts or ([t] for t in plain), preds, strict=True))
        if pred
        for j, alt in enumerate(group)
        if alt
    ]
    owner = [i for i, _, _ in kept]
    return FlatBatch(
        n,
        preds,
        [alt for _, _, alt in kept],
        [preds[i] for i in owner],
        owner,
        None if alts is None else [j for _, j, _ in kept],
    )


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


# --- streaming files: chunks, a first pass for batch means, worker processes --------


@dataclass
class CorpusScores:
    """What scoring a whole file gives for one metric: corpus values and counts.

    Attributes
    ----------
    metric, signature, primary : str
        As in :class:`~wrdscore.metrics.ScoreResult`.
    keys : tuple of str
        The metric's per-pair values (the per-pair output's columns).
    corpus : dict of str to float
        Corpus values over every pair of the file.
    pairs, oov_tokens, empty_predictions, degenerate_pairs : int
        Counts over the whole file.
    oov_names : tuple of str
        The first few unseen tokens of the whole file (:func:`first_names`).
    empty_code : int
        Scored against code: pairs whose code support had nothing to transport
        (:attr:`~wrdscore.metrics.ScoreResult.empty_code`).
    """

    metric: str
    signature: str
    primary: str
    keys: tuple[str, ...]
    corpus: dict[str, float]
    pairs: int
    oov_tokens: int
    empty_predictions: int
    degenerate_pairs: int
    oov_names: tuple[str, ...] = ()
    empty_code: int = 0


#: How many unseen tokens a result names.
OOV_NAMES = 5


def first_names(names: Iterable[str]) -> tuple[str, ...]:
    """The :data:`OOV_NAMES` alphabetically first of some token names.

    Alphabetical, not first seen: the same names for any chunking or worker count,
    since the first few of parts' first few are the first few of the whole.

    Examples
    --------
    >>> first_names(["zzz", "qux", "b", "a", "c", "d"])
    ('a', 'b', 'c', 'd', 'qux')
    """
    return tuple(heapq.nsmallest(OOV_NAMES, set(names)))


@dataclass
class _Job:
    """What every chunk of one run shares (inherited by forked workers)."""

    metrics: list[Metric]
    #: A file, the items themselves (a corpus's), or None (scored against code alone).
    references: Path | Sequence[Any] | None
    predictions: Path
    allow_empty_reference: bool
    per_pair: Path | None
    #: The code of each pair's method: a ``--code`` file, the items, or None.
    code: Path | Sequence[Any] | None = None
    #: Whether some reference is a list of alternatives: the per-pair output then has
    #: each metric's ``best_ref``. Found by the first read of the whole file (which
    #: counts the items), since the header is written before the first chunk, which may
    #: have none.
    alternatives: bool = False
    #: Items tokenised by earlier chunks (in this process), per ``segment`` setting
    #: (the same text has other tokens under each): names repeat across a file, so
    #: each distinct one is split once per run, not once per chunk.
    memo: dict[bool, dict[str | tuple[str, ...], Tokens]] = field(default_factory=dict)


#: An input of fewer than ``_MIN_CHUNKS`` chunks is cut into that many, none smaller
#: than ``_MIN_CHUNK_PAIRS`` pairs: 20,000 long pairs are one default chunk, which
#: would leave all cores but one idle.
_MIN_CHUNKS = 8
_MIN_CHUNK_PAIRS = 1_000

#: Most items :attr:`_Job.memo` keeps (about 200 bytes each): past it, it starts over.
_MEMO_ITEMS = 250_000

# The job of the worker processes, set before they fork (so never pickled: metrics
# hold memory-mapped models and caches).
_JOB: _Job | None = None


def _items(
    job: _Job,
    start: int,
    ref_lines: list[str] | None,
    pred_lines: list[str],
    code_lines: list[str] | None = None,
) -> tuple[Any, Any, Any]:
    """The chunk's references (None without), predictions and code (None without)."""
    from wrdscore.inputs import parse_code_lines, parse_lines

    preds = parse_lines(pred_lines, job.predictions, first_line=start + 1)
    end = start + len(preds)
    refs: Any = None
    if isinstance(job.references, Path):
        assert ref_lines is not None
        refs = parse_lines(ref_lines, job.references, references=True, first_line=start + 1)
    elif job.references is not None:
        refs = list(job.references[start:end])
    code: Any = None
    if isinstance(job.code, Path):
        assert code_lines is not None
        code = parse_code_lines(code_lines, job.code, first_line=start + 1)
    elif job.code is not None:
        code = list(job.code[start:end])
    return refs, preds, code


def _located(job: _Job, exc: ItemError) -> WrdscoreError:
    # Items are lines, so item i is line i + 1 of its file (or record i + 1 of a corpus).
    path = {"reference": job.references, "code": job.code}.get(exc.side, job.predictions)
    if not isinstance(path, Path):
        return WrdscoreError(f"item {exc.index + 1}: {exc}")
    return WrdscoreError(f"{path}:{exc.index + 1}: {exc}")


def _batch_chunk(
    task: tuple[int, list[str] | None, list[str], list[str] | None],
) -> list[tuple[NDArray, int] | None]:
    """First pass over a chunk: each batch-centered metric's sum and count of vectors."""
    assert _JOB is not None
    job, (start, ref_lines, pred_lines, _code) = _JOB, task
    refs, preds, _ = _items(job, start, ref_lines, pred_lines)
    # One batch per tokenising setting of the batch-centered metrics (usually one).
    flats: dict[tuple[bool, bool], FlatBatch] = {}
    try:
        with gc_paused():
            for m in job.metrics:
                how = (m.segment, m.clean)
                if _batch_centered(m) and how not in flats:
                    flats[how] = flatten(
                        refs, preds, job.allow_empty_reference, start, _memo(job, m.segment), *how
                    )
    except ItemError as exc:
        raise _located(job, exc) from None
    return [
        m.batch_sums([*flat.refs, *flat.flat_preds])
        if _batch_centered(m) and (flat := flats[m.segment, m.clean])
        else None
        for m in job.metrics
    ]


def _memo(job: _Job, segmented: bool) -> dict[str | tuple[str, ...], Tokens]:
    """The job's token memo of a ``segment`` setting, emptied first when it has grown
    past :data:`_MEMO_ITEMS`."""
    memo = job.memo.setdefault(segmented, {})
    if len(memo) > _MEMO_ITEMS:
        memo.clear()
    return memo


def _in_memory(source: object) -> bool:
    """Whether an input is items in memory (or none), not a file's path."""
    return source is None or not isinstance(source, str | Path)


def _batch_centered(metric: Metric) -> TypeGuard[EmbeddingMetric]:
    """Whether ``metric`` centers on the whole batch: an embedding metric, the only
    kind with a centering (and :meth:`~EmbeddingMetric.batch_sums`)."""
    # Asked of the metric, not by isinstance: base imports this module, so importing
    # EmbeddingMetric here would be an import circle.
    return metric.batch_centered


def _score_chunk(
    task: tuple[int, list[str] | None, list[str], list[str] | None, list[NDArray | None]],
) -> tuple[int, list[tuple[dict[str, float], tuple[int, int, int, int], tuple[str, ...]]], str]:
    """Score one chunk with every metric: per-metric sums, counts and unseen names, and
    per-pair rows."""
    assert _JOB is not None
    job, (start, ref_lines, pred_lines, code_lines, means) = _JOB, task
    refs, preds, code = _items(job, start, ref_lines, pred_lines, code_lines)
    results = []
    for metric, mean in zip(job.metrics, means, strict=True):
        if mean is not None:
            # Only batch-centered metrics get a mean (see score_files).
            cast("EmbeddingMetric", metric)._batch_mean = mean
        metric._token_memo = _memo(job, metric.segment)
        try:
            results.append(
                metric.score(
                    refs,
                    preds,
                    code=code,
                    allow_empty_reference=job.allow_empty_reference,
                    index_offset=start,
                )
            )
        except ItemError as exc:
            raise _located(job, exc) from None
    rows = ""
    if job.per_pair is not None:
        from wrdscore.inputs import per_pair_text

        # Scored against code alone, the reference column is empty.
        shown = [""] * len(preds) if refs is None else refs
        rows = per_pair_text(job.per_pair, start, shown, preds, results, job.alternatives)
    summary = [
        (
            m._corpus_sums(r.values),
            (r.oov_tokens, r.empty_predictions, r.degenerate_pairs, r.empty_code),
            r.oov_names,
        )
        for m, r in zip(job.metrics, results, strict=True)
    ]
    return len(preds), summary, rows


def _chunks(
    job: _Job, size: int
) -> Iterator[tuple[int, list[str] | None, list[str], list[str] | None]]:
    """``(start, reference lines, prediction lines, code lines)`` per chunk; a side that
    is not a file (items in memory, or none) gives None: the chunk takes its slice."""
    from wrdscore.inputs import iter_line_chunks

    def lines(source: Path | Sequence[Any] | None) -> Iterator[list[str] | None]:
        if isinstance(source, Path):
            return iter_line_chunks(source, size)
        return itertools.repeat(None)

    start = 0
    refs, code = lines(job.references), lines(job.code)
    for pred_lines in iter_line_chunks(job.predictions, size):
        yield start, next(refs), pred_lines, next(code)
        start += len(pred_lines)


def _serve(conn: Any) -> None:
    """A worker: run ``(fn, task)`` messages until ``None``, answering ``(ok, value)``."""
    while (message := conn.recv()) is not None:
        fn, task = message
        try:
            answer = (True, fn(task))
        except BaseException as exc:  # sent back, raised again in the parent
            answer = (False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # an exception that does not pickle
            conn.send((False, RuntimeError(repr(exc))))


class _Workers:
    """Forked worker processes, one pipe each, fed chunks round robin.

    Deliberately simpler than ``multiprocessing.Pool``: no shared queues or locks, so
    stopping them (an error, Ctrl-C) is a plain kill that cannot deadlock, and
    results come back in order because chunk ``k`` always goes to worker
    ``k % jobs``. Each worker has one chunk at a time, and the parent takes a
    worker's result before sending it the next chunk, so neither side ever waits on
    a full pipe. The workers are born ignoring Ctrl-C: the parent alone handles it.
    """

    def __init__(self, jobs: int) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.conns: list[Any] = []
        self.procs: list[Any] = []
        # Objects that exist now are never collected in the workers: without this
        # their collector would touch (so copy) every page they share with us.
        gc.freeze()
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for _ in range(jobs):
                here, there = context.Pipe()
                proc = context.Process(target=_serve, args=(there,), daemon=True)
                proc.start()
                there.close()
                self.conns.append(here)
                self.procs.append(proc)
        finally:
            signal.signal(signal.SIGINT, handler)
            gc.unfreeze()

    def map(self, fn: Callable[[Any], Any], tasks: Iterator[Any]) -> Iterator[Any]:
        """``map(fn, tasks)``, in order, one task in flight per worker."""
        jobs = len(self.conns)
        busy: deque[int] = deque()
        for k, task in enumerate(tasks):
            if len(busy) == jobs:
                yield self._answer(busy.popleft())  # worker k % jobs: free again
            self.conns[k % jobs].send((fn, task))
            busy.append(k % jobs)
        while busy:
            yield self._answer(busy.popleft())

    def _answer(self, worker: int) -> Any:
        try:
            ok, value = self.conns[worker].recv()
        except EOFError:
            raise RuntimeError("a scoring worker process died") from None
        if not ok:
            raise value
        return value

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.join()
        for conn in self.conns:
            conn.close()


def _run(fn: Callable[[Any], Any], tasks: Iterator[Any], workers: _Workers | None) -> Iterator[Any]:
    """``map(fn, tasks)`` in order: in this process, or on the workers."""
    return map(fn, tasks) if workers is None else workers.map(fn, tasks)


def default_jobs() -> int:
    """The cores this process may run on (a container or taskset can limit them)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def score_files(
    metrics: Sequence[Metric],
    references: str | Path | Sequence[Any] | None,
    predictions: str | Path,
    *,
    code: str | Path | Sequence[Any] | None = None,
    allow_empty_reference: bool = False,
    per_pair: str | Path | None = None,
    force: bool = False,
    jobs: int | None = None,
    chunk_pairs: int = DEFAULT_CHUNK_PAIRS,
    progress: Callable[[int], None] | None = None,
    on_count: Callable[[int], None] | None = None,
) -> list[CorpusScores]:
    """Score a references file against a predictions file, streaming (``wrdscore score``).

    The files (formats in :mod:`wrdscore.inputs`) are read ``chunk_pairs`` lines at a
    time; every chunk is scored by every metric, its per-pair rows go to
    ``per_pair`` (written atomically: a temporary file renamed at the end, so an error
    or Ctrl-C leaves nothing) and its :meth:`~Metric._corpus_sums` are added up, so
    memory does not grow with the input. Per-pair values do not depend on the
    chunking; corpus values are computed from correctly rounded per-chunk sums.

    Batch-dependent options mean the whole input: under ``centering="batch"`` a
    first pass adds up the token vectors of every chunk (:meth:`batch_sums`), and
    the second pass subtracts that whole-file mean. IDF weights come from the model,
    never from the input, so they need no pass of their own.

    Parameters
    ----------
    metrics : sequence of Metric
        The metrics, e.g. from :func:`~wrdscore.metrics.build_metrics`.
    references, predictions : path
        The two files, one item per line. ``references`` may also be the items
        themselves (a corpus's names or summaries), or None with ``code``.
    code : path or sequence, optional
        The code of each pair's method: a ``.jsonl`` file aligned with the
        predictions (:func:`~wrdscore.inputs.parse_code_lines`), or the items. Every
        metric then also gives ``code`` and, with references, ``combined`` (see
        :meth:`Metric.score`).
    allow_empty_reference : bool
        Score references without tokens as 0 instead of refusing them.
    per_pair : path, optional
        Also write every pair's values to this ``.tsv`` or ``.jsonl`` file, or, for
        ``"-"``, as TSV rows to standard output, chunk by chunk. When some reference
        has alternatives, each metric also names its winner
        (:func:`~wrdscore.inputs.write_per_pair`).
    force : bool
        Replace an existing ``per_pair`` file (refused without it, before scoring).
    jobs : int, optional
        Worker processes (default: the cores available). Chunks are scored in
        parallel and put back in order, so every number is the same for any
        ``jobs``; an input of one chunk, or one scored by a metric that runs a torch
        model, is scored in this process. Workers are forked (they inherit the loaded
        metrics); where ``fork`` does not exist (Windows) everything runs in this process.
    chunk_pairs : int
        Most pairs per chunk. An input of fewer than 8 chunks is cut into 8 chunks
        of at least 1,000 pairs, so that several cores share it; the cut depends on
        the input's length alone, never on ``jobs``.
    progress : callable, optional
        Called with the number of pairs finished, chunk by chunk.
    on_count : callable, optional
        Called once with the number of pairs, when the files are counted (before
        any scoring): a progress bar's total.

    Returns
    -------
    list of CorpusScores
        One per metric, in order.

    Raises
    ------
    WrdscoreError
        Everything :meth:`Metric.score` and :func:`~wrdscore.inputs.read_items`
        refuse, with the file and line of the bad item, whatever chunk it is in.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.metrics import get_metric
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "refs.txt").write_text("getUserName\\nsize\\nisEmpty\\n")
    >>> _ = (d / "preds.txt").write_text("get name\\ncount\\nisEmpty\\n")
    >>> (res,) = score_files([get_metric("rouge1")], d / "refs.txt", d / "preds.txt",
    ...                      chunk_pairs=2, per_pair=d / "pairs.tsv")
    >>> round(res.corpus["f1"], 4), res.pairs
    (0.6, 3)
    >>> (d / "pairs.tsv").read_text().splitlines()[3].split("\\t")[:3]
    ['2', 'isEmpty', 'isEmpty']
    """
    from wrdscore.atomic import atomic_write
    from wrdscore.inputs import (
        STDOUT,
        check_per_pair_path,
        count_items,
        count_references,
        per_pair_header,
    )

    global _JOB
    reads = (code is not None, references is not None)
    if chunk_pairs < 1:
        raise WrdscoreError(f"chunk size must be at least 1 pair, not {chunk_pairs}")
    if jobs is not None and jobs < 1:
        raise WrdscoreError(f"--jobs must be at least 1, not {jobs}")
    metrics = list(metrics)
    if code is not None:
        for m in metrics:
            m.check_reads_code()
    elif references is None:
        raise WrdscoreError("nothing to score against: give references, code or both")
    job = _Job(
        metrics,
        references if _in_memory(references) else Path(references),  # type: ignore[arg-type]
        Path(predictions),
        allow_empty_reference,
        None if per_pair is None else check_per_pair_path(per_pair, force),
        code if _in_memory(code) else Path(code),  # type: ignore[arg-type]
    )
    # A first read counts the items (and checks the encoding), so a length mismatch
    # is refused before any scoring.
    n_preds = count_items(job.predictions)
    if n_preds == 0:
        raise WrdscoreError(f"{job.predictions}: the file is empty")
    if isinstance(job.references, Path):
        n_refs, job.alternatives = count_references(job.references)
        if n_refs == 0:
            raise WrdscoreError(f"{job.references}: the file is empty")
    else:
        n_refs = n_preds if job.references is None else len(job.references)
    if n_refs != n_preds:
        raise WrdscoreError(
            f"{n_refs} references but {n_preds} predictions; "
            "every prediction needs exactly one reference item"
        )
    if job.code is not None:
        n_code = count_items(job.code) if isinstance(job.code, Path) else len(job.code)
        if n_code != n_preds:
            raise WrdscoreError(
                f"{n_code} code items but {n_preds} predictions; "
                "every prediction needs the code of its method, one per line"
            )
    if on_count is not None:
        on_count(n_refs)
    # A small input is still cut into a few chunks, so that every core gets some. The
    # cut depends on the input alone (never on jobs or cores), so the numbers do not.
    chunk_pairs = min(chunk_pairs, max(_MIN_CHUNK_PAIRS, -(-n_refs // _MIN_CHUNKS)))
    jobs = min(jobs or default_jobs(), -(-n_refs // chunk_pairs))
    if any(m.in_process for m in metrics):
        # A torch model (an encoder, BARTScore) runs its own threads, is not fork-safe,
        # and each forked worker would hold a copy of it.
        jobs = 1
    if jobs > 1:
        import multiprocessing

        if "fork" not in multiprocessing.get_all_start_methods():
            jobs = 1  # the workers inherit the loaded metrics by forking (not on Windows)
    workers = None
    _JOB = job
    try:
        if jobs > 1:
            for m in metrics:
                m.prepare()
            if any(m.segment for m in metrics):
                # Nearly every file of names has some word the list's head lacks.
                default_segmenter().load()
            workers = _Workers(jobs)
        means: list[NDArray | None] = [None] * len(metrics)
        if any(map(_batch_centered, metrics)):
            totals: list[list[Any]] = [[0.0, 0] for _ in metrics]
            for parts in _run(_batch_chunk, _chunks(job, chunk_pairs), workers):
                for total, part in zip(totals, parts, strict=True):
                    if part is not None:
                        total[0] = total[0] + part[0]
                        total[1] += part[1]
            means = [
                t[0] / t[1] if _batch_centered(m) and t[1] else None
                for m, t in zip(metrics, totals, strict=True)
            ]
        tasks = ((*chunk, means) for chunk in _chunks(job, chunk_pairs))
        sums: list[list[dict[str, float]]] = [[] for _ in metrics]
        counts = np.zeros((len(metrics), 4), dtype=np.int64)
        names: list[tuple[str, ...]] = [() for _ in metrics]
        with contextlib.ExitStack() as stack:
            out = None
            if job.per_pair is not None:
                out = (
                    sys.stdout  # rows as they come: `wrdscore score --per-pair - | ...`
                    if job.per_pair == STDOUT
                    else stack.enter_context(atomic_write(job.per_pair))
                )
                columns = [(m.name, m.result_keys(*reads)) for m in metrics]
                out.write(per_pair_header(job.per_pair, columns, job.alternatives))
            for n, summary, rows in _run(_score_chunk, tasks, workers):
                for k, (chunk_sums, chunk_counts, chunk_names) in enumerate(summary):
                    sums[k].append(chunk_sums)
                    counts[k] += chunk_counts
                    names[k] = first_names([*names[k], *chunk_names])
                if out is not None:
                    out.write(rows)
                if progress is not None:
                    progress(n)
    finally:
        _JOB = None
        for m in metrics:
            m._token_memo = None
            if _batch_centered(m):
                m._batch_mean = None
        if workers is not None:
            workers.close()
    return [
        CorpusScores(
            metric=m.name,
            signature=m.code_signature if code is not None else m.signature,
            primary=m.primary if references is not None else "code",
            keys=m.result_keys(*reads),
            # Every key a metric's _corpus_sums gives, not only its value keys: corpus
            # statistics such as BLEU's n-gram counts add up over chunks too.
            corpus=m._corpus_values(
                {k: math.fsum(part[k] for part in parts) for k in parts[0]}, n_refs
            ),
            pairs=n_refs,
            oov_tokens=int(c[0]),
            empty_predictions=int(c[1]),
            degenerate_pairs=int(c[2]),
            oov_names=n,
            empty_code=int(c[3]),
        )
        for m, parts, c, n in zip(metrics, sums, counts, names, strict=True)
    ]
