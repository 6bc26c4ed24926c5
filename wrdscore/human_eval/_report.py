"""The report folder of an analysis: ``report.md``, ``report.json`` and PNG plots."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from wrdscore.atomic import atomic_dir
from wrdscore.errors import counted
from wrdscore.human_eval._analysis import Analysis, SetView
from wrdscore.human_eval._plots import plot_bootstrap, plot_scatter
from wrdscore.human_eval._scoring import LABELS


def _num(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _p(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def _ci(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"[{low:.4f}, {high:.4f}]"


def _slug(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)


# A table of several analyses puts these cells before each analysis's rows (a set's
# name and size); the report's main tables have none.
Rows = list[tuple[list[str], Analysis]]


def _error_table(rows: Rows, head: list[str]) -> list[str]:
    lines = [
        "| "
        + " | ".join([*head, "Metric", "MSE", "MSE 95% CI", "MAE", "MAE 95% CI"])
        + " | MSE, all pairs | MAE, all pairs |",
        "| "
        + " | ".join(["---"] * (len(head) + 1) + ["---:", "---", "---:", "---"])
        + " | ---: | ---: |",
    ]
    for cells, analysis in rows:
        for m in analysis.metrics:
            mse, mae = m.errors["mse"], m.errors["mae"]
            lines.append(
                "| "
                + " | ".join([*cells, m.metric.label])
                + f" | {mse.mean:.4f} | {_ci(mse.low, mse.high)} | {mae.mean:.4f} "
                f"| {_ci(mae.low, mae.high)} | {mse.point:.4f} | {mae.point:.4f} |"
            )
    return lines


def _correlation_table(rows: Rows, head: list[str]) -> list[str]:
    lines = [
        "| " + " | ".join([*head, "Metric", "Pearson r", "Spearman rho", "Kendall tau-b"]) + " |",
        "| " + " | ".join(["---"] * (len(head) + 4)) + " |",
    ]
    for cells, analysis in rows:
        for m in analysis.metrics:
            values = [
                f"{_num(c.value)} {_ci(c.low, c.high)} (p {_p(c.p_value)})"
                for c in m.correlations.values()
            ]
            lines.append("| " + " | ".join([*cells, m.metric.label, *values]) + " |")
    return lines


def _comparison_table(rows: Rows, head: list[str]) -> list[str]:
    lines = [
        "| "
        + " | ".join([*head, "Metric", "Error", "Improvement"])
        + " | p, bootstrap t-test | p, paired t-test | p, Wilcoxon |",
        "| " + " | ".join(["---"] * (len(head) + 2)) + " | ---: | ---: | ---: | ---: |",
    ]
    for cells, analysis in rows:
        for m in analysis.metrics:
            for measure, c in (m.comparison or {}).items():
                lines.append(
                    "| "
                    + " | ".join([*cells, m.metric.label, measure.upper()])
                    + f" | {_pct(c.improvement_pct)}% | {_p(c.p_bootstrap)} "
                    f"| {_p(c.p_paired_t)} | {_p(c.p_wilcoxon)} |"
                )
    return lines


def _agreement_table(rows: Rows, head: list[str]) -> list[str]:
    lines = [
        "| " + " | ".join([*head, "Krippendorff's alpha", "Mean r with the others"]) + " |",
        "| " + " | ".join(["---"] * len(head) + ["---:", "---:"]) + " |",
    ]
    for cells, analysis in rows:
        if analysis.agreement is not None:
            a = analysis.agreement
            lines.append("| " + " | ".join([*cells, _num(a.alpha), _num(a.mean_vs_others)]) + " |")
    return lines


def _views_section(
    title: str, intro: str, views: list[SetView], head: str, analysis: Analysis
) -> list[str]:
    rows: Rows = [([v.set, str(v.pairs)], v.analysis) for v in views if v.analysis is not None]
    columns = [head, "Pairs"]
    out = ["", f"## {title}", "", intro]
    out += [
        f"- {v.set} ({counted(v.pairs, 'pair')}): no analysis, {v.reason}."
        for v in views
        if v.reason
    ]
    if not rows:
        return out
    out += ["", "Errors against human scores (lower is better):", "", *_error_table(rows, columns)]
    out += ["", "Correlations with human scores:", "", *_correlation_table(rows, columns)]
    if analysis.baseline is not None and len(analysis.metrics) > 1:
        base = LABELS.get(analysis.baseline, analysis.baseline)
        out += ["", f"Closer to people than {base}?", "", *_comparison_table(rows, columns)]
    if any(a.agreement is not None for _, a in rows):
        out += ["", "Agreement between raters:", "", *_agreement_table(rows, columns)]
    return out


def _code_note(analysis: Analysis) -> list[str]:
    """Where the raters saw each method's code: what the code-aware rows are."""
    if analysis.ratings.codes is None:
        return []
    names = [m.metric.name for m in analysis.metrics]
    coded = [n for n in names if "." not in n and f"{n}.code" in names]
    blind = [n for n in names if "." not in n and n not in coded]
    out = [
        "",
        "The raters saw each method's code (a study sampled with `--code`), so each metric "
        "that can read code is also scored against it: `<metric>.code` (code support) is how "
        "well the prediction is grounded in the code's words, with no reference; "
        "`<metric>.combined` mixes it with the value against the reference, "
        "(1 - w) * reference + w * code, w the code weight in its signature. "
        f"Scored against the code: {', '.join(coded) or 'none'}.",
    ]
    if blind:
        out[-1] += f" Cannot read code: {', '.join(blind)}."
    return out


