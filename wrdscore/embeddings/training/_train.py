"""``wrdscore train``: read a corpus, train token vectors, store them as a MODEL_DIR."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gensim
import numpy as np
import scipy
from gensim.models import KeyedVectors

from wrdscore import __version__
from wrdscore.atomic import check_output_dir
from wrdscore.corpora import Corpus, open_corpus
from wrdscore.embeddings._seed import check_seed
from wrdscore.embeddings.specialise._pairs_file import pairs_file
from wrdscore.embeddings.specialise._specialise import (
    DEFAULT_SPECIALISE_METHOD,
    SPECIALISE_METHODS,
    SUFFIX,
    specialise_from_corpus,
)
from wrdscore.embeddings.store._store import save_embeddings
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.embeddings.training._cooccurrence import (
    WEIGHTINGS,
    check_window,
    ppmi,
    svd_embeddings,
)
from wrdscore.embeddings.training._gensim import (
    DEFAULT_WINDOW,
    GENSIM_METHODS,
    check_sg,
    check_workers,
    train_gensim,
)
from wrdscore.embeddings.training._stream import (
    TEXT_PARTS,
    CorpusDocuments,
    DocumentStats,
    document_stats,
    parse_text,
    streamed_cooccurrence,
)
from wrdscore.errors import WrdscoreError, only_with

METHODS = ("svd", "word2vec", "fasttext")
#: The single parts of ``--text``; any of them joined by "+" (``names+context``),
#: and ``both``, are accepted too (:func:`~wrdscore.embeddings.training._stream.parse_text`).
TEXTS = (*TEXT_PARTS, "both")
_SHORT = {"svd": "svd", "word2vec": "w2v", "fasttext": "ft"}


def corpus_documents(corpus_dir: str | Path, text: str = "names") -> Iterator[list[str]]:
    """The training documents of a corpus, streamed: sub-token lists.

    Parameters
    ----------
    corpus_dir : path
        A folder written by ``wrdscore ingest``.
    text : str
        ``names``: each method name's tokens; ``summaries``: each Javadoc summary's
        words, split with :func:`~wrdscore.corpora.split_identifier` like names are;
        ``context``: each method's context (needs a corpus of format 2); parts joined
        by ``+`` (``names+context``, ``names+summaries+context``): one document per
        method, its parts in that order (name tokens, then summary, then context);
        ``both``: each name and each summary as separate documents.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import CorpusWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with CorpusWriter(d) as w:
    ...     w.write({"name": "getName", "tokens": ["get", "name"], "summary": "The name.",
    ...              "context": "the name string name"})
    ...     w.write_manifest({"format": 2})
    >>> list(corpus_documents(d, "both")), list(corpus_documents(d, "names+context"))
    ([['get', 'name'], ['the', 'name']], [['get', 'name', 'the', 'name', 'string', 'name']])
    """
    # The checks run at the call; the records are then streamed.
    return iter(CorpusDocuments(open_corpus(corpus_dir), text))


def _svd_vectors(
    vocab: list[str],
    counts: np.ndarray,
    cooccurrences: scipy.sparse.csr_matrix,
    dim: int,
    weighting: str,
    seed: int,
) -> KeyedVectors:
    matrix = ppmi(cooccurrences) if weighting == "ppmi" else cooccurrences
    vectors = svd_embeddings(matrix, dim, seed=seed)
    kv = KeyedVectors(vector_size=dim)
    kv.add_vectors(vocab, vectors.astype(np.float32))
    kv.expandos["count"] = counts.copy()
    return kv


@dataclass(frozen=True)
class _Trained:
    kv: KeyedVectors
    doc_freq: dict[str, int]
    n_docs: int
    total: int
    distinct: int


def _check_not_empty(stats: DocumentStats, corpus: Corpus, text: str) -> DocumentStats:
    if stats.n_docs == 0:
        raise WrdscoreError(f"corpus {corpus.path} has no {text} to train on (it is empty)")
    return stats


def _frequent(stats: DocumentStats, min_count: int) -> tuple[list[str], np.ndarray]:
    """The vocabulary of ``svd``: tokens seen ``min_count`` times, refused if none is."""
    vocab, counts = stats.frequent(min_count)
    if not vocab:
        # The words of train_gensim for the same case.
        raise WrdscoreError(f"no token occurs --min-count {min_count} times; lower --min-count")
    return vocab, counts


def _train_here(
    corpus: Corpus, method: str, text: str, min_count: int, window: int | None, **options: Any
) -> _Trained:
    # Every pass streams the corpus from disk: the documents are never all in memory.
    docs = CorpusDocuments(corpus, text)
    stats = _check_not_empty(document_stats(docs), corpus, text)
    if method == "svd":
        vocab, counts = _frequent(stats, min_count)
        matrix = streamed_cooccurrence(docs, vocab, window)
        kv = _svd_vectors(vocab, counts, matrix, **options)
    else:
        kv = train_gensim(docs, method, window=window, min_count=min_count, stats=stats, **options)
    return _Trained(kv, stats.doc_freq, stats.n_docs, int(stats.counts.sum()), len(stats.vocab))


def _train_on_cluster(
    corpus: Corpus,
    method: str,
    text: str,
    min_count: int,
    window: int | None,
    scheduler: str,
    jobs: int | None,
    **options: Any,
) -> _Trained:
    from wrdscore.corpora import Cluster
    from wrdscore.embeddings.training import _dask

    with Cluster(scheduler, jobs or len(os.sched_getaffinity(0))) as cluster:
        parts = _dask.partitions(corpus, cluster.threads())
        stats = _check_not_empty(_dask.token_stats(cluster, parts, text, corpus), corpus, text)
        if method == "svd":
            vocab, counts = _frequent(stats, min_count)
            matrix = _dask.cooccurrence(cluster, parts, text, vocab, window)
    if method == "svd":
        kv = _svd_vectors(vocab, counts, matrix, **options)
    else:
        # gensim trains here, on the documents streamed from the corpus (see the README).
        docs = CorpusDocuments(corpus, text)
        kv = train_gensim(docs, method, window=window, min_count=min_count, stats=stats, **options)
    return _Trained(kv, stats.doc_freq, stats.n_docs, int(stats.counts.sum()), len(stats.vocab))


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
    sg: int = 1,
    name: str | None = None,
    specialise: bool = False,
    specialise_method: str = DEFAULT_SPECIALISE_METHOD,
    curated: bool = True,
    confirm: bool = True,
    inflect: bool = True,
    force: bool = False,
    scheduler: str | None = None,
    jobs: int | None = None,
) -> TokenEmbeddings:
    """Train token embeddings on a corpus and save them as a MODEL_DIR.

    Parameters
    ----------
    corpus_dir : path
        A folder written by ``wrdscore ingest``.
    method : {"svd", "word2vec", "fasttext"}
        ``svd``: truncated SVD of the sparse co-occurrence matrix, ``E = 1/2 U Sigma``
        (the WRDScore paper; see :func:`cooccurrence_matrix`); ``word2vec`` and
        ``fasttext``: gensim skip-gram or CBOW (``sg``), one sentence per document.
    output : path
        The MODEL_DIR to write (refused if it exists, unless ``force``).
    dim : int
        Vector dimension.
    window : int, optional
        Context window; default the whole document for ``svd`` on names and
        summaries, else 2 (the gensim methods, and ``svd`` on any text with
        ``context``, whose documents of up to 256 + name tokens would otherwise pair
        every token with every other).
    min_count : int
        Tokens rarer than this get no vector (document frequencies keep them all).
    epochs, workers : int
        gensim only. ``workers=1`` makes training deterministic. An option of
        another method than ``method`` (``epochs``, ``workers``, ``sg`` for ``svd``;
        ``weighting`` for the gensim methods; ``bucket`` for all but ``fasttext``) is
        refused unless it keeps its default, rather than silently ignored.
    seed : int
        Random seed (SVD start vector, gensim initialisation).
    text : str
        Which text to train on: ``names``, ``summaries``, ``context``, parts joined
        by ``+``, or ``both`` (see :func:`corpus_documents`). The documents are
        streamed from the corpus on disk in every pass, never all held in memory.
    weighting : {"raw", "ppmi"}
        ``svd`` only: raw counts (the paper) or positive PMI before the SVD.
    bucket : int
        ``fasttext`` only: number of hashed character n-gram vectors, 1 or more.
    sg : {1, 0}
        gensim methods: 1 skip-gram, 0 CBOW.
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
    curated : bool
        With ``specialise``: add the packaged curated list of synonyms, contrasts
        and abbreviations on top of the mined pairs
        (:func:`~wrdscore.embeddings.read_curated`).
    confirm : bool
        With ``specialise``: drop the mined synonyms the trained vectors do not
        already relate (:func:`~wrdscore.embeddings.confirm_synonyms`).
    inflect : bool
        With ``specialise``: carry contrasts and synonyms over to inflected forms
        (:func:`~wrdscore.embeddings.add_inflections`).
    force : bool
        Replace an existing ``output``.
    scheduler : str, optional
        Count document frequencies and (``svd``) co-occurrences with Dask
        reductions on a cluster: a scheduler address or ``"local"`` for a
        ``LocalCluster`` of ``jobs`` processes (default: the number of cores). The
        workers read the corpus's record files by path. The model is the one
        trained without a scheduler.
    jobs : int, optional
        Worker processes of ``scheduler="local"``.

    Returns
    -------
    TokenEmbeddings
        The trained model, as :func:`load_embeddings` would return it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.atomic import atomic_dir
    >>> from wrdscore.corpora import CorpusWriter, split_identifier
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
    parts = parse_text(text)
    check_sg(sg)
    check_seed(seed)
    check_window(window)
    check_workers(workers)  # refused for svd too, where it is unused, as nonsense
    # Options of another method than the one chosen would be ignored silently; as with
    # the --specialise options below, only values other than the defaults can be told
    # apart from "not given".
    defaults = train_embeddings.__kwdefaults__ or {}
    for flag, key, value, applies in (
        ("--weighting", "weighting", weighting, ("svd",)),
        ("--sg", "sg", sg, GENSIM_METHODS),
        ("--epochs", "epochs", epochs, GENSIM_METHODS),
        ("--workers", "workers", workers, GENSIM_METHODS),
        ("--bucket", "bucket", bucket, ("fasttext",)),
    ):
        if method not in applies and value != defaults[key]:
            raise WrdscoreError(f"{flag} {value} only applies to --method {' or '.join(applies)}")
    if bucket < 1:
        # gensim takes 0 as "no n-grams": a FastText model without subword vectors, which
        # --oov subword would then refuse as not a FastText model.
        raise WrdscoreError(f"--bucket must be at least 1, not {bucket}")
    # Options of the specialisation step set without it would be dropped silently; only
    # values other than the defaults can be told apart from "not given".
    unused = [
        flag
        for flag, is_set in (
            (
                f"--specialise-method {specialise_method}",
                specialise_method != DEFAULT_SPECIALISE_METHOD,
            ),
            ("--no-curated", not curated),
            ("--no-confirm", not confirm),
            ("--no-inflections", not inflect),
        )
        if is_set
    ]
    if unused and not specialise:
        raise only_with(unused, "--specialise")
    if specialise and specialise_method not in SPECIALISE_METHODS:
        raise WrdscoreError(
            f"unknown --specialise-method {specialise_method!r}; choose one of "
            + ", ".join(SPECIALISE_METHODS)
        )
    if jobs is not None and scheduler != "local":
        # The same words as ingest's, which takes the same two options.
        where = "a cluster at an address has its own" if scheduler else "add --scheduler local"
        raise WrdscoreError(f"--jobs sets the workers of --scheduler local; {where}")
    if jobs is not None and jobs < 1:
        raise WrdscoreError(f"--jobs must be at least 1, not {jobs}")
    check_output_dir(output, force)  # before the training, not after it
    # The records of the corpus opened here, whose manifest hash goes into the metadata.
    corpus = open_corpus(corpus_dir)
    if "context" in parts:
        corpus.require_context()
    if window is None and (method != "svd" or "context" in parts):
        window = DEFAULT_WINDOW
    started = time.perf_counter()
    options: dict[str, Any] = (
        {"dim": dim, "weighting": weighting, "seed": seed}
        if method == "svd"
        else {
            "dim": dim,
            "epochs": epochs,
            "seed": seed,
            "workers": workers,
            "bucket": bucket,
            "sg": sg,
        }
    )
    if scheduler is None:
        trained = _train_here(corpus, method, text, min_count, window, **options)
    else:
        trained = _train_on_cluster(
            corpus, method, text, min_count, window, scheduler, jobs, **options
        )
    kv, doc_freq = trained.kv, trained.doc_freq
    special: dict[str, Any] | None = None
    constraints = None
    if specialise:
        kv, special, constraints = specialise_from_corpus(
            kv, corpus.path, specialise_method, seed, curated, confirm, inflect
        )
    label = corpus.manifest.get("label") or corpus.path.resolve().name
    short = "ppmi" if method == "svd" and weighting == "ppmi" else _SHORT[method]
    params: dict[str, Any] = {
        "dim": dim,
        "window": window,
        "min_count": min_count,
        "seed": seed,
        "text": text,
    }
    if method == "svd":
        params["weighting"] = weighting
    else:
        params.update(epochs=epochs, workers=workers, sg=sg)
    if method == "fasttext":
        params["bucket"] = bucket
    meta: dict[str, Any] = {
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
        "n_docs": trained.n_docs,
        "token_counts": {
            "total": trained.total,
            "distinct": trained.distinct,
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
        files=pairs_file(constraints) if constraints else None,
        force=force,
    )
    return TokenEmbeddings(
        kv, name=meta["name"], doc_freq=doc_freq, n_docs=trained.n_docs, meta=meta
    )
