"""The report folder of an analysis: ``report.md``, ``report.json`` and PNG plots."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from wrdscore.atomic import atomic_dir
from wrdscore.human_eval._analysis import Analysis
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


def _error_table(analysis: Analysis) -> list[str]:
    lines = [
        "| Metric | MSE | MSE 95% CI | MAE | MAE 95% CI | MSE, all pairs | MAE, all pairs |",
        "| --- | ---: | --- | ---: | --- | ---: | ---: |",
    ]
    for m in analysis.metrics:
        mse, mae = m.errors["mse"], m.errors["mae"]
        lines.append(
            f"| {m.metric.label} | {mse.mean:.4f} | {_ci(mse.low, mse.high)} | {mae.mean:.4f} "
            f"| {_ci(mae.low, mae.high)} | {mse.point:.4f} | {mae.point:.4f} |"
        )
    return lines


def render_markdown(analysis: Analysis, source: str) -> str:
    """``report.md``: the paper's Table 1 with intervals, correlations, tests, agreement.

    Parameters
    ----------
    analysis : Analysis
        From :func:`~wrdscore.human_eval.analyze`.
    source : str
        What was analysed, in one line (shown under the title).
    """
    level = f"{analysis.level:.0%}"
    n_sets = len(set(analysis.ratings.sets))
    out = [
        "# Human-agreement report",
        "",
        f"Source: {source}",
        "",
        f"{len(analysis.ratings)} rated pairs in {n_sets} set(s); ground truth per pair is the "
        "mean over its raters on 0-1. MSE and MAE are means over "
        f"{analysis.n_boot} bootstrap resamples of the pairs (seed {analysis.seed}) with "
        f"{level} percentile intervals; 'all pairs' is the same error without resampling.",
        "",
        "## Errors against human scores (lower is better)",
        "",
        *_error_table(analysis),
        "",
        "## Correlations with human scores",
        "",
        f"Value on all pairs, bootstrap {level} interval in brackets, p-value of scipy.stats.",
        "",
        "| Metric | Pearson r | Spearman rho | Kendall tau-b |",
        "| --- | --- | --- | --- |",
    ]
    for m in analysis.metrics:
        cells = [
            f"{_num(c.value)} {_ci(c.low, c.high)} (p {_p(c.p_value)})"
            for c in m.correlations.values()
        ]
        out.append(f"| {m.metric.label} | {' | '.join(cells)} |")
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
            "| Metric | Error | Improvement | p, bootstrap t-test | p, paired t-test "
            "| p, Wilcoxon |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for m in analysis.metrics:
            for measure, c in (m.comparison or {}).items():
                out.append(
                    f"| {m.metric.label} | {measure.upper()} | {c.improvement_pct:.2f}% "
                    f"| {_p(c.p_bootstrap)} | {_p(c.p_paired_t)} | {_p(c.p_wilcoxon)} |"
                )
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
    if analysis.deduplicated is not None:
        out += [
            "",
            f"## Distinct pairs only ({len(analysis.deduplicated.ratings)})",
            "",
            "Some pairs were rated more than once; here each distinct pair counts once, "
            "its human score the mean of its rows.",
            "",
            *_error_table(analysis.deduplicated),
        ]
    out += ["", "## Metric signatures", ""]
    out += [f"- {m.metric.label}: `{m.metric.signature}`" for m in analysis.metrics]
    out += ["", "## Plots", "", "![Bootstrap MSE](plots/bootstrap-mse.png)"]
    for m in analysis.metrics:
        out += ["", f"![{m.metric.label} vs human](plots/scatter-{_slug(m.metric.name)}.png)"]
    return "\n".join(out) + "\n"


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
