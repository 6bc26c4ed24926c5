"""``wrdscore score``, ``explain`` and ``compare``: the scoring commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from wrdscore.cli._common import (
    BATCH_SIZE_OPTION,
    CLEAN_OPTION,
    DEVICE_OPTION,
    ENCODER_OPTION,
    FUSE_WEIGHTS_OPTION,
    LAYER_OPTION,
    SEGMENT_OPTION,
    check_format,
    encoder_options,
    metric_options,
    print_table,
    seed_option,
    wrote,
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
        None,
        "--per-pair",
        help="Also write every pair's scores to OUT.tsv or OUT.jsonl; '-': TSV rows to "
        "standard output (the summary then goes to standard error).",
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --per-pair file."),
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
    segment: bool = SEGMENT_OPTION,
    clean_predictions: bool = CLEAN_OPTION,
    encoder: str | None = ENCODER_OPTION,
    layer: int | None = LAYER_OPTION,
    device: str | None = DEVICE_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    fuse_weights: str | None = FUSE_WEIGHTS_OPTION,
) -> None:
    """Score a file of predicted names against a file of true names (the main job)."""
    import json

    from wrdscore.inputs import STDOUT, check_per_pair_path
    from wrdscore.metrics import build_metrics, score_files
    from wrdscore.metrics._engine import OOV_NAMES, first_names
    from wrdscore.progress import progress_bar

    check_format(fmt)
    if per_pair is not None:
        check_per_pair_path(per_pair, force)
    # Per-pair rows on standard output: everything else goes to standard error.
    to_stderr = per_pair == STDOUT
    metrics = build_metrics(
        metric,
        embeddings,
        metric_options(options),
        segment=segment,
        clean=clean_predictions,
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
            force=force,
            jobs=jobs,
            chunk_pairs=chunk_pairs,
            progress=lambda k: bar.advance(task, k),
            on_count=lambda n: bar.update(task, total=n),
        )
    if per_pair is not None and not to_stderr:
        wrote(per_pair, f"{results[0].pairs} pairs")
    pairs = results[0].pairs
    if fmt == "json":
        out = {"pairs": pairs, "metrics": {r.metric: _result_json(r) for r in results}}
        typer.echo(json.dumps(out, indent=2), err=to_stderr)
        return
    counts = {m.name: m.count_keys for m in metrics}
    wide, narrow = _corpus_tables(results, counts)
    console = print_table(f"{pairs} pairs, corpus scores", wide, narrow=narrow, stderr=to_stderr)
    for r in results:
        console.print(r.signature, highlight=False, soft_wrap=True)
    unseen = max(r.oov_tokens for r in results)
    degenerate = max(r.degenerate_pairs for r in results)
    names = first_names(t for r in results for t in r.oov_names)
    more = ", ..." if len(names) == OOV_NAMES else ""
    notes = [
        f"{unseen} unseen token occurrence(s) ({', '.join(names)}{more})" if unseen else "",
        f"{results[0].empty_predictions} empty prediction(s) scored 0"
        + (" before rescaling" if rescale else "")
        if results[0].empty_predictions
        else "",
        f"{degenerate} pair(s) with no known token scored 0"
        + (" before rescaling" if rescale else "")
        if degenerate
        else "",
    ]
    # Inputs cut at a model's maximum length are never dropped silently.
    notes += list(dict.fromkeys(m.truncation_note() for m in metrics))
    for note in filter(None, notes):
        typer.echo(f"note: {note}", err=True)


def _show_encoding(metrics: list[Any], bar: Any) -> None:
    """A second bar, of names encoded, when an encoder runs (the slow part then)."""
    contextual = [m.contextual for m in metrics if getattr(m, "contextual", None) is not None]
    if contextual:
        task = bar.add_task("encoding names", total=None)
        for c in contextual:
            c.progress = lambda k: bar.advance(task, k)


def _corpus_tables(results: list[Any], counts: dict[str, tuple[str, ...]]) -> tuple[Any, Any]:
    """The corpus scores as a column per metric, and turned: a row per metric.

    The headline value of each metric is bold; counts (subtoken's ``tp``...) are whole
    numbers, printed without decimals.
    """
    from rich.table import Table  # only for the table (--format json never needs rich)

    keys = list(dict.fromkeys(k for r in results for k in r.keys))

    def cell(r: Any, k: str) -> str:
        if k not in r.corpus:
            return ""
        value = r.corpus[k]
        text = f"{value:.0f}" if k in counts[r.metric] else f"{value:.4f}"
        return f"[bold]{text}[/bold]" if k == r.primary else text

    wide = Table()
    wide.add_column("")
    for r in results:
        wide.add_column(r.metric, justify="right")
    for k in keys:
        wide.add_row(k, *(cell(r, k) for r in results))
    narrow = Table()
    narrow.add_column("metric")
    for k in keys:
        narrow.add_column(k, justify="right")
    for r in results:
        narrow.add_row(r.metric, *(cell(r, k) for k in keys))
    return wide, narrow


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
    segment: bool = SEGMENT_OPTION,
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
        segment=segment,
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
        wrote(plot)


def compare(
    refs: Path = typer.Option(..., "--refs", help="References, one item per line or .jsonl."),
    preds: list[Path] = typer.Option(
        ..., "--preds", help="Give it twice: system A, then system B."
    ),
    metric: list[str] = typer.Option(
        ["wrd"], "--metric", "-m", help="Metric to compare on; repeat for one row each."
    ),
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
    seed: int = seed_option(12345, "Bootstrap seed."),
    fmt: str = typer.Option(
        "table", "--format", help="table or json (one object; a list of them for several -m)."
    ),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
    segment: bool = SEGMENT_OPTION,
    clean_predictions: bool = CLEAN_OPTION,
    encoder: str | None = ENCODER_OPTION,
    layer: int | None = LAYER_OPTION,
    device: str | None = DEVICE_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    fuse_weights: str | None = FUSE_WEIGHTS_OPTION,
) -> None:
    """Is system A better than system B? Paired bootstrap of the mean per-pair score."""
    import json

    from wrdscore.inputs import read_items
    from wrdscore.metrics.base import build_metrics

    check_format(fmt)
    if len(preds) != 2:
        raise WrdscoreError(f"compare needs --preds exactly twice (A and B), got {len(preds)}")
    ref_items = read_items(refs, references=True)
    metrics = build_metrics(
        metric,
        embeddings,
        metric_options(options),
        segment=segment,
        clean=clean_predictions,
        oov=oov,
        centering=centering,
        rescale=rescale,
        **encoder_options(encoder, layer, device, batch_size, fuse_weights),
    )
    pred_a, pred_b = (read_items(p) for p in preds)
    # Each metric on its own bootstrap with the same seed: the same resamples of the pairs.
    rows: list[dict[str, Any]] = []
    for m in metrics:
        a, _, cmp = m.compare(
            ref_items,
            pred_a,
            pred_b,
            resamples=resamples,
            seed=seed,
            allow_empty_reference=allow_empty_reference,
        )
        rows.append(
            {
                "metric": m.name,
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
                "confidence": cmp.confidence,
                "signature": f"{a.signature}|{cmp.signature}",
            }
        )
    if fmt == "json":
        out: Any = rows[0] if len(rows) == 1 else rows
        typer.echo(json.dumps(out, indent=2))
        return
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
    heading = f"A {preds[0]} vs B {preds[1]}, {rows[0]['pairs']} pairs"
    console = print_table(heading, table)
    for r in rows:
        console.print(r["signature"], highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add the scoring commands to the root app."""
    for command in (score, explain, compare):
        app.command()(command)
