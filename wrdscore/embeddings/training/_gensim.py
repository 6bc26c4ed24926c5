"""Word2Vec and FastText token vectors, trained with gensim on one sentence per document."""

from __future__ import annotations

from collections.abc import Iterable
from types import GeneratorType

from gensim.models import FastText, KeyedVectors, Word2Vec

from wrdscore.embeddings._seed import check_seed
from wrdscore.embeddings.training._cooccurrence import check_window
from wrdscore.embeddings.training._stream import DocumentStats
from wrdscore.errors import WrdscoreError

GENSIM_METHODS = ("word2vec", "fasttext")
#: The WRDScore paper found the smallest window captured synonyms best.
DEFAULT_WINDOW = 2


def check_sg(sg: int) -> None:
    """Refuse an ``sg`` other than 0 (CBOW) or 1 (skip-gram) with a :class:`WrdscoreError`."""
    if sg not in (0, 1):
        raise WrdscoreError(f"--sg must be 0 (CBOW) or 1 (skip-gram), not {sg}")


def check_workers(workers: int) -> None:
    """Refuse fewer than 1 worker thread with a :class:`WrdscoreError`.

    gensim with ``workers=0`` starts no training thread and returns its random
    initial vectors as if trained.
    """
    if workers < 1:
        raise WrdscoreError(f"--workers must be at least 1, not {workers}")


def train_gensim(
    docs: Iterable[list[str]],
    method: str,
    *,
    dim: int = 50,
    window: int | None = None,
    min_count: int = 1,
    epochs: int = 5,
    seed: int = 0,
    workers: int = 1,
    bucket: int = 20_000,
    min_n: int = 3,
    max_n: int = 5,
    sg: int = 1,
    stats: DocumentStats | None = None,
) -> KeyedVectors:
    """Train Word2Vec or FastText vectors, one "sentence" per document.

    Parameters
    ----------
    docs : iterable of list of str
        The training documents, re-iterable (a list, or a
        :class:`~wrdscore.embeddings.CorpusDocuments` streaming from disk): gensim
        reads them once for its vocabulary (unless ``stats`` is given) and once per
        epoch. Not a generator.
    method : {"word2vec", "fasttext"}
        FastText adds character n-grams (``min_n``..``max_n`` characters hashed into
        ``bucket`` rows), so tokens never seen in training still get vectors.
    dim, window, min_count, epochs, seed, workers
        As in gensim, each at least 1 (``seed`` at least 0); ``window`` defaults
        to 2. With ``workers=1`` the same corpus and seed give identical vectors
        (gensim seeds its own generator and hashes n-grams with its own function,
        independent of ``PYTHONHASHSEED``).
    sg : {1, 0}
        1: skip-gram (the default: most sub-tokens of a code corpus are rare, and
        skip-gram learns rare words better, Mikolov et al. 2013); 0: CBOW, which
        averages the window's words to predict the middle one, faster on long
        context documents.
    stats : DocumentStats, optional
        The token counts of ``docs`` from a pass already made
        (:func:`~wrdscore.embeddings.document_stats`). gensim then takes its
        vocabulary from them instead of reading the corpus once more; the vectors
        are the same bit for bit (same counts, and ties in the same first-seen order).

    Returns
    -------
    gensim KeyedVectors
        With the ``count`` attribute of every token set (corpus frequency).

    Examples
    --------
    >>> kv = train_gensim([["get", "name"], ["set", "name"]] * 20, "word2vec", dim=8, epochs=2)
    >>> kv.vector_size, sorted(kv.index_to_key), int(kv.get_vecattr("name", "count"))
    (8, ['get', 'name', 'set'], 40)
    """
    if method not in GENSIM_METHODS:
        raise WrdscoreError(f"unknown gensim method {method!r}")
    for option, value in (("--dim", dim), ("--epochs", epochs)):
        if value < 1:
            raise WrdscoreError(f"{option} must be at least 1, not {value}")
    check_window(window)
    check_workers(workers)
    check_sg(sg)
    check_seed(seed)
    if isinstance(docs, GeneratorType):
        raise TypeError("docs must be re-iterable (a list or CorpusDocuments), not a generator")
    common = {
        "vector_size": dim,
        "window": DEFAULT_WINDOW if window is None else window,
        "min_count": min_count,
        "epochs": epochs,
        "seed": seed,
        "workers": workers,
        "sg": sg,
    }
    if method == "word2vec":
        model = Word2Vec(**common)
    else:
        model = FastText(**common, bucket=bucket, min_n=min_n, max_n=max_n)
    # What the constructor would do with ``sentences``, in two steps so that an empty
    # vocabulary is an error message rather than gensim's exception.
    if stats is None:
        model.build_vocab(corpus_iterable=docs)
    else:
        counts = dict(zip(stats.vocab, stats.counts.tolist(), strict=True))
        model.build_vocab_from_freq(counts, corpus_count=stats.n_docs)
    if len(model.wv) == 0:
        if model.corpus_count == 0:
            raise WrdscoreError("the corpus has no tokens to train on")
        raise WrdscoreError(f"no token occurs --min-count {min_count} times; lower --min-count")
    model.train(corpus_iterable=docs, total_examples=model.corpus_count, epochs=epochs)
    return model.wv
