"""Signals for choosing a default model that do not come from ratings (issue 26).

Fixed before any candidate was scored; ``scripts/default_signals.py`` prints them.
Every signal asks whether a scorer puts a pair that should be alike above one that
should not, so each is an AUC (the chance that a random positive scores above a random
negative, ties counting half; 0.5 is chance) or a rank:

* **renames**: the held-out part of the VarCLR rename pairs (:func:`split_renames`)
  against (a) *random* pairs, each held-out name paired with the new name of another
  held-out pair, and (b) *related* pairs, each held-out name paired with the new name of
  another held-out pair that shares a sub-token with it (:func:`negative_pairs`);
* **synonyms above opposites**: one-word pairs people call interchangeable
  (:data:`SYNONYMS`) against pairs of opposite operations (:data:`OPPOSITES`), the case
  lists of ``scripts/tune_card.py`` and ``scripts/model_card_tables.py``;
* **name-to-summary retrieval** on Java projects no candidate was trained on: each
  documented method's name against the Javadoc summaries of the other methods of its
  class (:func:`retrieval_queries`), as a mean reciprocal rank and an AUC.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from wrdscore.corpora import open_corpus, split_identifier

Pair = tuple[str, str]
#: A scorer: references and predictions in, one value per pair out.
Scorer = Callable[[list[str], list[str]], NDArray[np.float64]]

#: The rule that splits the renames, fixed once: a pair (in either order) is held out when
#: the first 8 bytes of the SHA-256 of its two names, sorted and joined by a tab, read as a
#: big-endian integer, are 0 modulo 5 (about 20%); the rest is the tuning part.
HELD_OUT_MODULUS = 5
#: The seed of every draw below (the partners of the negative pairs).
SEED = 26

#: Interchangeable one-word pairs: ``scripts/tune_card.py``'s synonyms and the synonyms
#: and abbreviations of ``scripts/model_card_tables.py``'s token pairs.
SYNONYMS: list[Pair] = [
    ("get", "fetch"),
    ("remove", "delete"),
    ("size", "count"),
    ("size", "length"),
    ("init", "initialize"),
    ("num", "number"),
    ("cfg", "config"),
    ("blank", "empty"),
]
#: Opposite operations or ends, from the same two scripts.
OPPOSITES: list[Pair] = [
    ("get", "set"),
    ("add", "remove"),
    ("left", "right"),
    ("encode", "decode"),
    ("min", "max"),
]

_TEST_FOLDERS = {"test", "tests"}


def trained_cases(pairs_tsv: Path) -> list[str]:
    """The synonym and opposite cases among a model's specialisation pairs (its
    ``pairs.tsv``: ``kind<TAB>a<TAB>b...`` lines), as ``a/b kind``: on those the case
    signal measures whether specialisation took, not what carries over."""
    kinds = {}
    for line in pairs_tsv.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and not line.startswith("#"):
            kinds[frozenset(fields[1:3])] = fields[0]
    return [
        f"{a}/{b} {kinds[frozenset((a, b))]}"
        for a, b in SYNONYMS + OPPOSITES
        if frozenset((a, b)) in kinds
    ]


def held_out(a: str, b: str) -> bool:
    """Whether the rename pair ``a``/``b`` (either order) is in the held-out part.

    Examples
    --------
    >>> held_out("index", "idx") == held_out("idx", "index")
    True
    """
    key = "\t".join(sorted((a, b))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % HELD_OUT_MODULUS == 0


def read_renames(path: Path) -> list[Pair]:
    """The ``old<TAB>new`` lines of a renames file, in file order."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        a, b = line.split("\t")
        pairs.append((a, b))
    return pairs


def split_renames(pairs: Iterable[Pair]) -> tuple[list[Pair], list[Pair]]:
    """The tuning and held-out parts of rename pairs, each without repeats.

    A pair given twice, in either order, is kept once, in its first order and place, so
    both parts are sets of unordered pairs and no pair is in both.
    """
    seen: set[tuple[str, ...]] = set()
    tune: list[Pair] = []
    test: list[Pair] = []
    for a, b in pairs:
        key = tuple(sorted((a, b)))
        if key in seen:
            continue
        seen.add(key)
        (test if held_out(a, b) else tune).append((a, b))
    return tune, test


def pairs_sha256(pairs: Sequence[Pair]) -> str:
    """SHA-256 of pairs written as ``a<TAB>b`` lines (the held-out part's fingerprint)."""
    return hashlib.sha256("".join(f"{a}\t{b}\n" for a, b in pairs).encode("utf-8")).hexdigest()


