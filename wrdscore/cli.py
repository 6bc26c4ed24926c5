"""The ``wrdscore`` command: one typer app that parses arguments and calls the library.

No logic lives here beyond turning options into library calls and results into
tables or JSON. Errors a user can fix (:class:`~wrdscore.errors.WrdscoreError`,
file-system errors) become ``error: <one line>`` on stderr and exit code 2;
Ctrl-C exits 130 after the library has cleaned up its temporary outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from wrdscore import __version__, corpora
from wrdscore.errors import WrdscoreError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


class _Group(TyperGroup):
    """Turns user errors anywhere below it into one-line messages."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except WrdscoreError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            typer.echo(f"error: {exc.strerror or exc}{where}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
        except KeyboardInterrupt:
            typer.echo("interrupted: nothing was written", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"wrdscore {__version__}")
        raise typer.Exit()


def _print_table(heading: str, table: Table) -> Console:
    """Print a heading line, then the table (a rich title would wrap to the table's width)."""
    from rich.console import Console

    console = Console()
    console.print(heading, highlight=False, soft_wrap=True)
    console.print(table)
    return console


app = typer.Typer(
    cls=_Group,
    help="Score predicted code identifiers with WRDScore and its family.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
corpus_app = typer.Typer(cls=_Group, help="Inspect ingested corpora.", no_args_is_help=True)
study_app = typer.Typer(cls=_Group, help="Human-agreement studies.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")
app.add_typer(study_app, name="study")


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version."
    ),
) -> None:
    """wrdscore: judge how good a predicted code identifier is."""


# --- corpora: ingest, corpus stats --------------------------------------------------


