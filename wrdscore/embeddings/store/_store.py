"""Save and load models: MODEL_DIR folders, word2vec files, KeyedVectors files.

A MODEL_DIR written by ``wrdscore train`` holds

``vectors.kv``
    The vectors in gensim's KeyedVectors format (``KeyedVectors.load`` reads it;
    large arrays may sit beside it as ``vectors.kv.*.npy``), with each token's
    corpus frequency as its ``count`` attribute.
``model.json``
    Method, all parameters, corpus manifest SHA-256, vocabulary size, token counts,
    ``n_docs`` and the wrdscore/gensim/numpy/scipy versions.
``doc_freq.json``
    ``{token: df}``: in how many training documents each token occurs.
``pairs.tsv``
    Only in a specialised model (``wrdscore train --specialise``): the mined
    contrast, synonym and abbreviation pairs it was specialised with.
``fast/``
    The same vectors as plain arrays, which load in milliseconds without gensim:
    ``vectors.npy`` (float32, or float16 in a model distilled with ``--float16``;
    one row per token, memory-mapped on load; over 24 MiB, row blocks
    ``vectors.0.npy``, ``vectors.1.npy``, ... whose sizes ``vocab.json`` records),
    ``ngrams.npy`` (FastText's n-gram bucket vectors, FastText models only) and
    ``vocab.json`` (``{"format", "tokens", "counts", "min_n", "max_n"}``).
    Scoring reads these; a MODEL_DIR without them (older ones) loads through gensim.
    A MODEL_DIR with ``fast/`` and no n-grams may leave ``vectors.kv`` out (the bundled
    default does, to halve its size: :func:`drop_gensim_copy`); a command that needs
    gensim's object (``neighbors``, ``specialise``) then gets one built from the arrays.
``pieces/``
    Only in a model distilled from an encoder (``wrdscore distill``): the static
    vector of every word piece of the encoder's tokenizer (``vectors.npy``) and the
    pieces with the tokenizer's splitting rules (``vocab.json``), so an unseen token
    gets the mean vector of its pieces. Outside ``fast/``: rewriting ``fast/`` from
    ``vectors.kv`` keeps them.
``fallback/``
    Only in a fused model (``wrdscore fuse``) one of whose parts had n-grams or word
    pieces: each part's table and fusion scale, so an unseen token gets each part's
    vector (see :mod:`~wrdscore.embeddings.store._fallback`).

A model without document frequencies (distilled over a plain token list) has
``"n_docs": null`` and an empty ``doc_freq.json``: it loads, and IDF weighting is
refused for it with a message saying why.
"""

from __future__ import annotations

import functools
import json
import pickle
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wrdscore.atomic import atomic_dir
from wrdscore.embeddings.store._blocks import RowBlocks, read_blocks, write_blocks
from wrdscore.embeddings.store._fallback import (
    FALLBACK_DIR,
    FusedFallback,
    read_fallback,
    write_fallback,
)
from wrdscore.embeddings.store._subword import FNV1A, GENSIM, NGRAM_HASHES, agrees_with_gensim
from wrdscore.embeddings.store._vectors import (
    TokenEmbeddings,
    _check_pieces,
    _subword_parts,
    check_arrays,
    full_sha,
)
from wrdscore.embeddings.store._word2vec import read_word2vec
from wrdscore.embeddings.store._wordpiece import WordPieces, load_pieces, save_pieces
from wrdscore.errors import WrdscoreError

if TYPE_CHECKING:
    from gensim.models import KeyedVectors


VECTORS_FILE = "vectors.kv"
MODEL_FILE = "model.json"
DOC_FREQ_FILE = "doc_freq.json"
MODEL_FORMAT = "wrdscore-model/1"
FAST_DIR = "fast"
FAST_FORMAT = "wrdscore-fast/1"
PIECES_DIR = "pieces"
_PICKLE_MAGIC = b"\x80"
#: What stored vectors may be: float32, or float16 (``distill --float16``).
_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))
# Errors gensim/pickle/numpy raise on a truncated or foreign file.
_LOAD_ERRORS = (
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    KeyError,
    IndexError,
    AttributeError,
    TypeError,
    UnicodeDecodeError,
    ModuleNotFoundError,
)


