"""``wrdscore score``, ``explain`` and ``compare``: the scoring commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from wrdscore.cli._common import (
    BATCH_SIZE_OPTION,
    DEVICE_OPTION,
    ENCODER_OPTION,
    FUSE_WEIGHTS_OPTION,
    LAYER_OPTION,
    check_format,
    encoder_options,
    metric_options,
    print_table,
)
from wrdscore.errors import WrdscoreError
from wrdscore.inputs import DEFAULT_CHUNK_PAIRS


def _result_json(res: Any) -> dict[str, Any]:
    return {
        "corpus": res.corpus,
        "primary": res.primary,
        "signature": res.signature,
        "oov_tokens": res.oov_tokens,
        "empty_predictions": res.empty_predictions,
        "degenerate_pairs": res.degenerate_pairs,
    }


def score(
    refs: Path = typer.Option(..., "--refs", help="References: one item per line, or .jsonl."),
    preds: Path = typer.Option(..., "--preds", help="Predictions, same number of items."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
    ),
    metric: list[str] = typer.Option(
        ["wrd"], "--metric", "-m", help="Metric name; repeat for one column each."
    ),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    centering: str = typer.Option(
        "none", "--centering", help="none, dimension, sentence, corpus or batch."
    ),
    options: list[str] = typer.Option(
        [], "--set", help="A metric option, METRIC.OPTION=VALUE (wrd.weights=idf); repeatable."
    ),
    rescale: bool = typer.Option(
        False, "--rescale", help="Rescale embedding metrics: (s - b) / (1 - b), b from the model."
    ),
    per_pair: Path | None = typer.Option(
        None, "--per-pair", help="Also write every pair's scores to OUT.tsv or OUT.jsonl."
    ),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        help="Worker processes (default: the number of cores; 1 with --encoder).",
    ),
    chunk_pairs: int = typer.Option(
        DEFAULT_CHUNK_PAIRS, "--chunk-pairs", help="Pairs read and scored at a time."
    ),
    encoder: str | None = ENCODER_OPTION,
    layer: int | None = LAYER_OPTION,
    device: str | None = DEVICE_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    fuse_weights: str | None = FUSE_WEIGHTS_OPTION,
) -> None:
    """Score a file of predicted names against a file of true names (the main job)."""
    import json

    from wrdscore.inputs import check_per_pair_path
    from wrdscore.metrics import build_metrics, score_files
    from wrdscore.progress import progress_bar

    check_format(fmt)
    if per_pair is not None:
        check_per_pair_path(per_pair)
    metrics = build_metrics(
        metric,
        embeddings,
        metric_options(options),
        oov=oov,
        centering=centering,
        rescale=rescale,
        **encoder_options(encoder, layer, device, batch_size, fuse_weights),
    )
    with progress_bar(quiet) as bar:
        task = bar.add_task("scoring", total=None)
        _show_encoding(metrics, bar)
        results = score_files(
            metrics,
            refs,
            preds,
            allow_empty_reference=allow_empty_reference,
            per_pair=per_pair,
            jobs=jobs,
            chunk_pairs=chunk_pairs,
            progress=lambda k: bar.advance(task, k),
        )
    pairs = results[0].pairs
    if fmt == "json":
        out = {"pairs": pairs, "metrics": {r.metric: _result_json(r) for r in results}}
        typer.echo(json.dumps(out, indent=2))
        return
    from rich.table import Table  # only for the table (--format json never needs rich)

    # One column per metric, one row per value; the headline value is marked.
    keys = list(dict.fromkeys(k for r in results for k in r.keys))
    table = Table()
    table.add_column("")
    for r in results:
        table.add_column(r.metric, justify="right")
    for k in keys:
        cells = [
            (f"[bold]{r.corpus[k]:.4f}[/bold]" if k == r.primary else f"{r.corpus[k]:.4f}")
            if k in r.corpus
            else ""
            for r in results
        ]
        table.add_row(k, *cells)
    console = print_table(f"{pairs} pairs, corpus scores", table)
    for r in results:
        console.print(r.signature, highlight=False, soft_wrap=True)
    unseen = max(r.oov_tokens for r in results)
    degenerate = max(r.degenerate_pairs for r in results)
    notes = [
        f"{unseen} unseen token occurrence(s)" if unseen else "",
        f"{results[0].empty_predictions} empty prediction(s) scored 0"
        + (" before rescaling" if rescale else "")
        if results[0].empty_predictions
        else "",
        f"{degenerate} pair(s) with no known token scored 0"
        + (" before rescaling" if rescale else "")
        if degenerate
        else "",
    ]
    notes.append(_truncation_note(metrics))
    notes += [_bartscore_truncation_note(m) for m in metrics]
    for note in filter(None, notes):
        typer.echo(f"note: {note}", err=True)


def _show_encoding(metrics: list[Any], bar: Any) -> None:
    """A second bar, of names encoded, when an encoder runs (the slow part then)."""
    contextual = [m.contextual for m in metrics if getattr(m, "contextual", None) is not None]
    if contextual:
        task = bar.add_task("encoding names", total=None)
        for c in contextual:
            c.progress = lambda k: bar.advance(task, k)


def _truncation_note(metrics: list[Any]) -> str:
    """The note for names longer than the encoder's maximum (never truncated silently)."""
    for m in metrics:
        c = getattr(m, "contextual", None)
        if c is not None and c.encoder.truncated:
            return (
                f"{c.encoder.truncated} name(s) longer than the encoder's maximum of "
                f"{c.encoder.max_length} word pieces were truncated (tokens past it count "
                "as unseen)"
            )
    return ""


