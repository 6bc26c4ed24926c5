"""Word2Vec and FastText token vectors, trained with gensim on one sentence per name."""

from __future__ import annotations

from collections.abc import Iterator

from gensim.models import FastText, KeyedVectors, Word2Vec

from wrdscore.embeddings._documents import TokenDocuments
from wrdscore.errors import WrdscoreError

GENSIM_METHODS = ("word2vec", "fasttext")
#: The WRDScore paper found the smallest window captured synonyms best.
DEFAULT_WINDOW = 2


class _Sentences:
    """The documents as gensim's restartable iterable of sentences.

    gensim makes one pass for its vocabulary and one per epoch; a list of the
    sentences would hold every token as a Python string (~60 bytes), where the
    documents hold it as one int64.
    """

    def __init__(self, docs: TokenDocuments) -> None:
        self.docs = docs

    def __iter__(self) -> Iterator[list[str]]:
        return self.docs.sentences()


def train_gensim(
    docs: TokenDocuments,
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
) -> KeyedVectors:
    """Train skip-gram Word2Vec or FastText vectors, one "sentence" per document.

    Skip-gram rather than CBOW because most sub-tokens of a code corpus are rare,
    and skip-gram learns rare words better (Mikolov et al. 2013).

    Parameters
    ----------
    docs : TokenDocuments
        The training documents (method names and/or summaries).
    method : {"word2vec", "fasttext"}
        FastText adds character n-grams (``min_n``..``max_n`` characters hashed into
        ``bucket`` rows), so tokens never seen in training still get vectors.
    dim, window, min_count, epochs, seed, workers
        As in gensim; ``window`` defaults to 2. With ``workers=1`` the same corpus
        and seed give identical vectors (gensim seeds its own generator and hashes
        n-grams with its own function, independent of ``PYTHONHASHSEED``).

    Returns
    -------
    gensim KeyedVectors
        With the ``count`` attribute of every token set (corpus frequency).

    Examples
    --------
    >>> docs = TokenDocuments.from_token_lists([["get", "name"], ["set", "name"]] * 20)
    >>> kv = train_gensim(docs, "word2vec", dim=8, epochs=2)
    >>> kv.vector_size, sorted(kv.index_to_key), int(kv.get_vecattr("name", "count"))
    (8, ['get', 'name', 'set'], 40)
    """
    if method not in GENSIM_METHODS:
        raise WrdscoreError(f"unknown gensim method {method!r}")
    for option, value in (("--dim", dim), ("--window", window or 1), ("--epochs", epochs)):
        if value < 1:
            raise WrdscoreError(f"{option} must be at least 1, not {value}")
    if docs.n_docs == 0:
        raise WrdscoreError("the corpus has no tokens to train on")
    if int(docs.counts.max()) < min_count:
        raise WrdscoreError(f"no token occurs --min-count {min_count} times; lower --min-count")
    common = {
        "sentences": _Sentences(docs),
        "vector_size": dim,
        "window": window or DEFAULT_WINDOW,
        "min_count": min_count,
        "epochs": epochs,
        "seed": seed,
        "workers": workers,
        "sg": 1,
    }
    if method == "word2vec":
        model = Word2Vec(**common)
    else:
        model = FastText(**common, bucket=bucket, min_n=min_n, max_n=max_n)
    return model.wv