def render_markdown(analysis: Analysis, source: str) -> str:
    """``report.md``: the paper's Table 1 with intervals, correlations, tests, agreement.

    Where the pairs span several sets, the same tables follow for each set on its own
    and, from three sets on, for all sets but one.

    Parameters
    ----------
    analysis : Analysis
        From :func:`~wrdscore.human_eval.analyze`.
    source : str
        What was analysed, in one line (shown under the title).
    """
    level = f"{analysis.level:.0%}"
    n_sets = len(analysis.sets)
    whole: Rows = [([], analysis)]
    out = [
        "# Human-agreement report",
        "",
        f"Source: {source}",
        "",
        f"{counted(len(analysis.ratings), 'rated pair')} in {counted(n_sets, 'set')}; ground "
        "truth per pair is the "
        "mean over its raters on 0-1. MSE and MAE are means over "
        f"{analysis.resamples} bootstrap resamples of the pairs (seed {analysis.seed}) with "
        f"{level} percentile intervals; 'all pairs' is the same error without resampling.",
        *_code_note(analysis),
        "",
        "## Errors against human scores (lower is better)",
        "",
        *_error_table(whole, []),
        "",
        "## Correlations with human scores",
        "",
        f"Value on all pairs, bootstrap {level} interval in brackets, p-value of scipy.stats.",
        "",
        *_correlation_table(whole, []),
    ]
    if analysis.baseline is not None and len(analysis.metrics) > 1:
        base = LABELS.get(analysis.baseline, analysis.baseline)
        out += [
            "",
            f"## Closer to people than {base}?",
            "",
            "Improvement is relative to the baseline's bootstrap mean error (positive: "
            "smaller error). p-values, two-sided: Welch's t-test on the bootstrap errors "
            "(the paper's test), paired t-test and Wilcoxon signed-rank test on the "
            "per-pair errors (the pairs are the same for both metrics).",
            "",
            *_comparison_table(whole, []),
        ]
    if analysis.agreement is not None:
        out += [
            "",
            "## Agreement between raters",
            "",
            "Krippendorff's alpha (interval): "
            f"{_num(analysis.agreement.alpha)}. Each rater's Pearson correlation with the "
            "mean of the other raters of the same pairs, the ceiling a metric can hope for: "
            f"mean {_num(analysis.agreement.mean_vs_others)}.",
            "",
            "| Rater | r with the others |",
            "| --- | ---: |",
            *(
                f"| {r} | {_num(v)} |"
                for r, v in zip(
                    analysis.agreement.raters, analysis.agreement.rater_vs_others, strict=True
                )
            ),
        ]
    if analysis.by_set:
        out += _views_section(
            "Each set on its own",
            "Does the result hold in every set? The same statistics on each set's pairs "
            f"alone ({analysis.resamples} resamples of that set, seed {analysis.seed}).",
            analysis.by_set,
            "Set",
            analysis,
        )
    if analysis.leave_one_out:
        out += _views_section(
            "Leaving one set out",
            "The same statistics on the pairs of every set but the one named: a result "
            "carried by a single set changes when that set is left out.",
            analysis.leave_one_out,
            "Without",
            analysis,
        )
    if analysis.deduplicated is not None:
        out += [
            "",
            f"## Distinct pairs only ({len(analysis.deduplicated.ratings)})",
            "",
            "Some pairs were rated more than once; here each distinct pair counts once, "
            "its human score the mean of its rows.",
            "",
            *_error_table([([], analysis.deduplicated)], []),
        ]
    elif analysis.deduplicated_reason is not None:
        out += [
            "",
            "## Distinct pairs only",
            "",
            "Some pairs were rated more than once, but the distinct pairs have no analysis: "
            f"{analysis.deduplicated_reason}.",
        ]
    out += ["", "## Metric signatures", ""]
    out += [f"- {m.metric.label}: `{m.metric.signature}`" for m in analysis.metrics]
    out += ["", "## Plots", "", "![Bootstrap MSE](plots/bootstrap-mse.png)"]
    for m in analysis.metrics:
        out += ["", f"![{m.metric.label} vs human](plots/scatter-{_slug(m.metric.name)}.png)"]
    return "\n".join(out) + "\n"


