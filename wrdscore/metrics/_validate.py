"""Checking what a user gives a metric: its options, its items, and what it returns.

Every check that can fail on a user's input is here, so that a metric only does its
arithmetic: yes/no options (:func:`check_flag`), options a metric does not take
(:func:`refuse_options`), items too long to be one name or sentence
(:func:`check_text_sizes`, :func:`check_sizes`), empty predictions a metric cannot rank
(:func:`refuse_empty_predictions`), and, against a metric's own bug, values that are not
finite (:func:`check_values`). A bad item is an :class:`ItemError`, which says which.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError, counted

if TYPE_CHECKING:
    from wrdscore.metrics._tokenise import Prediction, Reference, Tokens

#: Most sub-tokens one reference or prediction may have. Names have a handful and the
#: first sentence of a Javadoc comment rarely a hundred; far longer items are a file
#: that is not one item per line (a 10 MB line is ~3 million sub-tokens), and would
#: cost the transport metrics quadratic memory (a 5,000-token pair needs over 1 GB).
MAX_TOKENS = 1000
#: Most characters the text of one item may have, checked before splitting: a 10 MB line
#: would take seconds to split, and character n-gram metrics (chrF) would need gigabytes.
MAX_CHARS = 50_000
_TOO_LONG = "(is the file one name or sentence per line?)"


class ItemError(WrdscoreError):
    """A bad item: ``side`` ("reference", "prediction" or "code") ``index`` (0-based,
    global).

    The message counts from 1, as every position a user reads does (the line of a file,
    ``number 2 of 3`` of an alternative): ``reference 1 has no tokens`` is the first.

    ``allow``, where an option accepts such items, says so: it ends the message after
    ``problem``'s own remedy. A caller that does not take that option (a study, which
    never scores an empty reference) words the error :meth:`without_allow`.

    Examples
    --------
    >>> str(ItemError("reference", 0, "has no tokens"))
    'reference 1 has no tokens'
    >>> e = ItemError("reference", 0, "has no tokens; remove it",
    ...               allow="allow empty references (--allow-empty-reference)")
    >>> str(e), str(e.without_allow())
    ('reference 1 has no tokens; remove it or allow empty references \
(--allow-empty-reference)', 'reference 1 has no tokens; remove it')
    """

    def __init__(self, side: str, index: int, problem: str, *, allow: str | None = None) -> None:
        or_allow = "" if allow is None else f" or {allow}"
        super().__init__(f"{side} {index + 1} {problem}{or_allow}")
        self.side, self.index, self.problem, self.allow = side, index, problem, allow

    def without_allow(self) -> ItemError:
        """The error without its ``allow`` (for a caller that has no such option)."""
        return ItemError(self.side, self.index, self.problem)


def check_text_sizes(
    references: list[Reference],
    predictions: list[Prediction],
    offset: int,
    kinds: tuple[set[type], set[type]],
) -> None:
    """Refuse an item of more than :data:`MAX_CHARS` characters, before it is split.

    ``kinds``: the types of the references' and of the predictions' items (flatten
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


def check_sizes(
    preds: list[Tokens],
    refs: Iterable[list[Tokens]],
    offset: int,
    distinct: Iterable[Tokens] | None = None,
) -> None:
    """Refuse an item of more than :data:`MAX_TOKENS` sub-tokens, once split."""
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


def check_flag(option: str, value: object) -> None:
    """Refuse a yes/no option given anything but a bool (``--set wrd.clip=no`` passes the
    string ``"no"``, which Python would take as true; ``--set wrd.clip=false`` is the way)."""
    if not isinstance(value, bool):
        raise WrdscoreError(f"{option} must be true or false, not {value!r}")


def refuse_options(metric: str, options: Mapping[str, Any]) -> None:
    """Refuse the ``options`` a metric did not take, so a misspelt one is never ignored
    (code options are taken, or refused with the reason, before: see
    :func:`~wrdscore.metrics._reads_code.take_code_scorer`).

    Examples
    --------
    >>> refuse_options("bleu", {"clipp": True})
    Traceback (most recent call last):
    wrdscore.errors.WrdscoreError: unknown option for metric 'bleu': clipp
    """
    if options:
        raise WrdscoreError(
            f"unknown {'option' if len(options) == 1 else 'options'} for metric "
            f"{metric!r}: {', '.join(sorted(options))}"
        )


def refuse_empty_predictions(metric: str, preds: Sequence[Tokens], empty: int, offset: int) -> None:
    """Refuse ``empty`` predictions (of ``preds``) for a metric with no lowest score to
    give them (a log-likelihood, where 0 is the best: see ``empty_scores_zero``)."""
    if empty:
        first = offset + next(i for i, p in enumerate(preds) if not p) + 1
        raise WrdscoreError(
            f"prediction {first} has no tokens, and {metric} has no lowest score to give "
            f"it ({counted(empty, 'empty prediction')}); remove them"
        )


def check_values(metric: str, keys: Iterable[str], raw: Mapping[str, NDArray], size: int) -> None:
    """A metric's values for ``size`` entries: one finite array per key, or a
    RuntimeError (a metric bug must never surface as NaN in a user's results)."""
    for k in keys:
        v = raw.get(k)
        if v is None or np.shape(v) != (size,) or not np.all(np.isfinite(v)):
            raise RuntimeError(f"metric {metric!r} returned bad values for {k!r}")
