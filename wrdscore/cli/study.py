"""``wrdscore study sample`` and ``study analyze``: human-agreement studies.

The study library is imported inside the commands: it pulls in scipy and matplotlib.
"""

from __future__ import annotations

from pathlib import Path

import typer

from wrdscore.atomic import check_not_input
from wrdscore.cli import _judge
from wrdscore.cli._common import (
    CLEAN_OPTION,
    NO_SEGMENT_OPTION,
    OOV_OPTION,
    QUIET_TAKEN_OPTION,
    SEGMENT_OPTION,
    metric_names,
    seed_option,
    segment_setting,
    typer_app,
    wrote,
)
from wrdscore.cli._encoder_options import EncoderOptions, encoder_options
from wrdscore.errors import WrdscoreError, counted

study_app = typer_app("Human-agreement studies.")


@encoder_options
def study_sample(
    refs: Path = typer.Option(..., "--refs", help="Reference names, one per line."),
    preds: Path = typer.Option(
        ...,
        "--preds",
        help="Predicted names, one per line, same order (a .jsonl file: a JSON string a "
        "line, decoded as `score` decodes it).",
    ),
    output: Path = typer.Option(..., "--output", "-o", help="Study folder to create."),
    code: Path | None = typer.Option(
        None,
        "--code",
        help='CODE.jsonl aligned with the pairs (a JSON string or {"code": ...} a line): '
        "the sheets and forms show each method's code.",
    ),
    language: str | None = typer.Option(
        None,
        "--language",
        help="Language of the --code snippets (java, python, javascript, typescript, go, "
        "php, ruby, c_sharp, c, cpp) \\[default: told from each snippet]; the forms "
        "highlight the code in it.",
    ),
    target: str = typer.Option(
        "name",
        "--target",
        help="What the pairs are, name or summary: the instructions ask to rate names or "
        "summaries, and --code is read for it.",
    ),
    clean_predictions: bool = CLEAN_OPTION,
    embeddings: str | None = typer.Option(
        None, "--embeddings", help="MODEL_DIR for the WRDScore strata (default: bundled)."
    ),
    oov: str = OOV_OPTION,
    sets: int = typer.Option(3, "--sets", help="Sets of pairs; each set has its own raters."),
    stratum: list[str] | None = typer.Option(
        None,
        "--stratum",
        help="SIZE or SIZE:COND,... (COND: metric<x, <=, >, >=), repeated; replaces the "
        "paper's five strata of 10. Quote it in a shell: --stratum '10:wrd>=0.8,rouge1<0.5'.",
    ),
    raters: int = typer.Option(3, "--raters", help="Raters (sheets and forms) per set."),
    seed: int = seed_option(0, "Seed of the draw and the sheet order."),
    strict: bool = typer.Option(False, "--strict", help="Fail if a stratum runs short."),
    force: bool = typer.Option(False, "--force", help="Replace an existing study folder."),
    encoder: EncoderOptions = EncoderOptions(),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Draw a stratified study and write its pairs, rating sheets and HTML forms."""
    from wrdscore import human_eval

    check_not_input(output, [refs, preds, code, embeddings], "--output")
    strata = (
        [human_eval.parse_stratum(s) for s in stratum] if stratum else human_eval.DEFAULT_STRATA
    )
    design = human_eval.sample_study(
        refs,
        preds,
        output,
        code=code,
        embeddings=embeddings,
        oov=oov,
        n_sets=sets,
        strata=strata,
        raters=raters,
        seed=seed,
        strict=strict,
        force=force,
        encoder=encoder.keywords(embeddings),
        clean_predictions=clean_predictions,
        language=language,
        target=target,
    )
    for short in design.shortfalls:
        typer.echo(
            f"note: set {short.set}, stratum {short.stratum}: drew {short.got} of "
            f"{counted(short.wanted, 'pair')}, no more unused pairs qualify",
            err=True,
        )
    sizes = ", ".join(str(len(s)) for s in design.sets)
    wrote(
        output,
        f"{counted(len(design.sets), 'set')} of {sizes} pair{'' if sizes == '1' else 's'}, "
        f"{counted(raters, 'rater')} each: "
        f"sheets in {output / 'sheets'}, forms in {output / 'forms'}",
    )


@_judge.judge_options
@encoder_options
def study_analyze(
    output: Path = typer.Option(..., "--output", "-o", help="Report folder to create."),
    study: Path | None = typer.Option(None, "--study", help="Study folder from `study sample`."),
    ratings: list[str] | None = typer.Option(
        None, "--ratings", help="Filled-in sheets: paths or quoted globs ('sheets/*.csv')."
    ),
    pairs: list[Path] | None = typer.Option(
        None,
        "--pairs",
        help="reference,prediction,score CSV files or folders (published data), or "
        "wrdscore-paper: the paper's 150 ratings shipped in the package.",
    ),
    scale: float | None = typer.Option(
        None,
        "--scale",
        help="Top of the --pairs score scale: 10 maps 0-10 to 0-1 (default 1; "
        "wrdscore-paper knows its own).",
    ),
    metric: list[str] | None = typer.Option(
        None,
        "--metric",
        "-m",
        help="Metric to analyse, repeated (default: rouge1 wrd bertscore).",
        callback=metric_names,
    ),
    baseline: str = typer.Option(
        "rouge1",
        "--baseline",
        help="Metric the others are tested against.",
        callback=lambda name: metric_names([name])[0],  # type: ignore[index]
    ),
    target: str | None = typer.Option(
        None,
        "--target",
        help="How a study's code is read, name or summary \\[default: the study's, from "
        "study sample --target].",
    ),
    embeddings: str | None = typer.Option(
        None, "--embeddings", help="MODEL_DIR for embedding metrics (default: bundled)."
    ),
    oov: str = OOV_OPTION,
    rescale: bool = typer.Option(
        False, "--rescale", help="Rescale embedding metrics against the model's baselines."
    ),
    resamples: int | None = typer.Option(
        None,
        "--resamples",
        help="Bootstrap resamples B; at least 40 for the 95% intervals \\[default: 100].",
    ),
    # The old name, before compare's --resamples settled it: still taken, not shown.
    bootstraps: int | None = typer.Option(None, "--bootstraps", hidden=True),
    seed: int = seed_option(0, "Seed of the bootstrap."),
    force: bool = typer.Option(False, "--force", help="Replace an existing report folder."),
    segment: bool = SEGMENT_OPTION,
    no_segment: bool = NO_SEGMENT_OPTION,
    encoder: EncoderOptions = EncoderOptions(),
    judge: _judge.JudgeOptions = _judge.JudgeOptions(),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Measure how close each metric comes to the human ratings; write report.md/json + plots."""
    import glob

    from wrdscore import human_eval
    from wrdscore.hints import small_sample_hint
    from wrdscore.significance import check_resamples

    # --ratings may be quoted globs: each file they match is an input too.
    rated = [f for r in ratings or [] for f in [r, *glob.glob(r)]]
    check_not_input(output, [study, *rated, *(pairs or []), embeddings], "--output")
    if bootstraps is not None:
        if resamples is not None:
            raise WrdscoreError("give --resamples only (--bootstraps is its deprecated old name)")
        typer.echo("note: --bootstraps is deprecated; use --resamples", err=True)
        resamples = bootstraps
    resamples = 100 if resamples is None else resamples
    # In the command line's words (the library's check names its parameter).
    check_resamples(resamples, human_eval.LEVEL, "--resamples")
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
        rescale=rescale,
        segment=segment_setting(segment, no_segment),
        resamples=resamples,
        seed=seed,
        force=force,
        encoder=encoder.keywords(embeddings),
        target=target,
        per_metric=judge.settings(list(metric or human_eval.DEFAULT_METRICS), {}, sets=False),
    )
    for note in analysis.ratings.notes:
        typer.echo(f"note: {note}", err=True)
    for line in human_eval.summary_lines(analysis):
        typer.echo(line)
    wrote(output, "report.md, report.json and plots/")
    small = small_sample_hint(len(analysis.ratings))
    if small is not None:
        typer.echo(f"hint: {small}", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``study`` group to the root app."""
    study_app.command("sample")(study_sample)
    study_app.command("analyze")(study_analyze)
    app.add_typer(study_app, name="study")
