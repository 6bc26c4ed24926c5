"""Document frequencies: in how many training documents each token occurs."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from wrdscore.embeddings.training._documents import TokenDocuments


def document_frequencies(docs: TokenDocuments) -> dict[str, int]:
    """Document frequency ``df(t)`` of every token: the number of documents containing it.

    Each method name (or summary) is one document, so a token repeated inside one
    name (``getOrGet``) counts once. These
    frequencies are stored with a model so that IDF weights
    (:meth:`wrdscore.embeddings.TokenEmbeddings.idf`) are fixed by the training
    corpus and never depend on the batch being scored.

    Parameters
    ----------
    docs : TokenDocuments
        The training documents.

    Returns
    -------
    dict of str to int
        ``df(t)`` for every token of ``docs.vocab`` (all tokens, before any
        ``min_count`` pruning, so rare tokens keep their true, high IDF).

    Examples
    --------
    >>> docs = TokenDocuments.from_token_lists([["get", "get"], ["get", "name"]])
    >>> document_frequencies(docs)
    {'get': 2, 'name': 1}
    """
    # Binary document-term matrix: duplicate (doc, token) entries are summed by
    # scipy and then counted once by the number of stored entries per column.
    doc_term = sp.csc_matrix(
        (np.ones(len(docs.ids), dtype=np.int32), (docs.doc_index(), docs.ids)),
        shape=(docs.n_docs, len(docs.vocab)),
    )
    doc_term.sum_duplicates()
    df = np.diff(doc_term.indptr)
    return dict(zip(docs.vocab, df.tolist(), strict=True))
