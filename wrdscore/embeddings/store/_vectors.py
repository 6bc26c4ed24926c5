"""Token embeddings as the metrics see them: vectors, OOV policy, IDF, vocabulary mean."""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wrdscore.embeddings.store._blocks import RowBlocks
from wrdscore.embeddings.store._fallback import FallbackPart, FusedFallback, part_of
from wrdscore.embeddings.store._subword import FNV1A, GENSIM, hashing, subword_vector
from wrdscore.errors import WrdscoreError

if TYPE_CHECKING:
    from gensim.models import KeyedVectors

    from wrdscore.embeddings.store._wordpiece import WordPieces

#: What an unseen token becomes. ``auto`` (the default everywhere) is resolved against the
#: model, so a signature always records the policy that ran: ``subword`` where the model
#: has FastText n-grams or an encoder's word pieces, ``zero`` otherwise.
OOV_POLICIES = ("auto", "zero", "drop", "subword")


def check_oov(oov: str) -> None:
    """Refuse an ``oov`` policy that is not one of :data:`OOV_POLICIES`, in one line."""
    if oov not in OOV_POLICIES:
        raise WrdscoreError(f"unknown OOV policy {oov!r}; choose one of {', '.join(OOV_POLICIES)}")


def check_vectors(
    words: Sequence[object],
    matrix: ArrayLike,
    source: str | Path,
    *,
    first_line: int | None = None,
    allow_all_zero: bool = False,
) -> None:
    """Refuse a vocabulary and vector matrix no metric can use, naming the word at fault.

    Every loader calls this (word2vec text and binary files, KeyedVectors files,
    MODEL_DIRs) and so does :class:`TokenEmbeddings` itself, so a bad model stops at
    load time with one line instead of surfacing later as NaN scores or a crash.

    Checks, in this order: one vector per word, a 2-D matrix with at least one row
    and one column; every word a non-empty string; no word twice; every value
    finite; not every vector zero (such a model scores every pair 0). A single zero
    vector is allowed: SVD gives one to a token that co-occurs with nothing, and
    scoring treats it like an unseen token.

    Parameters
    ----------
    words : sequence
        The vocabulary, row ``i`` of ``matrix`` being the vector of ``words[i]``.
    matrix : array_like of shape (len(words), dim)
        The vectors.
    source : str or path
        What the message names first (the file, or the model's name).
    first_line : int, optional
        For a text file: the line number of row 0, so messages give line numbers;
        otherwise rows are named by their 1-based position (``vector 3``).
    allow_all_zero : bool
        Skip the last check (hand-built vectors that exercise degenerate pairs).

    Raises
    ------
    WrdscoreError
        ``"{source}: ..."`` with the word and the problem.

    Examples
    --------
    >>> check_vectors(["get", "set"], [[1.0, 0.0], [0.0, 1.0]], "m.vec")
    >>> check_vectors(["get", "get"], [[1.0, 0.0], [0.0, 1.0]], "m.vec", first_line=2)
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: m.vec: word 'get' appears twice (lines 2 and 3)
    """
    where = (
        (lambda i: f"line {first_line + i}")
        if first_line is not None
        else (lambda i: f"vector {i + 1}")
    )
    mat = np.asarray(matrix)
    if mat.ndim != 2 or mat.shape[1] == 0:
        raise WrdscoreError(f"{source}: the vectors have shape {mat.shape}, not (words, dim)")
    if mat.shape[0] != len(words):
        raise WrdscoreError(
            f"{source}: {len(words)} words but {mat.shape[0]} vectors (corrupt file)"
        )
    if mat.shape[0] == 0:
        raise WrdscoreError(f"{source}: the model has no vectors")
    seen: dict[object, int] = {}
    for i, word in enumerate(words):
        if not isinstance(word, str) or not word:
            raise WrdscoreError(f"{source}: {where(i)} has no word ({word!r})")
        j = seen.setdefault(word, i)
        if j != i:
            # Some loaders (gensim's word2vec reader) silently keep the first copy; a
            # duplicate means the file is not what its writer meant, so refuse it.
            place = (
                f"lines {first_line + j} and {first_line + i}"
                if first_line is not None
                else f"vectors {j + 1} and {i + 1}"
            )
            raise WrdscoreError(f"{source}: word {word!r} appears twice ({place})")
    finite = np.isfinite(mat)
    if not finite.all():
        i, d = (int(k) for k in np.argwhere(~finite)[0])
        raise WrdscoreError(
            f"{source}: word {words[i]!r} ({where(i)}) has a non-finite value "
            f"({float(mat[i, d])}) in dimension {d + 1}"
        )
    if not allow_all_zero and not mat.any():
        raise WrdscoreError(
            f"{source}: every vector is zero, so every pair would score 0 (corrupt model?)"
        )


