"""The scoring engine: from raw items to the flat token batch a metric scores, and back.

Every metric shares it: input checks, tokenising (once per distinct item), multiple
references (flattened to one batch, then the best alternative per item) and empty
items. A metric's arithmetic sees only non-empty token lists
(:meth:`wrdscore.metrics.Metric._score_tokens`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import to_tokens
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


def _is_token_list(item: object) -> bool:
    # Lists and tuples first: the Sequence ABC check is slow on 100k-pair batches.
    return isinstance(item, list | tuple) or (
        not isinstance(item, str) and isinstance(item, Sequence)
    )


def _tokens_of(item: object, what: str, i: int) -> Tokens:
    if isinstance(item, str) or _is_token_list(item):
        try:
            return to_tokens(item)  # type: ignore[arg-type]
        except TypeError:
            pass  # a piece that is not a string: reported below
    raise WrdscoreError(f"{what} {i} must be a string or a list of strings")


def alternatives(item: object, i: int) -> list[Tokens]:
    """The reference alternatives of item ``i``: one, unless a list of lists is given."""
    if not isinstance(item, str) and _is_token_list(item) and item and _is_token_list(item[0]):
        return [_tokens_of(a, "reference", i) for a in item]
    return [_tokens_of(item, "reference", i)]


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
    """

    n: int
    preds: list[Tokens]
    refs: list[Tokens]
    flat_preds: list[Tokens]
    owner: list[int] | None

    @property
    def empty_predictions(self) -> int:
        """Items whose prediction has no token."""
        return self.n - sum(map(bool, self.preds))


def _check_text_sizes(references: list[Reference], predictions: list[Prediction]) -> None:
    for what, items in (("prediction", predictions), ("reference", references)):
        for i, item in enumerate(items):
            if type(item) is str and len(item) > MAX_CHARS:
                raise WrdscoreError(
                    f"{what} {i} is {len(item):,} characters long, more than the {MAX_CHARS:,} "
                    "an item may have (is the file one name or sentence per line?)"
                )


def _check_sizes(preds: list[Tokens], refs: Iterable[list[Tokens]]) -> None:
    for what, groups in (("prediction", ([p] for p in preds)), ("reference", refs)):
        for i, group in enumerate(groups):
            size = max(map(len, group), default=0)
            if size > MAX_TOKENS:
                raise WrdscoreError(
                    f"{what} {i} has {size:,} sub-tokens, more than the {MAX_TOKENS:,} an item "
                    "may have (is the file one name or sentence per line?)"
                )


def flatten(
    references: Sequence[Reference],
    predictions: Sequence[Prediction],
    allow_empty_reference: bool = False,
) -> FlatBatch:
    """Check and tokenise a batch, and flatten its alternatives into scoreable pairs.

    Raises
    ------
    WrdscoreError
        Single strings instead of lists, different lengths, no pairs, an item that
        is neither text nor a list of text, an item of more than :data:`MAX_CHARS`
        characters or :data:`MAX_TOKENS` sub-tokens, or an empty reference (unless
        allowed).
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
    _check_text_sizes(references, predictions)
    # Strings and token lists, by far the common cases, go straight to the splitter,
    # once per distinct item: equal items then share one token list (metrics must
    # not modify them), which also lets metrics deduplicate cheaply.
    memo: dict[str | tuple[str, ...], Tokens] = {}

    def tokens(item: str | list[str]) -> Tokens:
        key = item if type(item) is str else tuple(item)
        found = memo.get(key)
        if found is None:
            found = memo[key] = to_tokens(item)
        return found

    try:
        preds = [
            tokens(p) if type(p) in (str, list) else _tokens_of(p, "prediction", i)
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
            _tokens_of(p, "prediction", i)
        for i, r in enumerate(references):
            alternatives(r, i)
        raise
    alts = (
        [
            [t] if t is not None else alternatives(r, i)
            for i, (t, r) in enumerate(zip(single, references, strict=True))
        ]
        if None in single
        else None
    )
    _check_sizes(preds, alts or ([t] for t in single))  # type: ignore[misc]
    if not allow_empty_reference and (alts is not None or not all(single)):
        for i, group in enumerate(alts or ([t] for t in single)):
            if not all(group):
                raise WrdscoreError(
                    f"reference {i} has no tokens (letters or digits); "
                    "remove it or allow empty references"
                )

    # Flatten (alternative, prediction) pairs with both sides non-empty into one
    # batch: metrics such as batch centering need the whole batch at once. With one
    # reference per item and no empty item (the common case) that is the input.
    if alts is None and all(single) and all(preds):
        return FlatBatch(n, preds, single, preds, None)  # type: ignore[arg-type]
    kept = [
        (i, alt)
        for i, (group, pred) in enumerate(zip(alts or ([t] for t in single), preds, strict=True))
        if pred
        for alt in group
        if alt
    ]
    owner = [i for i, _ in kept]
    return FlatBatch(n, preds, [alt for _, alt in kept], [preds[i] for i in owner], owner)


def best_alternatives(
    raw: dict[str, NDArray],
    batch: FlatBatch,
    keys: Sequence[str],
    primary: str,
) -> dict[str, NDArray[np.float64]]:
    """Per-item values from per-entry ones: each item's best alternative, 0 if none.

    The best alternative has the highest ``primary`` value, the first one on ties.
    """
    if raw and batch.owner is None:
        return {k: np.asarray(raw[k], dtype=np.float64) for k in keys}
    values = {k: np.zeros(batch.n, dtype=np.float64) for k in keys}
    if raw:
        # Sort by item, then by descending primary value (stable, so the first
        # alternative wins ties).
        owners = np.asarray(batch.owner)
        order = np.lexsort((-raw[primary], owners))
        first = order[np.r_[True, owners[order][1:] != owners[order][:-1]]]
        for k in keys:
            values[k][owners[first]] = raw[k][first]
    return values
