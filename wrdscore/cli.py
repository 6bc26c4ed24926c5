"""The ``wrdscore`` command: one typer app that parses arguments and calls the library.

No logic lives here beyond turning options into library calls and results into
tables or JSON. Errors a user can fix (:class:`~wrdscore.errors.WrdscoreError`,
file-system errors) become ``error: <one line>`` on stderr and exit code 2;
Ctrl-C exits 130 after the library has cleaned up its temporary outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import typer
from typer.core import TyperGroup

from wrdscore import __version__, corpora
from wrdscore.errors import WrdscoreError

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


class _Group(TyperGroup):
    """Turns user errors anywhere below it into one-line messages."""

    def invoke(self, ctx: click.Context) -> Any:
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


# --- embeddings: train, neighbors, similarity ---------------------------------------


# --- scoring: score, explain, compare -----------------------------------------------


# --- human studies: study sample, study analyze -------------------------------------