def negative_pairs(
    positives: Sequence[Pair], known: Iterable[Pair], *, related: bool, seed: int = SEED
) -> list[Pair]:
    """One negative pair per positive ``(a, b)`` where one can be drawn: ``(a, c)``.

    ``c`` is the new name of another positive, drawn uniformly with ``seed``: any such
    name (``related=False``), or one sharing at least one sub-token with ``a``
    (``related=True``). Never ``c == a`` or ``c == b``, and never a pair (either order)
    in ``known`` (every rename, so no negative is a rename someone made).
    """
    rng = np.random.default_rng(seed)
    renamed = {tuple(sorted(p)) for p in known}
    news = sorted({b for _, b in positives})
    by_token: dict[str, list[str]] = defaultdict(list)
    for c in news:
        for tok in set(c.split()):
            by_token[tok].append(c)

    def allowed(a: str, b: str, c: str) -> bool:
        return c not in (a, b) and tuple(sorted((a, c))) not in renamed

    out = []
    for a, b in positives:
        if related:
            # The related pools are small: filtered whole, then one drawn.
            pool = [
                c
                for c in sorted({c for t in set(a.split()) for c in by_token[t]})
                if allowed(a, b, c)
            ]
            if pool:
                out.append((a, pool[int(rng.integers(len(pool)))]))
            continue
        # In the big pool a few draws find an allowed partner.
        for _ in range(100):
            c = news[int(rng.integers(len(news)))]
            if allowed(a, b, c):
                out.append((a, c))
                break
    return out


def auc(pos: NDArray[np.float64], neg: NDArray[np.float64]) -> float:
    """P(pos > neg) + P(pos = neg) / 2, from the Mann-Whitney rank sum.

    Examples
    --------
    >>> auc(np.array([0.9, 0.4]), np.array([0.5, 0.4]))
    0.625
    """
    ranks = rankdata(np.concatenate([pos, neg]))
    n, m = len(pos), len(neg)
    return float((ranks[:n].sum() - n * (n + 1) / 2) / (n * m))


@dataclass(frozen=True)
class Query:
    """One documented method: its name, and the summaries it is ranked among.

    ``candidates[0]`` is its own summary; the rest are the other summaries of its class.
    """

    name: str
    candidates: tuple[str, ...]


def retrieval_queries(corpus_dir: Path | str) -> list[Query]:
    """The name-to-summary queries of a corpus.

    A method counts when it has a Javadoc summary and is not test code (a name starting
    with ``test``, or a file under a ``test``/``tests`` folder: their Javadoc is copied
    from case to case). Its candidates are the distinct summaries of the other counted
    methods of the same class (same file and type) whose names differ from its own
    (overloads share a name, and their summaries describe it too) and whose summary
    differs from its own. A method with no candidate left gives no query; a name and
    summary written twice in a class give one query.
    """
    by_class: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for r in open_corpus(corpus_dir).iter_methods():
        summary, name = r.get("summary"), str(r.get("name") or "")
        tokens = split_identifier(name)
        if not summary or not tokens or tokens[0] == "test":
            continue
        if _TEST_FOLDERS & set(str(r.get("path")).split("/")):
            continue
        by_class[(str(r.get("path")), str(r.get("type")))].append((name, str(summary)))
    queries = []
    for methods in by_class.values():
        for name, own in dict.fromkeys(methods):
            others = dict.fromkeys(s for n, s in methods if n != name and s != own)
            if others:
                queries.append(Query(name, (own, *others)))
    return queries


@dataclass(frozen=True)
class Retrieval:
    """Mean reciprocal rank and AUC of a scorer's name-to-summary ranking.

    ``mrr`` is the mean of ``1 / rank`` of each method's own summary among its
    candidates, the rank being 1 + the candidates scoring above it + half of those
    scoring the same; ``auc`` is the chance that a method's own summary scores above one
    of its other candidates, over every (method, other candidate) pair, ties half.
    """

    queries: int
    comparisons: int
    mrr: float
    auc: float


def retrieval(queries: Sequence[Query], score: Scorer) -> Retrieval:
    """Score every query's name against its candidates and rank its own summary."""
    refs = [q.name for q in queries for _ in q.candidates]
    preds = [c for q in queries for c in q.candidates]
    values = score(refs, preds)
    reciprocal, above, total, start = [], 0.0, 0, 0
    for q in queries:
        own, others = values[start], values[start + 1 : start + len(q.candidates)]
        start += len(q.candidates)
        higher, tied = float(np.sum(others > own)), float(np.sum(others == own))
        reciprocal.append(1.0 / (1.0 + higher + tied / 2))
        above += len(others) - higher - tied / 2
        total += len(others)
    return Retrieval(len(queries), total, float(np.mean(reciprocal)), above / total)
