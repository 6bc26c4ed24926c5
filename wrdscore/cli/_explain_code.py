"""``wrdscore explain --code``: which tokens of a method's code carry a prediction."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from wrdscore.cli._common import wrote
from wrdscore.errors import WrdscoreError
from wrdscore.explain import support_breakdown
from wrdscore.metrics.code import CodeTransport
from wrdscore.metrics.wrd import WRDScore


def read_code_arg(code: str) -> str:
    """The method source ``--code`` names: a UTF-8 file, or standard input for ``-``."""
    from wrdscore.inputs import utf8_text

    if code == "-":
        try:
            return sys.stdin.buffer.read().decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise WrdscoreError(
                f"--code -: standard input is not UTF-8 (byte {exc.start})"
            ) from None
    path = Path(code)
    if path.is_dir():
        raise WrdscoreError(f"--code {code}: a folder (give a file holding one method, or -)")
    if not path.is_file():
        raise WrdscoreError(f"--code {code}: no such file (give a file holding one method, or -)")
    return utf8_text(path)


def _code_json(t: CodeTransport, top: int) -> dict[str, Any]:
    return {
        "prediction_tokens": t.pred_tokens,
        "prediction_weights": t.pred_weights.tolist(),
        "code_tokens": t.code_tokens,
        "code_weights": t.code_weights.tolist(),
        "cosine": t.cosine.tolist(),
        "flow": t.flow.tolist(),
        "code_support": t.support,
        "top": [
            {
                "token": tok,
                "code": [
                    {"token": c, "occurrences": n, "cosine": cos, "flow": flow}
                    for c, n, cos, flow in carriers
                ],
            }
            for tok, carriers in zip(t.pred_tokens, t.top(top), strict=True)
        ],
        "target": t.target,
        "strings": t.strings,
        "masked": t.masked,
        "unmasked": t.unmasked,
        "support": support_breakdown(t),
    }


def explain_code(
    scorer: WRDScore,
    prediction: str,
    code: str,
    reference: str | None,
    *,
    top: int,
    plot: Path | None,
    fmt: str,
    language: str | None = None,
) -> None:
    """Print (and with ``plot`` draw) the transport of ``prediction`` onto ``code``.

    ``code`` is a file or ``-``; the scorer's ``target`` and ``strings`` say how it is
    read. With a ``reference`` the reference's tables come first, as ``explain`` prints
    them, and the combined value follows the code support.
    """
    from rich.console import Console

    from wrdscore.explain import code_table, plot_code_transport, support_table, transport_tables

    if top < 1:
        raise WrdscoreError(f"--top must be at least 1, got {top}")
    from wrdscore.corpora import MAX_CODE_CHARS, capped_code

    # Cut at a line as score --code cuts a long method (issue 35), not refused.
    source, cut = capped_code(read_code_arg(code))
    if cut:
        typer.echo(
            f"note: the method is cut to {MAX_CODE_CHARS:,} characters, at a line as ingest "
            "cuts it",
            err=True,
        )
    if language is not None:
        from wrdscore.corpora import SourceCode

        source = SourceCode(source, language)  # read in it, not told from the code
    t = scorer.code_transport(prediction, source)
    pair = scorer.transport(reference, prediction) if reference is not None else None
    assert scorer.code_scorer is not None
    w = scorer.code_scorer.weight
    # The metric's combined value: (1 - w) * its reference primary (F1) + w * support.
    combined = None if pair is None else (1 - w) * pair.f1 + w * t.support
    if fmt == "json":
        out: dict[str, Any] = _code_json(t, top)
        if pair is not None:
            out["reference"] = {
                "reference_tokens": pair.ref_tokens,
                "cosine": pair.cosine.tolist(),
                "flow": pair.flow.tolist(),
                "precision": pair.precision,
                "recall": pair.recall,
                "f1": pair.f1,
            }
            out["combined"] = combined
        out["signature"] = scorer.code_signature
        typer.echo(json.dumps(out, indent=2))
    else:
        console = Console()
        if pair is not None:
            for table in transport_tables(pair):
                console.print(table)
            console.print(
                f"precision {pair.precision:.4f}  recall {pair.recall:.4f}  F1 {pair.f1:.4f}"
            )
        console.print(code_table(t, top))
        console.print(support_table(t))
        distinct = len(set(t.code_tokens))
        masked = f", masked {t.masked}" if t.masked else ""
        if t.target == "name" and t.unmasked is not None:
            masked = ", unmasked: the name is not declared"
        if t.coverage is not None:
            how = (
                f"F {t.coverage.f:.4f} of precision {t.coverage.precision:.4f} and recall "
                f"{t.coverage.recall:.4f} over the code, x gate {t.coverage.gate:.4f}"
            )
        else:
            how = f"best match in the code {t.match:.4f} x priors {t.prior:.4f}"
        console.print(
            f"code support {t.support:.4f} ({how}; {len(t.code_tokens)} code tokens, "
            f"{distinct} distinct; target {t.target}{masked}, strings {t.strings})",
            highlight=False,
            soft_wrap=True,
        )
        if combined is not None:
            console.print(
                f"combined {combined:.4f} ((1 - {w:g}) * F1 + {w:g} * code support)",
                highlight=False,
            )
        console.print(scorer.code_signature, highlight=False, soft_wrap=True)
    if t.unmasked is not None:
        typer.echo(f"note: scored unmasked (--allow-unmasked): the code {t.unmasked}", err=True)
    if plot is not None:
        # The heat map has room for more rows than the table: at least 5 per token.
        plot_code_transport(t, plot, max(top, 5))
        wrote(plot)