def default_model_path() -> Path:
    """Folder of the default model bundled inside the package (``wrdscore/data/default``)."""
    # A plain path, not importlib.resources: the arrays are memory-mapped, so the
    # package must be installed as files anyway (and that import costs start-up time).
    return Path(__file__).resolve().parents[2] / "data" / "default"


def save_embeddings(
    kv: KeyedVectors,
    output: str | Path,
    *,
    meta: dict[str, Any],
    doc_freq: dict[str, int],
    files: Mapping[str, str] | None = None,
    force: bool = False,
    pieces: WordPieces | None = None,
    fallback: FusedFallback | None = None,
) -> Path:
    """Write a MODEL_DIR atomically (nothing appears unless everything was written).

    Parameters
    ----------
    kv : gensim KeyedVectors
        The vectors, with ``count`` attributes; float32, or float16 (kept as such).
    output : path
        The MODEL_DIR to create.
    meta : dict
        The content of ``model.json``; must include ``name`` and ``n_docs`` (``None``
        for a model without document frequencies).
    doc_freq : dict of str to int
        Document frequency of every training token.
    files : dict of str to str, optional
        More text files of the MODEL_DIR, by name: a specialised model's ``pairs.tsv``
        (:func:`~wrdscore.embeddings.specialise._pairs_file.pairs_file`), whose format
        belongs to specialisation, not to storage.
    force : bool
        Replace an existing ``output``.
    pieces : WordPieces, optional
        An encoder's word-piece vectors (a distilled model), written to ``pieces/``.
    fallback : FusedFallback, optional
        A fused model's parts' tables for unseen tokens, written to ``fallback/``.

    Raises
    ------
    WrdscoreError
        Vectors no metric can use (a non-finite value, every vector zero): nothing is
        written.

    Notes
    -----
    gensim's lifecycle log (timestamps, platform, paths) is dropped from ``kv``
    before saving, so the same vectors always give the same bytes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "set": [0.0, 1.0]})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "m"
    >>> _ = save_embeddings(emb.kv, out, meta={"name": "tiny", "n_docs": 2},
    ...                     doc_freq={"get": 1, "set": 1})
    >>> back = load_embeddings(out)
    >>> back.name, back.dim, back.idf(["get"]).round(4).tolist()
    ('tiny', 2, [1.4055])
    """
    # Vectors no metric can use (non-finite, all zero) are refused before anything is
    # written: a MODEL_DIR that loading would refuse is no output, and a caller that
    # fails later (training's baselines) must not leave one behind.
    check_arrays(list(kv.index_to_key), kv.vectors, _subword_parts(kv)[0], str(output))
    if pieces is not None:
        # What checked_sha256 vouches for includes the pieces: check them too.
        _check_pieces(pieces, int(kv.vector_size), str(output))
    meta = {"format": MODEL_FORMAT, **meta, "dim": int(kv.vector_size)}
    # gensim pickles a log of timestamps, platform and temporary paths with the vectors;
    # without it the same training gives byte-identical files (reproducible builds).
    kv.lifecycle_events = None
    with atomic_dir(output, force=force) as tmp:
        kv.save(str(tmp / VECTORS_FILE))
        (tmp / FAST_DIR).mkdir()
        write_fast_arrays(kv, tmp / FAST_DIR, pieces, fallback)
        (tmp / MODEL_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        (tmp / DOC_FREQ_FILE).write_text(
            json.dumps(doc_freq, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
        )
        for name, text in (files or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")
        if pieces is not None:
            (tmp / PIECES_DIR).mkdir()
            save_pieces(pieces, tmp / PIECES_DIR)
        if fallback is not None:
            (tmp / FALLBACK_DIR).mkdir()
            write_fallback(fallback, tmp / FALLBACK_DIR)
    return Path(output)


def _read_pieces(folder: Path) -> WordPieces | None:
    """A MODEL_DIR's word-piece vectors (``pieces/``), None where it has none."""
    where = folder / PIECES_DIR
    if not where.is_dir():
        return None
    try:
        return load_pieces(where)
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise WrdscoreError(f"{where}: corrupt word pieces ({exc})") from None


def write_fast_arrays(
    kv: KeyedVectors,
    folder: Path,
    pieces: WordPieces | None = None,
    fallback: FusedFallback | None = None,
    dtype: np.dtype | None = None,
) -> None:
    """Write the fast-loading copy of ``kv`` (a MODEL_DIR's ``fast/``) into the folder ``folder``.

    The arrays hold exactly gensim's float32 values, so scores and the model's
    ``sha`` are the same whichever copy is loaded. ``kv`` has passed the vector checks
    (:func:`save_embeddings` checks them; :func:`upgrade_model_dir` loads them), which
    ``checked_sha256`` records: the model's full hash, with the word pieces or fused
    fallback that sit beside ``fast/``.
    """
    ngrams, min_n, max_n = _subword_parts(kv)
    counts = kv.expandos.get("count")
    # float16 vectors (``distill --float16``) stay float16: halving the size is their point.
    # ``dtype``: the stored arrays' (a model without vectors.kv, whose gensim object was
    # rebuilt in float32).
    if dtype is None:
        dtype = np.dtype(np.float16 if kv.vectors.dtype == np.float16 else np.float32)
    blocks = write_blocks(np.ascontiguousarray(kv.vectors, dtype=dtype), folder, "vectors")
    if ngrams is not None:
        np.save(folder / "ngrams.npy", np.ascontiguousarray(ngrams, dtype=np.float32))
    tokens: list[str] = list(kv.index_to_key)
    vocab: dict[str, Any] = {
        "format": FAST_FORMAT,
        "tokens": tokens,
        "counts": None if counts is None else [int(c) for c in counts],
        "min_n": min_n,
        "max_n": max_n,
    }
    if len(blocks) > 1:
        vocab["blocks"] = blocks
    if ngrams is not None:
        # Loading hashes unseen tokens' n-grams without gensim only where that copy of
        # the hash agrees with the gensim that made the rows (see _subword).
        agree = agrees_with_gensim(tokens[:2000], min_n, max_n, len(ngrams))
        vocab["ngram_hash"] = FNV1A if agree else GENSIM
    # The bundled default's loader skips the checks for arrays with this hash.
    vocab["checked_sha256"] = full_sha(tokens, kv.vectors, ngrams, pieces, fallback)
    (folder / "vocab.json").write_text(
        json.dumps(vocab, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )


def upgrade_model_dir(folder: str | Path) -> Path:
    """Add the ``fast/`` arrays to a MODEL_DIR written before they existed.

    The arrays come from the folder's gensim vectors through the code
    :func:`save_embeddings` runs (:func:`write_fast_arrays`), and appear atomically;
    nothing else in the folder changes (an earlier bundled default was converted so).

    Examples
    --------
    >>> import shutil, tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "m"
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0]})
    >>> _ = save_embeddings(emb.kv, out, meta={"name": "tiny", "n_docs": 1}, doc_freq={"get": 1})
    >>> shutil.rmtree(out / "fast")
    >>> (upgrade_model_dir(out) / "fast" / "vocab.json").is_file()
    True
    """
    folder = Path(folder)
    # Without vectors.kv (drop_gensim_copy), gensim's object is rebuilt from fast/ itself.
    emb = _load_model_dir(folder, fast=not (folder / VECTORS_FILE).is_file())
    with atomic_dir(folder / FAST_DIR, force=True) as tmp:
        write_fast_arrays(emb.kv, tmp, emb.pieces, emb.fallback, dtype=emb.vectors.dtype)
    return folder


def load_embeddings(path: str | Path | None = None) -> TokenEmbeddings:
    """Load token embeddings for scoring.

    Parameters
    ----------
    path : path, optional
        A MODEL_DIR written by ``wrdscore train``; a file saved with
        ``KeyedVectors.save``; or a word2vec text or binary file. ``None`` (or the
        string ``"default"``) loads the model bundled with the package. Plain
        vector files carry no document frequencies, so IDF weighting is refused
        for them with a message saying so.

    Raises
    ------
    WrdscoreError
        If the path is missing, is not a model, is corrupt, or its parts disagree
        on the vector dimension.

    Notes
    -----
    KeyedVectors files are Python pickles: load only models you trust.

    Examples
    --------
    >>> emb = load_embeddings()  # the bundled default
    >>> emb.dim > 0 and emb.has_df
    True
    """
    if path is None or str(path) == "default":
        folder = default_model_path()
        if not (folder / MODEL_FILE).is_file():
            # An installed package has no scripts/: point to what a user can run.
            raise WrdscoreError(
                f"the bundled default model is missing from {folder}; reinstall wrdscore "
                "(the model ships inside the package) or give another model (-e MODEL_DIR)"
            )
        return _load_model_dir(folder, trusted=True)
    p = Path(path)
    if p.is_dir():
        return _load_model_dir(p)
    if not p.is_file():
        raise WrdscoreError(f"embeddings {p} do not exist")
    return _load_vectors_file(p)


def _load_model_dir(folder: Path, fast: bool = True, trusted: bool = False) -> TokenEmbeddings:
    """Load a MODEL_DIR (its ``fast/`` arrays if ``fast`` and present).

    ``trusted`` (the bundled default only): the package's own data, trusted as its code
    is. Its fast arrays skip :func:`check_vectors` and take their hash from the record
    written when they were checked (``checked_sha256`` in ``vocab.json``), and a fused
    fallback is read on the first unseen token: hashing and checking the arrays was
    most of the default's start-up. The tests recompute the record from the arrays,
    so the repository cannot ship a record that does not match. A user's MODEL_DIR is
    always checked and hashed: anyone can write a record beside vectors that would
    not pass.
    """
    meta_path = folder / MODEL_FILE
    if not meta_path.is_file():
        raise WrdscoreError(
            f"{folder} is not a model folder: no {MODEL_FILE} (create one with `wrdscore train`)"
        )
    meta = _read_json(meta_path)
    if not isinstance(meta, dict) or "n_docs" not in meta:
        raise WrdscoreError(f"{folder}: {MODEL_FILE} is not a model's")
    if not (folder / DOC_FREQ_FILE).is_file():
        raise WrdscoreError(f"model file {folder / DOC_FREQ_FILE} is missing")
    vectors_path = folder / VECTORS_FILE
    has_fast = (folder / FAST_DIR / "vocab.json").is_file()
    if not vectors_path.is_file() and not (has_fast and fast):
        raise WrdscoreError(f"model file {vectors_path} is missing")
    if fast and has_fast:
        # Read on first use (IDF weighting), not at every load.
        return _load_fast(folder, meta, functools.partial(_read_doc_freq, folder), trusted)
    n_docs = _n_docs(meta)
    doc_freq = _read_doc_freq(folder) if n_docs else None
    kv = _load_keyed_vectors(vectors_path)
    _check_dim(folder, meta, kv.vector_size)
    return TokenEmbeddings(
        kv,
        name=str(meta.get("name", folder.name)),
        doc_freq=doc_freq,
        n_docs=n_docs,
        meta=meta,
        source=str(vectors_path),
        pieces=_read_pieces(folder),
        fallback=read_fallback(folder),
    )


def _n_docs(meta: dict[str, Any]) -> int | None:
    """Training documents of a model, None for one without document frequencies."""
    return None if meta["n_docs"] is None else int(meta["n_docs"])


def _read_doc_freq(folder: Path) -> dict[str, int]:
    doc_freq = _read_json(folder / DOC_FREQ_FILE)
    if not isinstance(doc_freq, dict):
        raise WrdscoreError(f"{folder}: {DOC_FREQ_FILE} is not a model's")
    return doc_freq


def _check_dim(folder: Path, meta: dict[str, Any], dim: int) -> None:
    if meta.get("dim") is not None and meta["dim"] != dim:
        raise WrdscoreError(
            f"{folder}: dimension mismatch: {MODEL_FILE} says {meta['dim']}, the vectors have {dim}"
        )


def _load_fast(
    folder: Path,
    meta: dict[str, Any],
    doc_freq: Callable[[], dict[str, int]],
    trusted: bool = False,
) -> TokenEmbeddings:
    """A MODEL_DIR's ``fast/`` arrays, memory-mapped; gensim is loaded only if asked for."""
    fast = folder / FAST_DIR
    vocab = _read_json(fast / "vocab.json")
    try:
        if not isinstance(vocab, dict) or vocab.get("format") != FAST_FORMAT:
            raise ValueError(f"not a {FAST_FORMAT} vocabulary")
        tokens = vocab["tokens"]
        vectors = read_blocks(fast, "vectors", vocab.get("blocks"))
        ngrams_path = fast / "ngrams.npy"
        ngrams = np.load(ngrams_path, mmap_mode="r") if ngrams_path.is_file() else None
        counts = vocab["counts"]
        min_n, max_n = int(vocab["min_n"]), int(vocab["max_n"])
        # Arrays written before the key (the bundled default): gensim 4's hashing, which
        # the copy follows (tests check the bundled default's vectors against gensim).
        ngram_hash = vocab.get("ngram_hash", FNV1A)
        if ngram_hash not in NGRAM_HASHES:
            raise ValueError(f"unknown ngram_hash {ngram_hash!r}")
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise WrdscoreError(f"{fast}: corrupt fast arrays ({exc})") from None
    if (
        vectors.dtype not in _FLOAT_DTYPES
        or vectors.ndim != 2
        or len(vectors) != len(tokens)
        or (counts is not None and len(counts) != len(tokens))
        or (ngrams is not None and (ngrams.ndim != 2 or ngrams.shape[1] != vectors.shape[1]))
    ):
        raise WrdscoreError(f"{fast}: corrupt fast arrays (shapes disagree with vocab.json)")
    if len(tokens) == 0:
        raise WrdscoreError(f"{fast}: the model has no vectors")
    if ngrams is not None and not (folder / VECTORS_FILE).is_file():
        # gensim's FastText object cannot be rebuilt from the arrays alone.
        raise WrdscoreError(f"model file {folder / VECTORS_FILE} is missing")
    _check_dim(folder, meta, vectors.shape[1])
    checked = None
    fallback: Any = None
    pieces: Any = None
    if trusted and isinstance(vocab.get("checked_sha256"), str):
        checked = vocab["checked_sha256"]
        # Read on the first unseen token: 15-20 ms of every start-up otherwise.
        if (folder / FALLBACK_DIR).is_dir():
            fallback = functools.partial(read_fallback, folder)
        if (folder / PIECES_DIR).is_dir():
            pieces = functools.partial(_read_pieces, folder)
    else:
        fallback = read_fallback(folder)
        pieces = _read_pieces(folder)
    n_docs = _n_docs(meta)
    return TokenEmbeddings._from_arrays(
        tokens,
        vectors,
        counts=counts,
        ngrams=ngrams,
        min_n=min_n,
        max_n=max_n,
        name=str(meta.get("name", folder.name)),
        doc_freq_loader=doc_freq if n_docs else None,
        n_docs=n_docs,
        meta=meta,
        # Without vectors.kv (drop_gensim_copy) gensim's object is built from the arrays.
        kv_loader=(lambda: _load_matching_kv(folder, tokens, vectors, ngrams))
        if (folder / VECTORS_FILE).is_file()
        else None,
        ngram_hash=ngram_hash,
        source=str(fast / "vectors.npy"),
        checked_sha=checked,
        pieces=pieces,
        fallback=fallback,
    )


def drop_gensim_copy(folder: str | Path) -> Path:
    """Remove a MODEL_DIR's ``vectors.kv`` (gensim's copy of the ``fast/`` arrays).

    The folder then loads from ``fast/`` alone, and gensim's object, where a command
    needs it, is built from those arrays: the same tokens, vectors and counts. Only a
    model without FastText n-grams qualifies (gensim's FastText object is not rebuilt).

    Raises
    ------
    WrdscoreError
        A folder that is not a MODEL_DIR with ``fast/`` arrays, or a FastText model.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "set": [0.0, 1.0]})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "m"
    >>> _ = save_embeddings(emb.kv, out, meta={"name": "tiny", "n_docs": None}, doc_freq={})
    >>> small = drop_gensim_copy(out)
    >>> (small / "vectors.kv").exists(), load_embeddings(small).kv.most_similar("get")[0][0]
    (False, 'set')
    """
    folder = Path(folder)
    emb = load_embeddings(folder)
    if not (folder / FAST_DIR / "vocab.json").is_file():
        raise WrdscoreError(f"{folder}: no fast/ arrays to load from (upgrade_model_dir first)")
    if emb._ngrams is not None:
        raise WrdscoreError(f"{folder}: a FastText model needs its vectors.kv (n-grams)")
    for path in folder.glob(VECTORS_FILE + "*"):
        path.unlink()
    return folder


def _load_matching_kv(
    folder: Path, tokens: list[str], vectors: np.ndarray | RowBlocks, ngrams: np.ndarray | None
) -> KeyedVectors:
    """``vectors.kv``, refused unless it holds exactly the ``fast/`` arrays' vectors.

    Scoring reads ``fast/`` and ``neighbors`` or ``specialise`` read gensim's file: a
    model whose ``vectors.kv`` was edited afterwards would be used half and half.
    """
    path = folder / VECTORS_FILE
    kv = _load_keyed_vectors(path)
    kv_ngrams = _subword_parts(kv)[0]
    same = (
        list(kv.index_to_key) == list(tokens)
        and np.array_equal(kv.vectors, vectors)
        and (
            ngrams is None
            if kv_ngrams is None
            else ngrams is not None and np.array_equal(kv_ngrams, ngrams)
        )
    )
    if not same:
        raise WrdscoreError(
            f"{path} and {folder / FAST_DIR / 'vectors.npy'} hold different vectors (one was "
            f"edited); to use vectors.kv's, rewrite fast/ from Python with "
            f"`wrdscore.embeddings.upgrade_model_dir({str(folder)!r})`"
        )
    return kv


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise WrdscoreError(f"model file {path} is missing")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise WrdscoreError(f"{path}: corrupt model file (not valid JSON: {exc})") from None


def _load_vectors_file(path: Path) -> TokenEmbeddings:
    with path.open("rb") as fh:
        head = fh.read(1)
    meta = {"source": str(path)}
    if head == _PICKLE_MAGIC:
        kv = _load_keyed_vectors(path)
        return TokenEmbeddings(kv, name=path.stem, meta=meta, source=str(path))
    # word2vec text or binary: wrdscore's strict reader (see _word2vec.py for what
    # gensim's lets through), no gensim needed. No counts are set: a plain vectors
    # file has none, so corpus centering uses the unweighted vocabulary mean.
    words, matrix = read_word2vec(path)
    return TokenEmbeddings._from_arrays(words, matrix, name=path.stem, meta=meta, source=str(path))


def _load_keyed_vectors(path: Path) -> KeyedVectors:
    if not path.is_file():
        raise WrdscoreError(f"model file {path} is missing")
    from gensim.models import KeyedVectors

    try:
        kv = KeyedVectors.load(str(path))
    except (*_LOAD_ERRORS, OSError) as exc:
        raise WrdscoreError(f"{path}: corrupt or unreadable KeyedVectors file ({exc})") from None
    if not isinstance(kv, KeyedVectors):
        raise WrdscoreError(f"{path}: holds a {type(kv).__name__}, not KeyedVectors")
    return _checked(kv, path)


def _checked(kv: KeyedVectors, path: Path) -> KeyedVectors:
    """Refuse vectors whose stored shape disagrees with the declared dimension or vocabulary."""
    shape = getattr(kv.vectors, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] != kv.vector_size:
        raise WrdscoreError(
            f"{path}: dimension mismatch: declared {kv.vector_size}, vectors have shape {shape}"
        )
    if shape[0] != len(kv.index_to_key):
        raise WrdscoreError(
            f"{path}: {len(kv.index_to_key)} tokens but {shape[0]} vectors (corrupt file)"
        )
    if shape[0] == 0:
        raise WrdscoreError(f"{path}: the model has no vectors")
    return kv
