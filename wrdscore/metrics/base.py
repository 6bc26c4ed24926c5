"""What every metric shares: the base classes, results and the registry.

A metric subclasses :class:`Metric` (or :class:`EmbeddingMetric` when it reads token
vectors), implements :meth:`Metric._score_tokens` on a whole batch of token lists, and
registers itself with :func:`register` in its own module of :mod:`wrdscore.metrics`
(every public module there is imported on first use of the registry). Everything a
user can get wrong (lengths, shapes, empty names, unknown options) is checked once,
by the scoring engine or the base class, so each metric only does its arithmetic.

Each job has its own private module, its public names re-exported here: :class:`Metric`
(``_metric``), :class:`EmbeddingMetric` and :class:`TokenBatch` (``_embedding``),
:class:`ScoreResult` (``_result``), the registry (``_registry``), checking what a user
gives (``_validate``), tokenising (``_tokenise``), flattening a batch (``_flatten``),
multiple references (``_alternatives``), the code options a metric takes
(``_reads_code``) and streaming files (``_engine``). This module builds several metrics
at once (:func:`build_metrics`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._embedding import (
    CACHE_TOKENS,
    EmbeddingMetric,
    TokenBatch,
    _check_vector_options,
    baseline_key,
    contextual_vectors,
    resolve_embeddings,
)
from wrdscore.metrics._metric import Metric
from wrdscore.metrics._registry import METRICS, get_metric, metric_class, register
from wrdscore.metrics._result import OOV_NAMES, ScoreResult
from wrdscore.metrics._tokenise import Prediction, Reference, Tokens
from wrdscore.metrics._validate import ItemError, check_flag

__all__ = [
    "CACHE_TOKENS",
    "METRICS",
    "OOV_NAMES",
    "EmbeddingMetric",
    "ItemError",
    "Metric",
    "Prediction",
    "Reference",
    "ScoreResult",
    "TokenBatch",
    "Tokens",
    "baseline_key",
    "build_metrics",
    "check_flag",
    "contextual_vectors",
    "get_metric",
    "metric_class",
    "register",
    "resolve_embeddings",
]


def build_metrics(
    names: Sequence[str],
    embeddings: TokenEmbeddings | str | Path | None = None,
    per_metric: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    segment: bool = True,
    clean: bool = False,
    **embedding_options: Any,
) -> list[Metric]:
    """Build several metrics that share one loaded model (what ``wrdscore score`` runs).

    The model is loaded once, and only if some metric reads vectors;
    ``embedding_options`` (``oov``, ``centering``) are checked, then go to those
    metrics only. ``segment`` and ``clean`` (see :class:`Metric`) go to every metric.
    ``per_metric`` gives options to one metric by name (``{"wrd": {"weights": "idf"}}``);
    they win over the others.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0]})
    >>> metrics = build_metrics(["wrd"], emb, {"wrd": {"clip": False}}, oov="drop")
    >>> [m.signature for m in metrics]  # doctest: +ELLIPSIS
    ['wrdscore|emb:custom@sha:...|w:norm|c:none|oov:drop|clip:no|solver:emd|seg:jdk17c20+wiki|v:0.1.0']
    """
    # Checked even when no metric reads vectors, so a typo is never silently ignored.
    _check_vector_options(**embedding_options)
    names = list(dict.fromkeys(names))
    per_metric = dict(per_metric or {})
    stray = sorted(set(per_metric) - set(names))
    if stray:
        raise WrdscoreError(f"options given for {', '.join(stray)}, which is not being scored")
    classes = [metric_class(n) for n in names]
    if any(issubclass(c, EmbeddingMetric) for c in classes):
        given = embeddings is not None
        embeddings = resolve_embeddings(embeddings)
        encoder = embedding_options.get("encoder")
        if encoder is not None:
            from wrdscore.embeddings.encoders import Encoder

            if not isinstance(encoder, Encoder):
                # One encoder loaded once, shared by every metric (bert_score's one scorer).
                embedding_options["encoder"] = Encoder(
                    encoder,
                    layer=embedding_options.pop("layer", None),
                    device=embedding_options.pop("device", None),
                    batch_size=embedding_options.pop("batch_size", None),
                )
            embedding_options["fuse"] = given
    shared = {"segment": segment, "clean": clean}
    return [
        c(embeddings, **{**shared, **embedding_options, **per_metric.get(n, {})})
        if issubclass(c, EmbeddingMetric)
        else c(embeddings, **{**shared, **per_metric.get(n, {})})
        for n, c in zip(names, classes, strict=True)
    ]