def summary_lines(analysis: Analysis) -> list[str]:
    """What ``wrdscore study analyze`` prints: each metric's errors, then a table by set.

    The table has one row per metric and part (each set on its own, then every set but
    one): the bootstrap mean MSE and MAE, Spearman's rho on the part's pairs, and, against
    the baseline, the MSE improvement and the paired t-test's p-value.

    Examples
    --------
    >>> import numpy as np
    >>> from wrdscore.human_eval import HumanRatings, MetricScores, analyze
    >>> r = HumanRatings(list("abcd"), ["1", "1", "2", "2"], list("wxyz"), list("wxyq"),
    ...                  np.array([1.0, 0.2, 0.8, 0.4]), [], None)
    >>> s = {"m": MetricScores("m", np.array([1.0, 0.0, 1.0, 0.5]), "m|v:0")}
    >>> print("\\n".join(summary_lines(analyze(r, s, baseline=None, resamples=40))))
    m: MSE 0.0237 [0.0074, 0.0400], MAE 0.1319 [0.0500, 0.2000]
    set 1 (2 pairs):
      m  MSE 0.0230  MAE 0.1150  rho 1.000
    set 2 (2 pairs):
      m  MSE 0.0227  MAE 0.1425  rho 1.000
    """
    lines = []
    if analysis.ratings.codes is not None:
        coded = [m.metric.name for m in analysis.metrics if "." in m.metric.name]
        lines.append(
            "the raters saw each method's code: "
            + (", ".join(coded) or "no metric")
            + " scored against it"
        )
    for m in analysis.metrics:
        mse, mae = m.errors["mse"], m.errors["mae"]
        vs = m.comparison["mse"].improvement_pct if m.comparison else None
        better = "" if vs is None else f", {_than(vs, analysis.baseline)}"
        lines.append(
            f"{m.metric.label}: MSE {mse.mean:.4f} [{mse.low:.4f}, {mse.high:.4f}], "
            f"MAE {mae.mean:.4f} [{mae.low:.4f}, {mae.high:.4f}]{better}"
        )
    if analysis.agreement is not None:
        alpha, ceiling = analysis.agreement.alpha, analysis.agreement.mean_vs_others
        lines.append(
            f"raters: Krippendorff's alpha {_num(alpha, 3)}, each vs the others' mean r "
            f"{_num(ceiling, 3)}"
        )
    width = max(len(m.metric.label) for m in analysis.metrics)
    parts = [("set", v) for v in analysis.by_set] + [("without", v) for v in analysis.leave_one_out]
    for kind, view in parts:
        lines.append(
            f"{kind} {view.set} ({counted(view.pairs, 'pair')}):"
            + ("" if view.analysis else f" {view.reason}")
        )
        for m in view.analysis.metrics if view.analysis else []:
            mse, mae = m.errors["mse"], m.errors["mae"]
            row = (
                f"  {m.metric.label:<{width}}  MSE {mse.mean:.4f}  MAE {mae.mean:.4f}  "
                f"rho {_num(m.correlations['spearman'].value, 3)}"
            )
            if m.comparison:
                c = m.comparison["mse"]
                row += (
                    f"  {_than(c.improvement_pct, analysis.baseline)} "
                    f"(paired t p {_p(c.p_paired_t)})"
                )
            lines.append(row)
    return lines


def _pct(value: float) -> str:
    """A percentage to 2 decimals, never ``-0.00``: a change that rounds to nothing has no
    sign to show.

    >>> _pct(-0.001), _pct(-0.005), _pct(12.345)
    ('0.00', '-0.01', '12.35')
    """
    text = f"{value:.2f}"
    return "0.00" if float(text) == 0 else text


def _than(improvement_pct: float, baseline: str | None) -> str:
    """``MSE 28.72% lower than rouge1``: a signed "+28.72% MSE" read as a rise."""
    if _pct(improvement_pct) == "0.00":
        return f"MSE within 0.01% of {baseline}"
    direction = "lower" if improvement_pct >= 0 else "higher"
    return f"MSE {abs(improvement_pct):.2f}% {direction} than {baseline}"


def write_report(
    output: str | os.PathLike[str],
    analysis: Analysis,
    source: str,
    provenance: Mapping[str, object] | None = None,
    force: bool = False,
) -> Path:
    """Write ``report.md``, ``report.json`` and ``plots/*.png`` into a new folder.

    Parameters
    ----------
    output : path-like
        The report folder, written atomically.
    analysis : Analysis
        From :func:`~wrdscore.human_eval.analyze`.
    source : str
        What was analysed, in one line.
    provenance : mapping, optional
        Extra fields for ``report.json`` (command options, input files).
    force : bool
        Replace an existing folder.
    """
    with atomic_dir(output, force=force) as tmp:
        (tmp / "plots").mkdir()
        plot_bootstrap(analysis, tmp / "plots" / "bootstrap-mse.png")
        for m in analysis.metrics:
            plot_scatter(
                analysis.ratings.human,
                m.metric.scores,
                m.metric.label,
                tmp / "plots" / f"scatter-{_slug(m.metric.name)}.png",
            )
        report = {"source": source, **(provenance or {}), **analysis.as_dict()}
        (tmp / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        (tmp / "report.md").write_text(render_markdown(analysis, source), encoding="utf-8")
    return Path(output)
