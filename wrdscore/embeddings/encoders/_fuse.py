"""Fusion: one model whose vectors concatenate two models' scaled vectors of each token.

A project's own code-trained vectors know which sub-tokens go together in code; a
model distilled from an encoder knows what English words mean. Fused, each token's
vector is

.. math:: v(t) = \\Big[\\, a \\frac{x(t)}{\\bar n_x} \\,;\\; b \\frac{y(t)}{\\bar n_y} \\Big]

with ``x`` and ``y`` the two models' vectors and ``\\bar n`` each model's mean vector
norm over the tokens the two share (zero vectors left out). Dividing by the mean
norm gives both parts the same typical length, so neither dominates cosines by its
scale alone; the mean over the *shared* tokens measures both scales on the same
words, so a large vocabulary of rare tokens in one model does not skew its scale.
Each token's own norm is divided, not normalised away: within each part it stays a
relative WRDScore mass.

The vocabulary is the union of the two. A token one model lacks gets that model's
subword vector where it has them (FastText n-grams, a distilled model's word
pieces), otherwise zero in that part (and the counts in ``model.json`` say how many).
The fused model keeps each part's n-gram or word-piece table with its scale (its
``fallback/``, :mod:`~wrdscore.embeddings.store._fallback`), so a token outside the
union gets the same kind of vector; only where neither part has a table is it
unseen (zero).

It lives with the encoders (beside the same fusion at scoring time, whose weights
rule it shares) but imports no torch: fusing two stored models needs none.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore import __version__
from wrdscore.atomic import check_output_dir
from wrdscore.embeddings.encoders._contextual import check_fuse_weights
from wrdscore.embeddings.store._fallback import FusedFallback, fallback_sha
from wrdscore.embeddings.store._store import load_embeddings, save_embeddings
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.errors import WrdscoreError


def mean_norm(emb: TokenEmbeddings, tokens: list[str]) -> float:
    """Mean norm of ``emb``'s non-zero vectors of ``tokens`` (0 if every one is zero)."""
    vectors, _ = emb.lookup(tokens, oov="zero")
    norms = np.linalg.norm(vectors, axis=1)
    return float(norms[norms > 0].mean()) if (norms > 0).any() else 0.0


def _part(
    emb: TokenEmbeddings, tokens: list[str], scale: float
) -> tuple[NDArray[np.float64], dict[str, Any]]:
    """The scaled vectors of ``tokens`` in one model, and how many it had to make up."""
    oov = "subword" if emb.has_subword else "zero"
    vectors, missing = emb.lookup(tokens, oov=oov)
    made = vectors[missing]
    info = {
        "name": emb.name,
        "sha": emb.sha,
        "dim": emb.dim,
        "missing": int(missing.sum()),
        "missing_from_subword": int(np.any(made != 0.0, axis=1).sum()) if emb.has_subword else 0,
    }
    return vectors * scale, info


