"""Tokenising: how a metric turns an item into the sub-tokens it scores.

An item is split into sub-tokens by :func:`~wrdscore.corpora.to_tokens` (camelCase,
snake_case, free text) and, under a metric's ``segment`` setting, its run-together
words segmented (:func:`segmented_tokens`); a prediction is cleaned first under
``clean`` (:func:`~wrdscore.corpora.clean_prediction`). A list of lists is a set of
reference alternatives (:func:`alternatives`). The signature records both settings
(:func:`tokenising_fields`). Doing this for a whole batch, once per distinct item, is
:func:`~wrdscore.metrics._flatten.flatten`'s job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeGuard

from wrdscore.corpora import WORDS_ID, clean_prediction, segment, to_tokens
from wrdscore.metrics._validate import ItemError

Tokens = list[str]
# One reference item: a string, a token list, or a list of alternatives (each a string
# or a token list).
Reference = str | Sequence[str] | Sequence[str | Sequence[str]]
Prediction = str | Sequence[str]


def is_token_list(item: object) -> TypeGuard[Sequence[Any]]:
    """Whether ``item`` is a list of pieces (tokens, or alternatives), not one string."""
    # Lists and tuples first: the Sequence ABC check is slow on 100k-pair batches.
    return isinstance(item, list | tuple) or (
        not isinstance(item, str) and isinstance(item, Sequence)
    )


def segmented_tokens(item: str | Sequence[str]) -> Tokens:
    """:func:`~wrdscore.corpora.to_tokens`, then run-together words segmented
    (:func:`~wrdscore.corpora.segment`): what metrics read under ``segment=True``."""
    return segment(to_tokens(item))


def splitter(segmented: bool) -> Callable[[str | Sequence[str]], Tokens]:
    """The tokeniser of a metric's ``segment`` setting."""
    return segmented_tokens if segmented else to_tokens


def tokens_of(item: object, what: str, i: int, split: Callable[..., Tokens] = to_tokens) -> Tokens:
    """``split`` of item ``i`` of a side (``what``), or an :class:`ItemError` saying it is
    neither a string nor a list of strings."""
    if isinstance(item, str) or is_token_list(item):
        try:
            return split(item)
        except TypeError:
            pass  # a piece that is not a string: reported below
    raise ItemError(what, i, "must be a string or a list of strings")


def alternatives(item: object, i: int, segmented: bool = False) -> list[Tokens]:
    """The reference alternatives of item ``i``: one, unless a list of lists is given."""
    split = splitter(segmented)
    if not isinstance(item, str) and is_token_list(item) and item and is_token_list(item[0]):
        return [tokens_of(a, "reference", i, split) for a in item]
    return [tokens_of(item, "reference", i, split)]


def item_tokens(item: Prediction, segmented: bool, clean: bool, prediction: bool = False) -> Tokens:
    """The tokens a metric with these settings reads for one item (a ``prediction`` is
    cleaned first when ``clean`` is on).

    Examples
    --------
    >>> item_tokens("getuserbyid", segmented=False, clean=False)
    ['getuserbyid']
    >>> item_tokens("`getuserbyid()`", segmented=True, clean=True, prediction=True)
    ['get', 'user', 'by', 'id']
    """
    if prediction and clean and isinstance(item, str):
        item = clean_prediction(item)
    return splitter(segmented)(item)


def memo_splitter(
    memo: dict[str | tuple[str, ...], Tokens] | None, segmented: bool, clean: bool
) -> Callable[[Prediction], Tokens]:
    """:func:`item_tokens` of predictions, through a run's token ``memo`` when there is
    one: the reference pass of the same chunk has split these predictions already,
    keyed as here by the (cleaned) text."""
    split = splitter(segmented)

    def tokens(item: Prediction) -> Tokens:
        if memo is None or type(item) is not str:
            return item_tokens(item, segmented, clean, prediction=True)
        text = clean_prediction(item) if clean else item
        found = memo.get(text)
        if found is None:
            found = memo[text] = split(text)
        return found

    return tokens


def tokenising_fields(segmented: bool, clean: bool) -> dict[str, str]:
    """Signature fields of how items become tokens: ``seg`` (the word list, or ``no``),
    and ``clean:yes`` when on."""
    fields = {"seg": WORDS_ID if segmented else "no"}
    if clean:
        fields["clean"] = "yes"
    return fields