def _bartscore_truncation_note(metric: Any) -> str:
    """The note for bartscore's inputs longer than its model's maximum (never silent)."""
    from wrdscore.metrics.bartscore import BARTScore  # light: torch comes with a model

    if not isinstance(metric, BARTScore) or not metric.truncated:
        return ""
    return (
        f"bartscore: {metric.truncated} scored pair(s) had a side longer than the model's "
        f"maximum of {metric.max_length} tokens, cut to it"
    )


def explain(
    reference: str = typer.Argument(..., help="True name, e.g. getUserName or 'get user name'."),
    prediction: str = typer.Argument(..., help="Predicted name."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
    ),
    weights: str = typer.Option("norm", "--weights", help="norm, norm*idf, idf or uniform."),
    clip: bool = typer.Option(True, "--clip/--no-clip", help="Clip cosines at 0 in P and R."),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    centering: str = typer.Option("none", "--centering", help="none, dimension, ... batch."),
    plot: Path | None = typer.Option(None, "--plot", help="Also draw the matrices to a PNG."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    encoder: str | None = ENCODER_OPTION,
    layer: int | None = LAYER_OPTION,
    device: str | None = DEVICE_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    fuse_weights: str | None = FUSE_WEIGHTS_OPTION,
) -> None:
    """Show the cosine and optimal-flow matrices behind one pair's WRDScore."""
    import json

    from rich.console import Console

    from wrdscore.explain import plot_transport, transport_tables
    from wrdscore.metrics.base import build_metrics
    from wrdscore.metrics.wrd import WRDScore

    check_format(fmt)
    if plot is not None and plot.suffix.lower() != ".png":
        raise WrdscoreError(f"--plot {plot} must end in .png")
    (scorer,) = build_metrics(
        ["wrd"],
        embeddings,
        {"wrd": {"weights": weights, "clip": clip}},
        oov=oov,
        centering=centering,
        **encoder_options(encoder, layer, device, batch_size, fuse_weights),
    )
    assert isinstance(scorer, WRDScore)
    t = scorer.transport(reference, prediction)
    # The tables are printed before the plot is drawn: a pair the plot refuses (a side
    # --oov drop emptied) still shows its tables, and the error line follows them.
    if fmt == "json":
        out = {
            "reference_tokens": t.ref_tokens,
            "prediction_tokens": t.pred_tokens,
            "reference_weights": t.ref_weights.tolist(),
            "prediction_weights": t.pred_weights.tolist(),
            "cosine": t.cosine.tolist(),
            "flow": t.flow.tolist(),
            "precision": t.precision,
            "recall": t.recall,
            "f1": t.f1,
            "signature": scorer.signature,
        }
        typer.echo(json.dumps(out, indent=2))
    else:
        console = Console()
        for table in transport_tables(t):
            console.print(table)
        console.print(f"precision {t.precision:.4f}  recall {t.recall:.4f}  F1 {t.f1:.4f}")
        console.print(scorer.signature, highlight=False, soft_wrap=True)
    if plot is not None:
        plot_transport(t, plot)


def compare(
    refs: Path = typer.Option(..., "--refs", help="References, one item per line or .jsonl."),
    preds: list[Path] = typer.Option(
        ..., "--preds", help="Give it twice: system A, then system B."
    ),
    metric: str = typer.Option("wrd", "--metric", "-m", help="The metric to compare on."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
    ),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    centering: str = typer.Option("none", "--centering", help="none, dimension, ... batch."),
    options: list[str] = typer.Option(
        [], "--set", help="A metric option, METRIC.OPTION=VALUE (wrd.weights=idf); repeatable."
    ),
    rescale: bool = typer.Option(
        False, "--rescale", help="Rescale embedding metrics: (s - b) / (1 - b), b from the model."
    ),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples."),
    seed: int = typer.Option(12345, "--seed", help="Bootstrap seed."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
    encoder: str | None = ENCODER_OPTION,
    layer: int | None = LAYER_OPTION,
    device: str | None = DEVICE_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    fuse_weights: str | None = FUSE_WEIGHTS_OPTION,
) -> None:
    """Is system A better than system B? Paired bootstrap of the mean per-pair score."""
    import json

    from rich.console import Console

    from wrdscore.inputs import read_items
    from wrdscore.metrics.base import build_metrics

    check_format(fmt)
    if len(preds) != 2:
        raise WrdscoreError(f"compare needs --preds exactly twice (A and B), got {len(preds)}")
    ref_items = read_items(refs, references=True)
    (m,) = build_metrics(
        [metric],
        embeddings,
        metric_options(options),
        oov=oov,
        centering=centering,
        rescale=rescale,
        **encoder_options(encoder, layer, device, batch_size, fuse_weights),
    )
    pred_a, pred_b = (read_items(p) for p in preds)
    a, _, cmp = m.compare(
        ref_items,
        pred_a,
        pred_b,
        resamples=resamples,
        seed=seed,
        allow_empty_reference=allow_empty_reference,
    )
    if fmt == "json":
        out = {
            "a": str(preds[0]),
            "b": str(preds[1]),
            "pairs": len(a),
            "value": a.primary,
            "mean_a": cmp.mean_a,
            "mean_b": cmp.mean_b,
            "difference": cmp.difference,
            "ci_low": cmp.ci_low,
            "ci_high": cmp.ci_high,
            "p_value": cmp.p_value,
            "signature": f"{a.signature}|{cmp.signature}",
        }
        typer.echo(json.dumps(out, indent=2))
        return
    console = Console(highlight=False)
    console.print(f"{a.primary} of {metric} over {len(a)} pairs")
    console.print(f"A {preds[0]}: {cmp.mean_a:.4f}")
    console.print(f"B {preds[1]}: {cmp.mean_b:.4f}")
    console.print(
        f"A - B = {cmp.difference:+.4f}  {cmp.confidence:.0%} CI "
        f"[{cmp.ci_low:+.4f}, {cmp.ci_high:+.4f}]  p = {cmp.p_value:.4f}"
    )
    console.print(f"{a.signature}|{cmp.signature}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add the scoring commands to the root app."""
    for command in (score, explain, compare):
        app.command()(command)
