"""The metrics: one module per metric family, all sharing :mod:`wrdscore.metrics.base`.

- :mod:`~wrdscore.metrics.wrd`: WRDScore (optimal transport over token vectors);
- :mod:`~wrdscore.metrics.overlap`: exact match, sub-token ROUGE/F1 and friends;
- :mod:`~wrdscore.metrics.wmd`: Word Mover's Distance and its tempered variants;
- :mod:`~wrdscore.metrics.bertscore`: greedy-matching BERTScore over static vectors;
- :mod:`~wrdscore.metrics.sentence`: whole-name vector similarities (SBERT-style, CKA);
- :mod:`~wrdscore.metrics.bleu`: BLEU and chrF, computed by sacrebleu.

Rescaling baselines (:func:`add_baselines`) are computed here too: they need metrics,
so they are a step after training that reads a finished MODEL_DIR, and the embeddings
package stays free of metrics.

A new metric is a new public module here that subclasses :class:`Metric` (or
:class:`EmbeddingMetric`) and decorates the class with :func:`register`; the registry
(:data:`METRICS`, :func:`get_metric`) imports every public module of this package on
first use, so nothing else needs editing.
"""

from wrdscore.metrics._baseline import (
    BASELINE_CENTERINGS,
    BASELINE_OPTIONS,
    BASELINE_PAIRS,
    BASELINE_SEED,
    add_baselines,
    add_encoder_baselines,
    baseline_settings,
    compute_baselines,
    sample_name_pairs,
)
from wrdscore.metrics._centering import CENTERING_MODES, center, cosine_matrix, unit_rows
from wrdscore.metrics._compare import compare_values
from wrdscore.metrics._engine import (
    DEFAULT_CHUNK_PAIRS,
    OOV_NAMES,
    CorpusScores,
    default_jobs,
    first_names,
    score_files,
)
from wrdscore.metrics._registry import canonical_name
from wrdscore.metrics.base import (
    METRICS,
    EmbeddingMetric,
    Metric,
    ScoreResult,
    TokenBatch,
    baseline_key,
    build_metrics,
    get_metric,
    metric_class,
    register,
    resolve_embeddings,
)

__all__ = [
    "BASELINE_CENTERINGS",
    "BASELINE_OPTIONS",
    "BASELINE_PAIRS",
    "BASELINE_SEED",
    "CENTERING_MODES",
    "DEFAULT_CHUNK_PAIRS",
    "METRICS",
    "OOV_NAMES",
    "CorpusScores",
    "EmbeddingMetric",
    "Metric",
    "ScoreResult",
    "TokenBatch",
    "add_baselines",
    "add_encoder_baselines",
    "baseline_key",
    "baseline_settings",
    "build_metrics",
    "canonical_name",
    "center",
    "compare_values",
    "compute_baselines",
    "cosine_matrix",
    "default_jobs",
    "first_names",
    "get_metric",
    "metric_class",
    "register",
    "resolve_embeddings",
    "sample_name_pairs",
    "score_files",
    "unit_rows",
]
