"""``wrdscore score`` and ``explain``: the scoring commands (``compare`` is in :mod:`._compare`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from wrdscore.cli import _judge
from wrdscore.cli._common import (
    CLEAN_OPTION,
    NO_SEGMENT_OPTION,
    OOV_OPTION,
    QUIET_OPTION,
    QUIET_TAKEN_OPTION,
    SEGMENT_OPTION,
    check_format,
    metric_names,
    metric_options,
    print_table,
    segment_setting,
    wrote,
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
from wrdscore.cli._tables import print_tables
from wrdscore.errors import WrdscoreError, counted, only_with
from wrdscore.inputs import DEFAULT_CHUNK_PAIRS

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


def _result_json(res: Any, code: bool) -> dict[str, Any]:
    out = {
        "corpus": res.corpus,
        "primary": res.primary,
        "signature": res.signature,
        "oov_tokens": res.oov_tokens,
        "empty_predictions": res.empty_predictions,
        "degenerate_pairs": res.degenerate_pairs,
    }
    if code:
        out["empty_code"] = res.empty_code
        out["cut_code"] = res.cut_code
        if res.empty_references:
            out["empty_references"] = res.empty_references
        if res.unmasked_code:
            # Only under --allow-unmasked: elsewhere such code is refused.
            out["unmasked_code"] = res.unmasked_code
    return out


def _echo_json(out: dict[str, Any], rows: Iterable[dict[str, Any]] | None, err: bool) -> None:
    """``out`` as indented JSON, with ``rows`` (one line each) as its ``per_pair`` list.

    Written as the rows are read, so a million pairs never sit in memory at once.
    """
    import json

    head = json.dumps(out, indent=2)
    if rows is None:
        typer.echo(head, err=err)
        return
    # head ends with "\n}": the list goes in before the closing brace.
    typer.echo(head[:-2] + ',\n  "per_pair": [', nl=False, err=err)
    chunk: list[str] = []
    sep = "\n    "
    for row in rows:
        chunk.append(sep + json.dumps(row, ensure_ascii=False))
        sep = ",\n    "
        if len(chunk) == 1000:
            typer.echo("".join(chunk), nl=False, err=err)
            chunk.clear()
    typer.echo("".join(chunk) + "\n  ]\n}", err=err)


@_judge.judge_options
@encoder_options
def score(
    refs: Path | None = typer.Option(
        None, "--refs", help="References: one item per line, or .jsonl (optional with --code)."
    ),
    preds: Path = typer.Option(..., "--preds", help="Predictions, same number of items."),
    code: Path | None = typer.Option(
        None,
        "--code",
        help="CODE.jsonl aligned with --preds: per line, a JSON string holding the method's "
        "source, or an object with a 'code' field (and optionally 'name', the name to mask). "
        "Adds <metric>.code (support in the code) and <metric>.combined.",
    ),
    language: str | None = typer.Option(
        None,
        "--language",
        help="Language of the --code snippets: java, python, javascript, typescript, go, "
        "php, ruby, c_sharp, c or cpp \\[default: a line's 'language' key, else told "
        "from the code]; the signature records it (lang:python).",
    ),
    allow_unmasked: bool = ALLOW_UNMASKED_OPTION,
    corpus: Path | None = typer.Option(
        None,
        "--corpus",
        help="An ingested CORPUS_DIR: references are its methods' names (summaries with "
        "--target summary), code their source; --preds by record order, or a .jsonl of "
        '{"id": ..., "prediction": ...} objects.',
    ),
    target: str | None = typer.Option(
        None,
        "--target",
        help="What the predictions are, name or summary: how code is read \\[default: name].",
    ),
    code_weight: float | None = typer.Option(
        None,
        "--code-weight",
        help="Weight w of the code in combined = (1 - w) ref + w code, from 0 to 1 "
        "\\[default: 0.5, the even mean].",
    ),
    strings: str | None = STRINGS_OPTION,
    code_support: str | None = CODE_SUPPORT_OPTION,
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
    ),
    metric: list[str] = typer.Option(
        ["wrd"],
        "--metric",
        "-m",
        help="Metric name, in any case; repeat for one column each.",
        callback=metric_names,
    ),
    oov: str = OOV_OPTION,
    centering: str = typer.Option(
        "none", "--centering", help="none, dimension, sentence, corpus or batch."
    ),
    options: list[str] = SET_OPTION,
    rescale: bool = RESCALE_OPTION,
    per_pair: Path | None = typer.Option(
        None,
        "--per-pair",
        help="Also write every pair's scores to OUT.tsv or OUT.jsonl; '-': TSV rows to "
        "standard output (the summary then goes to standard error). With --corpus and "
        "predictions by id, an 'id' column first; with --clean-predictions, a 'scored' "
        "column after 'prediction'.",
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --per-pair file."),
    fmt: str = typer.Option(
        "table",
        "--format",
        help="table or json (json also has every pair's values, under 'per_pair', unless "
        "--per-pair - writes them to standard output).",
    ),
    allow_empty_reference: bool = typer.Option(
        False, "--allow-empty-reference", help="Score references without tokens as 0."
    ),
    quiet: bool = QUIET_OPTION,
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
    no_segment: bool = NO_SEGMENT_OPTION,
    clean_predictions: bool = CLEAN_OPTION,
    encoder: EncoderOptions = EncoderOptions(),
    judge: _judge.JudgeOptions = _judge.JudgeOptions(),
) -> None:
    """Score predicted names or summaries against true ones, their methods' code, or both."""
    import tempfile

    from wrdscore.atomic import check_not_input
    from wrdscore.corpora import MAX_CODE_CHARS
    from wrdscore.corpus_inputs import corpus_inputs, corpus_item_names
    from wrdscore.inputs import (
        STDOUT,
        check_code_path,
        check_per_pair_path,
        count_pairs,
        id_predictions,
        iter_per_pair,
    )
    from wrdscore.metrics import OOV_NAMES, build_metrics, first_names, score_files
    from wrdscore.metrics.base import metric_class
    from wrdscore.progress import progress_bar

    check_format(fmt)
    if chunk_pairs < 1:
        # As --jobs is refused (score_files' own refusal names no option).
        raise WrdscoreError(f"--chunk-pairs must be at least 1, not {chunk_pairs}")
    reads_code = check_sources(refs, code, corpus, "score")
    if code is not None:
        check_code_path(code)
    shared = code_options(reads_code, target, code_weight, strings, code_support)
    if per_pair is not None:
        if per_pair != STDOUT:
            check_not_input(per_pair, [refs, preds, code, corpus, embeddings], "--per-pair")
        check_per_pair_path(per_pair, force)
    elif force:
        raise only_with(["--force"], "--per-pair")  # as explain's without --plot
    if refs is not None and (
        encoder.name is not None or any(metric_class(m).in_process for m in metric)
    ):
        # A torch model takes seconds to load: a missing file or a count that differs
        # is found first (one quick read of each), not after it.
        count_pairs(refs, preds)
    # Per-pair rows on standard output: everything else goes to standard error.
    to_stderr = per_pair == STDOUT
    judged = judge.settings(metric, metric_options(options))
    add_allow_unmasked(shared, allow_unmasked, reads_code)
    per_metric = with_code_options(metric, judged, shared, language, code, corpus)
    check_code_weight(code_weight, refs, corpus)
    references: Any = refs
    hints = _score_hints(preds, clean_predictions, (target or "name") if reads_code else None)
    code_items: Any = code
    ids = item_names = None
    # Every pair's values for --format json are read back from the per-pair rows, a
    # line at a time (memory stays flat): the user's file, or one in a folder of its own
    # (removed when the object goes), printed after the progress bar has gone. Rows on
    # standard output (--per-pair -) are the user's already.
    rows_dir = tempfile.TemporaryDirectory() if fmt == "json" and per_pair is None else None
    pairs_out = per_pair if rows_dir is None else Path(rows_dir.name) / "pairs.jsonl"
    with tempfile.TemporaryDirectory() as workdir, progress_bar(quiet) as bar:
        # Loading torch and an encoder takes seconds (a model given with -e may too).
        loading = _loading_task(bar, encoder.name, embeddings)
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
        if loading is not None:
            bar.update(loading, total=1, completed=1)
        if corpus is not None:
            if pairs_out is not None:
                # Predictions given by id: the per-pair rows say which method each is.
                by_id = id_predictions(preds)
                ids = None if by_id is None else list(by_id)
            corpus_target, source = corpus_reading(metrics)
            # Errors name the corpus's method (before preds is the rewritten file).
            item_names = corpus_item_names(corpus, corpus_target, preds)
            # The source is read only when some metric parses it (keeps strings).
            references, code_items, preds = corpus_inputs(
                corpus, preds, corpus_target, Path(workdir), code=source
            )
        _show_encoding(metrics, bar)
        _judge.show_judging(metrics, bar)
        task = bar.add_task("scoring", total=None)
        results = score_files(
            metrics,
            references,
            preds,
            code=code_items,
            allow_empty_reference=allow_empty_reference,
            per_pair=pairs_out,
            force=force,
            jobs=jobs,
            chunk_pairs=chunk_pairs,
            progress=lambda k: bar.advance(task, k),
            on_count=lambda n: bar.update(task, total=n),
            ids=ids,
            item_names=item_names,
        )
    if per_pair is not None and not to_stderr:
        wrote(per_pair, counted(results[0].pairs, "pair"))
    pairs = results[0].pairs
    if fmt == "json":
        out: dict[str, Any] = {
            "pairs": pairs,
            "metrics": {r.metric: _result_json(r, reads_code) for r in results},
        }
        rows = None if pairs_out is None or to_stderr else iter_per_pair(pairs_out)
        _echo_json(out, rows, err=to_stderr)
        if rows_dir is not None:
            rows_dir.cleanup()
        echo_hints(hints)
        return
    counts = {m.name: m.count_keys for m in metrics}
    wide, narrow = _corpus_tables(results, counts)
    heading = f"{counted(pairs, 'pair')}, corpus scores"
    console = print_table(heading, wide, narrow=narrow, stderr=to_stderr)
    for r in results:
        console.print(r.signature, highlight=False, soft_wrap=True)
    unseen = max(r.oov_tokens for r in results)
    degenerate = max(r.degenerate_pairs for r in results)
    names = first_names(t for r in results for t in r.oov_names)
    more = ", ..." if len(names) == OOV_NAMES else ""
    empty_code = max(r.empty_code for r in results)
    its = "its" if empty_code == 1 else "their"
    no_ref = max(r.empty_references for r in results)
    notes = [
        f"{counted(unseen, 'unseen token occurrence')} ({', '.join(names)}{more})"
        if unseen
        else "",
        f"{counted(results[0].empty_predictions, 'empty prediction')} scored 0"
        + (" before rescaling" if rescale else "")
        if results[0].empty_predictions
        else "",
        f"{counted(degenerate, 'pair')} with no known token scored 0"
        + (" before rescaling" if rescale else "")
        if degenerate
        else "",
        f"{counted(empty_code, 'pair')} with nothing to match in {its} code "
        "(no code token with weight, or a prediction of unseen tokens) scored 0 on code"
        # Without references there is no combined value to fall back.
        + (f", {its} combined the reference's value" if "combined" in results[0].keys else "")
        if reads_code and empty_code
        else "",
        f"{counted(no_ref, 'pair')} without a reference token: "
        f"{'its' if no_ref == 1 else 'their'} combined is the code support"
        if no_ref
        else "",
        f"{counted(results[0].cut_code, 'method')} cut to {MAX_CODE_CHARS:,} characters, at a "
        f"line as ingest cuts {'it' if results[0].cut_code == 1 else 'them'}"
        if results[0].cut_code
        else "",
        unmasked_note(max(r.unmasked_code for r in results)),
    ]
    # Inputs cut at a model's maximum length are never dropped silently: each metric
    # words what this run cut (summed over the file's chunks).
    notes += list(
        dict.fromkeys(m.truncation_note(r.cuts) for m, r in zip(metrics, results, strict=True))
    )
    for note in filter(None, notes):
        typer.echo(f"note: {note}", err=True)
    echo_hints(hints)


