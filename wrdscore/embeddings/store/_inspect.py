"""Look inside a model: nearest tokens and similarities of raw identifiers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import split_identifier
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.errors import WrdscoreError


@dataclass(frozen=True)
class IdentifierVector:
    """An identifier's vector and how it was made.

    Attributes
    ----------
    tokens : list of str
        The identifier's sub-tokens.
    unseen : list of str
        Those not in the model's vocabulary: given subword vectors by a FastText
        model, left out of the mean otherwise.
    vector : ndarray of float64
        The mean of the used tokens' vectors.
    """

    tokens: list[str]
    unseen: list[str]
    vector: NDArray[np.float64]


def identifier_vector(emb: TokenEmbeddings, identifier: str) -> IdentifierVector:
    """Vector of a raw identifier (``getCount``) or a single token: the mean of its tokens.

    The identifier is split with :func:`~wrdscore.corpora.split_identifier`; a
    token outside the vocabulary gets its subword vector (FastText n-grams or a distilled
    model's word pieces) when the model has them, as ``oov="auto"`` does when scoring,
    and is left out otherwise. An identifier none of whose tokens has a vector gets the
    zero vector (what it weighs when scored: nothing).

    Raises
    ------
    WrdscoreError
        If the identifier has no tokens.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "count": [0.0, 1.0]})
    >>> identifier_vector(emb, "getCount").vector.tolist()
    [0.5, 0.5]
    >>> identifier_vector(emb, "getSize").unseen
    ['size']
    >>> identifier_vector(emb, "size").vector.tolist()
    [0.0, 0.0]
    """
    tokens = split_identifier(identifier)
    if not tokens:
        raise WrdscoreError(f"{identifier!r} has no sub-tokens (letters or digits)")
    policy = "subword" if emb.has_subword else "drop"
    vectors, unseen = emb.lookup(tokens, oov=policy)
    missing = [t for t, m in zip(tokens, unseen, strict=True) if m]
    vector = vectors.mean(axis=0) if len(vectors) else np.zeros(emb.dim)
    return IdentifierVector(tokens, missing, vector)


def has_no_vector(emb: TokenEmbeddings, query: IdentifierVector) -> bool:
    """Whether no token of ``query`` has a vector in ``emb`` (all unseen, no subword
    vectors), so its vector is zero for want of any."""
    return not emb.has_subword and len(query.unseen) == len(query.tokens)


def _cosine(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def similarity(emb: TokenEmbeddings, a: str, b: str) -> float:
    """Cosine similarity of two identifiers' mean token vectors.

    ``cos(u, v) = u . v / (|u| |v|)``. An identifier none of whose tokens the model knows
    (and that has no subword vectors) has the zero vector, and a cosine of 0 with
    anything, as WRDScore gives it no weight. A zero vector of tokens the model does know
    (a token that co-occurred with nothing) is refused, as :func:`neighbors` refuses it,
    rather than given a cosine of 0 that reads like "unrelated".

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "fetch": [1.0, 1.0]})
    >>> round(similarity(emb, "get", "fetch"), 4)
    0.7071
    >>> similarity(emb, "get", "retrieve")
    0.0
    """
    u, v = identifier_vector(emb, a), identifier_vector(emb, b)
    for identifier, query in ((a, u), (b, v)):
        if has_no_vector(emb, query):
            return 0.0
        _check_direction(identifier, query.vector)
    return _cosine(u.vector, v.vector)


def _check_direction(identifier: str, vector: NDArray[np.float64]) -> None:
    if not np.any(vector):
        raise WrdscoreError(f"{identifier!r} has a zero vector, so it has no direction")


def neighbors(
    emb: TokenEmbeddings, identifier: str, k: int = 10, top: int | None = None
) -> list[tuple[str, float]]:
    """The ``k`` vocabulary tokens most cosine-similar to an identifier's vector.

    The identifier's own tokens are left out of the list (they are trivially close).
    ``top`` searches only the first ``top`` tokens of the vocabulary (gensim's
    ``restrict_vocab``), which for every model ``wrdscore train`` writes are the most
    frequent ones. FastText gives rare tokens vectors made largely of their character
    n-grams, so on the bundled model the nearest tokens to ``size`` are spellings that
    contain it (``sizet``, ``ksize``, ``vsize``); among the 5,000 commonest tokens they are
    ``capacity``, ``lengths``, ``sizes``, ``length``. Tokens with a zero vector have no
    direction and are never neighbours.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors(
    ...     {"get": [1.0, 0.0], "put": [0.0, 1.0], "fetch": [0.9, 0.1]})
    >>> [t for t, _ in neighbors(emb, "get", k=2)]
    ['fetch', 'put']
    >>> [t for t, _ in neighbors(emb, "get", k=2, top=2)]
    ['put']
    """
    if k < 1:
        raise WrdscoreError(f"-k must be at least 1, not {k}")
    if top is not None and top < 1:
        raise WrdscoreError(f"--top must be at least 1, not {top}")
    query = identifier_vector(emb, identifier)
    if has_no_vector(emb, query):
        raise WrdscoreError(
            f"none of the tokens of {identifier!r} ({' '.join(query.tokens)}) is in model "
            f"{emb.name!r}, which has no subword vectors"
        )
    _check_direction(identifier, query.vector)
    own = set(query.tokens)
    # Zero rows (svd tokens that co-occurred with nothing) have no direction: gensim's
    # normalising divides them by 0 (a RuntimeWarning) and ranks them with a NaN cosine.
    # They are left out, and asked for on top of k so the list stays k long.
    rows = emb.kv.vectors if top is None else emb.kv.vectors[:top]
    zero = {emb.kv.index_to_key[i] for i in np.flatnonzero(~rows.any(axis=1))}
    with np.errstate(invalid="ignore", divide="ignore"):
        found = emb.kv.most_similar(
            positive=[query.vector], topn=k + len(own | zero), restrict_vocab=top
        )
    return [(tok, float(sim)) for tok, sim in found if tok not in own | zero][:k]
