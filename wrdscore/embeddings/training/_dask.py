"""``wrdscore train --scheduler``: a corpus's token statistics as Dask reductions.

The records are cut into partitions, each a line range of one record file (a
shard of a corpus ingested on a cluster, or a slice of a single
``methods.jsonl.gz``); each worker reads its partition itself, so the corpus
folder must be readable from the workers at the same path. Two passes:

1. Token counts, document frequencies, the number of documents and where each
   token is first seen, summed (and the first positions minimised) in a tree.
   The vocabulary's order (most frequent first, ties in first-seen order) comes
   out as :meth:`TokenDocuments.from_token_lists` makes it on one machine.
2. ``svd`` only: the co-occurrence counts of the documents pruned to the tokens
   kept by ``min_count``, as sparse matrices summed in a tree.

Both give exactly the numbers of the single-machine path: they are integer counts,
and float64 sums of integers below 2**53 do not round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from wrdscore.corpora import Cluster, Corpus, iter_records
from wrdscore.embeddings.training._stream import (
    DocumentStats,
    parse_text,
    record_documents,
    streamed_cooccurrence,
)

# A single-file corpus is cut into line ranges of at least this many records: every
# range re-reads (and skips) the lines before it, which costs little next to parsing
# its own, as long as the ranges are few.
_MIN_RANGE_RECORDS = 20_000
_RANGES_PER_THREAD = 2
# Partial results combined per reduction task.
_SPLIT_EVERY = 8


@dataclass(frozen=True)
class Partition:
    """Records ``start`` to ``stop`` (0-based lines; ``None``: to the end) of one record file."""

    index: int
    path: str
    start: int = 0
    stop: int | None = None


def partitions(corpus: Corpus, threads: int) -> list[Partition]:
    """One partition per shard; a single record file is cut into line ranges."""
    # Absolute paths: a worker's working folder is its own.
    files = [path.resolve() for path in corpus.record_files()]
    if len(files) > 1:
        return [Partition(i, str(path)) for i, path in enumerate(files)]
    total = corpus.manifest.get("counts", {}).get("methods")
    if not isinstance(total, int) or total <= _MIN_RANGE_RECORDS:
        return [Partition(0, str(files[0]))]
    n = max(1, min(_RANGES_PER_THREAD * threads, total // _MIN_RANGE_RECORDS))
    bounds = [total * i // n for i in range(n + 1)]
    # The last range runs to the end, so records beyond the manifest's count are not lost.
    stops: list[int | None] = [*bounds[1:-1], None]
    return [Partition(i, str(files[0]), bounds[i], stops[i]) for i in range(n)]


def _docs(part: Partition, text: str, read: list[int] | None = None) -> Iterator[list[str]]:
    """The documents of ``part``; ``read[0]`` counts its records as they are read."""
    records = iter_records(part.path, part.start, part.stop)
    return record_documents(records if read is None else _counted(records, read), parse_text(text))


def _counted(records: Iterator[dict[str, Any]], read: list[int]) -> Iterator[dict[str, Any]]:
    for record in records:
        read[0] += 1
        yield record


# A token's pass-1 entry: [count, document frequency, partition of first sight, position].
_Entry = list[int]


def partition_token_stats(part: Partition, text: str) -> tuple[int, int, dict[str, _Entry]]:
    """Worker task: records read, documents and per-token statistics of one partition."""
    stats: dict[str, _Entry] = {}
    n_docs = position = 0
    read = [0]
    for doc in _docs(part, text, read):
        if not doc:
            continue
        n_docs += 1
        for token in doc:
            entry = stats.get(token)
            if entry is None:
                stats[token] = [1, 0, part.index, position]
            else:
                entry[0] += 1
            position += 1
        for token in set(doc):
            stats[token][1] += 1
    return read[0], n_docs, stats


def merge_token_stats(
    *parts: tuple[int, int, dict[str, _Entry]],
) -> tuple[int, int, dict[str, _Entry]]:
    """Reduction step of pass 1: sum counts and document frequencies, keep the first sight."""
    records, n_docs = parts[0][0], parts[0][1]
    merged = {k: list(v) for k, v in parts[0][2].items()}
    for read, docs, stats in parts[1:]:
        records += read
        n_docs += docs
        for token, (count, df, where, position) in stats.items():
            entry = merged.get(token)
            if entry is None:
                merged[token] = [count, df, where, position]
                continue
            entry[0] += count
            entry[1] += df
            if (where, position) < (entry[2], entry[3]):
                entry[2], entry[3] = where, position
    return records, n_docs, merged


def partition_cooccurrence(
    part: Partition, text: str, index: dict[str, int], window: int | None
) -> sp.csr_matrix:
    """Worker task: co-occurrence counts of one partition's documents, pruned to ``index``."""
    return streamed_cooccurrence(_docs(part, text), list(index), window)


