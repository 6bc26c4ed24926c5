"""The cases no rating-free signal may use: the paper's rated pairs and their differing words.

A signal that judges scorers on cases drawn from the 150 rated pairs (or from the words
that tell a rated pair's sides apart, ``blank``/``empty`` of "is blank"/"is empty") would
no longer be rating-free: the ratings would leak into every choice made with it.
"""

from __future__ import annotations

from collections.abc import Iterable

from wrdscore.corpora import to_tokens
from wrdscore.human_eval import load_paper_ratings


def rated_cases() -> set[frozenset[str]]:
    """Every rated pair, and every (word only in the reference, word only in the
    prediction) pair of one rated pair, each as a ``frozenset`` of its two texts.

    Examples
    --------
    >>> cases = rated_cases()
    >>> frozenset(("is blank", "is empty")) in cases, frozenset(("blank", "empty")) in cases
    (True, True)
    >>> frozenset(("cfg", "config")) in cases
    False
    """
    ratings = load_paper_ratings()
    cases: set[frozenset[str]] = set()
    for ref, pred in zip(ratings.references, ratings.predictions, strict=True):
        r, p = ref.split(), pred.split()
        cases.add(frozenset((ref, pred)))
        cases.update(frozenset((a, b)) for a in r if a not in p for b in p if b not in r)
    return cases


def rated_among(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs of texts (names, or summaries) that are rated cases once split as the
    paper split names (:func:`rated_cases`), in their order: what a signal must not hold.

    Examples
    --------
    >>> rated_among([("isBlank", "isEmpty"), ("getName", "fetchName")])
    [('isBlank', 'isEmpty')]
    """
    rated = rated_cases()
    return [
        (a, b)
        for a, b in pairs
        if frozenset((" ".join(to_tokens(a)), " ".join(to_tokens(b)))) in rated
    ]
