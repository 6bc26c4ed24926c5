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
    token outside the vocabulary gets its FastText subword vector when the model
    has one and is left out otherwise.

    Raises
    ------
    WrdscoreError
        If the identifier has no tokens, or none of them has a vector.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "count": [0.0, 1.0]})
    >>> identifier_vector(emb, "getCount").vector.tolist()
    [0.5, 0.5]
    >>> identifier_vector(emb, "getSize").unseen
    ['size']
    """
    tokens = split_identifier(identifier)
    if not tokens:
        raise WrdscoreError(f"{identifier!r} has no sub-tokens (letters or digits)")
    policy = "subword" if emb.has_subword else "drop"
    vectors, unseen = emb.lookup(tokens, oov=policy)
    if len(vectors) == 0:
        raise WrdscoreError(
            f"none of the tokens of {identifier!r} ({' '.join(tokens)}) is in model "
            f"{emb.name!r}, which has no subword vectors"
        )
    missing = [t for t, m in zip(tokens, unseen, strict=True) if m]
    return IdentifierVector(tokens, missing, vectors.mean(axis=0))


def _cosine(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def similarity(emb: TokenEmbeddings, a: str, b: str) -> float:
    """Cosine similarity of two identifiers' mean token vectors.

    ``cos(u, v) = u . v / (|u| |v|)``. A zero vector (a token that co-occurred with
    nothing) has no direction, so it is refused, as :func:`neighbors` refuses it, rather
    than given a cosine of 0 that reads like "unrelated".

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "fetch": [1.0, 1.0]})
    >>> round(similarity(emb, "get", "fetch"), 4)
    0.7071
    """
    u, v = identifier_vector(emb, a).vector, identifier_vector(emb, b).vector
    _check_direction(a, u)
    _check_direction(b, v)
    return _cosine(u, v)


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
