"""Distributional confirmation of mined synonyms, before they are used to specialise.

A mined synonym rests on little: two names sharing a Javadoc summary in two places is
enough (``get``/``testable``: ZooKeeper documents its test hook
``testableRemoteSocketAddress`` like ``getRemoteSocketAddress``). Counter-fitting then
pulls the pair to a cosine near 1, whatever the rest of the corpus says. Abbreviations
are confirmed by the name frames they share and contrasts by how often they alternate;
a synonym is confirmed here by the vectors being specialised: the two tokens must
already be closer than most pairs of tokens are. Curated pairs are not checked (the list
is the confirmation), nor are contrasts and abbreviations.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from gensim.models import KeyedVectors
from numpy.typing import NDArray

from wrdscore.embeddings.specialise._constraints import CURATED_SOURCE, Constraints, MinedPair
from wrdscore.embeddings.specialise._sphere import unit_rows
from wrdscore.errors import WrdscoreError

#: A mined synonym must be closer than this share of random token pairs of the model.
#: Nine in ten: a pair in the top tenth is related by the vectors, not by chance; the
#: random pairs of the bundled model's base vectors have cosine 0.16 at the median and
#: 0.38 at the 90th percentile.
CONFIRM_QUANTILE = 0.9
#: Random pairs drawn to estimate the quantile (its standard error is then below 0.005).
SAMPLE_PAIRS = 20_000


@dataclass(frozen=True)
class Confirmation:
    """What :func:`confirm_synonyms` kept and dropped.

    Attributes
    ----------
    quantile : float
        The share of random token pairs a synonym must be closer than.
    threshold : float or None
        That quantile of the cosines of random token pairs: the least cosine kept.
        None when no mined synonym had both tokens in the vocabulary (nothing to check,
        so no threshold was computed).
    kept : int
        Mined synonyms confirmed (or not checkable: a token outside the vocabulary,
        which specialisation skips anyway).
    dropped : list of MinedPair
        Mined synonyms whose cosine is below ``threshold``.
    """

    quantile: float
    threshold: float | None
    kept: int
    dropped: list[MinedPair]

    def summary(self) -> dict[str, Any]:
        """As stored in ``model.json`` under ``specialise.confirm``."""
        return {
            "quantile": self.quantile,
            "threshold": None if self.threshold is None else round(self.threshold, 4),
            "sample_pairs": SAMPLE_PAIRS,
            "synonyms_kept": self.kept,
            "synonyms_dropped": len(self.dropped),
            "dropped": [f"{p.a}/{p.b}" for p in self.dropped],
        }


def related_threshold(
    vectors: NDArray[np.floating], quantile: float = CONFIRM_QUANTILE, seed: int = 0
) -> float:
    """The ``quantile`` of the cosines of random pairs of distinct rows.

    ``SAMPLE_PAIRS`` pairs are drawn uniformly (seeded, so a model always gets the same
    threshold); rows of zeros take no part.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> t = related_threshold(rng.normal(size=(500, 20)))
    >>> 0.2 < t < 0.4  # random 20-d directions: cosines spread about 0 with sd 0.22
    True
    """
    unit, norms = unit_rows(np.asarray(vectors, dtype=np.float64))
    return _threshold(unit, norms, quantile, seed)


def _threshold(
    unit: NDArray[np.float64], norms: NDArray[np.float64], quantile: float, seed: int
) -> float:
    """:func:`related_threshold` of vectors already split into directions and norms."""
    if not 0.0 < quantile < 1.0:
        raise WrdscoreError(f"the confirmation quantile must be between 0 and 1, not {quantile}")
    rows = np.flatnonzero(norms[:, 0] > 0)
    if len(rows) < 2:
        raise WrdscoreError("confirming synonyms needs at least two non-zero vectors")
    rng = np.random.default_rng(seed)
    i = rows[rng.integers(0, len(rows), SAMPLE_PAIRS)]
    j = rows[rng.integers(0, len(rows), SAMPLE_PAIRS)]
    distinct = i != j
    cosines = np.einsum("ij,ij->i", unit[i[distinct]], unit[j[distinct]])
    return float(np.quantile(cosines, quantile))


def confirm_synonyms(
    constraints: Constraints, kv: KeyedVectors, quantile: float = CONFIRM_QUANTILE
) -> tuple[Constraints, Confirmation]:
    """Drop the mined synonyms that the vectors do not already relate.

    A mined synonym ``(a, b)`` is kept when

    .. math:: \\cos(v_a, v_b) \\ge Q_q\\{\\cos(v_x, v_y)\\}

    the ``q`` quantile (default 0.9) of the cosines of random token pairs of ``kv``
    (:func:`related_threshold`). Summaries shared by a copied test hook or a generated
    class give pairs the rest of the corpus never relates (``get``/``testable``,
    cosine 0.22 in the bundled model's base vectors); synonyms a corpus really shows
    are used in similar places too (``listing``/``listings`` 0.84,
    ``alternate``/``alternative`` 0.89). Curated synonyms, contrasts and abbreviations
    pass unchanged, and so does a pair with a token outside the vocabulary (nothing to
    compare; specialisation skips it).

    The price: a synonym that distribution alone misses and two summaries catch is lost
    too (``add``/``offer``, 0.20); the curated list is the place for such pairs.

    Parameters
    ----------
    constraints : Constraints
        Mined (and curated) pairs.
    kv : gensim KeyedVectors
        The vectors to be specialised, as trained.
    quantile : float
        The share of random pairs a synonym must be closer than.

    Returns
    -------
    (Constraints, Confirmation)
        The constraints without the dropped synonyms, and what was done.

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> rng = np.random.default_rng(0)
    >>> vecs = {f"t{i}": rng.normal(size=8) for i in range(200)}
    >>> vecs["offer"] = vecs["t0"] + 0.1 * rng.normal(size=8)
    >>> emb = TokenEmbeddings.from_vectors({"add": vecs["t0"], **vecs})
    >>> pairs = Constraints(contrast=[], abbreviation=[], synonym=[
    ...     MinedPair("synonym", "add", "offer", 2, 2, "", "summary"),
    ...     MinedPair("synonym", "t1", "t2", 2, 2, "", "summary")])
    >>> kept, how = confirm_synonyms(pairs, emb.kv)
    >>> [(p.a, p.b) for p in kept.synonym], [(p.a, p.b) for p in how.dropped]
    ([('add', 'offer')], [('t1', 't2')])
    """
    index = kv.key_to_index
    mined_kept = sum(p.source != CURATED_SOURCE for p in constraints.synonym)
    checkable = [
        p
        for p in constraints.synonym
        if p.source != CURATED_SOURCE and p.a in index and p.b in index
    ]
    if not checkable:
        # Nothing to compare (a tiny model, or no mined synonym): no threshold needed.
        return constraints, Confirmation(quantile, None, mined_kept, [])
    unit, norms = unit_rows(np.asarray(kv.vectors, dtype=np.float64))
    threshold = _threshold(unit, norms, quantile, seed=0)
    dropped = [p for p in checkable if float(unit[index[p.a]] @ unit[index[p.b]]) < threshold]
    drop = set(dropped)  # MinedPair is frozen, so hashable
    kept = [p for p in constraints.synonym if p not in drop]
    confirmed = dataclasses.replace(constraints, synonym=kept)
    return confirmed, Confirmation(quantile, threshold, mined_kept - len(dropped), dropped)
