"""``wrdscore ingest``: Java sources in, a corpus folder out.

The main process streams files out of the sources in batches, a process pool maps
:func:`~wrdscore.corpora._extract.extract_file` over them and encodes the records
as JSON lines, and the main process writes the lines in source order as the
batches come back. At most a few batches are in flight, so memory stays flat
whatever the corpus size. The workers encode because sending a record's token
lists back to the main process (pickling hundreds of small strings per method)
and encoding them there would cost more than the encoding itself, and on one
process. With a ``scheduler``, :mod:`wrdscore.corpora._dask` stands in for the
pool: the same loop writes what a Dask cluster's workers extract (encoding those
records itself).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from multiprocessing.pool import AsyncResult
from typing import Any, NamedTuple

from rich.progress import TextColumn

from wrdscore import __version__
from wrdscore.atomic import atomic_dir
from wrdscore.corpora._corpus import (
    CORPUS_FORMAT,
    CorpusWriter,
    ShardedCorpusWriter,
    encode_record,
)
from wrdscore.corpora._defaults import DEFAULT_MAX_FILE_MB, DEFAULT_PARSER
from wrdscore.corpora._extract import (
    BINARY,
    FAILED,
    FALLBACK,
    PARSED,
    PARSERS,
    FileResult,
    extract_file,
    other_parser,
)
from wrdscore.corpora._javalang import parser_version as javalang_version
from wrdscore.corpora._languages import (
    GRAMMARS,
    check_language,
    grammar_version,
    language_of_path,
)
from wrdscore.corpora._sources import JavaFile, count_java_files, iter_java_files, open_sources
from wrdscore.corpora._tokenize import split_identifier
from wrdscore.corpora._treesitter import parser_version as treesitter_version
from wrdscore.corpora._treesitter import warm_up
from wrdscore.errors import WrdscoreError, counted
from wrdscore.progress import progress_bar

# A batch is sent to a worker as one task: big enough that pickling and queueing
# cost little per file, small enough that both workers stay busy to the end.
_BATCH_FILES = 64
_BATCH_BYTES = 1 << 20
# The manifest's counts, in reading order (the files_* after files_seen add up to it).
COUNT_KEYS = (
    "files_seen",
    "files_parsed",
    "files_fallen_back",
    "files_failed",
    "files_skipped_size",
    "files_skipped_binary",
    "files_non_utf8",
    "methods",
    "methods_code_truncated",
    "distinct_names",
    "distinct_tokens",
)
_VERSIONS = {"tree-sitter": treesitter_version, "javalang": javalang_version}


def _language_fields(language: str) -> dict[str, Any]:
    """What a manifest says of the language: nothing for Java (as before other
    languages were read), else the language and the versions of the grammars used."""
    if language == "java":
        return {}
    names = list(GRAMMARS) if language == ALL_LANGUAGES else [language]
    versions = {"java": grammar_version("java")} if language == ALL_LANGUAGES else {}
    versions.update((name, grammar_version(name)) for name in names)
    return {"language": language, "grammars": versions}


def _batches(files: Iterable[JavaFile]) -> Iterator[list[JavaFile]]:
    batch: list[JavaFile] = []
    size = 0
    for file in files:
        batch.append(file)
        size += file.size if file.data is not None else 0
        if len(batch) >= _BATCH_FILES or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class EncodedFile(NamedTuple):
    """One file's :class:`~wrdscore.corpora.FileResult`, its records as JSON lines.

    Attributes
    ----------
    status, reason, non_utf8
        As in :class:`~wrdscore.corpora.FileResult`.
    names : list of str
        The method names, one per record.
    lines : str
        The records, one JSON line each.
    truncated : int
        How many of the records' ``code`` the cap cut.
    """

    status: str
    reason: str | None
    non_utf8: bool
    names: list[str]
    lines: str
    truncated: int


def encode_records(records: list[dict[str, Any]], path: str, source: int) -> str:
    """The records :func:`extract_file` found in one file as lines of ``methods.jsonl``.

    Examples
    --------
    >>> records = extract_file(b"class A { int getX() { return x; } }").records
    >>> print(encode_records(records, "A.java", 0), end="")
    {"name":"getX","tokens":["get","x"],"type":"A","path":"A.java","line":1,"summary":null,\
"context":"x","source":0,"code":"int getX() { return x; }","code_words":"getX x"}
    """
    return "".join(
        encode_record(
            {
                "name": r["name"],
                "tokens": r["tokens"],
                "type": r["type"],
                "path": path,
                "line": r["line"],
                "summary": r["summary"],
                "context": r["context"],
                "source": source,
                "code": r["code"],
                "code_words": r["code_words"],
                # Java's records have no language key (a Java corpus is unchanged).
                **({"language": r["language"]} if "language" in r else {}),
            }
        )
        for r in records
    )


def encode_file(result: FileResult, path: str, source: int) -> EncodedFile:
    """``result`` with its records encoded (:func:`encode_records`)."""
    return EncodedFile(
        result.status,
        result.reason,
        result.non_utf8,
        [r["name"] for r in result.records],
        encode_records(result.records, path, source),
        sum(r["code_truncated"] for r in result.records),
    )


def extract_batch(
    files: list[tuple[bytes, str, int]], parser: str, fallback: bool, language: str = "java"
) -> list[EncodedFile]:
    """:func:`extract_file` and :func:`encode_file` over ``(data, path, source)`` files.

    One pool task. With ``language="all"`` each file is read in the language of its
    extension.
    """
    return [
        encode_file(
            extract_file(data, parser, fallback, _file_language(language, path)), path, source
        )
        for data, path, source in files
    ]


def _file_language(language: str, path: str) -> str:
    if language != ALL_LANGUAGES:
        return language
    found = language_of_path(path)
    assert found is not None  # only files with a known extension are read
    return found


#: ``ingest(language=ALL_LANGUAGES)`` reads every language, each file by its extension.
ALL_LANGUAGES = "all"


def language_extensions(language: str) -> tuple[str, ...]:
    """The extensions of the files ingest reads for ``language`` (or ``"all"``).

    Raises
    ------
    WrdscoreError
        An unknown language.
    """
    if language == ALL_LANGUAGES:
        return (".java", *(e for g in GRAMMARS.values() for e in g.extensions))
    if check_language(language) == "java":
        return (".java",)
    return GRAMMARS[language].extensions


def _encoded(
    extracted: Generator[tuple[list[JavaFile], list[tuple[JavaFile, FileResult]]], None, None],
) -> Generator[tuple[list[JavaFile], list[EncodedFile]], None, None]:
    """A Dask cluster's results (its parsed files with their results), encoded here."""
    # Closing this generator (Ctrl-C, an error) closes the cluster's too.
    with contextlib.closing(extracted):
        for batch, parsed in extracted:
            yield batch, [encode_file(r, f.path, f.source) for f, r in parsed]