def check_arrays(
    keys: Sequence[str],
    vectors: NDArray | RowBlocks,
    ngrams: NDArray | None,
    source: str,
    *,
    allow_all_zero: bool = False,
) -> None:
    """:func:`check_vectors` on the vocabulary's vectors, plus finite subword vectors."""
    check_vectors(keys, vectors, source, allow_all_zero=allow_all_zero)
    if ngrams is not None and len(ngrams):
        bad = np.flatnonzero(~np.isfinite(ngrams).all(axis=1))
        if len(bad):
            raise WrdscoreError(
                f"{source}: subword (n-gram) vector {int(bad[0])} has a non-finite value"
            )


def _sha(keys: Sequence[str], vectors: NDArray, ngrams: NDArray | None) -> str:
    return full_sha(keys, vectors, ngrams)[:8]


def full_sha(
    keys: Sequence[str],
    vectors: NDArray | RowBlocks,
    ngrams: NDArray | None,
    pieces: WordPieces | None = None,
    fallback: FusedFallback | None = None,
) -> str:
    """SHA-256 (hex) over the vocabulary and vectors; its first 8 digits name a model.

    Subword vectors (FastText n-grams, an encoder's word pieces, a fused model's
    fallback) are included: they change the scores of unseen tokens. Vectors are hashed
    as float32, so a float16 model's hash is that of the same values widened.
    """
    h = hashlib.sha256()
    h.update("\n".join(keys).encode("utf-8"))
    # Hashed through the arrays' own buffers (.data), not a bytes copy (the bundled default is
    # hashed on every load, so this is start-up time).
    h.update(np.ascontiguousarray(vectors, dtype=np.float32).data)
    if ngrams is not None and len(ngrams):
        h.update(np.ascontiguousarray(ngrams, dtype=np.float32).data)
    if pieces is not None:
        h.update("\n".join(pieces.pieces).encode("utf-8"))
        h.update(np.ascontiguousarray(pieces.vectors, dtype=np.float32).data)
    if fallback is not None:
        fallback.hash_into(h)
    return h.hexdigest()


def vectors_sha(kv: KeyedVectors) -> str:
    """First 8 hex digits of SHA-256 over the vocabulary and vectors (identifies a model)."""
    return _sha(kv.index_to_key, kv.vectors, _subword_parts(kv)[0])


def _subword_parts(kv: KeyedVectors) -> tuple[NDArray | None, int, int]:
    """FastText n-gram vectors and lengths of ``kv``, or None when it has none."""
    from gensim.models.fasttext import FastTextKeyedVectors

    if isinstance(kv, FastTextKeyedVectors) and kv.vectors_ngrams is not None:
        return kv.vectors_ngrams, int(kv.min_n), int(kv.max_n)
    return None, 0, 0


def _check_pieces(pieces: WordPieces, dim: int, source: str) -> None:
    """Refuse word-piece vectors of another width than the model's, or not finite."""
    if pieces.vectors.shape[1] != dim:
        raise WrdscoreError(
            f"{source}: word-piece vectors have {pieces.vectors.shape[1]} dims, the model {dim}"
        )
    if not np.isfinite(pieces.vectors).all():
        raise WrdscoreError(f"{source}: a word-piece vector has a non-finite value")


