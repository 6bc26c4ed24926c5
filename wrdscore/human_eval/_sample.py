"""Stratified study design: which pairs go to which set, drawn by metric-score strata."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import split_identifier
from wrdscore.errors import WrdscoreError, counted
from wrdscore.human_eval._stats import check_seed

_OPERATORS: dict[str, Callable[[NDArray[np.float64], float], NDArray[np.bool_]]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}
# METRIC is a metric's name, or with --code its code support or combined value (wrd.code).
_CONDITION = re.compile(
    r"^\s*([A-Za-z][\w-]*(?:\.(?:code|combined))?)\s*(<=|>=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*$"
)


@dataclass(frozen=True)
class Condition:
    """``metric op value``, e.g. ``wrd < 0.2``: a pair qualifies when its score satisfies it."""

    metric: str
    op: str
    value: float

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"


@dataclass(frozen=True)
class Stratum:
    """``size`` pairs per set drawn uniformly from the pairs meeting every condition.

    No conditions means uniformly from all pairs (the ``random`` stratum).
    """

    size: int
    conditions: tuple[Condition, ...] = ()

    @property
    def name(self) -> str:
        """``random`` or the conditions joined by commas (``wrd>=0.8,wrd<=1,rouge1<0.5``)."""
        return ",".join(map(str, self.conditions)) or "random"

    @property
    def spec(self) -> str:
        """The text :func:`parse_stratum` reads back into this stratum."""
        return f"{self.size}:{self.name}" if self.conditions else str(self.size)


def parse_stratum(spec: str) -> Stratum:
    """Read a stratum from ``SIZE`` or ``SIZE:COND[,COND...]`` with ``COND`` = ``metric op x``.

    Examples
    --------
    >>> parse_stratum("10:wrd>=0.8,wrd<=1,rouge1<0.5").name
    'wrd>=0.8,wrd<=1,rouge1<0.5'
    >>> parse_stratum("10").name
    'random'
    >>> parse_stratum("10:wrd.code<0.3").name
    'wrd.code<0.3'
    """
    size_text, colon, rest = spec.partition(":")
    if not size_text.strip().isdigit() or int(size_text) < 1:
        raise WrdscoreError(
            f"stratum {spec!r}: expected SIZE or SIZE:COND,... with a positive whole SIZE "
            "(e.g. 10:wrd>=0.8,rouge1<0.5)"
        )
    # `10:` is most likely a condition lost to the shell, not a request for a random stratum.
    if colon and not rest.strip():
        raise WrdscoreError(
            f"stratum {spec!r}: no condition after ':' (write {size_text.strip()} alone "
            "for a random stratum)"
        )
    conditions = []
    for part in rest.split(",") if colon else []:
        match = _CONDITION.match(part)
        if match is None:
            raise WrdscoreError(
                f"stratum {spec!r}: condition {part!r} is not METRIC OP NUMBER "
                "with OP one of < <= > >="
            )
        conditions.append(Condition(match[1], match[2], float(match[3])))
    return Stratum(int(size_text), tuple(conditions))


# The WRDScore paper's protocol for a set of 50: 10 at random, 10 per WRDScore bin, and 10
# high-WRDScore pairs whose ROUGE-1 is low, so the top bin is not just identical names.
DEFAULT_STRATA = tuple(
    parse_stratum(s)
    for s in (
        "10",
        "10:wrd>=0,wrd<0.2",
        "10:wrd>=0.2,wrd<0.5",
        "10:wrd>=0.5,wrd<0.8",
        "10:wrd>=0.8,wrd<=1,rouge1<0.5",
    )
)


def strata_metrics(strata: Sequence[Stratum]) -> list[str]:
    """The metric names the strata condition on, in first-use order.

    Examples
    --------
    >>> strata_metrics(DEFAULT_STRATA)
    ['wrd', 'rouge1']
    """
    return list(dict.fromkeys(c.metric for s in strata for c in s.conditions))


@dataclass(frozen=True)
class Shortfall:
    """A stratum of a set that got fewer pairs than asked for."""

    set: int
    stratum: str
    wanted: int
    got: int


@dataclass(frozen=True)
class Design:
    """Which pairs each set holds: ``sets[k]`` lists ``(pair index, stratum name)``."""

    sets: list[list[tuple[int, str]]]
    shortfalls: list[Shortfall]


def pair_key(reference: str, prediction: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What makes two pairs the same: their sub-tokens (``getName`` equals ``get name``).

    Examples
    --------
    >>> pair_key("getName", "name")
    (('get', 'name'), ('name',))
    """
    return tuple(split_identifier(reference)), tuple(split_identifier(prediction))


