"""``wrdscore ingest``, ``corpus stats``, ``corpus records``, ``corpus pairs`` and
``corpus abbreviations``."""

from __future__ import annotations

import itertools
from pathlib import Path

import typer

from wrdscore import corpora
from wrdscore.atomic import check_not_input
from wrdscore.cli._common import QUIET_OPTION, QUIET_TAKEN_OPTION, typer_app, wrote
from wrdscore.errors import counted, only_with

corpus_app = typer_app("Inspect ingested corpora.")
# The languages ingest reads (no grammar is imported to list them).
LANGUAGE_NAMES = (
    "java", "python", "javascript", "typescript", "go", "php", "ruby", "c_sharp", "c", "cpp"
)  # fmt: skip


def ingest(
    # Strings, not Paths: with --scheduler a SOURCE may be an fsspec URL (s3://...).
    sources: list[str] = typer.Argument(
        ..., help="Folders, source files, .zip/.jar or .tar(.gz/.xz/.bz2) archives."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="Corpus folder to create."),
    language: str = typer.Option(
        "java",
        "--language",
        help="Read files of this language (by extension: .py for python), or 'all' for "
        "every known extension, each file in its own language: " + ", ".join(LANGUAGE_NAMES) + ".",
    ),
    parser: str = typer.Option(
        corpora.DEFAULT_PARSER,
        help=f"Parser tried first on Java files: {' or '.join(corpora.PARSERS)} (other "
        "languages have their tree-sitter grammar only).",
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", help="Worker processes \\[default: number of cores]."
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
    quiet: bool = QUIET_OPTION,
) -> None:
    """Extract every method (Java, or --language) into a corpus folder (records + manifest)."""
    check_not_input(output, sources, "--output", trees=True)
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
        language=language,
    )
    c = manifest["counts"]
    wrote(
        output,
        f"{counted(c['methods'], 'method')} from {counted(c['files_seen'], 'file')} "
        f"({c['files_parsed']:,} parsed, {c['files_fallen_back']:,} by the fallback parser, "
        f"{c['files_failed']:,} failed, "
        f"{c['files_skipped_size'] + c['files_skipped_binary']:,} skipped) "
        f"in {manifest['wall_seconds']:.1f} s",
    )


