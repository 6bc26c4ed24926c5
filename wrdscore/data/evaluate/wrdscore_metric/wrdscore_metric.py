"""WRDScore and its family as a Hugging Face ``evaluate`` metric.

Load it offline from the installed package::

    import evaluate
    from wrdscore import EVALUATE_MODULE

    wrd = evaluate.load(str(EVALUATE_MODULE))
    wrd.compute(predictions=["get name"], references=["getUserName"])

Every number comes from :meth:`wrdscore.metrics.Metric.score`, the function ``wrdscore
score`` runs, so the two agree; ``metric=`` picks any registered metric (``rouge1``,
``bertscore``...), ``code=`` scores against each method's code as ``score --code`` does.
"""

from __future__ import annotations

from typing import Any

import datasets
import evaluate

_DESCRIPTION = """WRDScore (Mussabayev 2024) scores predicted method names or code summaries
against reference ones by an optimal transport of their sub-tokens' embedding weights, so
near-synonyms earn credit. With code, each prediction also gets its support in its
method's code, and a combined value. The wrdscore package computes every number."""

_CITATION = """@misc{mussabayev2024wrdscore,
  title={WRDScore: New Metric for Evaluation of Natural Language Generation Models},
  author={Mussabayev, Ravil},
  year={2024}
}"""

_INPUTS = """
Args:
    predictions: list of predicted names or summaries (strings).
    references: list of reference names or summaries (strings), one per prediction.
    metric: a wrdscore metric name (default "wrd"; "rouge1", "bertscore", "sentence"...).
    code: optional list of each method's source code: adds code support and combined.
    target: "name" (default) or "summary": how the code is read.
    embeddings: optional model folder (default: the bundled model).
    options: optional dict of the metric's own options (e.g. {"weights": "idf"}).
Returns:
    the corpus values (f1, precision, recall or score; code and combined with code),
    "scores": the headline value of every pair, and "signature".
Examples:
    >>> wrd = evaluate.load("path/to/wrdscore_metric")
    >>> wrd.compute(predictions=["get name"], references=["getUserName"])["f1"]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _INPUTS)
class WrdscoreMetric(evaluate.Metric):
    """The wrdscore metrics, scored by the wrdscore package."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_INPUTS,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                }
            ),
            homepage="https://pypi.org/project/wrdscore/",
        )

    def _compute(
        self,
        predictions: list[str],
        references: list[str],
        metric: str = "wrd",
        code: list[Any] | None = None,
        target: str = "name",
        embeddings: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        from wrdscore.metrics import build_metrics

        extra = dict(options or {})
        if code is not None:
            extra["target"] = target
        (scorer,) = build_metrics([metric], embeddings, {metric: extra})
        result = scorer.score(list(references), list(predictions), code=code)
        return {
            **result.corpus,
            "scores": result.scores.tolist(),
            "signature": result.signature,
        }
