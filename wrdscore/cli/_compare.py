"""``wrdscore compare``: two systems' scores with a paired bootstrap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from wrdscore.cli import _judge
from wrdscore.cli._common import (
    CLEAN_OPTION,
    NO_SEGMENT_OPTION,
    OOV_OPTION,
    QUIET_TAKEN_OPTION,
    SEGMENT_OPTION,
    check_format,
    metric_names,
    metric_options,
    print_table,
    seed_option,
    segment_setting,
)
from wrdscore.cli._encoder_options import EncoderOptions, encoder_options
from wrdscore.cli._scoring_options import (
    ALLOW_UNMASKED_OPTION,
    CODE_SUPPORT_OPTION,
    RESCALE_OPTION,
    SET_OPTION,
    STRINGS_OPTION,
    add_allow_unmasked,
    check_code_weight,
    check_sources,
    code_options,
    corpus_reading,
    echo_hints,
    unmasked_note,
    with_code_options,
)
from wrdscore.errors import WrdscoreError, counted


@_judge.judge_options
@encoder_options
def compare(
    refs: Path | None = typer.Option(
        None, "--refs", help="References, one item per line or .jsonl (optional with --code)."
    ),
    preds: list[Path] = typer.Option(
        ..., "--preds", help="Give it twice: system A, then system B."
    ),
    code: Path | None = typer.Option(
        None,
        "--code",
        help="CODE.jsonl aligned with the predictions, as score reads it: also compares "
        "<metric>.code (support in the code) and <metric>.combined.",
    ),
    language: str | None = typer.Option(
        None, "--language", help="Language of the --code snippets, as for score."
    ),
    corpus: Path | None = typer.Option(
        None,
        "--corpus",
        help="An ingested CORPUS_DIR, as for score: its references and code; both --preds "
        "by record order, or both by id (the same ids in the same order).",
    ),
    target: str | None = typer.Option(
        None, "--target", help="With --code or --corpus: name or summary \\[default: name]."
    ),
    code_weight: float | None = typer.Option(
        None, "--code-weight", help="Weight of the code in combined \\[default: 0.5]."
    ),
    strings: str | None = STRINGS_OPTION,
    code_support: str | None = CODE_SUPPORT_OPTION,
    allow_unmasked: bool = ALLOW_UNMASKED_OPTION,
    metric: list[str] = typer.Option(
        ["wrd"],
        "--metric",
        "-m",
        help="Metric to compare on, in any case; repeat for one row each.",
        callback=metric_names,
    ),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
    ),
    oov: str = OOV_OPTION,
    centering: str = typer.Option("none", "--centering", help="none, dimension, ... batch."),
    options: list[str] = SET_OPTION,
    rescale: bool = RESCALE_OPTION,
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples."),
    seed: int = seed_option(12345, "Bootstrap seed."),
    fmt: str = typer.Option(
        "table", "--format", help="table or json (one object; a list of them for several -m)."
    ),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
    segment: bool = SEGMENT_OPTION,
    no_segment: bool = NO_SEGMENT_OPTION,
    clean_predictions: bool = CLEAN_OPTION,
    encoder: EncoderOptions = EncoderOptions(),
    judge: _judge.JudgeOptions = _judge.JudgeOptions(),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Is system A better than system B? Paired bootstrap of the mean per-pair score.

    With --code or --corpus, also of the support in the methods' code and the combined value.
    """
    import json
    import tempfile

    from wrdscore.corpus_inputs import corpus_comparison
    from wrdscore.inputs import _lines, check_code_path, parse_code_lines, read_items
    from wrdscore.metrics import compare_values
    from wrdscore.metrics.base import ItemError, build_metrics
    from wrdscore.significance import DEFAULT_CONFIDENCE, check_resamples

    check_format(fmt)
    # Before any file is read or model loaded, in the command line's words (the
    # bootstrap's own check, after scoring, names its parameter).
    check_resamples(resamples, DEFAULT_CONFIDENCE, "--resamples")
    if len(preds) != 2:
        raise WrdscoreError(f"compare needs --preds exactly twice (A and B), got {len(preds)}")
    reads_code = check_sources(refs, code, corpus, "compare")
    shared = code_options(reads_code, target, code_weight, strings, code_support)
    add_allow_unmasked(shared, allow_unmasked, reads_code)
    judged = judge.settings(metric, metric_options(options))
    per_metric = with_code_options(metric, judged, shared, language, code, corpus)
    check_code_weight(code_weight, refs, corpus)
    # Every file is read before the metrics load their models (an encoder: seconds).
    ref_items: Any = None if refs is None else read_items(refs, references=True)
    code_items: Any = None
    if code is not None:
        code_items = parse_code_lines(_lines(check_code_path(code)), code)
    pred_a, pred_b = (read_items(p) for p in preds) if corpus is None else ([], [])
    metrics = build_metrics(
        metric,
        embeddings,
        per_metric,
        segment=segment_setting(segment, no_segment),
        clean=clean_predictions,
        oov=oov,
        centering=centering,
        rescale=rescale,
        **encoder.keywords(embeddings),
    )
    if corpus is not None:
        corpus_target, source = corpus_reading(metrics)
        with tempfile.TemporaryDirectory() as workdir:
            ref_items, code_items, pred_a, pred_b = corpus_comparison(
                corpus, preds[0], preds[1], corpus_target, Path(workdir), source=source
            )
    from wrdscore.hints import SAMPLE, chat_hint, small_sample_hint

    hints = [
        chat_hint([*pred_a[:SAMPLE], *pred_b[:SAMPLE]], clean_predictions),
        small_sample_hint(len(pred_a)),  # references may be absent (--code alone)
    ]
    # Each metric and value on its own bootstrap with the same seed: the same resamples
    # of the pairs.
    rows: list[dict[str, Any]] = []
    unmasked = 0
    # A bad reference or code item is named with its file and line, as score names it
    # (a prediction's error cannot tell system A's file from B's).
    where = {} if corpus is not None else {"reference": refs, "code": code}
    for m in metrics:
        try:
            a, _, found = compare_values(
                m,
                ref_items,
                pred_a,
                pred_b,
                code=code_items,
                resamples=resamples,
                seed=seed,
                allow_empty_reference=allow_empty_reference,
            )
        except ItemError as exc:
            path = where.get(exc.side)
            if path is None:
                raise
            raise WrdscoreError(f"{path}:{exc.index + 1}: {exc}") from None
        # Both systems are scored against the same code: A's count is the run's.
        unmasked = max(unmasked, a.unmasked_code)
        rows.extend(
            {
                "metric": m.name,
                "a": str(preds[0]),
                "b": str(preds[1]),
                "pairs": len(a),
                "value": value,
                "mean_a": cmp.mean_a,
                "mean_b": cmp.mean_b,
                "difference": cmp.difference,
                "ci_low": cmp.ci_low,
                "ci_high": cmp.ci_high,
                "p_value": cmp.p_value,
                "confidence": cmp.confidence,
                "signature": f"{a.signature}|{cmp.signature}",
            }
            for value, cmp in found.items()
        )
    if fmt == "json":
        out: Any = rows[0] if len(rows) == 1 else rows
        typer.echo(json.dumps(out, indent=2))
    else:
        _print_rows(rows, preds)
    note = unmasked_note(unmasked)
    if note:
        typer.echo(f"note: {note}", err=True)
    echo_hints(hints)


def _print_rows(rows: list[dict[str, Any]], preds: list[Path]) -> None:
    """The comparisons as a table, with each signature once below it."""
    from rich.table import Table

    level = f"{rows[0]['confidence']:.0%} CI"
    table = Table()
    for name in ("metric", "value", "A", "B", "A - B", level, "p"):
        table.add_column(name, justify="left" if name in ("metric", "value") else "right")
    for r in rows:
        table.add_row(
            r["metric"],
            r["value"],
            f"{r['mean_a']:.4f}",
            f"{r['mean_b']:.4f}",
            f"{r['difference']:+.4f}",
            f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]",
            f"{r['p_value']:.4f}",
        )
    heading = f"A {preds[0]} vs B {preds[1]}, {counted(rows[0]['pairs'], 'pair')}"
    console = print_table(heading, table)
    # A metric's values against code share one signature: printed once.
    for signature in dict.fromkeys(r["signature"] for r in rows):
        console.print(signature, highlight=False, soft_wrap=True)