def _check_fallback(fallback: FusedFallback, dim: int, source: str) -> None:
    """Refuse a fused fallback whose parts do not add up to the model's width."""
    if fallback.dim != dim:
        raise WrdscoreError(
            f"{source}: the fallback's parts are {fallback.dim} wide, the model {dim}"
        )


class TokenEmbeddings:
    """Sub-token vectors plus the statistics the metrics need.

    The vectors are held as plain arrays (float32, possibly memory-mapped: see
    :func:`~wrdscore.embeddings.load_embeddings`), so scoring never needs gensim;
    :attr:`kv` gives the gensim object, loaded or built on first use.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The vectors. A :class:`~gensim.models.fasttext.FastTextKeyedVectors` also
        gives vectors to unseen tokens (``oov="subword"``).
    name : str
        Short label used in score signatures, e.g. ``"jdk17-w2v-50"``.
    doc_freq : mapping of str to int, optional
        In how many training documents (method names) each token occurs.
    n_docs : int, optional
        Number of training documents; required with ``doc_freq``.
    meta : dict, optional
        Training metadata (``model.json``), kept for display.
    source : str, optional
        What error messages about bad vectors name (the file); defaults to ``name``.
    allow_all_zero : bool
        Accept a model whose every vector is zero (every pair then scores 0 and is
        counted as degenerate). Off for every loader: such a file is corrupt.
    pieces : WordPieces, optional
        An encoder's word-piece vectors (a model made by ``wrdscore distill``): unseen
        tokens get the mean vector of their pieces (``oov="subword"``).
    fallback : FusedFallback or callable returning one, optional
        A fused model's parts' fallbacks (``wrdscore fuse``): unseen tokens get each
        part's n-gram or word-piece vector, scaled as the part was (``oov="subword"``).
        A callable is called on the first unseen token (the bundled default's tables
        stay unread at start-up).

    Raises
    ------
    WrdscoreError
        If the vectors fail :func:`check_vectors` (duplicate or empty words, NaN or
        inf values, no vectors, only zero vectors), or FastText n-gram vectors are
        not finite. Every way of building embeddings passes through this check.

    Attributes
    ----------
    sha : str
        8 hex digits identifying the vocabulary and vectors.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "set": [0.6, 0.8]})
    >>> vecs, oov = emb.lookup(["get", "nope"], oov="zero")
    >>> vecs.tolist(), oov.tolist()
    ([[1.0, 0.0], [0.0, 0.0]], [False, True])
    """

    def __init__(
        self,
        kv: KeyedVectors,
        *,
        name: str,
        doc_freq: Mapping[str, int] | None = None,
        n_docs: int | None = None,
        meta: dict[str, Any] | None = None,
        source: str | None = None,
        allow_all_zero: bool = False,
        pieces: WordPieces | None = None,
        fallback: FusedFallback | Callable[[], FusedFallback] | None = None,
    ) -> None:
        ngrams, min_n, max_n = _subword_parts(kv)
        counts = kv.expandos.get("count") if hasattr(kv, "expandos") else None
        self._setup(
            list(kv.index_to_key),
            kv.vectors,
            counts=counts,
            ngrams=ngrams,
            min_n=min_n,
            max_n=max_n,
            name=name,
            doc_freq=doc_freq,
            n_docs=n_docs,
            meta=meta,
            index=kv.key_to_index,
            source=source,
            allow_all_zero=allow_all_zero,
            # gensim is loaded already: its own hashing is right by construction.
            ngram_hash=GENSIM,
            pieces=pieces,
            fallback=fallback,
        )
        self._kv: KeyedVectors | None = kv

    def _setup(
        self,
        keys: list[str],
        vectors: NDArray | RowBlocks,
        *,
        counts: ArrayLike | None,
        ngrams: NDArray | None,
        min_n: int,
        max_n: int,
        name: str,
        doc_freq: Mapping[str, int] | None,
        n_docs: int | None,
        meta: dict[str, Any] | None,
        index: dict[str, int] | None = None,
        source: str | None = None,
        allow_all_zero: bool = False,
        checked_sha: str | None = None,
        doc_freq_loader: Callable[[], dict[str, int]] | None = None,
        ngram_hash: str = FNV1A,
        pieces: WordPieces | Callable[[], WordPieces | None] | None = None,
        fallback: FusedFallback | Callable[[], FusedFallback] | None = None,
    ) -> None:
        if (doc_freq is not None or doc_freq_loader is not None) and not n_docs:
            raise ValueError("doc_freq needs n_docs > 0")
        # The one check every way of building embeddings passes through (gensim objects,
        # fast arrays, word2vec files, from_vectors): bad vectors stop here, at load time.
        # Unless the caller proved these are arrays that passed it (checked_sha: their
        # full SHA-256, equal to the one recorded when they were checked).
        if checked_sha is None:
            check_arrays(keys, vectors, ngrams, source or name, allow_all_zero=allow_all_zero)
        if pieces is not None and not callable(pieces):
            _check_pieces(pieces, vectors.shape[1], source or name)
        if fallback is not None and not callable(fallback):
            _check_fallback(fallback, vectors.shape[1], source or name)
        self.name = name
        self._doc_freq = dict(doc_freq) if doc_freq is not None else None
        self._doc_freq_loader = doc_freq_loader
        self.n_docs = n_docs
        self.meta = dict(meta or {})
        self._keys = keys
        # dict(zip(...)) builds the index about twice as fast as a comprehension, which
        # shows in start-up for the bundled default's 54k tokens.
        self._index = index if index is not None else dict(zip(keys, range(len(keys)), strict=True))
        # float32 (or float16) as stored (a memory map when loaded from fast arrays); rows
        # become float64 on lookup, since the metrics' exactness targets (1e-9) need doubles.
        self._vectors = vectors
        self._counts = None if counts is None else np.asarray(counts, dtype=np.float64)
        self._ngrams = ngrams if ngrams is not None and len(ngrams) else None
        self._min_n, self._max_n = min_n, max_n
        self._ngram_hash = ngram_hash
        self._pieces = pieces
        self._fallback = fallback
        self._sha: str | None = None if checked_sha is None else checked_sha[:8]
        self._kv = None
        self._kv_loader: Callable[[], KeyedVectors] | None = None

    @classmethod
    def _from_arrays(
        cls,
        keys: list[str],
        vectors: NDArray | RowBlocks,
        *,
        name: str,
        counts: ArrayLike | None = None,
        ngrams: NDArray | None = None,
        min_n: int = 0,
        max_n: int = 0,
        doc_freq: Mapping[str, int] | None = None,
        n_docs: int | None = None,
        meta: dict[str, Any] | None = None,
        kv_loader: Callable[[], KeyedVectors] | None = None,
        doc_freq_loader: Callable[[], dict[str, int]] | None = None,
        source: str | None = None,
        allow_all_zero: bool = False,
        checked_sha: str | None = None,
        ngram_hash: str = FNV1A,
        pieces: WordPieces | Callable[[], WordPieces | None] | None = None,
        fallback: FusedFallback | Callable[[], FusedFallback] | None = None,
    ) -> TokenEmbeddings:
        """Embeddings from plain arrays.

        ``kv_loader`` gives the gensim object on demand and ``doc_freq_loader`` the
        document frequencies (instead of ``doc_freq``; with ``n_docs``): parsing the
        bundled model's 1.3 MB of them took 60-70 ms of every start-up, and only IDF
        weighting needs them. ``checked_sha`` (the arrays' :func:`full_sha`, computed
        by the caller) skips :func:`check_vectors` for arrays known to have passed it.
        ``ngram_hash`` names the hashing of the ``ngrams`` rows (see ``_subword``).
        ``pieces``: an encoder's word-piece vectors for unseen tokens; ``fallback``: a
        fused model's (either, or what loads it on first use: the bundled default's).
        """
        self = cls.__new__(cls)
        self._setup(
            keys,
            vectors,
            counts=counts,
            ngrams=ngrams,
            min_n=min_n,
            max_n=max_n,
            name=name,
            doc_freq=doc_freq,
            n_docs=n_docs,
            meta=meta,
            source=source,
            allow_all_zero=allow_all_zero,
            checked_sha=checked_sha,
            doc_freq_loader=doc_freq_loader,
            ngram_hash=ngram_hash,
            pieces=pieces,
            fallback=fallback,
        )
        self._kv_loader = kv_loader
        return self

    @classmethod
    def from_vectors(
        cls,
        vectors: Mapping[str, ArrayLike],
        *,
        name: str = "custom",
        doc_freq: Mapping[str, int] | None = None,
        n_docs: int | None = None,
        counts: Mapping[str, int] | None = None,
    ) -> TokenEmbeddings:
        """Build embeddings from a ``{token: vector}`` mapping (tests, small experiments).

        ``counts`` (token frequencies) weight :meth:`mean_vector`; without them the
        vocabulary mean is unweighted. Vectors that are all zero are accepted here
        (tests use them for degenerate pairs); NaN, inf and empty words are not.
        """
        if not vectors:
            raise WrdscoreError("no vectors given")
        keys = list(vectors)
        try:
            mat = np.asarray([np.asarray(vectors[k], dtype=np.float32) for k in keys])
        except ValueError:
            raise WrdscoreError("all vectors must have the same dimension") from None
        if mat.ndim != 2:
            raise WrdscoreError("all vectors must have the same dimension")
        return cls._from_arrays(
            keys,
            mat,
            name=name,
            counts=None if counts is None else [int(counts.get(k, 0)) for k in keys],
            doc_freq=doc_freq,
            n_docs=n_docs,
            allow_all_zero=True,
        )

    @property
    def kv(self) -> KeyedVectors:
        """The vectors as gensim ``KeyedVectors`` (loaded or built on first use)."""
        if self._kv is None:
            self._kv = self._kv_loader() if self._kv_loader is not None else self._build_kv()
        return self._kv

    def _build_kv(self) -> KeyedVectors:
        from gensim.models import KeyedVectors

        kv = KeyedVectors(vector_size=self.dim)
        kv.add_vectors(self._keys, np.asarray(self._vectors, dtype=np.float32))
        if self._counts is not None:
            for k, c in zip(self._keys, self._counts, strict=True):
                kv.set_vecattr(k, "count", int(c))
        return kv

    @property
    def sha(self) -> str:
        """8 hex digits of SHA-256 over the vocabulary and vectors (computed once)."""
        if self._sha is None:
            fallback = self.fallback
            self._sha = full_sha(self._keys, self._vectors, self._ngrams, self.pieces, fallback)[:8]
        return self._sha

    @functools.cached_property
    def df_sha(self) -> str:
        """8 hex digits of SHA-256 over the document frequencies and ``n_docs`` (what IDF
        weights read), ``none`` without them; in the signature of metrics that use IDF."""
        doc_freq = self.doc_freq
        if doc_freq is None:
            return "none"
        h = hashlib.sha256(f"{self.n_docs}\n".encode())
        h.update("\n".join(f"{t}\t{c}" for t, c in sorted(doc_freq.items())).encode("utf-8"))
        return h.hexdigest()[:8]

    @functools.cached_property
    def counts_sha(self) -> str:
        """8 hex digits of SHA-256 over the token counts (what corpus centering weights
        by), ``none`` without them."""
        if self._counts is None:
            return "none"
        return hashlib.sha256(np.ascontiguousarray(self._counts).tobytes()).hexdigest()[:8]

    @property
    def tokens(self) -> list[str]:
        """The vocabulary, in row order."""
        return self._keys

    @property
    def vectors(self) -> NDArray | RowBlocks:
        """The ``(len(self), dim)`` vectors as stored (float32 or float16), one row per
        vocabulary token: an array, or memory-mapped row blocks indexed as one
        (:class:`~wrdscore.embeddings.store._blocks.RowBlocks`; ``np.asarray`` joins them)."""
        return self._vectors

    @property
    def counts(self) -> NDArray[np.float64] | None:
        """Each token's corpus frequency, in row order (None for a plain vectors file)."""
        return self._counts

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return int(self._vectors.shape[1])

    @property
    def has_subword(self) -> bool:
        """Whether unseen tokens get vectors from character n-grams (FastText), from an
        encoder's word pieces (a distilled model) or from a fused model's parts' own."""
        return self._ngrams is not None or self._pieces is not None or self._fallback is not None

    @property
    def fallback(self) -> FusedFallback | None:
        """A fused model's fallback for unseen tokens (read on first use), else None."""
        if callable(self._fallback):
            loaded = self._fallback()
            _check_fallback(loaded, self.dim, self.name)
            self._fallback = loaded
        return self._fallback

    @property
    def pieces(self) -> WordPieces | None:
        """The encoder's word-piece vectors of a distilled model (read on first use for
        the bundled default), else None."""
        if callable(self._pieces):
            self._pieces = self._pieces()
        return self._pieces

    @property
    def doc_freq(self) -> dict[str, int] | None:
        """Training documents (method names) containing each token, if known."""
        if self._doc_freq is None and self._doc_freq_loader is not None:
            self._doc_freq = self._doc_freq_loader()
            self._doc_freq_loader = None
        return self._doc_freq

    @property
    def has_df(self) -> bool:
        """Whether document frequencies (and so IDF weights) are available."""
        return self._doc_freq is not None or self._doc_freq_loader is not None

    def __contains__(self, token: str) -> bool:
        return token in self._index

    def __len__(self) -> int:
        return len(self._index)

    def resolve_oov(self, oov: str) -> str:
        """The policy ``oov`` names for this model: ``auto`` becomes ``subword`` when the
        model has subword vectors (:attr:`has_subword`) and ``zero`` otherwise; any other
        policy is itself.

        Examples
        --------
        >>> TokenEmbeddings.from_vectors({"get": [1.0, 0.0]}).resolve_oov("auto")
        'zero'
        """
        check_oov(oov)
        if oov != "auto":
            return oov
        return "subword" if self.has_subword else "zero"

    def rows(self, tokens: Sequence[str]) -> NDArray[np.int64]:
        """Each token's row in :attr:`vectors`, -1 for a token not in the vocabulary.

        Examples
        --------
        >>> TokenEmbeddings.from_vectors({"get": [1.0], "set": [2.0]}).rows(["set", "zz"]).tolist()
        [1, -1]
        """
        get = self._index.get
        return np.fromiter((get(t, -1) for t in tokens), dtype=np.int64, count=len(tokens))

    def lookup(
        self, tokens: Sequence[str], oov: str = "zero"
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Vectors of ``tokens`` under an out-of-vocabulary policy.

        Parameters
        ----------
        tokens : sequence of str
            Sub-tokens.
        oov : {"zero", "drop", "subword", "auto"}
            ``zero``: an unseen token gets the zero vector (so zero mass under norm
            weighting); ``drop``: unseen tokens are removed, the returned rows are
            those of ``tokens`` where the mask is False; ``subword``: unseen tokens
            get FastText n-gram vectors, in a distilled model the mean vector of
            their word pieces, in a fused model each part's (error if the model has
            none of these); ``auto``: ``subword``
            when the model has them, else ``zero`` (:meth:`resolve_oov`).

        Returns
        -------
        vectors : ndarray of shape (k, dim), float64
            ``k = len(tokens)`` except under ``drop``.
        oov_mask : ndarray of bool, shape (len(tokens),)
            True where the token is not in the vocabulary (counted whatever the policy).
        """
        oov = self.resolve_oov(oov)
        if oov == "subword" and not self.has_subword:
            raise WrdscoreError(
                f"embeddings {self.name!r} have no subword vectors; use oov='zero' or 'drop', "
                "or a FastText or distilled model"
            )
        idx = self.rows(tokens)
        mask = idx < 0
        if oov == "drop":
            return self._vectors[idx[~mask]].astype(np.float64), mask
        if not len(idx):
            return np.zeros((0, self.dim)), mask
        out = self._vectors[np.where(mask, 0, idx)].astype(np.float64)
        if mask.any():
            out[mask] = 0.0
            if oov == "subword":
                subword = self._subword()
                for i in np.flatnonzero(mask).tolist():
                    out[i] = subword(tokens[i])
        return out, mask

    def fallback_parts(self, scale: float, float16: bool = False) -> list[FallbackPart]:
        """What this model brings to a fusion at ``scale`` for unseen tokens: its
        n-grams or word pieces (float16 if asked), a fused model's own parts rescaled,
        or a part of zeros."""
        return part_of(
            self._ngrams,
            self._min_n,
            self._max_n,
            self._ngram_hash,
            self.pieces,
            self.fallback,
            self.dim,
            scale,
            float16,
        )

    def _subword(self) -> Callable[[str], NDArray[np.float64]]:
        """What gives an unseen token its vector: its word pieces' mean (a distilled
        model), its parts' fallbacks (a fused model), or FastText's n-gram vector."""
        pieces = self.pieces
        if pieces is not None:
            return pieces.vector
        fallback = self.fallback
        if fallback is not None:
            return fallback.vector
        ngrams = self._ngrams
        assert ngrams is not None  # has_subword was checked by the caller
        hashes = hashing(self._ngram_hash)
        min_n, max_n = self._min_n, self._max_n
        return lambda token: subword_vector(token, ngrams, min_n, max_n, hashes)

    def idf(self, tokens: Sequence[str]) -> NDArray[np.float64]:
        """Inverse document frequency of each token, fixed by the training corpus.

        The one IDF formula of the toolkit (scikit-learn's smooth IDF)::

            idf(t) = ln((1 + N) / (1 + df(t))) + 1

        with ``N`` the number of training method names and ``df(t)`` the number of
        them containing ``t``. It is positive for every token, and an unseen token
        (``df = 0``) gets the largest value, ``ln(1 + N) + 1``.

        Raises
        ------
        WrdscoreError
            If the embeddings carry no document frequencies (a plain word2vec file).
        """
        doc_freq = self.doc_freq
        if doc_freq is None or not self.n_docs:
            raise WrdscoreError(
                f"embeddings {self.name!r} have no document frequencies, so IDF weighting is "
                "unavailable; train a model with `wrdscore train` or use weights='norm'"
            )
        n = self.n_docs
        return np.array(
            [math.log((1 + n) / (1 + doc_freq.get(t, 0))) + 1.0 for t in tokens],
            dtype=np.float64,
        )

    def mean_vector(self) -> NDArray[np.float64]:
        """Mean of the vocabulary's vectors, weighted by token frequency (corpus centering).

        Frequencies are the ``count`` attribute gensim keeps per token; a model
        without counts (a plain word2vec text file) gets the unweighted mean.
        """
        if not hasattr(self, "_mean"):
            matrix = np.asarray(self._vectors, dtype=np.float64)
            counts = self._counts
            if counts is None or counts.sum() <= 0:
                self._mean = matrix.mean(axis=0)
            else:
                self._mean = counts @ matrix / counts.sum()
        return self._mean
