"""Training documents streamed from a corpus on disk, never all in memory.

:class:`CorpusDocuments` is a restartable iterable: every ``iter()`` opens the corpus
again and yields one document after another, so gensim can make one pass per epoch
over millions of methods while only a record at a time (and gensim's batch of 10,000
words) is held. :func:`document_stats` and
:func:`streamed_cooccurrence` make their counts in passes of the same kind, the
co-occurrences a chunk of documents (about 500,000 tokens) at a time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from wrdscore.corpora import Corpus, split_identifier
from wrdscore.embeddings.training._cooccurrence import check_window, cooccurrence_matrix
from wrdscore.embeddings.training._documents import TokenDocuments
from wrdscore.errors import WrdscoreError

#: The parts of a method a document can be made of, in the order they are joined.
TEXT_PARTS = ("names", "summaries", "context")
#: ``--text both``: names and summaries as *separate* documents (the older choice,
#: kept as it was); a ``+`` combination makes one document per method instead.
BOTH = "both"
# Tokens counted at once for the co-occurrence matrix: with --window 2 about 2 million
# position pairs, some 50 MB of index arrays while they are summed into the matrix.
_CHUNK_TOKENS = 500_000


def parse_text(text: str) -> tuple[str, ...]:
    """The parts of a ``--text`` value: ``both``, or parts of :data:`TEXT_PARTS` joined by ``+``.

    Returns the parts in the canonical order (``context+names`` is ``names+context``);
    ``both`` gives ``("both",)``.

    Raises
    ------
    WrdscoreError
        For an unknown or repeated part.

    Examples
    --------
    >>> parse_text("context+names"), parse_text("summaries"), parse_text("both")
    (('names', 'context'), ('summaries',), ('both',))
    """
    if text == BOTH:
        return (BOTH,)
    parts = text.split("+")
    unknown = [p for p in parts if p not in TEXT_PARTS]
    if unknown or len(set(parts)) != len(parts):
        raise WrdscoreError(
            f"unknown --text {text!r}: give one of {', '.join(TEXT_PARTS)} or several joined "
            "by '+' (names+context, names+summaries+context), or both"
        )
    return tuple(p for p in TEXT_PARTS if p in parts)


def _name(record: dict[str, Any]) -> list[str]:
    return list(record.get("tokens") or split_identifier(record.get("name") or ""))


def _summary(record: dict[str, Any]) -> list[str]:
    return split_identifier(record["summary"]) if record.get("summary") else []


def _context(record: dict[str, Any]) -> list[str]:
    return (record.get("context") or "").split()


_PART = {"names": _name, "summaries": _summary, "context": _context}


def record_documents(
    records: Iterable[dict[str, Any]], parts: tuple[str, ...]
) -> Iterator[list[str]]:
    """The documents of method records: one per method, its parts' tokens joined.

    ``("both",)`` yields each name and each summary as documents of their own.
    Empty documents are skipped: they carry no co-occurrence.

    Examples
    --------
    >>> records = [{"name": "getName", "tokens": ["get", "name"], "summary": "The name.",
    ...             "context": "returns the name string name"}]
    >>> list(record_documents(records, ("names", "context")))
    [['get', 'name', 'returns', 'the', 'name', 'string', 'name']]
    >>> list(record_documents(records, ("both",)))
    [['get', 'name'], ['the', 'name']]
    """
    if parts == (BOTH,):
        for record in records:
            for doc in (_name(record), _summary(record)):
                if doc:
                    yield doc
        return
    readers = [_PART[p] for p in parts]
    for record in records:
        if len(readers) == 1:
            doc = readers[0](record)
        else:
            doc = [t for read in readers for t in read(record)]
        if doc:
            yield doc


class CorpusDocuments:
    """The documents of a corpus, streamed from disk each time they are iterated.

    A restartable iterable (not a generator): gensim iterates it once to build its
    vocabulary and once per epoch. ``passes`` counts the iterations started.

    Parameters
    ----------
    corpus : Corpus
        An opened corpus (:func:`~wrdscore.corpora.open_corpus`).
    text : str
        A ``--text`` value (:func:`parse_text`). With ``context`` the corpus must be of
        format 2 or later (:meth:`~wrdscore.corpora.Corpus.require_context`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import CorpusWriter, open_corpus
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with CorpusWriter(d) as w:
    ...     w.write({"name": "getName", "tokens": ["get", "name"], "context": "the name"})
    ...     w.write_manifest({"format": 2})
    >>> docs = CorpusDocuments(open_corpus(d), "names+context")
    >>> list(docs), list(docs), docs.passes
    ([['get', 'name', 'the', 'name']], [['get', 'name', 'the', 'name']], 2)
    """

    def __init__(self, corpus: Corpus, text: str) -> None:
        self.corpus = corpus
        self.parts = parse_text(text)
        if "context" in self.parts:
            corpus.require_context()
        self.passes = 0

    def __iter__(self) -> Iterator[list[str]]:
        self.passes += 1
        return record_documents(self.corpus.iter_methods(), self.parts)


@dataclass(frozen=True)
class DocumentStats:
    """Counts of one pass over the documents.

    Attributes
    ----------
    vocab : list of str
        Distinct tokens, most frequent first (ties in first-seen order), as in
        :class:`~wrdscore.embeddings.TokenDocuments`.
    counts : ndarray of int64
        Occurrences of each token of ``vocab``.
    doc_freq : dict of str to int
        In how many documents each token occurs.
    n_docs : int
        Non-empty documents.
    """

    vocab: list[str]
    counts: np.ndarray
    doc_freq: dict[str, int]
    n_docs: int

    def frequent(self, min_count: int) -> tuple[list[str], np.ndarray]:
        """The tokens seen at least ``min_count`` times and their counts (a prefix, since
        ``vocab`` is sorted by count)."""
        keep = int(np.count_nonzero(self.counts >= min_count))
        return self.vocab[:keep], self.counts[:keep]


def document_stats(documents: Iterable[list[str]]) -> DocumentStats:
    """Token counts and document frequencies in one streaming pass.

    Examples
    --------
    >>> s = document_stats([["get", "get"], ["get", "name"], ["set", "name"]])
    >>> s.vocab, s.counts.tolist(), s.doc_freq, s.n_docs
    (['get', 'name', 'set'], [3, 2, 1], {'get': 2, 'name': 2, 'set': 1}, 3)
    """
    counts: Counter[str] = Counter()
    doc_freq: Counter[str] = Counter()
    n_docs = 0
    for doc in documents:
        counts.update(doc)
        doc_freq.update(set(doc))
        n_docs += 1
    # sorted() is stable and a Counter keeps first-seen order: ties stay in it.
    ordered = sorted(counts.items(), key=lambda item: -item[1])
    vocab = [t for t, _ in ordered]
    return DocumentStats(
        vocab=vocab,
        counts=np.array([c for _, c in ordered], dtype=np.int64),
        doc_freq={t: doc_freq[t] for t in vocab},
        n_docs=n_docs,
    )


def _encoded_chunks(
    documents: Iterable[list[str]], index: dict[str, int], chunk_tokens: int
) -> Iterator[tuple[list[int], list[int]]]:
    ids: list[int] = []
    lengths: list[int] = []
    for doc in documents:
        # Tokens below --min-count are dropped and their neighbours become adjacent,
        # as in TokenDocuments.prune.
        kept = [index[t] for t in doc if t in index]
        if kept:
            ids.extend(kept)
            lengths.append(len(kept))
        if len(ids) >= chunk_tokens:
            yield ids, lengths
            ids, lengths = [], []
    if lengths:
        yield ids, lengths


def streamed_cooccurrence(
    documents: Iterable[list[str]],
    vocab: list[str],
    window: int | None,
    chunk_tokens: int = _CHUNK_TOKENS,
) -> sp.csr_matrix:
    """:func:`~wrdscore.embeddings.cooccurrence_matrix` of streamed documents.

    The documents are encoded and counted in chunks of about ``chunk_tokens``
    tokens (whole documents) and the chunks' matrices summed (co-occurrence counts
    add up over documents), so memory holds one chunk and the ``V x V`` sparse
    matrix. Tokens not in ``vocab`` are dropped first.

    Examples
    --------
    >>> docs = [["get", "user", "name"], ["get", "x", "name"]]
    >>> m = streamed_cooccurrence(docs, ["get", "name", "user"], None, chunk_tokens=1)
    >>> m.toarray().tolist()
    [[0.0, 2.0, 1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    check_window(window)
    index = {t: i for i, t in enumerate(vocab)}
    n = len(vocab)
    total = sp.csr_matrix((n, n))
    counts = np.zeros(n, dtype=np.int64)  # TokenDocuments needs them; counting does not
    for ids, lengths in _encoded_chunks(documents, index, chunk_tokens):
        chunk = TokenDocuments(
            vocab=vocab,
            counts=counts,
            ids=np.array(ids, dtype=np.int64),
            offsets=np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]),
        )
        total = total + cooccurrence_matrix(chunk, window)
    return total.tocsr()