def distinct_pairs(
    references: Sequence[str],
    predictions: Sequence[str],
    codes: Sequence[str | Mapping[str, str]] | None = None,
) -> NDArray[np.intp]:
    """Index of the first occurrence of every distinct (reference, prediction) pair.

    Pairs are compared by their sub-tokens, so ``getName``/``get name`` count as one;
    with ``codes`` also by their code: the same names on two methods are two questions
    to a rater who reads the code.

    Examples
    --------
    >>> distinct_pairs(["getName", "get name", "run"], ["name", "name", "go"]).tolist()
    [0, 2]
    """
    seen: dict[tuple[object, ...], int] = {}
    for i, (ref, pred) in enumerate(zip(references, predictions, strict=True)):
        code = () if codes is None else (codes[i],)
        # A code item may be a mapping (source and name): compared by its items.
        key = code if not code or isinstance(code[0], str) else (tuple(sorted(code[0].items())),)
        seen.setdefault(pair_key(ref, pred) + key, i)
    return np.fromiter(seen.values(), dtype=np.intp, count=len(seen))


def _eligible(
    scores: Mapping[str, NDArray[np.float64]], candidates: NDArray[np.intp], stratum: Stratum
) -> NDArray[np.bool_]:
    """Which candidates meet every condition of ``stratum``."""
    eligible = np.ones(candidates.size, dtype=bool)
    for cond in stratum.conditions:
        eligible &= _OPERATORS[cond.op](scores[cond.metric][candidates], cond.value)
    return eligible


def _in_order(
    rng: np.random.Generator,
    eligible: list[NDArray[np.bool_]],
    strata: Sequence[Stratum],
    n_sets: int,
) -> list[NDArray[np.intp]]:
    """Each stratum's candidates (positions), drawn stratum after stratum from the unused."""
    free = np.ones(eligible[0].size, dtype=bool)
    drawn = []
    for stratum, qualifies in zip(strata, eligible, strict=True):
        picks = rng.permutation(np.flatnonzero(free & qualifies))[: stratum.size * n_sets]
        free[picks] = False
        drawn.append(picks)
    return drawn


def _in_turns(
    rng: np.random.Generator,
    eligible: list[NDArray[np.bool_]],
    strata: Sequence[Stratum],
    n_sets: int,
) -> list[NDArray[np.intp]]:
    """Each stratum's candidates, the strata taking turns: one pair each turn, the
    stratum with the fewest qualifying candidates first."""
    free = np.ones(eligible[0].size, dtype=bool)
    queues = [iter(rng.permutation(np.flatnonzero(q)).tolist()) for q in eligible]
    drawn: list[list[int]] = [[] for _ in strata]
    progress = True
    # The scarcest stratum first in every turn: the random stratum, which any pair
    # qualifies for, comes last and takes no pair another stratum could use this turn.
    turns = sorted(range(len(strata)), key=lambda k: int(np.count_nonzero(eligible[k])))
    while progress:
        progress = False
        for stratum, queue, picks in ((strata[k], queues[k], drawn[k]) for k in turns):
            if len(picks) == stratum.size * n_sets:
                continue
            while (i := next(queue, None)) is not None:
                if free[i]:
                    free[i] = False
                    picks.append(i)
                    progress = True
                    break
    return [np.array(p, dtype=np.intp) for p in drawn]


