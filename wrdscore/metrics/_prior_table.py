"""How a code prior's table (``scripts/build_code_prior.py``) stores one target's counts.

A table is a zip archive of ``source.json`` (what it was counted from) and, per target
(``name``, ``summary``), four members:

* ``<target>.json``: the small counts and settings (``texts``, ``lengths``, ``copied``,
  ``thresholds``, ``folds``), as JSON;
* ``<target>.vocabulary.txt``: every token of the target's texts, code and bigrams, the
  start and end marks among them, sorted, one a line (UTF-8);
* ``<target>.counts.npy``: two rows of counts (32-bit, as the bigrams'), one column per
  token of the vocabulary: in the texts (``tokens``) and in the code (``code``), 0 for a
  token never seen there;
* ``<target>.bigrams.npy``: three rows, one column per bigram of the texts: its
  context's and its successor's places in the vocabulary and its count, grouped by
  context in vocabulary order, successors most common first.

Counts are stored as arrays because decoding them as JSON took most of loading the
names' prior: 0.25 to 0.32 s of every code-aware run for the 69 sources' table, 0.19
to 0.22 s for its 328,501 bigram counts alone. ``np.load`` reads them without pickle.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: The start and end marks of a text among its bigrams (no split token has angle brackets).
START, END = "<s>", "</s>"
#: The counts that are arrays, not JSON: ``tokens`` and ``code`` by token, ``bigrams``
#: by context, then successor.
ARRAY_KEYS = ("tokens", "code", "bigrams")


class TableError(ValueError):
    """A table's bytes are not a table of today's layout (this module's docstring)."""


@dataclass(frozen=True)
class TargetCounts:
    """One target's counts as a table stores them (the module's docstring).

    ``meta`` holds the small counts and settings; ``tokens`` and ``code`` count each token
    of the ``vocabulary`` (``<s>`` and ``</s>`` among them); ``bigrams`` is ``(3, B)``:
    context, successor (places in the vocabulary) and count, grouped by context in
    vocabulary order.

    Examples
    --------
    >>> part = {"texts": 1, "tokens": {"run": 1}, "code": {"go": 2},
    ...         "bigrams": {"<s>": {"run": 1}, "run": {"</s>": 1}}}
    >>> counts = TargetCounts.from_dict(part)
    >>> counts.vocabulary, counts.tokens.tolist(), counts.bigrams.tolist()
    (['</s>', '<s>', 'go', 'run'], [0, 0, 0, 1], [[1, 3], [3, 0], [1, 1]])
    >>> counts.as_dict() == part
    True
    """

    meta: dict[str, Any]
    vocabulary: list[str]
    tokens: NDArray[np.integer[Any]]
    code: NDArray[np.integer[Any]]
    bigrams: NDArray[np.integer[Any]]

    @classmethod
    def from_dict(cls, part: dict[str, Any]) -> TargetCounts:
        """The counts of a target's JSON form (``tokens`` and ``code`` as ``{token:
        count}``, ``bigrams`` as ``{context: {successor: count}}``, the rest as is).

        Raises
        ------
        ValueError
            A token with a line break (the vocabulary is one token a line), or a count
            not positive (an array stores a token never seen as 0).
        """
        tokens, code = part["tokens"], part["code"]
        bigrams: dict[str, dict[str, int]] = part["bigrams"]
        vocabulary = sorted(
            {START, END, *tokens, *code, *bigrams, *(b for nxt in bigrams.values() for b in nxt)}
        )
        bad = next((t for t in vocabulary if "\n" in t or "\r" in t), None)
        if bad is not None:
            raise ValueError(f"a table's token has a line break: {bad!r}")
        at = {t: i for i, t in enumerate(vocabulary)}
        counts = np.zeros((2, len(vocabulary)), dtype=np.int64)
        for row, found in enumerate((tokens, code)):
            counts[row, [at[t] for t in found]] = list(found.values())
        rows = [
            (at[a], at[b], c)
            for a in sorted(bigrams, key=at.__getitem__)
            for b, c in bigrams[a].items()
        ]
        pairs = np.array(rows, dtype=np.int64).reshape(-1, 3).T
        if min((*tokens.values(), *code.values(), *pairs[2].tolist()), default=1) <= 0:
            raise ValueError("a table's counts must be positive")
        meta = {k: v for k, v in part.items() if k not in ARRAY_KEYS}
        return cls(meta, vocabulary, counts[0], counts[1], np.ascontiguousarray(pairs))

    def as_dict(self) -> dict[str, Any]:
        """The JSON form :meth:`from_dict` reads (tokens never seen left out)."""
        vocabulary = self.vocabulary
        out = dict(self.meta)
        for key, found in (("tokens", self.tokens), ("code", self.code)):
            seen = np.flatnonzero(found)
            out[key] = dict(zip([vocabulary[i] for i in seen], found[seen].tolist(), strict=True))
        bigrams: dict[str, dict[str, int]] = {}
        for a, b, c in self.bigrams.T.tolist():
            bigrams.setdefault(vocabulary[a], {})[vocabulary[b]] = c
        out["bigrams"] = bigrams
        return out


def _npy(array: NDArray[np.integer[Any]]) -> bytes:
    """``array`` as a ``.npy`` file of 32-bit integers (half the bytes to inflate)."""
    if array.max(initial=0) > np.iinfo(np.int32).max:
        raise ValueError("a table's count does not fit in 32 bits")
    out = io.BytesIO()
    np.save(out, array.astype(np.int32), allow_pickle=False)
    return out.getvalue()


def target_members(target: str, counts: TargetCounts) -> dict[str, bytes]:
    """A target's members of a table, by name (the module's docstring)."""
    meta = json.dumps(counts.meta, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return {
        f"{target}.json": meta.encode("utf-8"),
        f"{target}.vocabulary.txt": "\n".join(counts.vocabulary).encode("utf-8"),
        f"{target}.counts.npy": _npy(np.stack([counts.tokens, counts.code])),
        f"{target}.bigrams.npy": _npy(counts.bigrams),
    }


def read_target(table: bytes, target: str) -> TargetCounts:
    """One target's counts in a table's bytes (today's layout).

    Raises
    ------
    TableError
        No such target, or a table of an older layout (``name.json`` holding every count).
    """
    with zipfile.ZipFile(io.BytesIO(table)) as archive:
        names = set(archive.namelist())
        if f"{target}.json" not in names:
            raise TableError(f"the table has no target {target!r}")
        if f"{target}.vocabulary.txt" not in names:
            raise TableError(
                # Only a table built by an earlier version's builder gets here: the
                # shipped ones are in today's layout, and the builder is not shipped, so
                # the message names the version, not a script an installed user lacks.
                "the table is of an older layout (every count in one JSON member), which "
                "this version of wrdscore does not read: build the table with this version"
            )
        meta = json.loads(archive.read(f"{target}.json"))
        vocabulary = archive.read(f"{target}.vocabulary.txt").decode("utf-8").split("\n")
        counts = _load(archive, f"{target}.counts.npy")
        bigrams = _load(archive, f"{target}.bigrams.npy")
    return TargetCounts(meta, vocabulary, counts[0], counts[1], bigrams)


def _load(archive: zipfile.ZipFile, name: str) -> NDArray[np.integer[Any]]:
    found: NDArray[np.integer[Any]] = np.load(io.BytesIO(archive.read(name)), allow_pickle=False)
    return found
