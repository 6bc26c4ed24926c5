"""A strict reader of word2vec text and binary files.

gensim's reader is lenient where a scoring tool must not be: it keeps the first of two
rows for the same word and leaves a hole (``None``) in the vocabulary, ignores rows past
the header's count, and, tried on a malformed text file as if it were binary, can read
text bytes as floats. This reader checks the header, every row's value count, the row
count and every word, and says which line or vector is wrong.

The format: a header line ``"<count> <dim>"``, then ``count`` rows. Text rows are
``word v1 ... vdim`` separated by single spaces (a trailing space, as fastText writes,
is fine); binary rows are the word's UTF-8 bytes, a space, and ``dim`` little-endian
float32 values, optionally followed by a newline.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings.store._vectors import check_vectors
from wrdscore.errors import WrdscoreError

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def read_word2vec(path: Path) -> tuple[list[str], NDArray[np.float32]]:
    """Read a word2vec text or binary file, strictly.

    The body is read as text when it is UTF-8 without NUL bytes, otherwise as
    binary. A text body is never retried as binary: a malformed row such as
    ``ab 1.5x`` in a one-dimensional file would otherwise load as the float whose
    bytes spell ``1.5x`` (gensim's fallback does that). Real binary vectors are
    not valid UTF-8 (float32 bytes of any non-trivial value break it at once).

    Parameters
    ----------
    path : path
        The file.

    Returns
    -------
    words : list of str
    matrix : ndarray of shape (count, dim), float32

    Raises
    ------
    WrdscoreError
        ``"{path}: ..."`` naming the line (text) or vector (binary) and the word at
        fault: a bad header, a row with the wrong number of values, a value that is
        not a number or not finite as float32, too few or too many rows, a duplicate
        or empty word, or a model whose every vector is zero.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "v.txt"
    >>> _ = p.write_text("2 2\\nget 1 0\\nset 0.5 0.5\\n")
    >>> words, mat = read_word2vec(p)
    >>> words, mat.tolist()
    (['get', 'set'], [[1.0, 0.0], [0.5, 0.5]])
    """
    data = path.read_bytes()
    if not data.strip():
        raise WrdscoreError(f"{path}: the file is empty")
    newline = data.find(b"\n")
    header = data[: newline if newline >= 0 else len(data)]
    count, dim = _header(header, path)
    body = data[newline + 1 :] if newline >= 0 else b""
    text = None
    if b"\x00" not in body:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    if text is None:
        words, mat = _binary(body, count, dim, path)
        check_vectors(words, mat, path)
        return words, mat
    words, mat = _text(text, count, dim, path)
    check_vectors(words, mat, path, first_line=2)
    return words, mat


def _header(line: bytes, path: Path) -> tuple[int, int]:
    try:
        fields = line.decode("utf-8").split()
        count, dim = (int(f) for f in fields)
    except (UnicodeDecodeError, ValueError):
        shown = line[:40].decode("utf-8", "replace")
        raise WrdscoreError(
            f"{path}: not a word2vec text/binary or KeyedVectors file: the first line must be "
            f"'<count> <dim>', got {shown!r}"
        ) from None
    if count < 1 or dim < 1:
        raise WrdscoreError(f"{path}: the header says {count} vectors of dimension {dim}")
    return count, dim


def _text(text: str, count: int, dim: int, path: Path) -> tuple[list[str], NDArray[np.float32]]:
    lines = text.split("\n")
    # A final newline (or a few blank lines) after the last row is not a row.
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != count:
        raise WrdscoreError(
            f"{path}: the header says {count} vectors but the file has {len(lines)} rows"
        )
    words: list[str] = []
    mat = np.empty((count, dim), dtype=np.float32)
    for i, line in enumerate(lines):
        line_no = i + 2
        parts = line.rstrip("\r").rstrip(" ").split(" ")
        word, values = parts[0], parts[1:]
        if len(values) != dim:
            raise WrdscoreError(
                f"{path}: line {line_no}: word {word!r} has {len(values)} values, "
                f"the header says {dim}"
            )
        try:
            row = np.array([float(v) for v in values], dtype=np.float64)
        except ValueError:
            bad = next(v for v in values if not _is_float(v))
            raise WrdscoreError(
                f"{path}: line {line_no}: word {word!r}: {bad!r} is not a number"
            ) from None
        # NaN and inf are left to check_vectors; a finite value float32 cannot hold
        # would silently become inf, so it is named here with the text as written.
        big = np.flatnonzero(np.isfinite(row) & (np.abs(row) > _FLOAT32_MAX))
        if len(big):
            d = int(big[0])
            raise WrdscoreError(
                f"{path}: line {line_no}: word {word!r}: {values[d]} in dimension {d + 1} "
                "is too large for float32"
            )
        words.append(word)
        mat[i] = row
    return words, mat


def _is_float(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _binary(body: bytes, count: int, dim: int, path: Path) -> tuple[list[str], NDArray[np.float32]]:
    width = 4 * dim
    words: list[str] = []
    rows: list[NDArray[np.float32]] = []
    pos = 0
    for i in range(count):
        # word2vec.c ends each row with a newline; gensim's writer does too. Either way
        # it belongs to no word.
        while pos < len(body) and body[pos : pos + 1] == b"\n":
            pos += 1
        space = body.find(b" ", pos)
        if space < 0 or space + 1 + width > len(body):
            raise WrdscoreError(
                f"{path}: the header says {count} vectors of dimension {dim} but the file "
                f"ends in vector {i + 1} (truncated, or a wrong header)"
            )
        try:
            word = body[pos:space].decode("utf-8")
        except UnicodeDecodeError:
            raise WrdscoreError(
                f"{path}: vector {i + 1}: the word is not UTF-8 ({body[pos:space][:40]!r})"
            ) from None
        words.append(word)
        rows.append(np.frombuffer(body, dtype="<f4", count=dim, offset=space + 1))
        pos = space + 1 + width
    if body[pos:].strip(b"\n\r "):
        raise WrdscoreError(
            f"{path}: {len(body) - pos} bytes follow the {count} vectors the header announces "
            "(a wrong header, or not a word2vec file)"
        )
    return words, np.vstack(rows).astype(np.float32)