def add_matrices(*matrices: sp.csr_matrix) -> sp.csr_matrix:
    """Reduction step of pass 2."""
    total = matrices[0]
    for matrix in matrices[1:]:
        total = total + matrix
    return total.tocsr()


def _tree_reduce(cluster: Cluster, futures: list[Any], combine: Callable[..., Any]) -> Any:
    """Combine task results ``_SPLIT_EVERY`` at a time, on the workers, down to one."""
    while len(futures) > 1:
        inputs = futures
        futures = [
            cluster.submit(combine, *inputs[i : i + _SPLIT_EVERY])
            for i in range(0, len(inputs), _SPLIT_EVERY)
        ]
        # A result that the client drops may be forgotten before the task combining it
        # has fetched it, so the inputs are held until this level is done.
        cluster.wait(futures)
        cluster.release(inputs)
    return cluster.result(futures[0])


def token_stats(
    cluster: Cluster, parts: list[Partition], text: str, corpus: Corpus | None = None
) -> DocumentStats:
    """Pass 1 over ``parts`` on the cluster.

    With ``corpus`` (the corpus the parts cover), the records read are checked
    against its manifest's count (:meth:`~wrdscore.corpora.Corpus.check_count`),
    as a local pass through ``Corpus.iter_methods`` does.

    Examples
    --------
    See ``tests/test_dask.py``, which checks it against
    :func:`~wrdscore.embeddings.document_frequencies` on one machine.
    """
    futures = [cluster.submit(partition_token_stats, part, text) for part in parts]
    records, n_docs, stats = _tree_reduce(cluster, futures, merge_token_stats)
    if corpus is not None:
        corpus.check_count(records)
    vocab = sorted(stats, key=lambda t: (-stats[t][0], stats[t][2], stats[t][3]))
    return DocumentStats(
        vocab=vocab,
        counts=np.array([stats[t][0] for t in vocab], dtype=np.int64),
        doc_freq={t: stats[t][1] for t in vocab},
        n_docs=n_docs,
    )


def cooccurrence(
    cluster: Cluster,
    parts: list[Partition],
    text: str,
    vocab: list[str],
    window: int | None,
) -> sp.csr_matrix:
    """Pass 2 over ``parts`` on the cluster: :func:`cooccurrence_matrix` of the pruned documents.

    ``vocab`` is the kept vocabulary (a prefix of pass 1's); its index is sent to
    every worker once.
    """
    # A list, so that the dict is scattered as one object rather than key by key.
    # hash=False: a fresh key each time, never one the scheduler is still forgetting.
    [index] = cluster.client.scatter(
        [{t: i for i, t in enumerate(vocab)}], broadcast=True, hash=False
    )
    futures = [cluster.submit(partition_cooccurrence, part, text, index, window) for part in parts]
    matrix = _tree_reduce(cluster, futures, add_matrices)
    return sp.csr_matrix(matrix, shape=(len(vocab), len(vocab)))
