"""Which code options a metric takes, and whether it can score against code.

A metric that reads code (one with a :attr:`~wrdscore.metrics.Metric.code_key`) takes
the code options (:data:`~wrdscore.metrics.code.CODE_OPTIONS`) or a ready
:class:`~wrdscore.metrics.code.CodeScorer`, and scores against code through that scorer.
A metric that cannot read code takes none of them: BLEU, chrF and ROUGE-L refuse each
one with the reason they cannot read code, and the LLM judge, which shows the code to its
model whole, takes only what it uses (its target and the code's language).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wrdscore.errors import WrdscoreError
from wrdscore.metrics.code import CODE_OPTIONS, CodeScorer

if TYPE_CHECKING:
    from wrdscore.metrics._metric import Metric

#: The code options' names as the scorer takes them, where they differ.
_SCORER_NAMES = {"code_weight": "weight", "code_support": "support"}


def take_code_scorer(metric: Metric, options: dict[str, Any]) -> CodeScorer | None:
    """Take the code options out of ``options`` (a constructor's): ``metric``'s scorer
    built from them, or the one given as ``code_scorer``; None when it cannot read code.

    Raises
    ------
    WrdscoreError
        A code option given to a metric that does not take it (saying why), or a code
        scorer and code options both.
    """
    given = options.pop("code_scorer", None)
    code = {k: options.pop(k) for k in CODE_OPTIONS if k in options}
    if metric.code_key is None:
        if given is not None or code:
            why = metric.no_code_reason or "it has no value that reads code"
            if type(metric).taken_code_options():
                stray = ", ".join(code) or "code scorer"
                raise WrdscoreError(f"metric {metric.name!r} takes no {stray}: {why}")
            raise WrdscoreError(f"metric {metric.name!r} cannot score against code: {why}")
        return None
    if given is not None:
        if code:
            raise WrdscoreError(f"give a code scorer or code options ({', '.join(code)}), not both")
        return given
    code = {"code_support": metric.default_code_support, **code}
    return CodeScorer(**{_SCORER_NAMES.get(k, k): v for k, v in code.items()})


def code_refusal(metric: Metric) -> str | None:
    """Why ``metric``, with its settings, cannot score against code (None: it can)."""
    if metric.code_key is None:
        why = metric.no_code_reason or "it has no value that reads code"
        return f"metric {metric.name!r} cannot score against code: {why}"
    if getattr(metric, "rescale", False):
        return (
            f"metric {metric.name!r}: rescaling does not apply to code support (the "
            "baselines are for pairs of names); score against code without --rescale"
        )
    if getattr(metric, "centering", None) == "batch":
        return (
            f"metric {metric.name!r}: centering 'batch' does not apply to code support "
            "(the code is not part of the batch mean); choose another centering"
        )
    return None
