"""Whole-name similarities: cosine of mean vectors (SBERT-style), linear CKA, and an
encoder's own sentence cosine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics._centering import FloatArray, unit_rows
from wrdscore.metrics._pairs import SimilarityMetric, snap_one, snap_to_one
from wrdscore.metrics._result import Scored
from wrdscore.metrics.base import EmbeddingMetric, Tokens, register


def sbert(x: FloatArray, y: FloatArray) -> float:
    """Cosine of the two names' mean unit token vectors (a static-vector Sentence-BERT).

    .. math:: \\cos\\Big(\\frac{1}{L_1} \\sum_i \\hat x_i,\\; \\frac{1}{L_2} \\sum_j \\hat y_j\\Big)

    Sentence-BERT (Reimers and Gurevych 2019) mean-pools token vectors and compares
    the pooled vectors by cosine; here the token vectors are static sub-token
    embeddings. Lies in [-1, 1]; 0 for an empty name or a zero mean.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> round(sbert(x, x[::-1]), 12)
    1.0
    >>> round(sbert(x, np.array([[1.0, 0.0]])), 4)
    0.7071
    """
    if len(x) == 0 or len(y) == 0:
        return 0.0
    mx, my = unit_rows(x).mean(axis=0), unit_rows(y).mean(axis=0)
    denom = float(np.linalg.norm(mx) * np.linalg.norm(my))
    return snap_one(float(mx @ my) / denom) if denom > 0 else 0.0


def cka(x: FloatArray, y: FloatArray) -> float:
    """Linear centered kernel alignment (Kornblith et al. 2019) of two token sets.

    CKA compares two representations of the same examples. Two names have different
    numbers of tokens but share the embedding dimensions, so the ``dim`` coordinates
    are the examples and the unit token vectors are the features: with ``A``
    (``L1 x dim``) and ``B`` (``L2 x dim``) the unit token vectors, each row centered
    over its coordinates (the centering matrix ``H`` of CKA),

    .. math::

        \\mathrm{CKA}(X, Y) = \\frac{\\lVert B A^T \\rVert_F^2}
        {\\lVert A A^T \\rVert_F \\, \\lVert B B^T \\rVert_F}
        = \\frac{\\mathrm{tr}(K H L H)}{\\sqrt{\\mathrm{tr}(K H K H)\\, \\mathrm{tr}(L H L H)}}

    where ``K = A^T A`` and ``L = B^T B`` are the ``dim x dim`` linear kernels. So it
    is computed from the cross-similarities ``B A^T`` of the two names' tokens, lies
    in [0, 1], is 1 for identical token sets (in any order), ignores token order and
    sign (``x`` and ``-x`` align perfectly, as CKA is invariant to orthogonal maps),
    and is 0 for an empty name or one whose vectors are all zero.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> round(cka(x, x[::-1]), 12)
    1.0
    >>> round(cka(x, np.array([[0.0, 0.0, 1.0]])), 4)
    0.3162
    """
    if len(x) == 0 or len(y) == 0:
        return 0.0
    a, b = unit_rows(x), unit_rows(y)
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    denom = float(np.linalg.norm(a @ a.T) * np.linalg.norm(b @ b.T))
    if denom <= 0:
        return 0.0
    return snap_one(float(np.linalg.norm(b @ a.T) ** 2) / denom)


def _sbert_many(x: FloatArray, y: FloatArray) -> FloatArray:
    """:func:`sbert` of stacks of unit token vectors, (G, l, dim) and (G, m, dim)."""
    mx, my = x.mean(axis=1), y.mean(axis=1)
    denom = np.linalg.norm(mx, axis=1) * np.linalg.norm(my, axis=1)
    dot = np.einsum("gd,gd->g", mx, my)
    return snap_to_one(np.divide(dot, denom, out=np.zeros_like(dot), where=denom > 0))


def _cka_many(x: FloatArray, y: FloatArray) -> FloatArray:
    """:func:`cka` of stacks of unit token vectors, (G, l, dim) and (G, m, dim)."""
    a = x - x.mean(axis=2, keepdims=True)
    b = y - y.mean(axis=2, keepdims=True)
    gram = np.linalg.norm(np.matmul(a, a.transpose(0, 2, 1)), axis=(1, 2))
    denom = gram * np.linalg.norm(np.matmul(b, b.transpose(0, 2, 1)), axis=(1, 2))
    cross = np.linalg.norm(np.matmul(b, a.transpose(0, 2, 1)), axis=(1, 2)) ** 2
    # Rounding puts the same tokens in another order at 1 + 2e-16 now and then.
    return snap_to_one(np.divide(cross, denom, out=np.zeros_like(cross), where=denom > 0))


@register
class SBERT(SimilarityMetric):
    """Cosine of mean token vectors (:func:`sbert`), in [-1, 1].

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> SBERT(emb).score(["size"], ["count"]).scores.round(6).tolist()
    [0.8]
    """

    name = "sbert"

    _similarities = staticmethod(_sbert_many)


@register
class CKA(SimilarityMetric):
    """Linear CKA of the two names' token vectors (:func:`cka`), in [0, 1].

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0, 0.0], "count": [0.0, 0.0, 1.0]})
    >>> CKA(emb).score(["size"], ["count"]).scores.round(6).tolist()
    [0.25]
    """

    name = "cka"

    _similarities = staticmethod(_cka_many)


@register
class Sentence(EmbeddingMetric):
    """Cosine of an encoder's own pooled sentence vectors of the two names, in [-1, 1].

    .. math:: \\cos\\big(E(x), E(y)\\big)

    with ``E`` the encoder's pipeline on the name's tokens joined by spaces (its pooling,
    e.g. the mean of the last layer's states for sentence-transformers models; at another
    ``layer``, the mean of that layer's states). Needs an encoder; every distinct name is
    encoded once. OOV policies and centering do not apply (there are no token vectors).

    Examples
    --------
    >>> m = get_metric("sentence", encoder="sentence-transformers/all-MiniLM-L6-v2")
    ... # doctest: +SKIP
    >>> m.score(["getUserName"], ["fetch user name"]).scores.round(2).tolist()  # doctest: +SKIP
    [0.9]
    """

    name = "sentence"
    keys = ("score",)
    primary = "score"
    needs_encoder = True
    code_key = "score"

    def __init__(self, embeddings: Any = None, **options: Any) -> None:
        super().__init__(embeddings, **options)
        if self.contextual is None:
            raise WrdscoreError("metric 'sentence' needs an encoder (--encoder NAME_OR_PATH)")
        if self.contextual.fuse:
            raise WrdscoreError(
                "metric 'sentence' compares the encoder's own sentence vectors: it cannot be "
                "fused with --embeddings"
            )
        if self.oov != "zero" or self.centering != "none":
            raise WrdscoreError("metric 'sentence' takes no --oov or --centering")

    def truncation_note(self, cuts: Mapping[str, int]) -> str:
        """Inputs cut at the encoder's maximum, and methods whose code was encoded in
        chunks (``cuts``'s ``pooled``)."""
        assert self.contextual is not None
        notes = [super().truncation_note(cuts)]
        if n := cuts.get("pooled"):
            notes.append(
                f"{counted(n, 'method')} longer than the encoder's maximum of "
                f"{self.contextual.encoder.max_length} word pieces {'was' if n == 1 else 'were'} "
                "encoded in chunks and the chunks' vectors mean-pooled"
            )
        return "; ".join(filter(None, notes))

    def _code_support(self, codes: list[Tokens], preds: list[Tokens]) -> Scored:
        """Cosine of each prediction's sentence vector with its code's.

        Code longer than the encoder's maximum is not truncated: it is cut into runs of
        whole tokens that fit, each run encoded, and their vectors averaged weighted by
        their number of tokens (mean pooling over the chunks); the call counts such
        methods (``pooled`` in its result's ``cuts``) and :meth:`truncation_note` says so.
        """
        from wrdscore.embeddings.encoders import ENCODING

        assert self.contextual is not None
        encoder = self.contextual.encoder
        too_long = np.flatnonzero(encoder._lengths(codes) > encoder.max_length).tolist()
        cuts = Counter({"pooled": len(too_long)})
        pieces: list[Tokens] = []
        owner: list[int] = []
        long = set(too_long)
        for k, tokens in enumerate(codes):
            parts: list[Tokens] = [*encoder.chunks(tokens)] if k in long else [tokens]
            pieces.extend(parts)
            owner.extend([k] * len(parts))
        keys = [tuple(t) for t in (*pieces, *preds)]
        distinct = list(dict.fromkeys(keys))
        index = {k: i for i, k in enumerate(distinct)}
        vecs = encoder.sentence_vectors(distinct, *self.contextual.callbacks(ENCODING))
        cuts.update(encoder.cuts(distinct))
        rows = np.fromiter(map(index.__getitem__, keys), dtype=np.int64, count=len(keys))
        sizes = np.fromiter(map(len, pieces), dtype=np.float64, count=len(pieces))
        n = len(codes)
        x = np.zeros((n, vecs.shape[1]))
        np.add.at(x, np.asarray(owner), vecs[rows[: len(pieces)]] * sizes[:, None])
        x /= np.bincount(owner, weights=sizes, minlength=n)[:, None]
        y = vecs[rows[len(pieces) :]]
        denom = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
        dot = np.einsum("gd,gd->g", x, y)
        self._advance(n)
        support = snap_to_one(np.divide(dot, denom, out=np.zeros(n), where=denom > 0))
        return Scored({"code": support}, denom <= 0, cuts=cuts)

    def _signature_fields(self) -> dict[str, str]:
        assert self.contextual is not None
        return {"emb": self.contextual.label, "pool": "model"}

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> Scored:
        from wrdscore.embeddings.encoders import ENCODING

        assert self.contextual is not None
        keys = [tuple(t) for t in (*refs, *preds)]
        distinct = list(dict.fromkeys(keys))
        index = {k: i for i, k in enumerate(distinct)}
        vecs = self.contextual.encoder.sentence_vectors(
            distinct, *self.contextual.callbacks(ENCODING)
        )
        cuts = Counter(self.contextual.encoder.cuts(distinct))
        rows = np.fromiter(map(index.__getitem__, keys), dtype=np.int64, count=len(keys))
        n = len(refs)
        x, y = vecs[rows[:n]], vecs[rows[n:]]
        denom = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
        dot = np.einsum("gd,gd->g", x, y)
        self._advance(n)
        score = snap_to_one(np.divide(dot, denom, out=np.zeros(n), where=denom > 0))
        return Scored({"score": score}, denom <= 0, cuts=cuts)
