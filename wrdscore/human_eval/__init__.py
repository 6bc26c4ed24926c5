"""Human-agreement studies: design a study, collect ratings, measure metric agreement."""

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

__all__ = [
    "Comparison",
    "Correlation",
    "Interval",
    "bootstrap_indices",
    "compare_errors",
    "correlation_intervals",
    "error_intervals",
    "error_samples",
    "krippendorff_alpha_interval",
    "percentile_interval",
    "rater_vs_others",
    "relative_improvement",
]
