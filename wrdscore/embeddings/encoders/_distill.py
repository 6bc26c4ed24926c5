"""Static vectors distilled from an encoder: a MODEL_DIR that scores without torch.

Each token of a vocabulary is encoded alone and gets its word pieces' mean state at
one layer (:meth:`Encoder.word_states` of the one-token name), unnormalised, so its
norm stays a meaningful WRDScore mass. The vocabulary is a corpus's sub-tokens (or a
token list, or the bundled default's), plus every whole word of the encoder's
tokenizer. Every word piece is also encoded alone and stored (``pieces/``), so an
unseen token gets its pieces' mean vector at scoring time, split by a pure-Python
copy of the tokenizer (:mod:`wrdscore.embeddings.store._wordpiece`).

Why not model2vec, which does this distillation: its defaults (PCA to 256 dims and
Zipf/SIF re-weighting of each token's vector) rescale the norms WRDScore uses as
mass. Measured once each, no tuning, on the paper's 150 pairs (Spearman of ``wrd``'s
F1 with the mean rating): see the commit that added this module.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore import __version__
from wrdscore.atomic import check_output_dir
from wrdscore.embeddings.encoders._encoder import (
    Encoder,
    check_encoder_options,
    config_size,
    encoder_label,
)
from wrdscore.embeddings.encoders._runtime import stack_versions, torch_stack
from wrdscore.embeddings.store._store import load_embeddings, save_embeddings
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.embeddings.store._wordpiece import WordPieceRules, WordPieces
from wrdscore.errors import WrdscoreError

#: One-token names per call of :meth:`Encoder.word_states` (bounds the memory it holds).
_CHUNK = 4096


@dataclass(frozen=True)
class Vocabulary:
    """The tokens to distil, with what IDF and centering need where known.

    Attributes
    ----------
    tokens : list of str
        Most frequent first where counts are known.
    counts : list of int, optional
        Occurrences of each token in the corpus.
    doc_freq : dict of str to int, optional
        Documents containing each token; with ``n_docs``.
    n_docs : int, optional
    source : dict
        Where the vocabulary came from (``model.json``'s ``vocabulary``).
    """

    tokens: list[str]
    counts: list[int] | None
    doc_freq: dict[str, int] | None
    n_docs: int | None
    source: dict[str, Any]


def read_vocabulary(vocab: str | os.PathLike[str] | None) -> Vocabulary:
    """The vocabulary of ``--vocab``: a corpus, a MODEL_DIR, a token file, or the default's.

    A corpus folder (``wrdscore ingest``) gives its name sub-tokens with their counts
    and document frequencies, as ``wrdscore train --text names`` counts them; a
    MODEL_DIR (a folder with ``model.json``) and ``None`` (the bundled default model)
    give that model's tokens, counts and document frequencies; a file gives one token
    per line (blank lines skipped, repeats kept once) and no frequencies.

    Raises
    ------
    WrdscoreError
        A path that does not exist, a folder that is not a corpus, no tokens.
    """
    path = None if vocab is None else Path(vocab)
    if path is None or (path / "model.json").is_file():
        emb = load_embeddings(path)
        counts = emb.counts
        return Vocabulary(
            list(emb.tokens),
            None if counts is None else [int(c) for c in counts],
            emb.doc_freq,
            emb.n_docs,
            {"kind": "default" if path is None else "model", "model": emb.name, "sha": emb.sha},
        )
    if path.is_dir():
        from wrdscore.corpora import open_corpus
        from wrdscore.embeddings.training._stream import document_stats
        from wrdscore.embeddings.training._train import corpus_documents

        corpus = open_corpus(path)
        stats = document_stats(corpus_documents(path, "names"))
        if not stats.vocab:
            raise WrdscoreError(f"corpus {path} has no name tokens to distil")
        return Vocabulary(
            stats.vocab,
            [int(c) for c in stats.counts],
            stats.doc_freq,
            stats.n_docs,
            {"kind": "corpus", "path": str(path), "manifest_sha256": corpus.manifest_sha256},
        )
    if not path.is_file():
        raise WrdscoreError(f"--vocab {path}: no such corpus folder or token file")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise WrdscoreError(f"--vocab {path}: not UTF-8 text ({exc.reason})") from None
    tokens = list(dict.fromkeys(t for t in (line.strip() for line in lines) if t))
    if not tokens:
        raise WrdscoreError(f"--vocab {path}: no tokens (expected one token per line)")
    return Vocabulary(tokens, None, None, None, {"kind": "file", "path": str(path)})


def whole_words(encoder: Encoder) -> list[str]:
    """The tokenizer's vocabulary entries that are whole words, in id order.

    Alphanumeric entries only: no ``##`` continuations, no special or ``[unused]``
    tokens, no punctuation.
    """
    special = set(encoder.tokenizer.all_special_tokens)
    vocab = sorted(encoder.tokenizer.get_vocab().items(), key=lambda item: item[1])
    return [p for p, _ in vocab if p.isalnum() and p not in special]


def piece_rules(encoder: Encoder) -> WordPieceRules | None:
    """The splitting rules of the encoder's tokenizer; None if it is not BERT's WordPiece."""
    backend = getattr(encoder.tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    return WordPieceRules.from_tokenizer_json(json.loads(backend.to_str()))


def splittable_pieces(encoder: Encoder, rules: WordPieceRules) -> list[tuple[str, int]]:
    """``(piece, id)`` of every vocabulary entry the split can produce, in id order."""
    special = set(encoder.tokenizer.all_special_tokens)
    vocab = sorted(encoder.tokenizer.get_vocab().items(), key=lambda item: item[1])
    return [(p, i) for p, i in vocab if p not in special and rules.can_occur(p)]


def piece_states(
    encoder: Encoder,
    rules: WordPieceRules,
    pieces: Sequence[tuple[str, int]],
    progress: Callable[[int], None] | None = None,
) -> WordPieces:
    """The given ``(piece, id)`` pairs (:func:`splittable_pieces`), each encoded alone.

    A piece is fed to the model by its id (``[CLS] piece [SEP]``), not as text: a
    continuation such as ``##ing`` has no spelling the tokenizer would turn back into
    it. For a whole-word piece this is exactly what :meth:`Encoder.word_states` of
    the one-word name computes.
    """
    torch, _ = torch_stack()
    # The special tokens around a one-piece word, from the tokenizer itself: the
    # piece's id goes where that word's piece is.
    word = next((p for p, _ in pieces if not p.startswith(rules.prefix)), "a")
    probe = encoder.tokenizer([[word]], is_split_into_words=True)
    template = list(probe["input_ids"][0])
    slots = [k for k, w in enumerate(probe.word_ids(0)) if w == 0]
    if len(slots) != 1:
        raise WrdscoreError(f"encoder {encoder.name!r}: a word piece does not encode as one piece")
    at = slots[0]
    model = encoder.model[0].auto_model
    out = np.zeros((len(pieces), encoder.dim), dtype=np.float32)
    size = encoder.batch_size
    for start in range(0, len(pieces), size):
        batch = pieces[start : start + size]
        ids = torch.tensor([template] * len(batch), device=encoder.device)
        ids[:, at] = torch.tensor([i for _, i in batch], device=encoder.device)
        with torch.inference_mode():
            states = model(
                input_ids=ids, attention_mask=torch.ones_like(ids), output_hidden_states=True
            ).hidden_states[encoder.layer]
        out[start : start + len(batch)] = states[:, at, :].float().cpu().numpy()
        if progress is not None:
            progress(len(batch))
    return WordPieces([p for p, _ in pieces], out, rules)


def token_states(
    encoder: Encoder, tokens: Sequence[str], progress: Callable[[int], None] | None = None
) -> NDArray[np.float32]:
    """``(len(tokens), dim)``: each token encoded alone, its pieces' mean state."""
    rows: list[NDArray[np.float32]] = []
    for start in range(0, len(tokens), _CHUNK):
        names = [[t] for t in tokens[start : start + _CHUNK]]
        rows.extend(encoder.word_states(names, progress))
    return np.vstack(rows).astype(np.float32)


def reduce_dim(
    vectors: NDArray[np.float32], dim: int, seed: int = 0
) -> tuple[NDArray[np.float64], float]:
    """A ``(d, dim)`` orthonormal projection fitted on ``vectors``, and the energy it keeps.

    PCA without centering and without whitening (scikit-learn's ``TruncatedSVD``):
    the top ``dim`` right singular vectors of the raw vectors. Centering (``PCA``)
    would make every norm a distance from the vocabulary's mean, and whitening would
    equalise the axes' scales; either would throw away the norm WRDScore uses as a
    token's mass. Projected onto this subspace a norm can only shrink, by the part
    of the vector outside it; across the vocabulary the kept share of the squared
    norms is the most any ``dim``-dimensional projection keeps (returned, and stored
    in ``model.json``).
    """
    from sklearn.decomposition import TruncatedSVD

    x = np.asarray(vectors, dtype=np.float64)
    svd = TruncatedSVD(n_components=dim, algorithm="arpack", random_state=seed).fit(x)
    basis = np.asarray(svd.components_, dtype=np.float64)
    kept = float(np.square(x @ basis.T).sum() / np.square(x).sum())
    return basis.T, kept


def distill(
    encoder: str | os.PathLike[str] | Encoder,
    output: str | Path,
    *,
    vocab: str | os.PathLike[str] | None = None,
    dim: int | None = None,
    float16: bool = False,
    encoder_words: bool = True,
    pieces: bool = True,
    layer: int | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    name: str | None = None,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> TokenEmbeddings:
    """Distil an encoder into a MODEL_DIR of static token vectors.

    Parameters
    ----------
    encoder : str, path or Encoder
        A local model folder or a hub name (see :class:`Encoder`), or an encoder
        already loaded (then ``layer``, ``device`` and ``batch_size`` are its own and
        must not be given).
    output : path
        The MODEL_DIR to write (atomically).
    vocab : path, optional
        A corpus folder or a token file; default the bundled model's tokens (see
        :func:`read_vocabulary`). The encoder's whole words are added either way.
    dim : int, optional
        Reduce to this many dimensions (:func:`reduce_dim`); default the encoder's.
    float16 : bool
        Store the vectors as float16 (half the size; lookups widen them to float64).
    encoder_words : bool
        Add the encoder's whole words (:func:`whole_words`) to the vocabulary.
    pieces : bool
        Store every word piece's vector, so unseen tokens get their pieces' mean
        (``oov="subword"``); without them an unseen token is zero. Only for a BERT
        WordPiece tokenizer (:func:`piece_rules`); other tokenizers get none.
    layer, device, batch_size
        As for :class:`Encoder` (``batch_size`` default
        :data:`~wrdscore.embeddings.encoders.DEFAULT_BATCH_SIZE`).
    name : str, optional
        Label in score signatures; default ``ENCODER-static-DIM``.
    force : bool
        Replace an existing ``output``.
    progress : callable, optional
        ``progress(done, total)`` after each batch of encoded tokens and pieces.

    Returns
    -------
    TokenEmbeddings
        The written model, loaded back.

    Raises
    ------
    WrdscoreError
        An existing ``output`` without ``force``, ``dim`` below 1 or above the
        encoder's, anything :class:`Encoder` or :func:`read_vocabulary` refuses.
    """
    check_output_dir(output, force)
    if dim is not None and dim < 1:
        raise WrdscoreError(f"--dim must be at least 1, not {dim}")
    words = read_vocabulary(vocab)
    if isinstance(encoder, Encoder):
        if layer is not None or device is not None or batch_size is not None:
            raise WrdscoreError("layer, device and batch_size are a loaded encoder's own")
        enc = encoder
    else:
        # What can be checked without the weights is, before they load (seconds).
        folder = check_encoder_options(encoder, layer=layer, device=device, batch_size=batch_size)
        width = config_size(folder, "hidden_size")
        if dim is not None and width is not None and dim > width:
            name = encoder_label(encoder, folder)
            raise WrdscoreError(f"--dim {dim} is larger than encoder {name!r}'s {width}")
        enc = Encoder(
            encoder,
            layer=layer,
            device=device,
            batch_size=batch_size,
        )
    if dim is not None and dim > enc.dim:
        raise WrdscoreError(f"--dim {dim} is larger than encoder {enc.name!r}'s {enc.dim}")
    started = time.perf_counter()
    known = set(words.tokens)
    extra = [w for w in whole_words(enc) if w not in known] if encoder_words else []
    tokens = words.tokens + extra
    if dim is not None and len(tokens) <= dim < enc.dim:
        raise WrdscoreError(
            f"--dim {dim} needs more than {dim} tokens to fit; the vocabulary has {len(tokens)}"
        )
    rules = piece_rules(enc) if pieces else None
    chosen = [] if rules is None else splittable_pieces(enc, rules)
    total, done = len(tokens) + len(chosen), 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    vectors = token_states(enc, tokens, step)
    stored = piece_states(enc, rules, chosen, step) if rules is not None and chosen else None
    reduction: dict[str, Any] | None = None
    if dim is not None and dim < enc.dim:
        basis, kept = reduce_dim(vectors, dim)
        vectors = (vectors @ basis).astype(np.float32)
        if stored is not None:
            stored = WordPieces(
                stored.pieces, (stored.vectors @ basis).astype(np.float32), stored.rules
            )
        reduction = {"method": "uncentered PCA (TruncatedSVD), no whitening", "kept_energy": kept}
    dtype = np.float16 if float16 else np.float32
    if stored is not None:
        stored = WordPieces(stored.pieces, stored.vectors.astype(dtype), stored.rules)
    final_dim = int(vectors.shape[1])
    meta: dict[str, Any] = {
        # A hub name's last part: "all-MiniLM-L6-v2-static-384".
        "name": name or f"{enc.name.rsplit('/', 1)[-1]}-static-{final_dim}",
        "method": "distill",
        "encoder": {
            "name": enc.name,
            "sha": enc.sha,
            "layer": enc.layer,
            "signature": enc.signature,
        },
        "params": {"dim": final_dim, "float16": float16, "reduction": reduction},
        "vocabulary": {
            **words.source,
            "tokens": len(words.tokens),
            "encoder_words_added": len(extra),
        },
        "vocab_size": len(tokens),
        "n_docs": words.n_docs,
        "pieces": 0 if stored is None else len(stored.pieces),
        "train_seconds": round(time.perf_counter() - started, 3),
        "versions": {"wrdscore": __version__, "numpy": np.__version__, "stack": stack_versions()},
    }
    return _write(
        tokens, vectors.astype(dtype), words.counts, output, meta, words.doc_freq, stored, force
    )


def _write(
    tokens: list[str],
    vectors: NDArray,
    counts: list[int] | None,
    output: str | Path,
    meta: dict[str, Any],
    doc_freq: dict[str, int] | None,
    pieces: WordPieces | None,
    force: bool,
) -> TokenEmbeddings:
    """Save a distilled (or reduced) MODEL_DIR and load it back, as both writers return it."""
    save_embeddings(
        _keyed_vectors(tokens, vectors, counts),
        output,
        meta=meta,
        doc_freq=doc_freq or {},
        pieces=pieces,
        force=force,
    )
    return load_embeddings(output)


def _keyed_vectors(tokens: list[str], vectors: NDArray, counts: list[int] | None) -> Any:
    """gensim KeyedVectors of the tokens (vectors' own dtype); counts, 0 for added words."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=vectors.dtype)
    kv.add_vectors(tokens, vectors)
    if counts is not None:
        full = np.zeros(len(tokens), dtype=np.int64)
        full[: len(counts)] = counts
        kv.allocate_vecattrs(["count"], [np.int64])
        kv.expandos["count"][:] = full
    return kv


def reduce_distilled(
    model: str | os.PathLike[str],
    output: str | Path,
    dim: int,
    *,
    float16: bool = False,
    name: str | None = None,
    force: bool = False,
) -> TokenEmbeddings:
    """A distilled MODEL_DIR reduced to ``dim`` dimensions, without encoding anything again.

    The same projection :func:`distill` applies with ``dim`` (:func:`reduce_dim`, fitted
    on the model's token vectors, applied to its word pieces too), so distilling once at
    full width and reducing gives the vectors ``distill(dim=...)`` would: several widths
    cost one encoding. Needs no torch.

    Raises
    ------
    WrdscoreError
        A model that is not distilled, ``dim`` not below its width, an existing output.
    """
    check_output_dir(output, force)
    source = load_embeddings(str(model))
    meta = dict(source.meta)
    if meta.get("method") != "distill":
        raise WrdscoreError(f"{model}: not a distilled model (its method is {meta.get('method')})")
    if not 1 <= dim < source.dim:
        raise WrdscoreError(f"--dim must be from 1 to {source.dim - 1}, not {dim}")
    if len(source) <= dim:
        raise WrdscoreError(
            f"--dim {dim} needs more than {dim} tokens to fit; the model has {len(source)}"
        )
    basis, kept = reduce_dim(np.asarray(source.vectors, dtype=np.float32), dim)
    dtype = np.float16 if float16 else np.float32
    vectors = (np.asarray(source.vectors, dtype=np.float64) @ basis).astype(dtype)
    pieces = source.pieces
    if pieces is not None:
        projected = np.asarray(pieces.vectors, dtype=np.float64) @ basis
        pieces = WordPieces(pieces.pieces, projected.astype(dtype), pieces.rules)
    reduction = {"method": "uncentered PCA (TruncatedSVD), no whitening", "kept_energy": kept}
    meta["params"] = {**meta.get("params", {}), "dim": dim, "float16": float16}
    meta["params"]["reduction"] = {**reduction, "from": f"{source.name}@sha:{source.sha}"}
    meta["name"] = name or f"{str(meta.get('name', 'distilled')).rsplit('-', 1)[0]}-{dim}"
    counts = None if source._counts is None else [int(c) for c in source._counts]
    return _write(
        list(source.tokens), vectors, counts, output, meta, source.doc_freq, pieces, force
    )