def fuse_models(
    first: str | Path | TokenEmbeddings,
    second: str | Path | TokenEmbeddings,
    output: str | Path,
    *,
    weights: tuple[float, float] = (1.0, 1.0),
    name: str | None = None,
    float16: bool = False,
    force: bool = False,
) -> TokenEmbeddings:
    """Write the fusion of two models (see the module's formula) as a new MODEL_DIR.

    Parameters
    ----------
    first, second : path, "default" or TokenEmbeddings
        The two models; ``first``'s part comes first in each vector.
    output : path
        The MODEL_DIR to write (atomically).
    weights : (float, float)
        ``(a, b)``: non-negative, not both zero.
    name : str, optional
        Label in score signatures; default ``FIRST+SECOND``.
    float16 : bool
        Store the vectors as float16 (half the size; lookups widen them to float64).
    force : bool
        Replace an existing ``output``.

    Returns
    -------
    TokenEmbeddings
        The written model, loaded back.

    Raises
    ------
    WrdscoreError
        Bad weights, an existing output without ``force``, models that share no
        token, or whose shared tokens are all zero in one of them.

    Notes
    -----
    Rows follow ``first``'s order (most frequent first), then ``second``'s other
    tokens. Token counts, document frequencies and the document count come from the
    first model that has document frequencies (``first`` unless it has none), so IDF
    and corpus centering read one corpus; tokens that model lacks count 0 and have
    no document frequency (IDF treats them as rare). Specialising the result
    (``wrdscore specialise``) works like on any trained model.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> x = TokenEmbeddings.from_vectors({"get": [2.0, 0.0], "set": [0.0, 2.0]})
    >>> y = TokenEmbeddings.from_vectors({"get": [1.0], "put": [3.0]})
    >>> out = fuse_models(x, y, pathlib.Path(tempfile.mkdtemp()) / "f")
    >>> out.tokens, out.lookup(["get", "put"])[0].tolist()
    (['get', 'set', 'put'], [[1.0, 0.0, 1.0], [0.0, 0.0, 3.0]])
    """
    a, b = check_fuse_weights(weights)
    check_output_dir(output, force)
    x = first if isinstance(first, TokenEmbeddings) else load_embeddings(first)
    y = second if isinstance(second, TokenEmbeddings) else load_embeddings(second)
    started = time.perf_counter()
    in_x = set(x.tokens)
    shared = [t for t in y.tokens if t in in_x]
    if not shared:
        raise WrdscoreError(
            f"models {x.name!r} and {y.name!r} share no token; fusion needs a common vocabulary"
        )
    n_x, n_y = mean_norm(x, shared), mean_norm(y, shared)
    for emb, n in ((x, n_x), (y, n_y)):
        if n == 0.0:
            raise WrdscoreError(
                f"model {emb.name!r}: every vector of the {len(shared)} shared tokens is zero"
            )
    tokens = list(x.tokens) + [t for t in y.tokens if t not in in_x]
    part_x, info_x = _part(x, tokens, a / n_x)
    part_y, info_y = _part(y, tokens, b / n_y)
    fallback = x.fallback_parts(a / n_x, float16) + y.fallback_parts(b / n_y, float16)
    fused_fallback = None if all(p.kind == "none" for p in fallback) else FusedFallback(fallback)
    primary = x if x.has_df or not y.has_df else y
    counts = _counts(primary, tokens)
    # All of its document frequencies, also of tokens outside its vocabulary: IDF reads them.
    doc_freq = primary.doc_freq or {}
    meta: dict[str, Any] = {
        "name": name or f"{x.name}+{y.name}",
        "method": "fuse",
        "fuse": {
            "weights": [a, b],
            "scale": "each part divided by its mean vector norm over the shared tokens",
            "shared_tokens": len(shared),
            "parts": [{**info_x, "mean_norm": n_x}, {**info_y, "mean_norm": n_y}],
            "frequencies_from": primary.name,
            "fallback": None
            if fused_fallback is None
            else {
                "parts": fused_fallback.describe(),
                "sha256": fallback_sha(fused_fallback),
            },
        },
        "vocab_size": len(tokens),
        "n_docs": primary.n_docs if primary.has_df else None,
        "train_seconds": round(time.perf_counter() - started, 3),
        "versions": {"wrdscore": __version__, "numpy": np.__version__},
    }
    from gensim.models import KeyedVectors

    dtype = np.float16 if float16 else np.float32
    kv = KeyedVectors(vector_size=part_x.shape[1] + part_y.shape[1], count=0, dtype=dtype)
    kv.add_vectors(tokens, np.hstack([part_x, part_y]).astype(dtype))
    if counts is not None:
        kv.allocate_vecattrs(["count"], [np.int64])
        kv.expandos["count"][:] = counts
    save_embeddings(
        kv,
        output,
        meta=meta,
        doc_freq=doc_freq,
        force=force,
        fallback=fused_fallback,
    )
    return load_embeddings(output)


def _counts(emb: TokenEmbeddings, tokens: list[str]) -> NDArray[np.int64] | None:
    """``emb``'s count of each token (0 where it lacks one); None if it has no counts."""
    counts = emb.counts
    if counts is None:
        return None
    index = {t: i for i, t in enumerate(emb.tokens)}
    return np.array([int(counts[index[t]]) if t in index else 0 for t in tokens], dtype=np.int64)
