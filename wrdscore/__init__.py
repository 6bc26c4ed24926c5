"""wrdscore: judge predicted code identifiers against the true ones.

Subpackages, in the direction data flows:

- :mod:`wrdscore.corpora` ingests Java sources and splits identifiers into sub-tokens;
- :mod:`wrdscore.embeddings` trains and loads token embeddings;
- :mod:`wrdscore.metrics` scores predictions (WRDScore and its family);
- :mod:`wrdscore.human_eval` runs studies of agreement with human raters.
"""

__version__ = "0.1.0"

# The scoring API, imported on first use so `import wrdscore` (and the CLI's startup)
# does not pay for numpy, gensim and POT until a metric is needed.
_LAZY = {
    "WRDScore": "wrdscore.metrics.wrd",
    "get_metric": "wrdscore.metrics",
    "METRICS": "wrdscore.metrics",
    "ScoreResult": "wrdscore.metrics",
    "Metric": "wrdscore.metrics",
    "EmbeddingMetric": "wrdscore.metrics",
}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'wrdscore' has no attribute {name!r}")
