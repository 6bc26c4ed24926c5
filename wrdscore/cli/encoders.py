"""``wrdscore distill`` and ``wrdscore fuse``: static models from an encoder, and fusions.

``distill`` imports torch (through the encoders package) only inside the command;
``fuse`` never does.
"""

from __future__ import annotations

from typing import Any

import typer

from wrdscore.atomic import check_not_input
from wrdscore.cli._common import (
    DEVICE_OPTION,
    FORCE_OPTION,
    LAYER_OPTION,
    QUIET_OPTION,
    parse_weights,
)


def distill(
    encoder: str = typer.Argument(
        ..., help="Encoder: a sentence-transformers / Hugging Face model folder or hub name."
    ),
    output: str = typer.Option(..., "--output", "-o", help="MODEL_DIR to write."),
    vocab: str | None = typer.Option(
        None,
        "--vocab",
        help="CORPUS_DIR (its name sub-tokens, counts and document frequencies), a "
        "MODEL_DIR (its tokens and frequencies) or a file of one token per line "
        "\\[default: the bundled model's tokens].",
    ),
    dim: int | None = typer.Option(
        None, "--dim", help="Reduce to N dims (PCA without centering) \\[default: the encoder's]."
    ),
    float16: bool = typer.Option(False, "--float16", help="Store the vectors as float16."),
    encoder_words: bool = typer.Option(
        True,
        "--encoder-words/--no-encoder-words",
        help="Add the encoder's whole-word pieces to the vocabulary.",
    ),
    pieces: bool = typer.Option(
        True,
        "--pieces/--no-pieces",
        help="Store every word piece's vector, so unseen tokens get their pieces' mean "
        "(--oov subword).",
    ),
    layer: int | None = LAYER_OPTION,
    device: str | None = DEVICE_OPTION,
    batch_size: int = typer.Option(64, "--batch-size", help="Tokens per encoder forward pass."),
    name: str | None = typer.Option(None, "--name", help="Label used in score signatures."),
    force: bool = FORCE_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Distil an encoder into static sub-token vectors: a MODEL_DIR that scores without torch."""
    from wrdscore.embeddings.encoders import distill as run
    from wrdscore.progress import progress_bar

    check_not_input(output, [encoder, vocab], "--output")
    with progress_bar(quiet) as bar:
        task = bar.add_task("encoding", total=None)
        emb = run(
            encoder,
            output,
            vocab=vocab,
            dim=dim,
            float16=float16,
            encoder_words=encoder_words,
            pieces=pieces,
            layer=layer,
            device=device,
            batch_size=batch_size,
            name=name,
            force=force,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    words = emb.meta["vocabulary"]
    typer.echo(
        f"wrote {output}: {emb.name}, {len(emb)} tokens x {emb.dim} dims "
        f"({words['tokens']} from the vocabulary, {words['encoder_words_added']} encoder "
        f"words), {emb.meta['pieces']} word pieces, {emb.meta['train_seconds']:.1f} s"
    )
    if pieces and not emb.meta["pieces"]:
        typer.echo(
            "note: the encoder's tokenizer is not BERT's WordPiece, so no word pieces were "
            "stored: unseen tokens get zero vectors",
            err=True,
        )


def fuse(
    first: str = typer.Argument(..., help="MODEL_DIR (or 'default'): the first part."),
    second: str = typer.Argument(..., help="MODEL_DIR (or 'default'): the second part."),
    output: str = typer.Option(..., "--output", "-o", help="MODEL_DIR to write."),
    weights: str = typer.Option("1,1", "--weights", help="a,b: each part's weight."),
    name: str | None = typer.Option(
        None, "--name", help="Label used in score signatures \\[default: FIRST+SECOND]."
    ),
    float16: bool = typer.Option(False, "--float16", help="Store the vectors as float16."),
    force: bool = FORCE_OPTION,
    quiet: bool = QUIET_OPTION,
) -> None:
    """Fuse two models: each token's vectors, scaled by their mean norms, concatenated."""
    from wrdscore.embeddings import fuse_models
    from wrdscore.progress import status

    check_not_input(output, [first, second], "--output")
    # Loading two models and writing the union takes seconds (7 s for default twice).
    status(f"fusing {first} and {second}", quiet)

    emb = fuse_models(
        first,
        second,
        output,
        weights=parse_weights(weights, "--weights"),
        name=name,
        float16=float16,
        force=force,
    )
    block: dict[str, Any] = emb.meta["fuse"]
    typer.echo(
        f"wrote {output}: {emb.name}, {len(emb)} tokens x {emb.dim} dims "
        f"({block['shared_tokens']} shared)"
    )
    for part in block["parts"]:
        if part["missing"]:
            made = part["missing_from_subword"]
            typer.echo(
                f"note: {part['missing']} tokens are not in {part['name']}: "
                f"{made} given its subword vectors, {part['missing'] - made} zero in its part",
                err=True,
            )


def register(app: typer.Typer) -> None:
    """Add the encoder commands to the root app."""
    for command in (distill, fuse):
        app.command()(command)
