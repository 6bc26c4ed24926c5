"""The metrics: one module per metric family, all sharing :mod:`wrdscore.metrics.base`.

- :mod:`~wrdscore.metrics.wrd`: WRDScore (optimal transport over token vectors);
- :mod:`~wrdscore.metrics.overlap`: exact match, sub-token ROUGE/F1 and friends;
- :mod:`~wrdscore.metrics.wmd`: Word Mover's Distance and its tempered variants;
- :mod:`~wrdscore.metrics.bertscore`: greedy-matching BERTScore over static vectors;
- :mod:`~wrdscore.metrics.sentence`: whole-name vector similarities (SBERT-style, CKA);
- :mod:`~wrdscore.metrics.bleu`: BLEU and chrF, computed by sacrebleu.

A new metric is a new public module here that subclasses :class:`Metric` (or
:class:`EmbeddingMetric`) and decorates the class with :func:`register`; the registry
(:data:`METRICS`, :func:`get_metric`) imports every public module of this package on
first use, so nothing else needs editing.
"""

from wrdscore.metrics._centering import CENTERING_MODES, center, cosine_matrix, unit_rows
from wrdscore.metrics.base import (
    METRICS,
    EmbeddingMetric,
    Metric,
    ScoreResult,
    TokenBatch,
    build_metrics,
    get_metric,
    metric_class,
    register,
    resolve_embeddings,
)

__all__ = [
    "CENTERING_MODES",
    "METRICS",
    "EmbeddingMetric",
    "Metric",
    "ScoreResult",
    "TokenBatch",
    "build_metrics",
    "center",
    "cosine_matrix",
    "get_metric",
    "metric_class",
    "register",
    "resolve_embeddings",
    "unit_rows",
]
