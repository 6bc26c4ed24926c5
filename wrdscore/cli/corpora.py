"""``wrdscore ingest`` and ``wrdscore corpus stats``: Java sources to a corpus folder."""

from __future__ import annotations

from pathlib import Path

import typer

from wrdscore import corpora
from wrdscore.cli._common import typer_app

corpus_app = typer_app("Inspect ingested corpora.")


def ingest(
    sources: list[Path] = typer.Argument(
        ..., help="Folders, .java files, .zip/.jar or .tar(.gz/.xz/.bz2) archives."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="Corpus folder to create."),
    parser: str = typer.Option(
        corpora.DEFAULT_PARSER, help=f"Parser tried first: {' or '.join(corpora.PARSERS)}."
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", help="Worker processes [default: number of cores]."
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


def register(app: typer.Typer) -> None:
    """Add ``ingest`` and the ``corpus`` group to the root app."""
    app.command()(ingest)
    app.add_typer(corpus_app, name="corpus")
