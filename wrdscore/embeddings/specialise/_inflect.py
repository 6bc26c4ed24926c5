"""Constraints carried over to inflected forms: ``add``/``remove`` -> ``adding``/``removing``.

Sibling mining sees method names, whose verbs and nouns are mostly in their base form
(``getRow``/``getColumn``, ``addListener``/``removeListener``); identifiers of fields,
variables and parameters use the other forms (``rows``/``columns``, ``added``/``removed``).
Specialising only the forms mined leaves the space inconsistent: in the bundled model
before this step (``3717379a``), ``reads``/``writes`` had cosine -0.03 (a mined contrast)
but ``inputs``/``outputs`` 0.71 and ``widths``/``heights`` 0.77 (their singulars are
contrasts, the plurals were not), and the synonyms ``find``/``search`` 0.90 but
``finds``/``searches`` 0.64; with this step, -0.12, -0.19 and 0.92. Morph-fitting (Vulić et al.
2017, ACL) specialises vectors with such morphological constraints; here the same
*regular* inflection of both words of a contrast is a contrast, and of both words of a
synonym a synonym. Abbreviations are not carried over:
the short form's inflection is usually another word (``pass`` + ``es`` is not
``passwords``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable

from wrdscore.embeddings.specialise._constraints import (
    _VOWELS,
    INFLECTION_SOURCE,
    Constraints,
    MinedPair,
)

#: The regular inflections carried over: plural / third person, past, present participle.
INFLECTIONS = ("s", "ed", "ing")
#: Shorter tokens are too ambiguous to inflect (``as``, ``bs`` from ``a``/``b``).
MIN_BASE_LENGTH = 3


def inflected_forms(token: str) -> dict[str, tuple[str, ...]]:
    """The spellings of ``token``'s regular inflections, most regular first.

    English spelling rules: ``-es`` after a sibilant (``boxes``), ``-ies`` after a
    consonant + ``y`` (``entries``), a final ``e`` dropped before ``-ed``/``-ing``
    (``closed``, ``closing``), and the final consonant of a consonant-vowel-consonant
    ending doubled as an alternative (``stopped``, ``getting``; but ``opened``: which one
    a word takes depends on stress, so the vocabulary decides).

    Examples
    --------
    >>> inflected_forms("stop")
    {'s': ('stops',), 'ed': ('stoped', 'stopped'), 'ing': ('stoping', 'stopping')}
    >>> inflected_forms("entry")["s"], inflected_forms("close")["ed"]
    (('entries',), ('closed',))
    """
    t = token
    if t.endswith(("s", "x", "z", "ch", "sh")):
        plural = t + "es"
    elif len(t) > 2 and t.endswith("y") and t[-2] not in _VOWELS:
        plural = t[:-1] + "ies"
    else:
        plural = t + "s"
    if t.endswith("e"):
        return {"s": (plural,), "ed": (t + "d",), "ing": (t[:-1] + "ing",)}
    if len(t) > 2 and t.endswith("y") and t[-2] not in _VOWELS:
        past: tuple[str, ...] = (t[:-1] + "ied",)
    else:
        past = (t + "ed",)
    participle: tuple[str, ...] = (t + "ing",)
    cvc = (
        len(t) >= 3
        and t[-1] not in _VOWELS | set("wxy")
        and t[-2] in _VOWELS
        and t[-3] not in _VOWELS
    )
    if cvc:
        past += (t + t[-1] + "ed",)
        participle += (t + t[-1] + "ing",)
    return {"s": (plural,), "ed": past, "ing": participle}


def inflect_pairs(pairs: Iterable[MinedPair], vocab: set[str] | None = None) -> list[MinedPair]:
    """The contrasts and synonyms of ``pairs`` carried over to inflected forms.

    For each contrast or synonym ``(a, b)`` of alphabetic tokens of at least
    ``MIN_BASE_LENGTH`` letters and each inflection in ``INFLECTIONS``, the pair of the
    two inflected forms is a pair of the same kind when both forms are in ``vocab``
    (the first spelling of :func:`inflected_forms` found there; with ``vocab`` None,
    every spelling of each, to list all pairs a vocabulary could give). A derived pair
    is dropped when ``pairs`` already holds the two tokens (whatever the kind: evidence
    for the forms themselves wins), when two pairs derive it with different kinds, or
    when it would pair a token with itself or with a word of its parent.

    Returns
    -------
    list of MinedPair
        The new pairs, with source ``inflection``, the parent's support and frames,
        and the example ``adding|removing <- add|remove``.

    Examples
    --------
    >>> pairs = [MinedPair("contrast", "add", "remove", 9, 3, "", "siblings")]
    >>> [(p.a, p.b) for p in inflect_pairs(pairs, {"adds", "removes", "added", "removed"})]
    [('adds', 'removes'), ('added', 'removed')]
    """
    pairs = list(pairs)
    known = {frozenset((p.a, p.b)) for p in pairs}
    derived: dict[frozenset[str], MinedPair] = {}
    kinds: dict[frozenset[str], set[str]] = {}
    for p in pairs:
        if p.kind == "abbreviation":
            continue
        if not all(t.isalpha() and len(t) >= MIN_BASE_LENGTH for t in (p.a, p.b)):
            continue
        forms_a, forms_b = inflected_forms(p.a), inflected_forms(p.b)
        for suffix in INFLECTIONS:
            for x, y in itertools.product(
                _pick(forms_a[suffix], vocab), _pick(forms_b[suffix], vocab)
            ):
                key = frozenset((x, y))
                if x == y or {x, y} & {p.a, p.b} or key in known:
                    continue
                a, b = min(x, y), max(x, y)
                example = f"{a}|{b} <- {p.a}|{p.b}"
                new = MinedPair(p.kind, a, b, p.support, p.frames, example, INFLECTION_SOURCE)
                if key not in derived:
                    derived[key] = new
                    kinds[key] = {p.kind}
                else:
                    kinds[key].add(p.kind)
    # Derived as a contrast and as a synonym at once: no evidence either way.
    return [p for key, p in derived.items() if len(kinds[key]) == 1]


def _pick(spellings: tuple[str, ...], vocab: set[str] | None) -> tuple[str, ...]:
    """The spelling to use: the first one in ``vocab``, or all of them without one."""
    if vocab is None:
        return spellings
    return next(((s,) for s in spellings if s in vocab), ())


def add_inflections(constraints: Constraints, vocab: set[str]) -> Constraints:
    """``constraints`` with :func:`inflect_pairs` of its contrasts and synonyms added.

    Examples
    --------
    >>> c = Constraints(contrast=[MinedPair("contrast", "column", "row", 5, 2, "")],
    ...                 synonym=[], abbreviation=[])
    >>> [(p.a, p.b, p.source) for p in add_inflections(c, {"rows", "columns"}).contrast]
    [('column', 'row', ''), ('columns', 'rows', 'inflection')]
    """
    new = inflect_pairs(constraints, vocab)
    return dataclasses.replace(
        constraints,
        contrast=constraints.contrast + [p for p in new if p.kind == "contrast"],
        synonym=constraints.synonym + [p for p in new if p.kind == "synonym"],
    )
