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
"""

from __future__ import annotations

import json
import pickle
from importlib import resources
from pathlib import Path
from typing import Any

from gensim.models import KeyedVectors

from wrdscore.atomic import atomic_dir
from wrdscore.embeddings._vectors import TokenEmbeddings
from wrdscore.embeddings._word2vec import read_word2vec
from wrdscore.errors import WrdscoreError

VECTORS_FILE = "vectors.kv"
MODEL_FILE = "model.json"
DOC_FREQ_FILE = "doc_freq.json"
MODEL_FORMAT = "wrdscore-model/1"
_PICKLE_MAGIC = b"\x80"
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
    return Path(str(resources.files("wrdscore"))) / "data" / "default"


def save_embeddings(
    kv: KeyedVectors,
    output: str | Path,
    *,
    meta: dict[str, Any],
    doc_freq: dict[str, int],
    force: bool = False,
) -> Path:
    """Write a MODEL_DIR atomically (nothing appears unless everything was written).

    Parameters
    ----------
    kv : gensim KeyedVectors
        The vectors, with ``count`` attributes.
    output : path
        The MODEL_DIR to create.
    meta : dict
        The content of ``model.json``; must include ``name`` and ``n_docs``.
    doc_freq : dict of str to int
        Document frequency of every training token.
    force : bool
        Replace an existing ``output``.

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
    meta = {"format": MODEL_FORMAT, **meta, "dim": int(kv.vector_size)}
    # gensim pickles a log of timestamps, platform and temporary paths with the vectors;
    # without it the same training gives byte-identical files (reproducible builds).
    kv.lifecycle_events = None
    with atomic_dir(output, force=force) as tmp:
        kv.save(str(tmp / VECTORS_FILE))
        (tmp / MODEL_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        (tmp / DOC_FREQ_FILE).write_text(
            json.dumps(doc_freq, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
        )
    return Path(output)


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
            raise WrdscoreError(
                f"the bundled default model is missing from {folder}; reinstall wrdscore or "
                "rebuild it with scripts/build_default_model.sh"
            )
        return _load_model_dir(folder)
    p = Path(path)
    if p.is_dir():
        return _load_model_dir(p)
    if not p.is_file():
        raise WrdscoreError(f"embeddings {p} do not exist")
    kv = _load_vectors_file(p)
    return TokenEmbeddings(kv, name=p.stem, meta={"source": str(p)}, source=str(p))


def _load_model_dir(folder: Path) -> TokenEmbeddings:
    meta_path = folder / MODEL_FILE
    if not meta_path.is_file():
        raise WrdscoreError(
            f"{folder} is not a model folder: no {MODEL_FILE} (create one with `wrdscore train`)"
        )
    meta = _read_json(meta_path)
    doc_freq = _read_json(folder / DOC_FREQ_FILE)
    if not isinstance(meta, dict) or not isinstance(doc_freq, dict) or "n_docs" not in meta:
        raise WrdscoreError(f"{folder}: {MODEL_FILE} or {DOC_FREQ_FILE} is not a model's")
    kv = _load_keyed_vectors(folder / VECTORS_FILE)
    if meta.get("dim") is not None and meta["dim"] != kv.vector_size:
        raise WrdscoreError(
            f"{folder}: dimension mismatch: {MODEL_FILE} says {meta['dim']}, "
            f"the vectors have {kv.vector_size}"
        )
    return TokenEmbeddings(
        kv,
        name=str(meta.get("name", folder.name)),
        doc_freq=doc_freq,
        n_docs=int(meta["n_docs"]),
        meta=meta,
        source=str(folder / VECTORS_FILE),
    )


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise WrdscoreError(f"model file {path} is missing")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise WrdscoreError(f"{path}: corrupt model file (not valid JSON: {exc})") from None


def _load_vectors_file(path: Path) -> KeyedVectors:
    with path.open("rb") as fh:
        head = fh.read(1)
    if head == _PICKLE_MAGIC:
        return _load_keyed_vectors(path)
    words, matrix = read_word2vec(path)
    # No counts are set: a plain vectors file has none, so corpus centering uses the
    # unweighted vocabulary mean (gensim's reader would invent descending counts).
    kv = KeyedVectors(vector_size=matrix.shape[1])
    kv.add_vectors(words, matrix)
    return kv


def _load_keyed_vectors(path: Path) -> KeyedVectors:
    if not path.is_file():
        raise WrdscoreError(f"model file {path} is missing")
    try:
        kv = KeyedVectors.load(str(path))
    except (*_LOAD_ERRORS, OSError) as exc:
        raise WrdscoreError(f"{path}: corrupt or unreadable KeyedVectors file ({exc})") from None
    if not isinstance(kv, KeyedVectors):
        raise WrdscoreError(f"{path}: holds a {type(kv).__name__}, not KeyedVectors")
    shape = getattr(kv.vectors, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] != kv.vector_size:
        raise WrdscoreError(
            f"{path}: dimension mismatch: declared {kv.vector_size}, vectors have shape {shape}"
        )
    # The words and values are checked by TokenEmbeddings (check_vectors), the one
    # place every loader passes through.
    return kv
