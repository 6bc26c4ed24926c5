"""Why a pair got its WRDScore: the cosine and flow matrices as tables and heat maps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from rich.table import Table

from wrdscore.atomic import atomic_write
from wrdscore.errors import WrdscoreError
from wrdscore.metrics.wrd import PairTransport


def matrix_table(
    title: str,
    matrix: NDArray[np.float64],
    rows: list[str],
    cols: list[str],
    row_weights: NDArray[np.float64],
    col_weights: NDArray[np.float64],
) -> Table:
    """A rich table of ``matrix`` with token labels and each token's mass in brackets.

    Examples
    --------
    >>> t = matrix_table("cos", np.eye(2), ["a", "b"], ["c", "d"], np.ones(2) / 2, np.ones(2) / 2)
    >>> t.row_count, len(t.columns)
    (2, 3)
    """
    table = Table(title=title, title_justify="left")
    table.add_column("reference \\ prediction")
    for tok, w in zip(cols, col_weights, strict=True):
        table.add_column(f"{tok} ({w:.2f})", justify="right")
    for tok, w, values in zip(rows, row_weights, matrix, strict=True):
        table.add_row(f"{tok} ({w:.2f})", *(f"{v:.3f}" for v in values))
    return table


def transport_tables(t: PairTransport) -> list[Table]:
    """The cosine and flow tables of one pair (what ``wrdscore explain`` prints)."""
    args = (t.ref_tokens, t.pred_tokens, t.ref_weights, t.pred_weights)
    return [
        matrix_table("cosine similarity", t.cosine, *args),
        matrix_table("optimal flow F (rows sum to the reference masses)", t.flow, *args),
    ]


def plot_transport(t: PairTransport, path: str | Path) -> Path:
    """Draw the cosine and flow matrices of a pair as two heat maps in one PNG.

    Parameters
    ----------
    t : PairTransport
        From :meth:`wrdscore.metrics.wrd.WRDScore.transport`.
    path : path-like
        Output PNG, written atomically.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    WrdscoreError
        If a side has no tokens left (``--oov drop`` removed them all): an empty matrix
        has nothing to draw, and the tables already say so.
    """
    if not t.ref_tokens or not t.pred_tokens:
        side = "reference" if not t.ref_tokens else "prediction"
        raise WrdscoreError(
            f"nothing to draw: the {side} has no tokens left (--oov drop removed them all)"
        )
    # Agg renders without a display; imported here so scoring never loads matplotlib.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    width = 2.0 + 1.4 * len(t.pred_tokens)
    height = 1.8 + 0.6 * len(t.ref_tokens)
    fig, axes = plt.subplots(1, 2, figsize=(2 * width, height), constrained_layout=True)
    panels = [
        ("cosine similarity", t.cosine, -1.0, 1.0, "RdBu_r"),
        ("optimal flow", t.flow, 0.0, max(float(t.flow.max()), 1e-12), "Greens"),
    ]
    try:
        for ax, (title, matrix, lo, hi, cmap) in zip(axes, panels, strict=True):
            image = ax.imshow(matrix, vmin=lo, vmax=hi, cmap=cmap, aspect="auto")
            ax.set_xticks(range(len(t.pred_tokens)), t.pred_tokens, rotation=30, ha="right")
            ax.set_yticks(range(len(t.ref_tokens)), t.ref_tokens)
            ax.set_xlabel("prediction")
            ax.set_ylabel("reference")
            ax.set_title(title)
            for (i, j), v in np.ndenumerate(matrix):
                # White on the darkest cells of either colour map, black elsewhere.
                dark = abs(v - (lo + hi) / 2) > 0.35 * (hi - lo) if lo < 0 else v > 0.6 * hi
                ax.text(
                    j,
                    i,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if dark else "black",
                )
            fig.colorbar(image, ax=ax, shrink=0.8)
        fig.suptitle(f"P {t.precision:.3f}   R {t.recall:.3f}   F1 {t.f1:.3f}")
        with atomic_write(path, "wb") as fh:
            fig.savefig(fh, format="png", dpi=120)
    finally:
        plt.close(fig)
    return path
