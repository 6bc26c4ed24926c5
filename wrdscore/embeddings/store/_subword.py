"""FastText's character n-gram hashing, as gensim computes it, without importing gensim.

An unseen token's FastText vector is the mean of the vectors of its hashed character
n-grams (``oov="subword"``). Scoring with the bundled model needs exactly gensim's
vectors but not gensim's import time, so the n-grams and the hash are reproduced here
(``gensim.models.fasttext_inner.compute_ngrams_bytes`` and ``ft_hash_bytes``, which
follow Facebook's ``dictionary.cc``); a test checks them against gensim on many words.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

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


def subword_vector(word: str, ngrams: NDArray[np.float32], min_n: int, max_n: int) -> NDArray:
    """FastText's vector of an unseen word: the mean of its n-gram rows, in float32.

    The rows are added one by one in n-gram order into a float32 vector, then divided
    by their count, exactly as ``FastTextKeyedVectors.get_vector`` does, so the result
    is bit-identical to gensim's. A word without n-grams gets the zero vector.
    """
    vec = np.zeros(ngrams.shape[1], dtype=np.float32)
    hashes = ngram_hashes(word, min_n, max_n, len(ngrams))
    if not hashes:
        return vec
    for h in hashes:
        vec += ngrams[h]
    return vec / len(hashes)
