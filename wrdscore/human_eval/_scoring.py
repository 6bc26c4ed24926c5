"""Score a study's pairs with metrics of the scoring library, by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import DEFAULT_TARGET
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.base import ItemError, build_metrics, metric_class

#: How reports name metrics (their headline value: F1, or the one score).
LABELS = {
    "rouge1": "ROUGE-1 F",
    "wrd": "WRDScore F1",
    "bertscore": "BERTScore F1",
    "bleu": "sentence BLEU",
    "chrf": "chrF",
    "judge": "LLM judge",
}
#: How reports name a metric's values against code (``wrd.code``: ``WRDScore code support``).
CODE_LABELS = {"code": "code support", "combined": "combined"}


@dataclass(frozen=True)
class MetricScores:
    """One metric's per-pair headline scores and the signature that reproduces them."""

    name: str
    scores: NDArray[np.float64]
    signature: str

    @property
    def label(self) -> str:
        """Display name (``WRDScore F1`` for ``wrd``, ``WRDScore code support`` for
        ``wrd.code``)."""
        metric, _, value = self.name.partition(".")
        if value in CODE_LABELS:
            # The metric's name without its headline value (WRDScore, not WRDScore F1).
            base = LABELS.get(metric, metric).removesuffix(" F1").removesuffix(" F")
            return f"{base} {CODE_LABELS[value]}"
        return LABELS.get(self.name, self.name)


def check_metrics(metrics: Sequence[str]) -> None:
    """Fail early, before any ratings are read, on an empty or unknown metric list.

    Examples
    --------
    >>> check_metrics(["rouge1", "wrd"])
    """
    if not metrics:
        raise WrdscoreError("no metric to score with")
    for name in metrics:
        metric_class(name)


def score_pairs(
    references: Sequence[str],
    predictions: Sequence[str],
    metrics: Sequence[str],
    embeddings: TokenEmbeddings | str | Path | None = None,
    *,
    codes: Sequence[str | Mapping[str, str]] | None = None,
    target: str = DEFAULT_TARGET,
    per_metric: Mapping[str, Mapping[str, Any]] | None = None,
    **embedding_options: Any,
) -> dict[str, MetricScores]:
    """Score every pair with each named metric.

    The metrics come from :func:`wrdscore.metrics.base.build_metrics`: the embeddings (``None``:
    the bundled default) are loaded once, only if a metric needs them, and
    ``embedding_options`` (``oov``, ``centering``) go to the embedding metrics.

    With ``codes`` (each pair's method source, or ``{"code": source, "name": name}``
    with the name to mask), every metric that can read code also
    gives ``<metric>.code``, the prediction's support in the code, and
    ``<metric>.combined``, its mix with the reference's value (see
    :meth:`wrdscore.metrics.Metric.score`), each with the signature of scoring against
    code; a metric that cannot read code gives its reference value alone. ``target``
    (``name`` or ``summary``) says how the code is read. A reference whose
    alternatives are TAB-separated (as a references file gives them to ``wrdscore
    score``) scores as its best alternative, as ``score`` scores it.
    ``per_metric`` gives options to one metric by name (the judge's server and model:
    ``{"judge": {"base_url": ..., "model": ...}}``).

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> s = score_pairs(["size"], ["count"], ["wrd"], emb)
    >>> round(float(s["wrd"].scores[0]), 2)
    0.8
    """
    check_metrics(metrics)
    out = {}
    # The target reads the code: given to every metric only where code is read.
    options = {} if codes is None else {m: {"target": target} for m in metrics}
    options = {m: {**options.get(m, {}), **(per_metric or {}).get(m, {})} for m in metrics}
    refs: list[Any] = [
        [[a] for a in r.split("\t") if a.strip()] if "\t" in r else r for r in references
    ]
    for metric in build_metrics(metrics, embeddings, options, **embedding_options):
        try:
            result = metric.score(refs, list(predictions))
            coded = (
                metric.score(refs, list(predictions), code=list(codes))
                if codes is not None and metric.code_key is not None
                else None
            )
        except ItemError as exc:
            # A study takes no option that accepts a bad item (a pair to rate needs a
            # reference): the error names none of score's (--allow-empty-reference).
            raise exc.without_allow() from None
        scores = np.asarray(result.scores, dtype=np.float64)
        out[metric.name] = MetricScores(metric.name, scores, result.signature)
        if coded is not None:
            for value in CODE_LABELS:
                name = f"{metric.name}.{value}"
                values = np.asarray(coded.values[value], dtype=np.float64)
                out[name] = MetricScores(name, values, coded.signature)
    return out
