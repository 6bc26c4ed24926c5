"""From raw items to the flat token batch a metric scores, and back.

Every metric shares it: input checks, tokenising (once per distinct item), multiple
references (flattened to one batch, then the best alternative per item) and empty
items. A metric's arithmetic sees only non-empty token lists
(:meth:`wrdscore.metrics.Metric._score_tokens`). Streaming files through it, chunk by
chunk, is :mod:`wrdscore.metrics._engine`'s job.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard, cast

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import clean_prediction, segment, to_tokens
from wrdscore.errors import WrdscoreError

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
    """A bad item: ``side`` ("reference", "prediction" or "code") ``index`` (0-based,
    global).

    The message counts from 1, as every position a user reads does (the line of a file,
    ``number 2 of 3`` of an alternative): ``reference 1 has no tokens`` is the first.

    Examples
    --------
    >>> str(ItemError("reference", 0, "has no tokens"))
    'reference 1 has no tokens'
    """

    def __init__(self, side: str, index: int, problem: str) -> None:
        super().__init__(f"{side} {index + 1} {problem}")
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


def alternatives(item: object, i: int, segmented: bool = False) -> list[Tokens]:
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
    segmented: bool = False,
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
