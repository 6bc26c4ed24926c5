"""Score a study's pairs with metrics of the scoring library, by name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from wrdscore.base import METRICS, EmbeddingMetric, get_metric
from wrdscore.embeddings import TokenEmbeddings, load_embeddings
from wrdscore.errors import WrdscoreError

#: How reports name the default metrics: their headline value is F1.
LABELS = {"rouge1": "ROUGE-1 F", "wrd": "WRDScore F1", "bertscore": "BERTScore F1"}


@dataclass(frozen=True)
class MetricScores:
    """One metric's per-pair headline scores and the signature that reproduces them."""

    name: str
    scores: NDArray[np.float64]
    signature: str

    @property
    def label(self) -> str:
        """Display name (``WRDScore F1`` for ``wrd``)."""
        return LABELS.get(self.name, self.name)


def check_metrics(metrics: Sequence[str]) -> None:
    """Fail early, before any ratings are read, on an empty or unknown metric list.

    Examples
    --------
    >>> check_metrics(["rouge1", "wrd"])
    """
    if not metrics:
        raise WrdscoreError("no metric to score with")
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise WrdscoreError(f"unknown metric {unknown[0]!r}; choose one of {', '.join(METRICS)}")


def score_pairs(
    references: Sequence[str],
    predictions: Sequence[str],
    metrics: Sequence[str],
    embeddings: TokenEmbeddings | str | Path | None = None,
) -> dict[str, MetricScores]:
    """Score every pair with each named metric (``get_metric(name, embeddings=...)``).

    The embeddings are loaded once, and only if a metric needs them; ``None`` means the
    bundled default.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> s = score_pairs(["size"], ["count"], ["wrd"], emb)
    >>> round(float(s["wrd"].scores[0]), 2)
    0.8
    """
    check_metrics(metrics)
    if any(issubclass(METRICS[m], EmbeddingMetric) for m in metrics) and not isinstance(
        embeddings, TokenEmbeddings
    ):
        embeddings = load_embeddings(None if embeddings is None else str(embeddings))
    out = {}
    for name in dict.fromkeys(metrics):
        result = get_metric(name, embeddings=embeddings).score(list(references), list(predictions))
        out[name] = MetricScores(
            name, np.asarray(result.scores, dtype=np.float64), result.signature
        )
    return out
