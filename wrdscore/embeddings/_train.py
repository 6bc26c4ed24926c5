"""``wrdscore train``: read a corpus, train token vectors, store them as a MODEL_DIR."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gensim
import numpy as np
import scipy
from gensim.models import KeyedVectors

from wrdscore import __version__
from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.embeddings._cooccurrence import (
    WEIGHTINGS,
    cooccurrence_matrix,
    ppmi,
    svd_embeddings,
)
from wrdscore.embeddings._docfreq import document_frequencies
from wrdscore.embeddings._documents import TokenDocuments
from wrdscore.embeddings._gensim import DEFAULT_WINDOW, train_gensim
from wrdscore.embeddings._specialise import (
    DEFAULT_SPECIALISE_METHOD,
    SPECIALISE_METHODS,
    SUFFIX,
    specialise_from_corpus,
)
from wrdscore.embeddings._store import save_embeddings
from wrdscore.embeddings._vectors import TokenEmbeddings
from wrdscore.errors import WrdscoreError

METHODS = ("svd", "word2vec", "fasttext")
TEXTS = ("names", "summaries", "both")
_SHORT = {"svd": "svd", "word2vec": "w2v", "fasttext": "ft"}


def corpus_documents(corpus_dir: str | Path, text: str = "names") -> Iterator[list[str]]:
    """The training documents of a corpus: sub-token lists, one per name and/or summary.

    Parameters
    ----------
    corpus_dir : path
        A folder written by ``wrdscore ingest``.
    text : {"names", "summaries", "both"}
        ``names``: each method name's tokens; ``summaries``: each Javadoc summary's
        words, split with :func:`~wrdscore.corpora.split_identifier` like names are;
        ``both``: each name and each summary as separate documents.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import CorpusWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with CorpusWriter(d) as w:
    ...     w.write({"name": "getName", "tokens": ["get", "name"], "summary": "The name."})
    ...     w.write_manifest({})
    >>> list(corpus_documents(d, "both"))
    [['get', 'name'], ['the', 'name']]
    """
    _check_text(text)
    # The checks run at the call; the records are then streamed.
    return _documents(open_corpus(corpus_dir).iter_methods(), text)


def _check_text(text: str) -> None:
    if text not in TEXTS:
        raise WrdscoreError(f"unknown --text {text!r}; choose one of {', '.join(TEXTS)}")


def _documents(records: Iterator[dict[str, Any]], text: str) -> Iterator[list[str]]:
    for record in records:
        if text != "summaries":
            yield list(record.get("tokens") or split_identifier(record.get("name") or ""))
        if text != "names" and record.get("summary"):
            yield split_identifier(record["summary"])


def _svd_vectors(
    docs: TokenDocuments, dim: int, window: int | None, weighting: str, seed: int
) -> KeyedVectors:
    counts = cooccurrence_matrix(docs, window)
    matrix = ppmi(counts) if weighting == "ppmi" else counts
    vectors = svd_embeddings(matrix, dim, seed=seed)
    kv = KeyedVectors(vector_size=dim)
    kv.add_vectors(docs.vocab, vectors.astype(np.float32))
    kv.expandos["count"] = docs.counts.copy()
    return kv


def train_embeddings(
    corpus_dir: str | Path,
    method: str,
    output: str | Path,
    *,
    dim: int = 50,
    window: int | None = None,
    min_count: int = 1,
    epochs: int = 5,
    seed: int = 0,
    workers: int = 1,
    text: str = "names",
    weighting: str = "raw",
    bucket: int = 20_000,
    name: str | None = None,
    specialise: bool = False,
    specialise_method: str = DEFAULT_SPECIALISE_METHOD,
    force: bool = False,
) -> TokenEmbeddings:
    """Train token embeddings on a corpus and save them as a MODEL_DIR.

    Parameters
    ----------
    corpus_dir : path
        A folder written by ``wrdscore ingest``.
    method : {"svd", "word2vec", "fasttext"}
        ``svd``: truncated SVD of the sparse co-occurrence matrix, ``E = 1/2 U Sigma``
        (the WRDScore paper; see :func:`cooccurrence_matrix`); ``word2vec`` and
        ``fasttext``: gensim skip-gram, one sentence per document.
    output : path
        The MODEL_DIR to write (refused if it exists, unless ``force``).
    dim : int
        Vector dimension.
    window : int, optional
        Context window; default the whole name for ``svd``, 2 for the gensim methods.
    min_count : int
        Tokens rarer than this get no vector (document frequencies keep them all).
    epochs, workers : int
        gensim only. ``workers=1`` makes training deterministic.
    seed : int
        Random seed (SVD start vector, gensim initialisation).
    text : {"names", "summaries", "both"}
        Which text to train on (see :func:`corpus_documents`).
    weighting : {"raw", "ppmi"}
        ``svd`` only: raw counts (the paper) or positive PMI before the SVD.
    bucket : int
        ``fasttext`` only: number of hashed character n-gram vectors.
    name : str, optional
        Label in score signatures; default ``<corpus label>-<method>-<dim>``
        (``-cf`` or ``-ar`` appended when specialised).
    specialise : bool
        After training, mine contrast, synonym and abbreviation pairs from the same
        corpus (:func:`~wrdscore.embeddings.mine_constraints`) and specialise the
        vectors with them (:func:`~wrdscore.embeddings.specialise_vectors`, published
        hyperparameters). ``model.json`` records the pair counts and settings under
        ``specialise``; the pairs go to ``pairs.tsv`` in the MODEL_DIR.
    specialise_method : {"counter-fitting", "attract-repel"}
        The specialisation method (with ``specialise``).
    force : bool
        Replace an existing ``output``.

    Returns
    -------
    TokenEmbeddings
        The trained model, as :func:`load_embeddings` would return it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.atomic import atomic_dir
    >>> from wrdscore.corpora import CorpusWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_dir(d / "c") as tmp, CorpusWriter(tmp) as w:
    ...     for n in ["getName", "setName", "getValue", "setValue", "isEmpty"]:
    ...         w.write({"name": n, "tokens": split_identifier(n), "summary": None})
    ...     w.write_manifest({"label": "tiny"})
    >>> emb = train_embeddings(d / "c", "svd", d / "m", dim=2)
    >>> emb.name, len(emb), emb.n_docs
    ('tiny-svd-2', 6, 5)
    """
    if method not in METHODS:
        raise WrdscoreError(f"unknown --method {method!r}; choose one of {', '.join(METHODS)}")
    if min_count < 1:
        raise WrdscoreError(f"--min-count must be at least 1, not {min_count}")
    if weighting not in WEIGHTINGS:
        raise WrdscoreError(
            f"unknown --weighting {weighting!r}; choose one of {', '.join(WEIGHTINGS)}"
        )
    _check_text(text)
    if specialise and specialise_method not in SPECIALISE_METHODS:
        raise WrdscoreError(
            f"unknown --specialise-method {specialise_method!r}; choose one of "
            + ", ".join(SPECIALISE_METHODS)
        )
    corpus = open_corpus(corpus_dir)
    started = time.perf_counter()
    # The records of the corpus opened here, whose manifest hash goes into the metadata.
    docs = TokenDocuments.from_token_lists(_documents(corpus.iter_methods(), text))
    if docs.n_docs == 0:
        raise WrdscoreError(f"corpus {corpus_dir} has no {text} to train on (it is empty)")
    doc_freq = document_frequencies(docs)
    if method == "svd":
        kv = _svd_vectors(docs.prune(min_count), dim, window, weighting, seed)
    else:
        kv = train_gensim(
            docs,
            method,
            dim=dim,
            window=window,
            min_count=min_count,
            epochs=epochs,
            seed=seed,
            workers=workers,
            bucket=bucket,
        )
    special: dict[str, Any] | None = None
    constraints = None
    if specialise:
        kv, special, constraints = specialise_from_corpus(kv, corpus.path, specialise_method, seed)
    label = corpus.manifest.get("label") or corpus.path.resolve().name
    short = "ppmi" if method == "svd" and weighting == "ppmi" else _SHORT[method]
    params: dict[str, Any] = {
        "dim": dim,
        "window": window if window or method == "svd" else DEFAULT_WINDOW,
        "min_count": min_count,
        "seed": seed,
        "text": text,
    }
    if method == "svd":
        params["weighting"] = weighting
    else:
        params.update(epochs=epochs, workers=workers, sg=1)
    if method == "fasttext":
        params["bucket"] = bucket
    meta = {
        "name": name
        or f"{label}-{short}-{dim}" + (f"-{SUFFIX[specialise_method]}" if specialise else ""),
        "method": method,
        "params": params,
        "corpus": {
            "path": str(corpus.path),
            "label": label,
            "manifest_sha256": corpus.manifest_sha256,
        },
        "vocab_size": len(kv),
        "n_docs": docs.n_docs,
        "token_counts": {
            "total": int(docs.counts.sum()),
            "distinct": len(docs.vocab),
            "in_vocab": int(np.asarray(kv.expandos["count"]).sum()),
        },
        "train_seconds": round(time.perf_counter() - started, 3),
        **({"specialise": special} if special else {}),
        "versions": {
            "wrdscore": __version__,
            "gensim": gensim.__version__,
            "numpy": np.__version__,
            "scipy": scipy.__version__,
        },
    }
    save_embeddings(
        kv,
        output,
        meta=meta,
        doc_freq=doc_freq,
        pairs=list(constraints) if constraints else None,
        force=force,
    )
    return TokenEmbeddings(kv, name=meta["name"], doc_freq=doc_freq, n_docs=docs.n_docs, meta=meta)
