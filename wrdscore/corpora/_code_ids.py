"""A batch of methods' stored identifiers read as token ids, all at once.

What :func:`~wrdscore.corpora._code.read_code_words` gives each method (its identifiers'
sub-tokens, the declared name masked, run-together words segmented when asked), for a
whole batch with a few array operations instead of a list of strings per method: each
distinct identifier's tokens are looked up once per process, as ids into a vocabulary
of token strings, and a method's tokens are its identifiers' ids laid end to end
(:class:`CodeTokens`). Scoring the code then indexes vectors by those ids without
building, joining and looking up again a string per code token (about 5 million of
them in OpenJDK).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora._context import IDENTIFIER_NOT_WORDS, word_tokens
from wrdscore.corpora._segment import segment

# Distinct identifiers (and tokens) kept per process before the memo starts over: OpenJDK
# has about 131,000 distinct identifiers and 30,000 distinct tokens.
_MEMO_SIZE = 1 << 19


class CodeTokens(Sequence[list[str]]):
    """Methods' code tokens: ids into ``vocabulary``, method ``i``'s
    ``ids[offsets[i]:offsets[i + 1]]``; item ``i`` is its token list.

    Examples
    --------
    >>> code = CodeTokens(np.array([0, 1, 1]), np.array([0, 2, 2, 3]), ["get", "x"])
    >>> list(code), code.lengths().tolist()
    ([['get', 'x'], [], ['x']], [2, 0, 1])
    >>> code.take([2, 0])[1]
    ['get', 'x']
    """

    __slots__ = ("ids", "offsets", "vocabulary")

    def __init__(
        self, ids: NDArray[np.int64], offsets: NDArray[np.int64], vocabulary: list[str]
    ) -> None:
        self.ids = ids
        self.offsets = offsets
        self.vocabulary = vocabulary

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, i: int) -> list[str]: ...

    @overload
    def __getitem__(self, i: slice) -> list[list[str]]: ...

    def __getitem__(self, i: int | slice) -> list[str] | list[list[str]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        k = range(len(self))[i]  # negative indices, and an IndexError past the end
        vocabulary = self.vocabulary
        return [vocabulary[t] for t in self.ids[self.offsets[k] : self.offsets[k + 1]].tolist()]

    def __iter__(self) -> Iterator[list[str]]:
        return (self[k] for k in range(len(self)))

    def lengths(self) -> NDArray[np.int64]:
        """Each method's number of tokens."""
        return np.diff(self.offsets)

    def take(self, at: Sequence[int] | NDArray[np.int64]) -> CodeTokens:
        """The methods ``at``, in that order."""
        at = np.asarray(at, dtype=np.int64)
        lengths = self.lengths()[at]
        return CodeTokens(
            self.ids[_spans(self.offsets[at], lengths)],
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            self.vocabulary,
        )


def code_lengths(codes: Sequence[Sequence[str]]) -> NDArray[np.int64]:
    """Each method's number of tokens, whether ``codes`` is :class:`CodeTokens` or lists.

    Examples
    --------
    >>> code_lengths([["get", "x"], []]).tolist()
    [2, 0]
    """
    if isinstance(codes, CodeTokens):
        return codes.lengths()
    return np.fromiter(map(len, codes), np.int64, len(codes))


def take_codes(
    codes: Sequence[list[str]], at: Sequence[int] | NDArray[np.int64]
) -> CodeTokens | list[list[str]]:
    """The methods ``at`` of ``codes``, in that order, as token ids where they were."""
    if isinstance(codes, CodeTokens):
        return codes.take(at)
    return [codes[i] for i in at]


