"""wrdscore: judge predicted code identifiers against the true ones.

Subpackages, in the direction data flows:

- :mod:`wrdscore.corpora` ingests Java sources and splits identifiers into sub-tokens;
- :mod:`wrdscore.embeddings` trains and loads token embeddings;
- :mod:`wrdscore.metrics` scores predictions (WRDScore and its family);
- :mod:`wrdscore.human_eval` runs studies of agreement with human raters.

:mod:`wrdscore.signals` holds the signals without ratings that defaults are chosen with.
"""

from pathlib import Path

from wrdscore._lazy import lazy_getattr

__version__ = "0.1.0"

#: The Hugging Face ``evaluate`` module shipped with the package, with its metric card:
#: ``evaluate.load(str(EVALUATE_MODULE))`` loads it offline.
EVALUATE_MODULE = Path(__file__).resolve().parent / "data" / "evaluate" / "wrdscore_metric"

# The scoring API, imported on first use so `import wrdscore` (and the CLI's startup)
# does not pay for numpy, gensim and POT until a metric is needed.
_LAZY = {
    "WRDScore": "metrics.wrd",
    "get_metric": "metrics",
    "METRICS": "metrics",
    "ScoreResult": "metrics",
    "Metric": "metrics",
    "EmbeddingMetric": "metrics",
}
__all__ = ["EVALUATE_MODULE", "__version__", *_LAZY]
__getattr__ = lazy_getattr("wrdscore", _LAZY)