@app.command()
def ingest(
    # Strings, not Paths: with --scheduler a SOURCE may be an fsspec URL (s3://...).
    sources: list[str] = typer.Argument(
        ..., help="Folders, .java files, .zip/.jar or .tar(.gz/.xz/.bz2) archives."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="Corpus folder to create."),
    parser: str = typer.Option(
        corpora.DEFAULT_PARSER, help=f"Parser tried first: {' or '.join(corpora.PARSERS)}."
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", help="Worker processes [default: number of cores]."
    ),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        help="Run on a Dask cluster: its scheduler's address (tcp://host:8786), or 'local' "
        "for a LocalCluster of --jobs workers. Sources may then be fsspec URLs.",
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing output folder."),
    max_file_mb: float = typer.Option(
        corpora.DEFAULT_MAX_FILE_MB, help="Skip (and list) files larger than this."
    ),
    fallback: bool = typer.Option(
        True, "--fallback/--no-fallback", help="Try the other parser on files that fail."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Extract every Java method name into a corpus folder (records + manifest)."""
    manifest = corpora.ingest(
        sources,
        output,
        parser=parser,
        jobs=jobs,
        force=force,
        max_file_mb=max_file_mb,
        fallback=fallback,
        quiet=quiet,
        scheduler=scheduler,
    )
    c = manifest["counts"]
    typer.echo(
        f"{c['methods']:,} methods from {c['files_seen']:,} files "
        f"({c['files_parsed']:,} parsed, {c['files_fallen_back']:,} by the fallback parser, "
        f"{c['files_failed']:,} failed, "
        f"{c['files_skipped_size'] + c['files_skipped_binary']:,} skipped) "
        f"in {manifest['wall_seconds']:.1f} s -> {output}"
    )


@corpus_app.command("stats")
def corpus_stats(
    corpus_dir: Path = typer.Argument(..., help="Corpus folder written by `wrdscore ingest`."),
    top: int = typer.Option(20, "--top", help="How many of the most frequent tokens to list."),
) -> None:
    """Describe a corpus: manifest counts, most frequent tokens, name-length histogram."""
    from rich.console import Console

    console = Console()
    for table in corpora.stats_tables(corpora.corpus_stats(corpus_dir, top=top)):
        console.print(table)


# --- embeddings: train, neighbors, similarity ---------------------------------------
# The embeddings library is imported inside the commands so `wrdscore --help` stays fast
# (gensim and scipy take a second to import).


@app.command()
def train(
    corpus_dir: str = typer.Argument(..., help="Corpus folder written by `wrdscore ingest`."),
    method: str = typer.Option(..., "--method", "-m", help="svd, word2vec or fasttext."),
    output: str = typer.Option(..., "--output", "-o", help="MODEL_DIR to write."),
    dim: int = typer.Option(50, "--dim", help="Vector dimension."),
    window: int | None = typer.Option(
        None, "--window", help="Context window [default: whole name for svd, 2 otherwise]."
    ),
    min_count: int = typer.Option(1, "--min-count", help="Drop tokens rarer than this."),
    epochs: int = typer.Option(5, "--epochs", help="Training epochs (word2vec, fasttext)."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    workers: int = typer.Option(1, "--workers", help="gensim threads; 1 is deterministic."),
    text: str = typer.Option("names", "--text", help="names, summaries or both."),
    weighting: str = typer.Option("raw", "--weighting", help="svd: raw counts or ppmi."),
    bucket: int = typer.Option(20_000, "--bucket", help="fasttext: n-gram hash buckets."),
    name: str | None = typer.Option(None, "--name", help="Label used in score signatures."),
    force: bool = typer.Option(False, "--force", help="Replace an existing MODEL_DIR."),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        help="Count document frequencies and co-occurrences on a Dask cluster: an address "
        "(tcp://host:8786) or 'local'.",
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", help="Workers of --scheduler local [default: number of cores]."
    ),
) -> None:
    """Train sub-token embeddings on a corpus and save them as a MODEL_DIR."""
    from wrdscore.embeddings import train_embeddings

    emb = train_embeddings(
        corpus_dir,
        method,
        output,
        dim=dim,
        window=window,
        min_count=min_count,
        epochs=epochs,
        seed=seed,
        workers=workers,
        text=text,
        weighting=weighting,
        bucket=bucket,
        name=name,
        force=force,
        scheduler=scheduler,
        jobs=jobs,
    )
    typer.echo(
        f"wrote {output}: {emb.name}, {len(emb)} tokens x {emb.dim} dims, "
        f"{emb.n_docs} documents, {emb.meta['train_seconds']:.1f} s"
    )


def _model_arg(model: str) -> Any:
    from wrdscore.embeddings import load_embeddings

    return load_embeddings(model)


@app.command()
def neighbors(
    model: str = typer.Argument(..., help="MODEL_DIR, vectors file, or 'default'."),
    token: str = typer.Argument(..., help="A token or raw identifier such as getCount."),
    k: int = typer.Option(10, "-k", help="How many neighbours."),
) -> None:
    """List the tokens nearest to a token or identifier (mean of its sub-token vectors)."""
    from rich.table import Table

    from wrdscore.embeddings import identifier_vector
    from wrdscore.embeddings import neighbors as nearest

    emb = _model_arg(model)
    found = nearest(emb, token, k=k)
    query = identifier_vector(emb, token)
    heading = f"nearest to {' '.join(query.tokens)} in {emb.name}"
    table = Table()
    table.add_column("#", justify="right")
    table.add_column("token")
    table.add_column("cosine", justify="right")
    for rank, (tok, sim) in enumerate(found, 1):
        table.add_row(str(rank), tok, f"{sim:.4f}")
    _print_table(heading, table)
    if query.unseen:
        typer.echo(f"note: not in the vocabulary: {' '.join(query.unseen)}", err=True)


@app.command()
def similarity(
    model: str = typer.Argument(..., help="MODEL_DIR, vectors file, or 'default'."),
    a: str = typer.Argument(..., help="First token or identifier."),
    b: str = typer.Argument(..., help="Second token or identifier."),
) -> None:
    """Cosine similarity of two tokens or identifiers (mean of sub-token vectors)."""
    from rich.table import Table

    from wrdscore.embeddings import identifier_vector
    from wrdscore.embeddings import similarity as cosine

    emb = _model_arg(model)
    value = cosine(emb, a, b)
    table = Table()
    table.add_column("a")
    table.add_column("b")
    table.add_column("cosine", justify="right")
    table.add_row(a, b, f"{value:.4f}")
    _print_table(f"similarity in {emb.name}", table)
    for ident in (a, b):
        unseen = identifier_vector(emb, ident).unseen
        if unseen:
            typer.echo(f"note: {ident}: not in the vocabulary: {' '.join(unseen)}", err=True)


# --- scoring: score, explain, compare -----------------------------------------------

_FORMATS = ("table", "json")


def _check_format(fmt: str) -> None:
    if fmt not in _FORMATS:
        raise WrdscoreError(f"unknown format {fmt!r}; choose table or json")


def _score_all(
    metrics: list[Any], refs: list[Any], preds: list[Any], allow_empty: bool, quiet: bool
) -> list[Any]:
    from wrdscore.progress import progress_bar

    results = []
    with progress_bar(quiet) as bar:
        for m in metrics:
            task = bar.add_task(f"scoring {m.name}", total=len(preds))
            results.append(
                m.score(
                    refs,
                    preds,
                    allow_empty_reference=allow_empty,
                    progress=lambda k, task=task: bar.advance(task, k),
                )
            )
            bar.update(task, completed=len(preds))
    return results


def _metric_options(specs: list[str]) -> dict[str, dict[str, Any]]:
    """``--set wrd.weights=idf`` -> ``{"wrd": {"weights": "idf"}}``; JSON values typed."""
    import json

    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        target, sep, raw = spec.partition("=")
        metric, dot, key = target.partition(".")
        if not (sep and dot and metric and key.isidentifier()):
            raise WrdscoreError(
                f"--set {spec!r}: expected METRIC.OPTION=VALUE, e.g. wrd.weights=idf"
            )
        try:
            value = json.loads(raw)  # true, 0.1, 3, "x"
        except json.JSONDecodeError:
            value = raw  # a bare word such as norm*idf
        out.setdefault(metric, {})[key] = value
    return out


def _result_json(res: Any) -> dict[str, Any]:
    return {
        "corpus": res.corpus,
        "primary": res.primary,
        "signature": res.signature,
        "oov_tokens": res.oov_tokens,
        "empty_predictions": res.empty_predictions,
        "degenerate_pairs": res.degenerate_pairs,
    }


@app.command()
def score(
    refs: Path = typer.Option(..., "--refs", help="References: one item per line, or .jsonl."),
    preds: Path = typer.Option(..., "--preds", help="Predictions, same number of items."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file [default: bundled model]."
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
    per_pair: Path | None = typer.Option(
        None, "--per-pair", help="Also write every pair's scores to OUT.tsv or OUT.jsonl."
    ),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Score a file of predicted names against a file of true names (the main job)."""
    import json

    from rich.table import Table

    from wrdscore.base import build_metrics
    from wrdscore.inputs import check_per_pair_path, read_items, write_per_pair

    _check_format(fmt)
    if per_pair is not None:
        check_per_pair_path(per_pair)
    ref_items = read_items(refs, references=True)
    pred_items = read_items(preds)
    metrics = build_metrics(
        metric, embeddings, _metric_options(options), oov=oov, centering=centering
    )
    results = _score_all(metrics, ref_items, pred_items, allow_empty_reference, quiet)
    if per_pair is not None:
        write_per_pair(per_pair, ref_items, pred_items, results)
    if fmt == "json":
        out = {"pairs": len(pred_items), "metrics": {r.metric: _result_json(r) for r in results}}
        typer.echo(json.dumps(out, indent=2))
        return
    # One column per metric, one row per value; the headline value is marked.
    keys = list(dict.fromkeys(k for r in results for k in r.values))
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
    console = _print_table(f"{len(pred_items)} pairs, corpus scores", table)
    for r in results:
        console.print(r.signature, highlight=False, soft_wrap=True)
    unseen = max(r.oov_tokens for r in results)
    degenerate = max(r.degenerate_pairs for r in results)
    notes = [
        f"{unseen} unseen token occurrence(s)" if unseen else "",
        f"{results[0].empty_predictions} empty prediction(s) scored 0"
        if results[0].empty_predictions
        else "",
        f"{degenerate} pair(s) with no known token scored 0" if degenerate else "",
    ]
    for note in filter(None, notes):
        typer.echo(f"note: {note}", err=True)


@app.command()
def explain(
    reference: str = typer.Argument(..., help="True name, e.g. getUserName or 'get user name'."),
    prediction: str = typer.Argument(..., help="Predicted name."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file [default: bundled model]."
    ),
    weights: str = typer.Option("norm", "--weights", help="norm, norm*idf, idf or uniform."),
    clip: bool = typer.Option(True, "--clip/--no-clip", help="Clip cosines at 0 in P and R."),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    centering: str = typer.Option("none", "--centering", help="none, dimension, ... batch."),
    plot: Path | None = typer.Option(None, "--plot", help="Also draw the matrices to a PNG."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
) -> None:
    """Show the cosine and optimal-flow matrices behind one pair's WRDScore."""
    import json

    from rich.console import Console

    from wrdscore.explain import plot_transport, transport_tables
    from wrdscore.wrd import WRDScore

    _check_format(fmt)
    if plot is not None and plot.suffix.lower() != ".png":
        raise WrdscoreError(f"--plot {plot} must end in .png")
    scorer = WRDScore(embeddings, weights=weights, clip=clip, oov=oov, centering=centering)
    t = scorer.transport(reference, prediction)
    if plot is not None:
        plot_transport(t, plot)
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
        return
    console = Console()
    for table in transport_tables(t):
        console.print(table)
    console.print(f"precision {t.precision:.4f}  recall {t.recall:.4f}  F1 {t.f1:.4f}")
    console.print(scorer.signature, highlight=False, soft_wrap=True)


@app.command()
def compare(
    refs: Path = typer.Option(..., "--refs", help="References, one item per line or .jsonl."),
    preds: list[Path] = typer.Option(
        ..., "--preds", help="Give it twice: system A, then system B."
    ),
    metric: str = typer.Option("wrd", "--metric", "-m", help="The metric to compare on."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file [default: bundled model]."
    ),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    centering: str = typer.Option("none", "--centering", help="none, dimension, ... batch."),
    options: list[str] = typer.Option(
        [], "--set", help="A metric option, METRIC.OPTION=VALUE (wrd.weights=idf); repeatable."
    ),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples."),
    seed: int = typer.Option(12345, "--seed", help="Bootstrap seed."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
) -> None:
    """Is system A better than system B? Paired bootstrap of the mean per-pair score."""
    import json

    from rich.console import Console

    from wrdscore.base import build_metrics
    from wrdscore.inputs import read_items

    _check_format(fmt)
    if len(preds) != 2:
        raise WrdscoreError(f"compare needs --preds exactly twice (A and B), got {len(preds)}")
    ref_items = read_items(refs, references=True)
    (m,) = build_metrics(
        [metric], embeddings, _metric_options(options), oov=oov, centering=centering
    )
    a, _, cmp = m.compare(
        ref_items,
        read_items(preds[0]),
        read_items(preds[1]),
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


# --- human studies: study sample, study analyze -------------------------------------
# The study library is imported inside the commands: it pulls in scipy and matplotlib.


@study_app.command("sample")
def study_sample(
    refs: Path = typer.Option(..., "--refs", help="Reference names, one per line."),
    preds: Path = typer.Option(..., "--preds", help="Predicted names, one per line, same order."),
    output: Path = typer.Option(..., "--output", "-o", help="Study folder to create."),
    embeddings: str | None = typer.Option(
        None, "--embeddings", help="MODEL_DIR for the WRDScore strata (default: bundled)."
    ),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    sets: int = typer.Option(3, "--sets", help="Sets of pairs; each set has its own raters."),
    stratum: list[str] | None = typer.Option(
        None,
        "--stratum",
        help="SIZE or SIZE:COND,... (COND: metric<x, <=, >, >=), repeated; replaces the "
        "paper's five strata of 10.",
    ),
    raters: int = typer.Option(3, "--raters", help="Raters (sheets and forms) per set."),
    seed: int = typer.Option(0, "--seed", help="Seed of the draw and the sheet order."),
    strict: bool = typer.Option(False, "--strict", help="Fail if a stratum runs short."),
    force: bool = typer.Option(False, "--force", help="Replace an existing study folder."),
) -> None:
    """Draw a stratified study and write its pairs, rating sheets and HTML forms."""
    from wrdscore import human_eval

    strata = (
        [human_eval.parse_stratum(s) for s in stratum] if stratum else human_eval.DEFAULT_STRATA
    )
    design = human_eval.sample_study(
        refs,
        preds,
        output,
        embeddings=embeddings,
        oov=oov,
        n_sets=sets,
        strata=strata,
        raters=raters,
        seed=seed,
        strict=strict,
        force=force,
    )
    for short in design.shortfalls:
        typer.echo(
            f"note: set {short.set}, stratum {short.stratum}: drew {short.got} of "
            f"{short.wanted} pairs, no more unused pairs qualify",
            err=True,
        )
    sizes = ", ".join(str(len(s)) for s in design.sets)
    typer.echo(
        f"wrote {output}: {len(design.sets)} set(s) of {sizes} pairs, {raters} rater(s) each: "
        f"sheets in {output / 'sheets'}, forms in {output / 'forms'}"
    )


@study_app.command("analyze")
def study_analyze(
    output: Path = typer.Option(..., "--output", "-o", help="Report folder to create."),
    study: Path | None = typer.Option(None, "--study", help="Study folder from `study sample`."),
    ratings: list[str] | None = typer.Option(
        None, "--ratings", help="Filled-in sheets: paths or quoted globs ('sheets/*.csv')."
    ),
    pairs: list[Path] | None = typer.Option(
        None, "--pairs", help="reference,prediction,score CSV files or folders (published data)."
    ),
    scale: float | None = typer.Option(
        None, "--scale", help="Top of the --pairs score scale: 10 maps 0-10 to 0-1 (default 1)."
    ),
    metric: list[str] | None = typer.Option(
        None, "--metric", "-m", help="Metric to analyse, repeated (default: rouge1 wrd bertscore)."
    ),
    baseline: str = typer.Option(
        "rouge1", "--baseline", help="Metric the others are tested against."
    ),
    embeddings: str | None = typer.Option(
        None, "--embeddings", help="MODEL_DIR for embedding metrics (default: bundled)."
    ),
    oov: str = typer.Option("zero", "--oov", help="Unseen tokens: zero, drop or subword."),
    bootstraps: int = typer.Option(100, "--bootstraps", help="Bootstrap resamples B."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap."),
    force: bool = typer.Option(False, "--force", help="Replace an existing report folder."),
) -> None:
    """Measure how close each metric comes to the human ratings; write report.md/json + plots."""
    from wrdscore import human_eval

    analysis = human_eval.analyze_study(
        output,
        study=study,
        ratings=ratings or [],
        pairs=pairs or [],
        scale=scale,
        metrics=metric or human_eval.DEFAULT_METRICS,
        baseline=baseline,
        embeddings=embeddings,
        oov=oov,
        n_boot=bootstraps,
        seed=seed,
        force=force,
    )
    for m in analysis.metrics:
        mse, mae = m.errors["mse"], m.errors["mae"]
        vs = m.comparison["mse"].improvement_pct if m.comparison else None
        better = "" if vs is None else f", {vs:+.2f}% MSE vs {baseline}"
        typer.echo(
            f"{m.metric.label}: MSE {mse.mean:.4f} [{mse.low:.4f}, {mse.high:.4f}], "
            f"MAE {mae.mean:.4f} [{mae.low:.4f}, {mae.high:.4f}]{better}"
        )
    if analysis.agreement is not None:
        alpha, ceiling = analysis.agreement.alpha, analysis.agreement.mean_vs_others
        typer.echo(
            "raters: Krippendorff's alpha "
            f"{'n/a' if alpha is None else f'{alpha:.3f}'}, each vs the others' mean r "
            f"{'n/a' if ceiling is None else f'{ceiling:.3f}'}"
        )
    typer.echo(f"wrote {output / 'report.md'}, report.json and plots/")
