"""FastText's character n-gram hashing, as gensim computes it, without importing gensim.

An unseen token's FastText vector is the mean of the vectors of its hashed character
n-grams (``oov="subword"``). Scoring with the bundled model needs exactly gensim's
vectors but not gensim's import time, so the n-grams and the hash are reproduced here
(``gensim.models.fasttext_inner.compute_ngrams_bytes`` and ``ft_hash_bytes``, which
follow Facebook's ``dictionary.cc``). Importing gensim for its own
``ft_ngram_hashes`` instead made `wrdscore score --oov subword` on examples/ take 2.4 s
of CPU against 0.65 s (min of 5 runs each, 2026-11-25, gensim 4.4.0).

The copy is only used where it is known to agree: a MODEL_DIR's fast arrays record
which hashing their n-gram rows follow (``ngram_hash`` in ``fast/vocab.json``), and
:func:`~wrdscore.embeddings.store._store.write_fast_arrays` writes :data:`FNV1A` only
after checking this copy against the installed gensim on the model's words, else
:data:`GENSIM` (then :func:`gensim_ngram_hashes` is used, importing gensim). Models held
as gensim objects always use gensim's. Tests compare the two on many words, so a gensim
release that hashes otherwise fails them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

#: ``ngram_hash`` values: this module's copy of FastText's hash, or gensim's own.
FNV1A, GENSIM = "fnv1a-signed", "gensim"
NGRAM_HASHES = (FNV1A, GENSIM)

_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619
_MASK32 = 0xFFFFFFFF


def ft_hash(data: bytes) -> int:
    """32-bit FNV-1a hash of ``data`` with each byte read as a *signed* char.

    .. math:: h_0 = 2166136261,\\quad h_{k+1} = (h_k \\oplus \\mathrm{int8}(b_k)) \\cdot 16777619
              \\bmod 2^{32}

    The signed reading (bytes >= 0x80 sign-extend to 32 bits) is Facebook fastText's,
    kept by gensim so that models stay compatible.

    Examples
    --------
    >>> ft_hash(b"<ge"), ft_hash("<é".encode())
    (1403160675, 672036627)
    """
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ (byte | 0xFFFFFF00 if byte & 0x80 else byte)) * _FNV_PRIME) & _MASK32
    return h


def char_ngrams(word: str, min_n: int, max_n: int) -> list[bytes]:
    """The UTF-8 character n-grams of ``<word>``, ``min_n`` to ``max_n`` characters long.

    N-grams start at every character (continuation bytes of a multi-byte character
    are not starts) and are listed by start, then length; the one-character n-grams
    ``<`` and ``>`` are left out.

    Examples
    --------
    >>> [g.decode() for g in char_ngrams("get", 3, 4)]
    ['<ge', '<get', 'get', 'get>', 'et>']
    """
    data = f"<{word}>".encode()
    size = len(data)
    out: list[bytes] = []
    for i in range(size):
        if data[i] & 0xC0 == 0x80:
            continue
        j, n = i, 1
        while j < size and n <= max_n:
            j += 1
            while j < size and data[j] & 0xC0 == 0x80:
                j += 1
            if n >= min_n and not (n == 1 and (i == 0 or j == size)):
                out.append(data[i:j])
            n += 1
    return out


def ngram_hashes(word: str, min_n: int, max_n: int, bucket: int) -> list[int]:
    """The n-gram bucket rows of ``word`` (``gensim.models.fasttext.ft_ngram_hashes``).

    Examples
    --------
    >>> ngram_hashes("get", 3, 3, 1000)
    [675, 415, 30]
    """
    return [ft_hash(g) % bucket for g in char_ngrams(word, min_n, max_n)]


def gensim_ngram_hashes(word: str, min_n: int, max_n: int, bucket: int) -> list[int]:
    """gensim's own ``ft_ngram_hashes`` (imports gensim): the fallback of :func:`ngram_hashes`."""
    from gensim.models.fasttext import ft_ngram_hashes

    return list(ft_ngram_hashes(word, min_n, max_n, bucket))


def hashing(name: str) -> Callable[[str, int, int, int], list[int]]:
    """The n-gram hash function an ``ngram_hash`` value names."""
    return ngram_hashes if name == FNV1A else gensim_ngram_hashes


def agrees_with_gensim(words: Sequence[str], min_n: int, max_n: int, bucket: int) -> bool:
    """Whether :func:`ngram_hashes` equals the installed gensim's on ``words``."""
    from gensim.models.fasttext import ft_ngram_hashes

    # Words of every script and length, beside the model's own.
    probes = ["", "a", "é", "日本語x", "x\u00e9\u4e2d\U0001f600", "getURLs2", "Ω" * 9, "y" * 40]
    return all(
        ngram_hashes(w, min_n, max_n, bucket) == list(ft_ngram_hashes(w, min_n, max_n, bucket))
        for w in [*probes, *words]
    )


def subword_vector(
    word: str,
    ngrams: NDArray[np.float32],
    min_n: int,
    max_n: int,
    hashes: Callable[[str, int, int, int], list[int]] = ngram_hashes,
) -> NDArray:
    """FastText's vector of an unseen word: the mean of its n-gram rows, in float32.

    The rows are added one by one in n-gram order into a float32 vector, then divided
    by their count, exactly as ``FastTextKeyedVectors.get_vector`` does, so the result
    is bit-identical to gensim's. A word without n-grams gets the zero vector.
    ``hashes`` maps the word to its rows (:func:`hashing`).
    """
    vec = np.zeros(ngrams.shape[1], dtype=np.float32)
    found = hashes(word, min_n, max_n, len(ngrams))
    if not found:
        return vec
    for h in found:
        vec += ngrams[h]
    return vec / len(found)