def _score_hints(preds: Path, cleaned: bool, target: str | None) -> list[str | None]:
    """Hints about the predictions (their first lines): chat replies not cleaned, and
    sentences scored as names against code (``target``: None without code, where
    names and summaries are scored alike)."""
    from wrdscore.hints import chat_hint, first_predictions, sentence_hint

    sample = first_predictions(preds)
    return [chat_hint(sample, cleaned), None if target is None else sentence_hint(sample, target)]


def _loading_task(bar: Progress, encoder: str | None, embeddings: str | None) -> TaskID | None:
    """A line for loading the models, when one is named (the bundled one loads in a blink).

    Short, like every stage's line, so that the bar and counts fit in 80 columns.
    """
    what = [w for w, given in (("encoder", encoder), ("embeddings", embeddings)) if given]
    if not what:
        return None
    return bar.add_task(f"loading {' and '.join(what)}", total=None)


def _show_encoding(metrics: list[Any], bar: Any) -> None:
    """Lines for an encoder's stages, with known totals: the fusion's probe when it must
    be measured (done here, before the names, so the lines come in the order they run),
    then the names encoded, counted as each part of the input is read."""
    contextual = [m.contextual for m in metrics if getattr(m, "contextual", None) is not None]
    if not contextual:
        return
    # Only with an encoder: scoring without one never imports the encoders subpackage.
    from wrdscore.embeddings.encoders import ENCODING

    tasks: dict[str, int] = {}
    totals: dict[str, int] = {}

    def report(stage: str, planned: int, done: int) -> None:
        if stage not in tasks:
            tasks[stage], totals[stage] = int(bar.add_task(stage, total=None)), 0
        if planned:
            totals[stage] += planned
            bar.update(tasks[stage], total=totals[stage])
        if done:
            bar.advance(tasks[stage], done)

    for c in contextual:
        c.report = report
    for c in contextual:
        if c.fuse:
            c.prepare()
    report(ENCODING, 0, 0)


