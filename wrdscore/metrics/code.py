"""Scoring against a method's code: code support, combined scores and support models.

A prediction is judged the way people judge it, by reading the method: *code support*
is how well the prediction is grounded in the words of the method's code (read by
:func:`wrdscore.corpora.read_code`: identifiers split into sub-tokens, keywords and
punctuation dropped, the declared name masked when the target is a name). Each metric
that can read code says which of its values against the code is its raw support
(:attr:`~wrdscore.metrics.Metric.code_key`): for precision/recall metrics the precision,
the prediction's tokens matched onto the code's (the code says far more than any name,
so recall against it means nothing), for single-valued similarities the value itself.
A *support model* (:class:`SupportModel`, chosen by name: :data:`SUPPORT_MODELS`) turns
the raw support into the code support, so that copying the code does not win.

With references too, the *combined* value is

.. math:: \\mathrm{combined} = (1 - w)\\, s_{\\mathrm{ref}} + w\\, s_{\\mathrm{code}}

with ``s_ref`` the metric's headline value against the reference and ``w`` the
scorer's weight. Its default, 0.5, is chosen on principle, not fitted: the reference and
the code are two independent views of what the method does, neither known to be the
better judge of a prediction, so they count evenly. (The only ratings in this repository
have no code, so nothing here could have been fitted to them.)

The parts, each in its own private module of :mod:`wrdscore.metrics` re-exported here:
:class:`CodeScorer` (``_code_scorer``: options, reading once, empty-side rules,
``combine``, the signature's code fields), the support models and their registry
(``_code_models``), the priors of the shipped tables (``_code_prior``), reading code
items (``_code_read``) and what ``explain --code`` shows (``_code_transport``). A
metric holds a :class:`CodeScorer` when it can read code (its ``code_scorer``) and
offers it only its raw support (:meth:`~wrdscore.metrics.Metric._code_support`).
"""

from wrdscore.metrics._code_models import (
    COVERAGE_SUPPORT,
    DEFAULT_SUPPORT,
    GATE_SUPPORT,
    SUPPORT_MODELS,
    Coverage,
    DistinctCoverage,
    NoPrior,
    PriorGate,
    SupportInput,
    SupportModel,
    code_prior,
    register_support,
    support_model,
)
from wrdscore.metrics._code_prior import (
    END,
    PRIOR_FILE,
    QUANTILES,
    START,
    SequenceModel,
    TextPrior,
    best_match,
    best_match_precision,
    copied_counts,
    read_prior,
    table_part,
)
from wrdscore.metrics._code_read import CodeItem, ReadCode, prediction_tokens, read_codes
from wrdscore.metrics._code_scorer import (
    CODE_KEYS,
    CODE_OPTIONS,
    DEFAULT_CODE_WEIGHT,
    CodeScorer,
    check_code_options,
    combine,
)
from wrdscore.metrics._code_transport import CodeTransport, CoverageParts

__all__ = [
    "CODE_KEYS",
    "CODE_OPTIONS",
    "COVERAGE_SUPPORT",
    "DEFAULT_CODE_WEIGHT",
    "DEFAULT_SUPPORT",
    "END",
    "GATE_SUPPORT",
    "PRIOR_FILE",
    "QUANTILES",
    "START",
    "SUPPORT_MODELS",
    "CodeItem",
    "CodeScorer",
    "CodeTransport",
    "Coverage",
    "CoverageParts",
    "DistinctCoverage",
    "NoPrior",
    "PriorGate",
    "ReadCode",
    "SequenceModel",
    "SupportInput",
    "SupportModel",
    "TextPrior",
    "best_match",
    "best_match_precision",
    "check_code_options",
    "code_prior",
    "combine",
    "copied_counts",
    "prediction_tokens",
    "read_codes",
    "read_prior",
    "register_support",
    "support_model",
    "table_part",
]
