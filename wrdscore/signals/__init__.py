"""Signals without ratings: does a scorer put pairs that should be alike above others?

A metric is chosen, and its defaults fixed, on signals that come from code and unrated
data, never on the ratings it is then judged on. Each signal here is an AUC (the chance
that a random positive scores above a random negative, ties counting half; 0.5 is
chance) or a rank:

- :func:`split_renames` splits rename pairs (such as VarCLR's) once, by a hash of each
  pair, into a tuning part and a held-out part, and :func:`negative_pairs` draws random
  or related non-renames against the held-out part;
- :func:`retrieval_queries` and :func:`retrieval` rank each documented method's own
  Javadoc summary among the summaries of its class's other methods, and
  :func:`rank_first` ranks any own text among its candidates;
- :func:`auc` scores positives against negatives;
- :func:`rated_cases` lists what no signal may use: the 150 rated pairs and their
  differing words (each signal's cases are tested against it), and
  :func:`rated_among` finds them among a signal's pairs.

Scorers are passed in as functions (references and predictions in, one value per pair
out), so this package reads corpora but needs no metric. ``scripts/default_signals.py``
chose the bundled default with them.
"""

from wrdscore.signals._ranking import (
    Query,
    Ranking,
    Scorer,
    auc,
    rank_first,
    retrieval,
    retrieval_queries,
)
from wrdscore.signals._rated import rated_among, rated_cases
from wrdscore.signals._renames import (
    HELD_OUT_MODULUS,
    SEED,
    held_out,
    negative_pairs,
    pairs_sha256,
    read_renames,
    split_renames,
)

__all__ = [
    "HELD_OUT_MODULUS",
    "SEED",
    "Query",
    "Ranking",
    "Scorer",
    "auc",
    "held_out",
    "negative_pairs",
    "pairs_sha256",
    "rank_first",
    "rated_among",
    "rated_cases",
    "read_renames",
    "retrieval",
    "retrieval_queries",
    "split_renames",
]