def stratified_design(
    scores: Mapping[str, NDArray[np.float64]],
    candidates: NDArray[np.intp],
    n_sets: int = 3,
    strata: Sequence[Stratum] = DEFAULT_STRATA,
    seed: int = 0,
    strict: bool = False,
) -> Design:
    """Draw the pairs of ``n_sets`` sets, stratum by stratum, no pair twice.

    For each stratum in order, the unused candidates meeting its conditions are shuffled
    and dealt round-robin to the sets, ``stratum.size`` each, so a scarce stratum is
    shared evenly rather than used up by the first set. Where that leaves a stratum short
    although an earlier stratum took pairs it could have had (on a small input the
    ``random`` stratum, drawn first, would take every pair), the strata take turns
    instead, each drawing one pair per turn, the scarcest stratum first, so that every
    stratum gets its share of the pairs that exist.

    Parameters
    ----------
    scores : mapping of metric name to array
        Per-pair scores (indexed like the pairs) of every metric the strata name.
    candidates : array of int
        Indices of the pairs that may be drawn (e.g. :func:`distinct_pairs`).
    n_sets : int
        Number of sets.
    strata : sequence of Stratum
        Strata of each set, drawn in this order.
    seed : int
        Seed of the draw.
    strict : bool
        Raise instead of recording a :class:`Shortfall` when a stratum runs short.

    Examples
    --------
    >>> wrd = np.array([0.1, 0.9, 0.3, 0.95])
    >>> d = stratified_design({"wrd": wrd}, np.arange(4), 2, [parse_stratum("1:wrd>=0.8")])
    >>> sorted(i for s in d.sets for i, _ in s)
    [1, 3]
    """
    if n_sets < 1:
        raise WrdscoreError(f"the number of sets must be at least 1, got {n_sets}")
    if not strata:
        raise WrdscoreError("a study needs at least one stratum")
    missing = [m for m in strata_metrics(strata) if m not in scores]
    if missing:
        noun = "metric" if len(missing) == 1 else "metrics"
        raise WrdscoreError(f"the strata need scores of {noun} {', '.join(missing)}")
    rng = np.random.default_rng(check_seed(seed))
    eligible = [_eligible(scores, candidates, stratum) for stratum in strata]
    drawn = _in_order(rng, eligible, strata, n_sets)
    taken = np.zeros(candidates.size, dtype=bool)
    for k, picks in enumerate(drawn):
        # A stratum that ran short although an earlier one took pairs it could have had
        # (the random stratum of a small input takes every pair): draw them all again,
        # a few pairs per stratum at a time, so that each gets its share of what exists.
        if picks.size < strata[k].size * n_sets and np.any(eligible[k] & taken):
            drawn = _in_turns(rng, eligible, strata, n_sets)
            break
        taken[picks] = True
    sets: list[list[tuple[int, str]]] = [[] for _ in range(n_sets)]
    shortfalls = []
    for stratum, picks in zip(strata, drawn, strict=True):
        for k in range(n_sets):
            mine = candidates[picks[k::n_sets]]
            sets[k].extend((int(i), stratum.name) for i in mine)
            if mine.size < stratum.size:
                shortfalls.append(Shortfall(k + 1, stratum.name, stratum.size, int(mine.size)))
    empty = [k + 1 for k, members in enumerate(sets) if not members]
    if empty:
        raise WrdscoreError(
            f"set {empty[0]} got no pairs: no unused pair meets any stratum "
            f"({candidates.size} distinct pairs to draw from)"
        )
    if strict and shortfalls:
        first = shortfalls[0]
        raise WrdscoreError(
            f"set {first.set}, stratum {first.stratum}: needs "
            f"{counted(first.wanted, 'pair')}, only {first.got} left ({len(shortfalls)} "
            "stratum/set short in all; drop --strict to take what exists)"
        )
    return Design(sets, shortfalls)
