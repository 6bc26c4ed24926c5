"""Training text as integer arrays: one document per method name (or summary)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class TokenDocuments:
    """Tokenised documents in compressed form (like a CSR matrix's index arrays).

    Document ``d`` is ``vocab[ids[offsets[d]:offsets[d + 1]]]``. Storing ids instead of
    lists of strings keeps a whole corpus in a few bytes per token and lets the
    co-occurrence and document-frequency counts run as array operations.

    Attributes
    ----------
    vocab : list of str
        Distinct tokens, most frequent first (ties in first-seen order).
    counts : ndarray of int64, shape (len(vocab),)
        How often each token occurs in all documents.
    ids : ndarray of int64
        Token ids of all documents, concatenated.
    offsets : ndarray of int64, shape (n_docs + 1,)
        Where each document starts in ``ids``.

    Examples
    --------
    >>> docs = TokenDocuments.from_token_lists([["get", "name"], ["set", "name"], []])
    >>> docs.vocab, docs.n_docs, docs.counts.tolist()
    (['name', 'get', 'set'], 2, [2, 1, 1])
    >>> list(docs.sentences())
    [['get', 'name'], ['set', 'name']]
    """

    vocab: list[str]
    counts: NDArray[np.int64]
    ids: NDArray[np.int64]
    offsets: NDArray[np.int64]

    @classmethod
    def from_token_lists(cls, documents: Iterable[Sequence[str]]) -> TokenDocuments:
        """Encode documents; empty ones are skipped (they carry no co-occurrence)."""
        index: dict[str, int] = {}
        flat: list[int] = []
        lengths: list[int] = []
        for doc in documents:
            if not doc:
                continue
            flat.extend(index.setdefault(tok, len(index)) for tok in doc)
            lengths.append(len(doc))
        first_seen = np.array(flat, dtype=np.int64)
        counts = np.bincount(first_seen, minlength=len(index))
        # Stable sort: most frequent first, first-seen order among equals, so the
        # vocabulary order (and with it every model) depends only on the corpus.
        order = np.argsort(-counts, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        keys = list(index)
        return cls(
            vocab=[keys[i] for i in order],
            counts=counts[order],
            ids=rank[first_seen] if len(flat) else first_seen,
            offsets=np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]),
        )

    @property
    def n_docs(self) -> int:
        """Number of (non-empty) documents."""
        return len(self.offsets) - 1

    def doc_index(self) -> NDArray[np.int64]:
        """The document each entry of :attr:`ids` belongs to."""
        return np.repeat(np.arange(self.n_docs, dtype=np.int64), np.diff(self.offsets))

    def prune(self, min_count: int) -> TokenDocuments:
        """Drop tokens occurring fewer than ``min_count`` times (as gensim does).

        The dropped positions are removed, so their neighbours become adjacent;
        documents left empty are dropped.

        Examples
        --------
        >>> docs = TokenDocuments.from_token_lists([["get", "x"], ["get", "y", "name"]])
        >>> list(docs.prune(2).sentences())
        [['get'], ['get']]
        """
        # The vocabulary is sorted by count, so the kept tokens are a prefix of it.
        keep = int(np.count_nonzero(self.counts >= min_count))
        kept = self.ids < keep
        lengths = np.add.reduceat(kept, self.offsets[:-1]) if len(kept) else np.zeros(0)
        lengths = lengths[lengths > 0]
        return TokenDocuments(
            vocab=self.vocab[:keep],
            counts=self.counts[:keep],
            ids=self.ids[kept],
            offsets=np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]),
        )

    def sentences(self) -> Iterator[list[str]]:
        """Documents as lists of tokens (what gensim trains on)."""
        vocab = self.vocab
        for start, stop in zip(self.offsets[:-1], self.offsets[1:], strict=True):
            yield [vocab[i] for i in self.ids[start:stop]]
