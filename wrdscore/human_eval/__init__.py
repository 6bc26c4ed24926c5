"""Human-agreement studies: design a study, collect ratings, measure metric agreement.

The routine is three steps: :func:`stratified_design` + :func:`write_study` draw the
pairs and write rating sheets and forms; :func:`load_sheet_ratings` (or
:func:`load_published_pairs`, or :func:`load_paper_ratings` for the WRDScore paper's
ratings shipped in the package) reads the ratings back, strictly; :func:`analyze` +
:func:`write_report` measure how close each metric comes to people.
"""

from wrdscore.human_eval._analysis import (
    LEVEL,
    Agreement,
    Analysis,
    MetricAnalysis,
    SetView,
    analyze,
)
from wrdscore.human_eval._form import render_form
from wrdscore.human_eval._plots import plot_bootstrap, plot_scatter
from wrdscore.human_eval._ratings import (
    PACKAGED_RATINGS,
    PAPER_RATINGS,
    HumanRatings,
    deduplicate,
    expand_ratings,
    load_paper_ratings,
    load_published_pairs,
    load_sheet_ratings,
    packaged_ratings_path,
    select,
)
from wrdscore.human_eval._report import render_markdown, summary_lines, write_report
from wrdscore.human_eval._sample import (
    DEFAULT_STRATA,
    Condition,
    Design,
    Shortfall,
    Stratum,
    distinct_pairs,
    pair_key,
    parse_stratum,
    strata_metrics,
    stratified_design,
)
from wrdscore.human_eval._scoring import LABELS, MetricScores, score_pairs
from wrdscore.human_eval._sheets import Study, StudyPair, read_study, write_study
from wrdscore.human_eval._stats import (
    Comparison,
    Correlation,
    Interval,
    bootstrap_indices,
    compare_errors,
    correlation_intervals,
    error_intervals,
    error_samples,
    krippendorff_alpha_interval,
    percentile_interval,
    rater_vs_others,
    relative_improvement,
)
from wrdscore.human_eval._study import DEFAULT_METRICS, analyze_study, read_names, sample_study

__all__ = [
    "DEFAULT_METRICS",
    "DEFAULT_STRATA",
    "LABELS",
    "LEVEL",
    "PACKAGED_RATINGS",
    "PAPER_RATINGS",
    "Agreement",
    "Analysis",
    "Comparison",
    "Condition",
    "Correlation",
    "Design",
    "HumanRatings",
    "Interval",
    "MetricAnalysis",
    "MetricScores",
    "SetView",
    "Shortfall",
    "Stratum",
    "Study",
    "StudyPair",
    "analyze",
    "analyze_study",
    "bootstrap_indices",
    "compare_errors",
    "correlation_intervals",
    "deduplicate",
    "distinct_pairs",
    "error_intervals",
    "error_samples",
    "expand_ratings",
    "krippendorff_alpha_interval",
    "load_paper_ratings",
    "load_published_pairs",
    "load_sheet_ratings",
    "packaged_ratings_path",
    "pair_key",
    "parse_stratum",
    "percentile_interval",
    "plot_bootstrap",
    "plot_scatter",
    "rater_vs_others",
    "read_names",
    "read_study",
    "relative_improvement",
    "render_form",
    "render_markdown",
    "sample_study",
    "score_pairs",
    "select",
    "strata_metrics",
    "stratified_design",
    "summary_lines",
    "write_report",
    "write_study",
]