@corpus_app.command("stats")
def corpus_stats(
    corpus_dir: Path = typer.Argument(..., help="Corpus folder written by `wrdscore ingest`."),
    top: int = typer.Option(20, "--top", help="How many of the most frequent tokens to list."),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Describe a corpus: manifest counts, most frequent tokens, name-length histogram."""
    from wrdscore.cli._tables import print_tables

    print_tables(corpora.stats_tables(corpora.corpus_stats(corpus_dir, top=top)))


@corpus_app.command("records")
def corpus_records(
    corpus_dir: Path = typer.Argument(..., help="Corpus folder written by `wrdscore ingest`."),
    target: str = typer.Option(
        "name", "--target", help="The reference shown: the name, or the summary."
    ),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """List a corpus's records in order: number (from 1), id and reference, tab-separated.

    A predictions file for `score --corpus` has one line per record in this order (record
    N on line N), or gives each prediction the id of its method.
    """
    methods = corpora.corpus_methods(corpus_dir, target, code=False)
    # The first record opens and checks the corpus: a folder that is not one gets its
    # one-line error before anything is printed.
    first = next(methods, None)
    typer.echo("index\tid\treference")
    for m in itertools.chain([] if first is None else [first], methods):
        reference = "" if m.reference is None else " ".join(m.reference.split())
        # Counted from 1, as lines and error messages count (record 3 is on line 3).
        typer.echo(f"{m.index + 1}\t{m.id}\t{reference}")


@corpus_app.command("pairs")
def corpus_pairs(
    corpus_dir: Path = typer.Argument(..., help="Corpus folder written by `wrdscore ingest`."),
    kind: str | None = typer.Option(
        None, "--kind", help="contrast, synonym or abbreviation \\[default: all three]."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write a pairs.tsv file instead of printing."
    ),
    curated: bool = typer.Option(
        False,
        "--curated",
        help="Add the packaged curated pairs (source 'curated'), as `train --specialise` does.",
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace an existing --output file (never the corpus's own)."
    ),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Mine contrast, synonym and abbreviation pairs from a corpus.

    `train --specialise` adds the curated list to them, as `--curated` does here.
    """
    from wrdscore.embeddings import (
        KINDS,
        PAIRS_HEADER,
        add_curated,
        check_kind,
        check_pairs_output,
        format_pairs,
        mine_constraints,
        read_curated,
        write_pairs,
    )

    if kind is not None:
        check_kind(kind)
    if output is not None:
        check_not_input(output, [corpus_dir], "--output")
        check_pairs_output(output, corpus_dir, force)
    elif force:
        raise only_with(["--force"], "--output")  # printing replaces nothing
    constraints = mine_constraints(corpus_dir)
    if curated:
        constraints = add_curated(constraints, read_curated())
    pairs = [p for k in ([kind] if kind else KINDS) for p in constraints.pairs(k)]
    if output is not None:
        write_pairs(pairs, output, force=force)
        sizes = ", ".join(f"{k} {v}" for k, v in constraints.sizes().items() if kind in (None, k))
        wrote(output, sizes)
        return
    typer.echo(PAIRS_HEADER)
    for line in format_pairs(pairs):
        typer.echo(line)


@corpus_app.command("abbreviations")
def corpus_abbreviations(
    sources: list[str] = typer.Argument(
        ..., help="Folders, .java files, .zip/.jar or .tar(.gz/.xz/.bz2) archives."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="TSV file to write."),
    min_files: int = typer.Option(
        2, "--min-files", help="Keep a pair written in at least this many files."
    ),
    max_file_mb: float = typer.Option(
        corpora.DEFAULT_MAX_FILE_MB, help="Skip files larger than this."
    ),
    tune_output: Path | None = typer.Option(
        None,
        "--tune-output",
        help="Also write the tune part as 'abbreviation<TAB>words' lines, for `tune --pairs`.",
    ),
    force: bool = typer.Option(False, "--force", help="Replace existing output files."),
    quiet: bool = QUIET_TAKEN_OPTION,
) -> None:
    """Mine (abbreviation, words) pairs from Java declarations: Config cfg, int len = s.length().

    Each pair's part (tune or held-out) is fixed by its abbreviation's hash.
    """
    from wrdscore.atomic import check_writable
    from wrdscore.corpora import counts_by_part, write_tune_pairs
    from wrdscore.errors import WrdscoreError

    outputs = [output] if tune_output is None else [output, tune_output]
    if tune_output is not None and tune_output.resolve() == output.resolve():
        raise WrdscoreError("--tune-output must be another file than --output")
    for path, option in zip(outputs, ["--output", "--tune-output"], strict=False):
        check_not_input(path, sources, option, trees=True)
        if path.exists() and not force:
            raise WrdscoreError(f"output {path} already exists (use --force to replace it)")
        check_writable(path)
    pairs, files = corpora.mine_abbreviations(sources, min_files, max_file_mb)
    corpora.write_abbreviations(pairs, output)
    parts = counts_by_part(pairs)
    wrote(
        output,
        f"{counted(len(pairs), 'pair')} ({parts['tune']:,} tune, {parts['held-out']:,} held "
        f"out) from {counted(files, 'Java file')}",
    )
    if tune_output is not None:
        wrote(tune_output, counted(write_tune_pairs(pairs, tune_output), "tune pair"))


def register(app: typer.Typer) -> None:
    """Add ``ingest`` and the ``corpus`` group to the root app."""
    app.command()(ingest)
    app.add_typer(corpus_app, name="corpus")