def _init_worker() -> None:
    # Ctrl-C reaches the whole process group; only the parent handles it, by
    # terminating the pool, so workers ignore it instead of printing tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warm_up()


def _readable(batch: list[JavaFile]) -> list[tuple[bytes, str, int]]:
    return [(f.data, f.path, f.source) for f in batch if f.data is not None]


def _extracted(
    batches: Iterable[list[JavaFile]], parser: str, fallback: bool, jobs: int, language: str
) -> Generator[tuple[list[JavaFile], list[EncodedFile]], None, None]:
    """Each batch with the results of its readable files, in order."""
    if jobs == 1:
        for batch in batches:
            yield batch, extract_batch(_readable(batch), parser, fallback, language)
        return
    with multiprocessing.get_context().Pool(jobs, initializer=_init_worker) as pool:
        # Leaving the block (normally, on error or on Ctrl-C) terminates the workers.
        pending: deque[tuple[list[JavaFile], AsyncResult[list[EncodedFile]]]] = deque()
        for batch in batches:
            pending.append(
                (
                    batch,
                    pool.apply_async(extract_batch, (_readable(batch), parser, fallback, language)),
                )
            )
            if len(pending) > 2 * jobs:
                done, result = pending.popleft()
                yield done, result.get()
        while pending:
            done, result = pending.popleft()
            yield done, result.get()


