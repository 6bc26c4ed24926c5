"""What scoring gives back: :class:`ScoreResult`, and the unseen tokens it names."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: How many unseen tokens a result names.
OOV_NAMES = 5


def first_names(names: Iterable[str]) -> tuple[str, ...]:
    """The :data:`OOV_NAMES` alphabetically first of some token names.

    Alphabetical, not first seen: the same names for any chunking or worker count,
    since the first few of parts' first few are the first few of the whole.

    Examples
    --------
    >>> first_names(["zzz", "qux", "b", "a", "c", "d"])
    ('a', 'b', 'c', 'd', 'qux')
    """
    return tuple(heapq.nsmallest(OOV_NAMES, set(names)))


#: The counts of a result, in the order its repr and :meth:`ScoreResult.to_dict` give them.
_COUNTS = (
    "oov_tokens",
    "empty_predictions",
    "degenerate_pairs",
    "empty_code",
    "cut_code",
    "unmasked_code",
)


@dataclass
class Scored:
    """What a metric's arithmetic gives for a batch: its values, and what it counted on
    the way (side results), returned rather than written anywhere, so scoring is pure.

    Attributes
    ----------
    values : dict of str to ndarray
        One array per value, one entry per scored (reference, prediction) entry.
    degenerate : ndarray of bool or None
        Which entries had a side of zero weights (scored 0); None: none had.
    oov_count : int
        Unseen token occurrences.
    oov_names : frozenset of str
        Those tokens.
    cuts : Counter of str
        Inputs a model cut or split, by kind (:attr:`ScoreResult.cuts`).
    """

    values: dict[str, NDArray[np.float64]]
    degenerate: NDArray[np.bool_] | None = None
    oov_count: int = 0
    oov_names: frozenset[str] = frozenset()
    cuts: Counter[str] = field(default_factory=Counter)


@dataclass
class ScoreResult:
    """Scores of a batch of (reference, prediction) pairs, per pair and for the corpus.

    Each value is also an attribute (``res.f1``, ``res.code``, ``res.combined``; an
    :class:`AttributeError` naming the values there are otherwise), the repr is one
    line of corpus values (not every array), and :meth:`to_dict` gives the whole
    result as JSON-serialisable data.

    Attributes
    ----------
    metric : str
        Registry name of the metric, e.g. ``"wrd"``.
    signature : str
        Every setting that changes the numbers, sacrebleu style
        (``"wrdscore|emb:jdk17-w2v-50@sha:1a2b3c4d|w:norm|...|v:0.1.0"``).
    values : dict of str to ndarray
        One float64 array per value (``precision``/``recall``/``f1`` or ``score``;
        ``code`` and ``combined`` when scored against code), one entry per pair.
    primary : str
        The key of the headline value.
    corpus : dict of str to float
        Corpus-level values, same keys as ``values``.
    oov_tokens : int
        Token occurrences not in the embeddings' vocabulary (0 for embedding-free metrics).
    empty_predictions : int
        Predictions without any token; they score 0.
    degenerate_pairs : int
        Pairs with a side whose token weights are all zero (e.g. only unseen tokens
        under ``oov="zero"``); they score 0.
    oov_names : tuple of str
        The first few of those tokens in alphabetical order (:data:`OOV_NAMES` at most),
        to name them.
    best_reference : ndarray of int64 or None
        Per pair, the 0-based number of the reference alternative its values come from
        (this metric's best: the highest primary value, the first on ties; the first
        where none was scored, as for an empty prediction); None when no reference of
        the batch is a list of alternatives.
    empty_code : int
        Scored against code: pairs whose code support had nothing to transport (code
        without tokens or token weight, e.g. only keywords and the masked name, or a
        prediction of only unseen tokens); their ``code`` value is 0.
    cut_code : int
        Scored against code: methods longer than
        :data:`~wrdscore.corpora.MAX_CODE_CHARS` characters, read up to their last line
        within it (as ingest cuts them, :func:`~wrdscore.corpora.capped_code`).
    empty_references : int
        Scored against code and references, with empty references allowed: pairs whose
        reference has no token; their ``combined`` is their code support (the reference
        cannot judge them, as empty code cannot).
    unmasked_code : int
        Scored against code with ``allow_unmasked``: methods whose name could not be
        masked (read in their language, their code declares no function, or not the
        name given), scored as the code reads unmasked; 0 otherwise, where such code is
        refused.
    ids : tuple of str or None
        Each pair's id (a corpus method's, to join the values with other data), when
        the caller gave them (:meth:`with_ids`).
    cuts : dict of str to int
        Inputs of this call that a model cut at its maximum length, or encoded in parts,
        by kind (the metric's own keys: an encoder's ``truncated`` names and ``chunked``
        methods...); empty when none was. The metric's
        :meth:`~wrdscore.metrics.Metric.truncation_note` says it in words.

    Examples
    --------
    >>> res = ScoreResult("rouge1", "rouge1|v:0.1.0", {"f1": np.array([1.0, 0.5])},
    ...                   "f1", {"f1": 0.75})
    >>> res
    ScoreResult(rouge1, 2 pairs, f1=0.7500, sig=rouge1|v:0.1.0)
    >>> res.f1.tolist(), res.to_dict()["values"]
    ([1.0, 0.5], {'f1': [1.0, 0.5]})
    >>> res.code
    Traceback (most recent call last):
    ...
    AttributeError: this rouge1 result has no value 'code'; its values are: f1
    """

    metric: str
    signature: str
    values: dict[str, NDArray[np.float64]]
    primary: str
    corpus: dict[str, float]
    oov_tokens: int = 0
    empty_predictions: int = 0
    degenerate_pairs: int = 0
    oov_names: tuple[str, ...] = ()
    best_reference: NDArray[np.int64] | None = None
    empty_code: int = 0
    cut_code: int = 0
    unmasked_code: int = 0
    ids: tuple[str, ...] | None = None
    empty_references: int = 0
    cuts: dict[str, int] = field(default_factory=dict)

    @property
    def scores(self) -> NDArray[np.float64]:
        """The headline value per pair (``values[primary]``)."""
        return self.values[self.primary]

    def __getattr__(self, name: str) -> NDArray[np.float64]:
        # Called only for names that are not attributes: a value's name (res.f1). Private
        # and dunder names are refused before reading self.values, which copy and pickle
        # look up on an instance whose fields are not set yet.
        values = self.__dict__.get("values")
        if name.startswith("_") or values is None:
            raise AttributeError(name)
        if name in values:
            return values[name]
        raise AttributeError(
            f"this {self.metric} result has no value {name!r}; its values are: {', '.join(values)}"
        )

    def __len__(self) -> int:
        return len(self.scores)

    def __repr__(self) -> str:
        parts = [self.metric, f"{len(self)} pairs"]
        parts += [f"{k}={v:.4f}" for k, v in self.corpus.items()]
        parts += [f"{k}={getattr(self, k)}" for k in _COUNTS if getattr(self, k)]
        if self.ids is not None:
            parts.append("ids")
        parts.append(f"sig={self.signature}")
        return f"ScoreResult({', '.join(parts)})"

    def with_ids(self, ids: Iterable[str]) -> ScoreResult:
        """This result with each pair's id (one string per pair, in order).

        Raises
        ------
        ValueError
            Not one id per pair, or an id that is not a string.
        """
        ids = tuple(ids)
        if len(ids) != len(self) or not all(isinstance(i, str) for i in ids):
            raise ValueError(f"ids must be {len(self)} strings, one per pair, not {len(ids)} items")
        from dataclasses import replace

        return replace(self, ids=ids)

    def to_dict(self) -> dict[str, Any]:
        """The whole result as plain data that :func:`json.dumps` takes.

        ``values`` (per pair) and ``best_reference`` become lists, ``corpus`` floats;
        ``ids``, ``best_reference``, ``cuts`` and ``empty_references`` are there only when
        the result has them.

        Examples
        --------
        >>> import json
        >>> res = ScoreResult("sbert", "sbert|v:0.1.0", {"score": np.array([0.25])},
        ...                   "score", {"score": 0.25}, oov_tokens=1, oov_names=("zz",))
        >>> json.dumps(res.to_dict())  # doctest: +NORMALIZE_WHITESPACE
        '{"metric": "sbert", "signature": "sbert|v:0.1.0", "primary": "score", "pairs": 1,
          "corpus": {"score": 0.25}, "values": {"score": [0.25]}, "oov_tokens": 1,
          "empty_predictions": 0, "degenerate_pairs": 0, "empty_code": 0, "cut_code": 0,
          "unmasked_code": 0, "oov_names": ["zz"]}'
        """
        out: dict[str, Any] = {
            "metric": self.metric,
            "signature": self.signature,
            "primary": self.primary,
            "pairs": len(self),
            "corpus": {k: float(v) for k, v in self.corpus.items()},
            "values": {k: np.asarray(v, dtype=np.float64).tolist() for k, v in self.values.items()},
            **{k: int(getattr(self, k)) for k in _COUNTS},
            "oov_names": list(self.oov_names),
        }
        if self.best_reference is not None:
            out["best_reference"] = np.asarray(self.best_reference).tolist()
        if self.ids is not None:
            out["ids"] = list(self.ids)
        if self.cuts:
            out["cuts"] = dict(self.cuts)
        if self.empty_references:
            out["empty_references"] = self.empty_references
        return out