def _spans(starts: NDArray[np.int64], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """The positions ``starts[k]`` to ``starts[k] + lengths[k]``, for each ``k`` in turn."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(ends[-1] if len(ends) else 0)


class _Numbers(dict[str, int]):
    """token -> its id, in order of first look-up (``tokens``, by id)."""

    def __init__(self) -> None:
        super().__init__()
        self.tokens: list[str] = []

    def __missing__(self, token: str) -> int:
        k = self[token] = len(self.tokens)
        self.tokens.append(token)
        return k


class _Pieces(dict[str, tuple[int, ...]]):
    """token -> the ids of what scoring reads of it: itself, or with ``segmented`` its
    run-together words (segmenting works token by token: each token once)."""

    def __init__(self, segmented: bool) -> None:
        super().__init__()
        self.segmented = segmented
        self.ids = _Numbers()

    def __missing__(self, token: str) -> tuple[int, ...]:
        words = segment([token]) if self.segmented else (token,)
        found = self[token] = tuple(map(self.ids.__getitem__, words))
        return found


class _Identifiers(dict[str, int]):
    """identifier -> its number, filled on first look-up with the identifier's token ids
    (``flat[starts[k]:starts[k] + lengths[k]]``, ids into ``vocabulary``)."""

    def __init__(self, segmented: bool) -> None:
        super().__init__()
        self.pieces = _Pieces(segmented)
        self.starts: list[int] = []
        self.lengths: list[int] = []
        self.flat: list[int] = []
        empty = np.zeros(0, dtype=np.int64)
        self._arrays: tuple[NDArray[np.int64], ...] = (empty, empty, empty)

    @property
    def vocabulary(self) -> list[str]:
        """The token strings, by id."""
        return self.pieces.ids.tokens

    def __missing__(self, word: str) -> int:
        # The same split as read_code_words, without its cache by the identifier's bytes:
        # this one is looked up first (a fifth of numbering OpenJDK's identifiers went
        # to filling a cache never read again).
        tokens = word_tokens(word.encode("utf-8"), IDENTIFIER_NOT_WORDS)
        pieces = self.pieces
        ids = (
            pieces[tokens[0]]
            if len(tokens) == 1
            else tuple(itertools.chain.from_iterable(map(pieces.__getitem__, tokens)))
        )
        k = self[word] = len(self.starts)
        self.starts.append(len(self.flat))
        self.lengths.append(len(ids))
        self.flat.extend(ids)
        return k

    def arrays(self) -> tuple[NDArray[np.int64], ...]:
        """``starts``, ``lengths`` and ``flat`` as arrays (extended when they grew)."""
        self._arrays = tuple(
            np.concatenate([done, np.array(values[len(done) :], dtype=np.int64)])
            if len(done) < len(values)
            else done
            for done, values in zip(
                self._arrays, (self.starts, self.lengths, self.flat), strict=True
            )
        )
        return self._arrays


_memos: dict[bool, _Identifiers] = {}


def code_token_ids(
    words: Sequence[str], masks: Sequence[str | None], segmented: bool = False
) -> CodeTokens:
    """Each method's tokens from its stored identifiers ``words`` (a record's
    ``code_words``), leaving out those equal to its ``masks`` entry (None: nothing),
    with run-together words segmented when ``segmented``: item ``i`` equals
    ``read_code_words(words[i], target="name", name=masks[i], segmented=segmented)``.

    Examples
    --------
    >>> code = code_token_ids(["getSize size", "", "size_of getSize"], ["getSize", None, None])
    >>> list(code)
    [['size'], [], ['size', 'of', 'get', 'size']]
    """
    memo = _memos.get(segmented)
    if memo is None or len(memo) >= _MEMO_SIZE or len(memo.vocabulary) >= _MEMO_SIZE:
        # A new vocabulary, not the old one cleared: earlier CodeTokens keep theirs.
        memo = _memos[segmented] = _Identifiers(segmented)
    n = len(words)
    # Each method's identifiers, split once for the whole batch (as read_code_words
    # splits each: at every space, an empty words string has none).
    counts = np.fromiter((w.count(" ") + 1 if w else 0 for w in words), np.int64, n)
    joined = " ".join(w for w in words if w)
    names = joined.split(" ") if joined else []
    number = np.fromiter(map(memo.__getitem__, names), np.int64, len(names))
    # read_code_words compares UTF-8 bytes, a name's encoded with "replace".
    masked = np.fromiter(
        (
            -1
            if not m
            else memo.get(m if m.isascii() else m.encode("utf-8", "replace").decode("utf-8"), -1)
            for m in masks
        ),
        np.int64,
        n,
    )
    keep = number != np.repeat(masked, counts)
    owner = np.repeat(np.arange(n), counts)[keep]
    number = number[keep]
    starts, lengths, flat = memo.arrays()
    sizes = lengths[number]
    ids = flat[_spans(starts[number], sizes)]
    per_method = np.bincount(owner, weights=sizes, minlength=n).astype(np.int64)
    return CodeTokens(ids, np.concatenate([[0], np.cumsum(per_method)]), memo.vocabulary)