def _check_options(parser: str, jobs: int | None, max_file_mb: float) -> int:
    if parser not in PARSERS:
        raise WrdscoreError(f"unknown parser {parser!r}: choose one of {', '.join(PARSERS)}")
    if jobs is None:
        # The cores this process may run on, which a container or taskset can limit.
        jobs = len(os.sched_getaffinity(0))
    if jobs < 1:
        raise WrdscoreError(f"--jobs must be at least 1, not {jobs}")
    if not (max_file_mb > 0 and math.isfinite(max_file_mb)):
        raise WrdscoreError(f"--max-file-mb must be a positive number, not {max_file_mb}")
    return jobs


def ingest(
    sources: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    parser: str = DEFAULT_PARSER,
    jobs: int | None = None,
    force: bool = False,
    max_file_mb: float = DEFAULT_MAX_FILE_MB,
    fallback: bool = True,
    quiet: bool = False,
    scheduler: str | None = None,
    language: str = "java",
) -> dict[str, Any]:
    """Extract every method of the source files in ``sources`` into a corpus folder.

    Writes ``output/methods.jsonl.gz`` (one record per method: ``name``, ``tokens``,
    ``type``, ``path``, ``line``, ``summary``, ``context``, ``source``, ``code``) and
    ``output/manifest.json``,
    atomically: an error or Ctrl-C part way leaves no ``output`` and no temporary folder.

    Parameters
    ----------
    sources : sequence of path-like
        Folders (searched recursively for ``.java``), ``.java`` files, ``.zip``/``.jar``
        and ``.tar``/``.tar.gz``/``.tgz``/``.tar.xz``/``.tar.bz2`` archives.
    output : path-like
        The corpus folder to create.
    parser : {"tree-sitter", "javalang"}
        The parser tried first on Java files; the other one is the fallback. Other
        languages are read with their tree-sitter grammar: ``"javalang"`` with a
        ``language`` other than ``"java"`` or ``"all"`` is refused.
    jobs : int, optional
        Worker processes (default: the number of cores; 1 runs in this process).
    force : bool
        Replace an existing ``output``.
    max_file_mb : float
        Files larger than this are skipped and listed in the manifest.
    fallback : bool
        Try the other parser on files the first one cannot parse.
    quiet : bool
        No progress bar.
    scheduler : str, optional
        Run the extraction on a Dask cluster: a scheduler address
        (``tcp://host:8786``) or ``"local"`` for a ``LocalCluster`` of ``jobs``
        worker processes. Sources may then also be fsspec URLs, and the workers
        read them, so they must be reachable from the workers. The records are
        written in shards (see :class:`~wrdscore.corpora.ShardedCorpusWriter`);
        they and their order are those of a run without a scheduler.
    language : str
        The language of the files read, one of :data:`~wrdscore.corpora.LANGUAGES`
        (its files are those with its extensions: ``.py`` for Python), or ``"all"``:
        every file with a known extension, each read in the language of its extension.
        Functions and methods of other languages are records as Java's methods are
        (docstrings or documentation comments as summaries), with a ``language`` key.
        A Dask cluster reads Java only.

    Returns
    -------
    dict
        The manifest that was written.

    Raises
    ------
    WrdscoreError
        Bad options, a missing or unsupported source, a source without ``.java``
        files, a damaged archive, no method at all where files failed to parse
        (nothing is written then), or an existing ``output`` without ``force``;
        with ``scheduler``, also Dask missing, a scheduler that cannot be reached
        or is lost, or a task that kept killing its workers.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A { void runFast() {} }")
    >>> manifest = ingest([d], d / "corpus", jobs=1, quiet=True)
    >>> manifest["counts"]["methods"], manifest["counts"]["distinct_tokens"]
    (1, 2)
    """
    started = time.perf_counter()
    if scheduler is not None and scheduler != "local" and jobs is not None:
        raise WrdscoreError(
            "--jobs sets the workers of --scheduler local; a cluster at an address has its own"
        )
    jobs = _check_options(parser, jobs, max_file_mb)
    extensions = language_extensions(language)
    if parser != "tree-sitter" and language not in ("java", ALL_LANGUAGES):
        # Other languages have a tree-sitter grammar only: javalang would be recorded
        # in the manifest as the parser while no file was read with it.
        raise WrdscoreError(
            f"--parser {parser} reads Java only; {language} is read with its tree-sitter "
            "grammar (leave --parser out, or ingest --language java or all)"
        )
    if scheduler is not None and language != "java":
        raise WrdscoreError("--scheduler ingests Java only; ingest other languages without it")
    cluster = None
    if scheduler is None:
        opened = open_sources(sources, extensions)
    else:
        from wrdscore.corpora import _dask

        opened = _dask.open_locations(sources)
        cluster = _dask.Cluster(scheduler, jobs)
    max_bytes = int(max_file_mb * (1 << 20))
    counts = dict.fromkeys(COUNT_KEYS, 0)
    status_count = {
        PARSED: "files_parsed",
        FALLBACK: "files_fallen_back",
        FAILED: "files_failed",
        BINARY: "files_skipped_binary",
    }
    names: set[str] = set()
    failed: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    bar = progress_bar(
        quiet,
        TextColumn("{task.fields[methods]:,} methods"),
        TextColumn("{task.fields[mbps]:.1f} MB/s"),
    )
    read_bytes = 0
    # The cluster is reached before the output folder is made: if it cannot be, nothing is.
    with (
        cluster or contextlib.nullcontext(),
        atomic_dir(output, force) as tmp,
        CorpusWriter(tmp) if cluster is None else ShardedCorpusWriter(tmp) as writer,
        bar,
    ):
        # A total where it is cheap (folders, zips, .java files; count_java_files says why
        # not for tars). On a cluster the workers list the sources, so there is none here.
        total = count_java_files(opened) if cluster is None else None
        task = bar.add_task("files", total=total, methods=0, mbps=0.0)
        if cluster is None:
            files = iter_java_files(opened, max_bytes)
            extracted = _extracted(_batches(files), parser, fallback, jobs, language)
        else:
            extracted = _encoded(_dask.extracted(cluster, opened, parser, fallback, max_bytes))
        with contextlib.closing(extracted) as results:
            for batch, batch_results in results:
                done = iter(batch_results)
                for file in batch:
                    counts["files_seen"] += 1
                    read_bytes += file.size
                    where = {"source": file.source, "path": file.path}
                    if file.size > max_bytes:
                        counts["files_skipped_size"] += 1
                        skipped.append({**where, "reason": f"larger than {max_file_mb:g} MB"})
                        continue
                    result = next(done)
                    counts[status_count[result.status]] += 1
                    counts["files_non_utf8"] += result.non_utf8
                    if result.status == BINARY:
                        skipped.append({**where, "reason": result.reason})
                    elif result.status == FAILED:
                        failed.append({**where, "reason": result.reason})
                    writer.write_lines(result.lines, len(result.names))
                    names.update(result.names)
                    counts["methods"] += len(result.names)
                    counts["methods_code_truncated"] += result.truncated
                elapsed = time.perf_counter() - started
                bar.update(
                    task,
                    advance=len(batch),
                    methods=counts["methods"],
                    mbps=read_bytes / (1 << 20) / max(elapsed, 1e-9),
                )
        if failed and not counts["methods"]:
            # An empty corpus is no result: what failed, not a folder to train on.
            first = failed[0]
            more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            raise WrdscoreError(
                f"no methods found: {len(failed):,} of {counted(counts['files_seen'], 'file')} "
                f"failed to parse; {first['path']}: {first['reason']}{more}"
            )
        counts["distinct_names"] = len(names)
        counts["distinct_tokens"] = len({t for name in names for t in split_identifier(name)})
        fallback_parser = other_parser(parser)
        manifest: dict[str, Any] = {
            "format": CORPUS_FORMAT,
            "wrdscore_version": __version__,
            "parser": {"name": parser, "version": _VERSIONS[parser]()},
            "fallback_parser": (
                {"name": fallback_parser, "version": _VERSIONS[fallback_parser]()}
                if fallback
                else None
            ),
            "options": {
                "parser": parser,
                "jobs": jobs,
                "max_file_mb": max_file_mb,
                "fallback": fallback,
            },
            "sources": [s.describe() for s in opened],
            **_language_fields(language),
            "counts": counts,
            "failed": failed,
            "skipped": skipped,
            "wall_seconds": round(time.perf_counter() - started, 3),
        }
        if cluster is not None:
            manifest["options"].update(scheduler=scheduler, jobs=cluster.threads())
        writer.write_manifest(manifest)
    return manifest
