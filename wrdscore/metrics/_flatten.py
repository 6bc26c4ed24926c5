"""From raw items to the flat token batch a metric scores.

Every metric shares it: a batch is checked (:mod:`~wrdscore.metrics._validate`),
tokenised once per distinct item (:mod:`~wrdscore.metrics._tokenise`), and its reference
alternatives flattened into one batch of (reference, prediction) token pairs; the
best alternative per item is :mod:`~wrdscore.metrics._alternatives`'s. A metric's
arithmetic sees only non-empty token lists
(:meth:`wrdscore.metrics.Metric._score_tokens`). Streaming files through it, chunk by
chunk, is :mod:`wrdscore.metrics._engine`'s job.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import cast

from wrdscore.corpora import clean_prediction
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._tokenise import (
    Prediction,
    Reference,
    Tokens,
    alternatives,
    splitter,
    tokens_of,
)
from wrdscore.metrics._validate import ItemError, check_sizes, check_text_sizes

__all__ = ["FlatBatch", "Prediction", "Reference", "Tokens", "flatten", "gc_paused"]


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
    equal items. ``segmented`` splits run-together words
    (:func:`~wrdscore.metrics._tokenise.segmented_tokens`); ``clean`` passes string
    predictions through :func:`~wrdscore.corpora.clean_prediction` first.

    Raises
    ------
    WrdscoreError
        Single strings instead of lists, different lengths, no pairs, an item that
        is neither text nor a list of text (:class:`ItemError`), an item of more
        than :data:`~wrdscore.metrics._validate.MAX_CHARS` characters or
        :data:`~wrdscore.metrics._validate.MAX_TOKENS` sub-tokens, or an
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
    check_text_sizes(references, predictions, offset, kinds)
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
                tokens(p) if type(p) in (str, list) else tokens_of(p, "prediction", i, split)
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
            tokens_of(p, "prediction", offset + i, split)
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
    check_sizes(
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
                    f"{what}; remove it",
                    allow="allow empty references (--allow-empty-reference)",
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
