"""Why a pair got its WRDScore: the cosine and flow matrices as tables and heat maps.

Unless ``--no-segment`` is given, run-together tokens of the pair are listed with what
the segmenter made of them, and why (:func:`segmentations`). Against a method's code
(``explain --code``) a full matrix would have a row per code token; :func:`code_table` and
:func:`plot_code_transport` show, per prediction token, only the code tokens that carry
most of its flow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rich.table import Table

from wrdscore.atomic import atomic_write
from wrdscore.corpora import Segmentation, segmentation, to_tokens
from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics.code import CodeTransport
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


def segmentations(*items: str) -> list[Segmentation]:
    """What the segmenter did with each run-together token of ``items``, and why.

    Every distinct sub-token that is a candidate (lower-case letters) and not a word of
    the segmenter's list: split ones, and those kept whole (the model has a vector for
    them, or wordninja's split was refused). Plain words and other tokens are left out.

    Examples
    --------
    >>> [(s.token, " ".join(s.pieces), s.reason) for s in segmentations("getuserbyid", "substr")]
    [('getuserbyid', 'get user by id', 'split'), ('substr', 'substr', 'model vocabulary')]
    """
    tokens = dict.fromkeys(t for item in items for t in to_tokens(item))
    found = map(segmentation, tokens)
    return [s for s in found if s.reason not in ("known word", "not lower-case letters")]


def segmentation_lines(found: list[Segmentation]) -> list[str]:
    """One line per :func:`segmentations` entry, as ``wrdscore explain`` prints them.

    Examples
    --------
    >>> segmentation_lines(segmentations("getuserbyid", "indx"))
    ['segmented: getuserbyid -> get user by id', 'kept whole: indx (model vocabulary)']
    """
    return [
        f"segmented: {s.token} -> {' '.join(s.pieces)}"
        if len(s.pieces) > 1
        else f"kept whole: {s.token} ({s.reason})"
        for s in found
    ]


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
    return _draw(t, path, "reference", f"P {t.precision:.3f}   R {t.recall:.3f}   F1 {t.f1:.3f}")


def code_table(t: CodeTransport, k: int = 3) -> Table:
    """Per prediction token, the ``k`` code tokens carrying most of its flow (80 columns).

    A prediction token's row shows its mass and its precision ``P`` (the cosine
    average of the flow it receives, clipped at 0, as WRDScore's precision reads it);
    each code token its occurrences, cosine and flow (see :meth:`CodeTransport.top`).

    Examples
    --------
    >>> t = CodeTransport(["a", "b"], ["x"], np.array([[0.5], [0.1]]), np.array([[0.5], [0.5]]),
    ...                   np.full(2, 0.5), np.ones(1), 0.3, "name", "drop", None)
    >>> table = code_table(t)
    >>> list(table.columns[2].cells), list(table.columns[5].cells)
    (['a', 'b'], ['0.500', '0.500'])
    """
    table = Table(
        title="code tokens carrying each prediction token (flow onto the code)",
        title_justify="left",
    )
    table.add_column("prediction (mass)")
    table.add_column("P", justify="right")
    table.add_column("code token", overflow="fold")
    table.add_column("n", justify="right")
    table.add_column("cosine", justify="right")
    table.add_column("flow", justify="right")
    received = t.flow.sum(axis=0)
    carried = (t.flow * np.maximum(t.cosine, 0.0)).sum(axis=0)
    precision = np.divide(carried, received, out=np.zeros_like(carried), where=received > 0)
    rows = zip(t.pred_tokens, t.pred_weights, precision, t.top(k), strict=True)
    for tok, mass, p, top in rows:
        head = [f"{tok} ({mass:.2f})", f"{p:.3f}"]
        if not top:
            table.add_row(*head, "(no flow)", "", "", "", end_section=True)
        for i, (code_tok, n, cos, flow) in enumerate(top):
            cells = head if i == 0 else ["", ""]
            table.add_row(
                *cells,
                code_tok,
                str(n),
                f"{cos:.3f}",
                f"{flow:.3f}",
                end_section=i == len(top) - 1,
            )
    return table


def support_breakdown(t: CodeTransport) -> dict[str, Any]:
    """What a prediction's code support is made of, as ``explain --code`` prints it
    (:func:`support_table`) and its JSON carries it.

    ``best_matches``: each prediction token's best code token and cosine (clipped as
    the metric clips), whose mean is ``match``; ``priors``: each factor of the prior
    (:class:`~wrdscore.metrics._code_prior.PriorFactors`), whose product is
    ``prior``; ``code_support`` is ``match`` times ``prior``. Under a support model
    that is not a prior gate for the target (``support_model``: ``none``, or a coverage
    model scoring a summary) ``priors`` is None; a coverage model's summary has
    ``coverage`` instead (its precision, recall, their F and its gate, whose product is
    ``code_support``).

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> from wrdscore.metrics.wrd import WRDScore
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> b = support_breakdown(WRDScore(emb).code_transport("count", "int size() { return count; }"))
    >>> b["best_matches"], b["match"], b["priors"]["tokens"]
    ([{'token': 'count', 'code_token': 'count', 'cosine': 1.0}], 1.0, 1)
    """
    f = t.factors
    return {
        "best_matches": [
            {"token": tok, "code_token": code_tok, "cosine": cos}
            for tok, code_tok, cos in zip(t.pred_tokens, t.best_tokens, t.best_cosines, strict=True)
        ],
        "match": t.match,
        "support_model": t.support_model,
        # A support model other than a prior gate (none, coverage) has no factors.
        "priors": None
        if f is None
        else {
            "conciseness": f.conciseness,
            "tokens": f.tokens,
            "copied_conciseness": f.copied_conciseness,
            "copied": f.copied,
            "plausibility": f.plausibility,
            "exponent": f.exponent,
            "plausibility_gate": f.gate,
        },
        "coverage": None
        if t.coverage is None
        else {
            "precision": t.coverage.precision,
            "recall": t.coverage.recall,
            "f": t.coverage.f,
            "distinct": t.coverage.distinct,
            "plausibility_gate": t.coverage.gate,
        },
        "prior": t.prior,
        "code_support": t.support,
    }


def support_table(t: CodeTransport) -> Table:
    """The code support as a product (:func:`support_breakdown`): each prediction
    token's best match in the code, their mean, times each factor of the priors.

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> from wrdscore.metrics.wrd import WRDScore
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> table = support_table(WRDScore(emb).code_transport("count", "int size() { return count; }"))
    >>> list(table.columns[0].cells)[:2]
    ['best match of count', 'best match (mean)']
    """
    b = support_breakdown(t)
    priors = b["priors"]
    table = Table(
        title="code support: each token's best match in the code, times the priors",
        title_justify="left",
    )
    table.add_column("code support", overflow="fold")
    table.add_column("from", overflow="fold")
    table.add_column("value", justify="right")
    matches = b["best_matches"]
    for i, found in enumerate(matches):
        table.add_row(
            f"best match of {found['token']}",
            found["code_token"] or "(none in the code)",
            f"{found['cosine']:.3f}",
            end_section=i == len(matches) - 1,
        )
    coverage = b["coverage"]
    if coverage is not None:
        once = "distinct tokens once, over all tokens" if coverage["distinct"] else "mean"
        table.add_row("precision in the code", once, f"{coverage['precision']:.4f}")
        table.add_row(
            "recall over the code",
            "code tokens covered, by mass" + (" (each once)" if coverage["distinct"] else ""),
            f"{coverage['recall']:.4f}",
        )
        table.add_row("F (harmonic mean)", "", f"{coverage['f']:.4f}")
        table.add_row(
            "x plausibility ^ (copied / tokens)", "", f"{coverage['plausibility_gate']:.4f}",
            end_section=True,
        )  # fmt: skip
        table.add_row("= code support", f"support model {b['support_model']}",
                      f"{b['code_support']:.4f}")  # fmt: skip
        return table
    table.add_row("best match (mean)", "", f"{b['match']:.4f}", end_section=priors is None)
    if priors is None:
        # Not a product of factors: the support model's own reading of the match.
        table.add_row("= code support", f"support model {b['support_model']}",
                      f"{b['code_support']:.4f}")  # fmt: skip
        return table
    m = priors["tokens"]
    table.add_row("x conciseness", f"{counted(m, 'token')}", f"{priors['conciseness']:.4f}")
    if priors["copied"] is None:
        table.add_row("x plausibility", "", f"{priors['plausibility_gate']:.4f}", end_section=True)
    else:
        k = priors["copied"]
        copied = f"{priors['copied_conciseness']:.4f}"
        table.add_row("x copied conciseness", f"{k} copied from the code", copied)
        table.add_row(
            "x plausibility ^ (copied / tokens)",
            f"{priors['plausibility']:.4f} ^ ({k}/{m})",
            f"{priors['plausibility_gate']:.4f}",
            end_section=True,
        )
    table.add_row("= code support", "", f"{b['code_support']:.4f}")
    return table


def plot_code_transport(t: CodeTransport, path: str | Path, k: int = 5) -> Path:
    """Draw the cosine and flow of a prediction's top code tokens as two heat maps.

    The rows are the distinct code tokens among each prediction token's ``k`` largest
    flows (:meth:`CodeTransport.top`), in code order; the columns the prediction tokens.

    Parameters
    ----------
    t : CodeTransport
        From :meth:`wrdscore.metrics.wrd.WRDScore.code_transport`.
    path : path-like
        Output PNG, written atomically.
    k : int
        Code tokens kept per prediction token.

    Returns
    -------
    Path
        ``path``.
    """
    if not t.pred_tokens or not t.code_tokens:
        side = "code" if not t.code_tokens else "prediction"
        raise WrdscoreError(
            f"nothing to draw: the {side} has no tokens left (--oov drop removed them all)"
        )
    keep = {tok for top in t.top(k) for tok, *_ in top}
    tokens, _, cosine, flow = t.distinct()
    rows = [i for i, tok in enumerate(tokens) if tok in keep]
    if not rows:
        raise WrdscoreError("nothing to draw: no flow reaches the code (no token has mass)")
    shown = PairTransport(
        ref_tokens=[tokens[i] for i in rows],
        pred_tokens=t.pred_tokens,
        cosine=cosine[rows],
        flow=flow[rows],
        ref_weights=np.zeros(len(rows)),
        pred_weights=t.pred_weights,
        precision=t.support,
        recall=0.0,
        f1=0.0,
    )
    how = "coverage F x gate" if t.coverage is not None else "best match x priors"
    heading = f"code support ({how}) {t.support:.3f}"
    return _draw(shown, path, "code token", heading)


def _draw(t: PairTransport, path: str | Path, row_label: str, heading: str) -> Path:
    """The two heat maps (cosine, flow) of ``t``: rows ``row_label``, columns prediction."""
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
            ax.set_ylabel(row_label)
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
        fig.suptitle(heading)
        with atomic_write(path, "wb") as fh:
            fig.savefig(fh, format="png", dpi=120)
    finally:
        plt.close(fig)
    return path
