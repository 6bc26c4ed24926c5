"""Plots of a study (matplotlib, PNG): metric vs human per metric, bootstrap MSE per metric."""

from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from wrdscore.human_eval._analysis import Analysis

# Figure objects without pyplot: no global state, no GUI backend, safe in any process.


def plot_scatter(
    human: ArrayLike, scores: ArrayLike, label: str, path: str | os.PathLike[str]
) -> None:
    """Scatter of a metric's scores against the human scores, with the identity line.

    Points on the line are pairs where the metric says exactly what people said.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "s.png"
    >>> plot_scatter([0.1, 0.9], [0.2, 0.7], "m", out)
    >>> out.stat().st_size > 1000
    True
    """
    fig = Figure(figsize=(4.5, 4.5), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="identity")
    ax.scatter(np.asarray(human), np.asarray(scores), s=14, alpha=0.6)
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), xlabel="human score (mean of raters)")
    ax.set(ylabel=label, title=f"{label} vs human")
    ax.set_aspect("equal")
    ax.legend(loc="upper left")
    fig.savefig(path, format="png", dpi=110)


def plot_bootstrap(analysis: Analysis, path: str | os.PathLike[str]) -> None:
    """Histograms of the bootstrap MSE of every metric on shared bins."""
    fig = Figure(figsize=(6.5, 4), layout="constrained")
    ax = fig.subplots()
    samples = [m.bootstrap["mse"] for m in analysis.metrics]
    bins = np.histogram_bin_edges(np.concatenate(samples), bins=30)
    for metric, values in zip(analysis.metrics, samples, strict=True):
        # matplotlib's stub asks for a Sequence[float]; hist takes any array-like bins.
        ax.hist(values, bins=bins, alpha=0.5, label=metric.metric.label)  # type: ignore[arg-type]
    ax.set(
        xlabel="MSE against human scores",
        ylabel="bootstrap resamples",
        title=f"Bootstrap MSE ({analysis.resamples} resamples of {len(analysis.ratings)} pairs)",
    )
    ax.legend()
    fig.savefig(path, format="png", dpi=110)
