"""wrdscore: judge predicted code identifiers against the true ones.

Subpackages, in the direction data flows:

- :mod:`wrdscore.corpora` ingests Java sources and splits identifiers into sub-tokens;
- :mod:`wrdscore.embeddings` trains and loads token embeddings;
- the metric modules in this package score predictions (WRDScore and its family);
- :mod:`wrdscore.human_eval` runs studies of agreement with human raters.
"""

__version__ = "0.1.0"
