"""``wrdscore tune``: contrastive tuning of an encoder (or a static model) on code pairs.

torch and the trainer are imported inside the command, so ``wrdscore --help`` and
every other command never pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from wrdscore.atomic import check_not_input
from wrdscore.cli._common import DEVICE_OPTION, QUIET_OPTION, seed_option
from wrdscore.errors import counted


def tune(
    model: str = typer.Argument(
        ...,
        help="Encoder to tune (local folder or hub name); with --static, a MODEL_DIR or 'default'.",
        metavar="NAME_OR_PATH",
    ),
    output: str = typer.Option(
        ...,
        "--output",
        "-o",
        help="Folder to write: an encoder folder (a MODEL_DIR with --static).",
    ),
    pairs: list[str] = typer.Option(
        ...,
        "--pairs",
        help="A source of positive pairs: a corpus folder (from `wrdscore ingest`) or a TSV "
        "of 'a<TAB>b' lines; repeat for more.",
        metavar="SOURCE",
    ),
    static: bool = typer.Option(
        False,
        "--static",
        help="Tune a static MODEL_DIR's vectors (VarCLR-Avg), torch-free to score.",
    ),
    epochs: int = typer.Option(1, "--epochs", help="Passes over the pairs."),
    batch_size: int = typer.Option(
        32, "--batch-size", help="Pairs per step (each pair's in-batch negatives: the others)."
    ),
    lr: float | None = typer.Option(
        None, "--lr", help="Peak learning rate \\[default: 2e-5; 1e-2 with --static]."
    ),
    seed: int = seed_option(0, "Seed of the pair order and the sample."),
    device: str | None = DEVICE_OPTION,
    max_pairs: int | None = typer.Option(
        None, "--max-pairs", help="Train on a seeded random sample of this many pairs."
    ),
    max_steps: int | None = typer.Option(
        None, "--max-steps", help="Stop after this many steps (a short run)."
    ),
    summaries: bool = typer.Option(
        True,
        "--summaries/--no-summaries",
        help="Corpus: method names with their Javadoc's first sentence.",
    ),
    synonyms: bool = typer.Option(
        True, "--synonyms/--no-synonyms", help="Corpus: mined synonyms the static vectors confirm."
    ),
    abbreviations: bool = typer.Option(
        True,
        "--abbreviations/--no-abbreviations",
        help="Corpus: mined abbreviations with their expansions.",
    ),
    hard_negatives: bool = typer.Option(
        False,
        "--hard-negatives",
        help="Add a hard negative where a mined contrast applies (get name -> set name).",
    ),
    held_out: list[str] = typer.Option(
        [],
        "--held-out",
        help="More rated pairs never to train on: published CSVs of reference, prediction "
        "and score (the paper's 150 are always held out).",
        metavar="CSV",
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    quiet: bool = QUIET_OPTION,
) -> None:
    """Tune an encoder (or, with --static, a MODEL_DIR) with in-batch-negative contrastive loss."""
    check_not_input(output, [model, *pairs, *held_out], "--output")
    from wrdscore.embeddings.encoders import PairOptions, TuneSettings, tune_encoder, tune_static

    options = PairOptions(
        summaries=summaries,
        synonyms=synonyms,
        abbreviations=abbreviations,
        hard_negatives=hard_negatives,
        max_pairs=_at_least(max_pairs, 2, "--max-pairs"),
        seed=seed,
    )
    settings = TuneSettings(
        epochs=epochs,
        batch_size=batch_size,
        lr=lr,
        seed=seed,
        device=device,
        max_steps=max_steps,
    )
    run = tune_static if static else tune_encoder
    card = run(
        model,
        output,
        pairs,
        held_out=_held_out(held_out),
        options=options,
        settings=settings,
        force=force,
        quiet=quiet,
    )
    _report(output, card)


def _at_least(value: int | None, least: int, option: str) -> int | None:
    from wrdscore.errors import WrdscoreError

    if value is not None and value < least:
        raise WrdscoreError(f"{option} must be at least {least}, not {value}")
    return value


def _held_out(extra: list[str]) -> list[tuple[str, str]]:
    """The paper's rated pairs and any the user adds: ``(reference, prediction)``."""
    from wrdscore.human_eval import load_paper_ratings, load_published_pairs

    rated = [load_paper_ratings()]
    if extra:
        rated.append(load_published_pairs(extra))
    return [p for r in rated for p in zip(r.references, r.predictions, strict=True)]


def _report(output: str, card: dict[str, Any]) -> None:
    from wrdscore.embeddings.encoders import CARD_JSON, steps_text

    p = card["pairs"]
    kinds = ", ".join(f"{v} {k}" for k, v in p["by_kind"].items())
    curve = card["loss_curve"]
    loss = f"loss {curve[0]['loss']:.4f} -> {curve[-1]['loss']:.4f}" if curve else "no loss logged"
    typer.echo(
        f"wrote {output}: {counted(p['used'], 'pair')} ({kinds}), {steps_text(card['steps'])}, "
        f"{loss}, "
        f"{card['train_seconds']:.1f} s training ({card['examples_per_second']:.1f} examples/s); "
        f"card in {Path(output) / CARD_JSON}"
    )
    held = p["dropped"]["held_out"] + p["dropped"]["held_out_token_links"]
    if held:
        why = "it matches a rated pair" if held == 1 else "they match rated pairs"
        typer.echo(f"note: {counted(held, 'pair')} left out because {why}", err=True)
    for key, noun, what in (
        ("texts_truncated", "text", "{was} longer than the encoder's maximum and {was} truncated"),
        ("out_of_vocabulary", "pair", "had no vocabulary token on a side and {was} not trained"),
    ):
        if p.get(key):
            was = "was" if p[key] == 1 else "were"
            typer.echo(f"note: {counted(p[key], noun)} {what.format(was=was)}", err=True)


def register(app: typer.Typer) -> None:
    """Add the tuning command to the root app."""
    app.command()(tune)