def _corpus_tables(results: list[Any], counts: dict[str, tuple[str, ...]]) -> tuple[Any, Any]:
    """The corpus scores as a column per metric, and turned: a row per metric.

    The headline value of each metric is bold; counts (subtoken's ``tp``...) are whole
    numbers, printed without decimals.
    """
    from rich.table import Table  # only for the table (--format json never needs rich)

    keys = list(dict.fromkeys(k for r in results for k in r.keys))
    # The values against the code come last, after every metric's own.
    code = [k for k in ("code", "combined") if k in keys]
    keys = [k for k in keys if k not in code] + code

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


@_judge.judge_options
@encoder_options
def explain(
    reference: str = typer.Argument(..., help="True name, e.g. getUserName or 'get user name'."),
    prediction: str | None = typer.Argument(
        None, help="Predicted name (with --code, a lone name is the prediction)."
    ),
    embeddings: str | None = typer.Option(
        None, "--embeddings", "-e", help="MODEL_DIR or vectors file \\[default: bundled model]."
    ),
    weights: str = typer.Option("norm", "--weights", help="norm, norm*idf, idf or uniform."),
    clip: bool = typer.Option(True, "--clip/--no-clip", help="Clip cosines at 0 in P and R."),
    oov: str = OOV_OPTION,
    centering: str = typer.Option("none", "--centering", help="none, dimension, ... batch."),
    plot: Path | None = typer.Option(None, "--plot", help="Also draw the matrices to a PNG."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --plot file."),
    fmt: str = typer.Option("table", "--format", help="table or json."),
    segment: bool = SEGMENT_OPTION,
    no_segment: bool = NO_SEGMENT_OPTION,
    encoder: EncoderOptions = EncoderOptions(),
    code: str | None = typer.Option(
        None, "--code", help="A file holding the method's source, or '-' for standard input."
    ),
    target: str = typer.Option("name", "--target", help="With --code: name or summary."),
    strings: str = typer.Option("drop", "--strings", help="With --code: drop or keep literals."),
    language: str | None = typer.Option(
        None,
        "--language",
        help="With --code: the code's language (java, python, ...) \\[default: told from it].",
    ),
    top: int = typer.Option(3, "--top", help="With --code: code tokens shown per token."),
    code_support: str | None = CODE_SUPPORT_OPTION,
    allow_unmasked: bool = typer.Option(
        False,
        "--allow-unmasked",
        help="With --code: read code whose name cannot be masked unmasked, as score does.",
    ),
    judge: _judge.JudgeOptions = _judge.JudgeOptions(),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Show the cosine and optimal-flow matrices behind one pair's WRDScore.

    With --code, show which tokens of the method's code carry each prediction token;
    with --judge-url and --judge-model, the judge's prompt and reply instead.
    """
    import json

    from wrdscore.atomic import check_not_input
    from wrdscore.cli._explain_code import explain_code
    from wrdscore.explain import (
        plot_transport,
        segmentation_lines,
        segmentations,
        transport_tables,
    )
    from wrdscore.metrics.base import build_metrics
    from wrdscore.metrics.wrd import WRDScore

    check_format(fmt)
    judged = judge.settings(["judge"] if judge.url or judge.model else [], {}, sets=False)
    if judged:
        from wrdscore.cli._explain_judge import explain_judge

        # The judge shows its prompt and reply: none of WRDScore's options, nor a plot,
        # has anything to act on, so each given is refused rather than ignored.
        given = {"--plot": plot is not None, "--force": force}
        given |= {"--embeddings": embeddings is not None}
        given |= {"--weights": weights != "norm", "--no-clip": not clip, "--oov": oov != "auto"}
        given |= {"--centering": centering != "none", "--top": top != 3}
        given |= {"--segment": segment, "--no-segment": no_segment, "--strings": strings != "drop"}
        given |= {"--code-support": code_support is not None, "--allow-unmasked": allow_unmasked}
        given |= {"--encoder": bool(encoder.keywords(embeddings))}  # --layer alone: its own error
        stray = [option for option, set_ in given.items() if set_]
        if stray:
            verb = "does" if len(stray) == 1 else "do"
            raise WrdscoreError(
                f"{', '.join(stray)} {verb} not apply to the judge's prompt and reply "
                "(--judge-url, --judge-model)"
            )
        # The judge's view of the pair: the prompt it was sent and its reply.
        ref, pred = (None, reference) if prediction is None else (reference, prediction)
        explain_judge(judged["judge"], ref, pred, code, target, language, fmt)
        return
    if plot is not None and plot.suffix.lower() != ".png":
        raise WrdscoreError(f"--plot {plot} must end in .png")
    if plot is not None:
        check_not_input(plot, [code if code != "-" else None, embeddings], "--plot")
        if plot.exists() and not force:
            raise WrdscoreError(f"output {plot} already exists (use --force to replace it)")
    elif force:
        raise only_with(["--force"], "--plot")
    if code is None and prediction is None:
        raise WrdscoreError("give REFERENCE PREDICTION, or PREDICTION with --code")
    if code is None:
        given = {"--target": target != "name", "--strings": strings != "drop"}
        given |= {"--language": language is not None, "--top": top != 3}
        given |= {"--code-support": code_support is not None}
        given |= {"--allow-unmasked": allow_unmasked}
        stray = [option for option, set_ in given.items() if set_]
        if stray:
            raise only_with(stray, "--code")
    # With --code the target and string policy are the metric's options, so its code
    # signature records them.
    reading = (
        {}
        if code is None
        else {
            "target": target,
            "strings": strings,
            "language": language,
            "allow_unmasked": allow_unmasked,
        }
        | code_options(True, None, None, None, code_support)
    )
    (scorer,) = build_metrics(
        ["wrd"],
        embeddings,
        {"wrd": {"weights": weights, "clip": clip, **reading}},
        segment=segment_setting(segment, no_segment),
        oov=oov,
        centering=centering,
        **encoder.keywords(embeddings),
    )
    assert isinstance(scorer, WRDScore)
    if code is not None:
        # One name with --code is the prediction; two are the reference and the prediction.
        ref, pred = (None, reference) if prediction is None else (reference, prediction)
        explain_code(scorer, pred, code, ref, top=top, plot=plot, fmt=fmt, language=language)
        return
    assert prediction is not None
    t = scorer.transport(reference, prediction)
    # What the segmenter did with the pair's run-together tokens, and why.
    segmented = segmentations(reference, prediction) if scorer.segment else []
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
            "segmentation": [
                {"token": s.token, "pieces": list(s.pieces), "reason": s.reason} for s in segmented
            ],
            "signature": scorer.signature,
        }
        typer.echo(json.dumps(out, indent=2))
    else:
        # Long names give more columns than a terminal has room for: blocks of columns.
        console = print_tables(transport_tables(t))
        console.print(f"precision {t.precision:.4f}  recall {t.recall:.4f}  F1 {t.f1:.4f}")
        for line in segmentation_lines(segmented):
            console.print(line, highlight=False)
        console.print(scorer.signature, highlight=False, soft_wrap=True)
    if scorer.contextual is None:
        # Unseen tokens get a vector (their subword one, or zero): say which, in one line.
        unseen = [
            tok
            for tok in dict.fromkeys(t.ref_tokens + t.pred_tokens)
            if tok not in scorer.embeddings
        ]
        if unseen:
            made = "their subword vectors" if scorer.oov == "subword" else "zero vectors"
            typer.echo(
                f"note: not in the vocabulary: {' '.join(unseen)} (--oov {scorer.oov}: {made})",
                err=True,
            )
    if plot is not None:
        plot_transport(t, plot)
        wrote(plot)


def register(app: typer.Typer) -> None:
    """Add the scoring commands to the root app."""
    from wrdscore.cli._compare import compare

    for command in (score, explain, compare):
        app.command()(command)
