"""The streaming engine: scoring files chunk by chunk, in worker processes when asked.

:func:`score_files` (``wrdscore score``) reads, scores and writes chunk by chunk, with
the same numbers whatever the chunking or job count: a first pass for batch means (and
one over the references for a metric that weighs by all of them), then each chunk
scored by every metric (:meth:`wrdscore.metrics.Metric.score`, which checks and
tokenises through :mod:`wrdscore.metrics._flatten`), its per-pair rows written and its
corpus sums added up.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import default_segmenter
from wrdscore.errors import WrdscoreError
from wrdscore.inputs import DEFAULT_CHUNK_PAIRS
from wrdscore.metrics._flatten import FlatBatch, Tokens, flatten, gc_paused
from wrdscore.metrics._result import OOV_NAMES, first_names
from wrdscore.metrics._validate import ItemError
from wrdscore.metrics._workers import Workers, run_tasks

if TYPE_CHECKING:
    from wrdscore.metrics.base import EmbeddingMetric, Metric
    from wrdscore.metrics.code import ReadCode

__all__ = ["OOV_NAMES", "CorpusScores", "default_jobs", "first_names", "score_files"]


@dataclass
class CorpusScores:
    """What scoring a whole file gives for one metric: corpus values and counts.

    Attributes
    ----------
    metric, signature, primary : str
        As in :class:`~wrdscore.metrics.ScoreResult`.
    keys : tuple of str
        The metric's per-pair values (the per-pair output's columns).
    corpus : dict of str to float
        Corpus values over every pair of the file.
    pairs, oov_tokens, empty_predictions, degenerate_pairs : int
        Counts over the whole file.
    oov_names : tuple of str
        The first few unseen tokens of the whole file (:func:`first_names`).
    empty_code : int
        Scored against code: pairs whose code support had nothing to transport
        (:attr:`~wrdscore.metrics.ScoreResult.empty_code`).
    cut_code : int
        Scored against code: methods over :data:`~wrdscore.corpora.MAX_CODE_CHARS`
        characters, read up to their last line within it
        (:attr:`~wrdscore.metrics.ScoreResult.cut_code`).
    unmasked_code : int
        Scored against code with ``allow_unmasked``: methods whose name could not be
        masked (:attr:`~wrdscore.metrics.ScoreResult.unmasked_code`).
    cuts : dict of str to int
        Inputs a model cut, by kind, summed over the file
        (:attr:`~wrdscore.metrics.ScoreResult.cuts`).
    empty_references : int
        Scored against code and empty references allowed: pairs without a reference
        token, whose combined is their code support
        (:attr:`~wrdscore.metrics.ScoreResult.empty_references`).
    """

    metric: str
    signature: str
    primary: str
    keys: tuple[str, ...]
    corpus: dict[str, float]
    pairs: int
    oov_tokens: int
    empty_predictions: int
    degenerate_pairs: int
    oov_names: tuple[str, ...] = ()
    empty_code: int = 0
    cut_code: int = 0
    unmasked_code: int = 0
    cuts: dict[str, int] = field(default_factory=dict)
    empty_references: int = 0


@dataclass
class _Job:
    """What every chunk of one run shares: passed to each chunk's function, and to forked
    workers as they start (never pickled: metrics hold memory-mapped models and caches)."""

    metrics: list[Metric]
    #: A file, the items themselves (a corpus's), or None (scored against code alone).
    references: Path | Sequence[Any] | None
    predictions: Path
    allow_empty_reference: bool
    per_pair: Path | None
    #: The code of each pair's method: a ``--code`` file, the items, or None.
    code: Path | Sequence[Any] | None = None
    #: Whether some reference is a list of alternatives: the per-pair output then has
    #: each metric's ``best_ref``. Found by the first read of the whole file (which
    #: counts the items), since the header is written before the first chunk, which may
    #: have none.
    alternatives: bool = False
    #: Each pair's id (a corpus's method ids), the per-pair output's first column.
    ids: Sequence[str] | None = None
    #: What an error message calls pair i (see score_files), or None.
    item_names: Callable[[int], str] | None = None
    #: Items tokenised by earlier chunks (in this process), per ``segment`` setting
    #: (the same text has other tokens under each): names repeat across a file, so
    #: each distinct one is split once per run, not once per chunk.
    memo: dict[bool, dict[str | tuple[str, ...], Tokens]] = field(default_factory=dict)


#: An input of fewer than ``_MIN_CHUNKS`` chunks is cut into that many, none smaller
#: than ``_MIN_CHUNK_PAIRS`` pairs: 20,000 long pairs are one default chunk, which
#: would leave all cores but one idle.
_MIN_CHUNKS = 8
_MIN_CHUNK_PAIRS = 1_000

#: Most items :attr:`_Job.memo` keeps (about 200 bytes each): past it, it starts over.
_MEMO_ITEMS = 250_000


def _items(
    job: _Job,
    start: int,
    ref_lines: list[str] | None,
    pred_lines: list[str],
    code_lines: list[str] | None = None,
) -> tuple[Any, Any, Any]:
    """The chunk's references (None without), predictions and code (None without)."""
    from wrdscore.inputs import parse_code_lines, parse_lines

    preds = parse_lines(pred_lines, job.predictions, first_line=start + 1)
    end = start + len(preds)
    refs: Any = None
    if isinstance(job.references, Path):
        assert ref_lines is not None
        refs = parse_lines(ref_lines, job.references, references=True, first_line=start + 1)
    elif job.references is not None:
        refs = list(job.references[start:end])
    code: Any = None
    if isinstance(job.code, Path):
        assert code_lines is not None
        code = parse_code_lines(code_lines, job.code, first_line=start + 1)
    elif job.code is not None:
        code = list(job.code[start:end])
    return refs, preds, code


def _located(job: _Job, exc: ItemError) -> WrdscoreError:
    """``exc`` where its item is: the caller's name for it (a corpus's method), else its
    file and line (item i is line i + 1), else the item's number alone (in the message)."""
    if job.item_names is not None:
        return WrdscoreError(f"{job.item_names(exc.index)}: {exc}")
    path = {"reference": job.references, "code": job.code}.get(exc.side, job.predictions)
    if not isinstance(path, Path):
        return exc
    return WrdscoreError(f"{path}:{exc.index + 1}: {exc}")


def _batch_chunk(
    job: _Job, task: tuple[int, list[str] | None, list[str], list[str] | None]
) -> list[tuple[NDArray, int] | None]:
    """First pass over a chunk: each batch-centered metric's sum and count of vectors."""
    start, ref_lines, pred_lines, _code = task
    refs, preds, _ = _items(job, start, ref_lines, pred_lines)
    # One batch per tokenising setting of the batch-centered metrics (usually one).
    flats: dict[tuple[bool, bool], FlatBatch] = {}
    try:
        with gc_paused():
            for m in job.metrics:
                how = (m.segment, m.clean)
                if _batch_centered(m) and how not in flats:
                    flats[how] = flatten(
                        refs, preds, job.allow_empty_reference, start, _memo(job, m.segment), *how
                    )
    except ItemError as exc:
        raise _located(job, exc) from None
    return [
        m.batch_sums([*flat.refs, *flat.flat_preds])
        if _batch_centered(m) and (flat := flats[m.segment, m.clean])
        else None
        for m in job.metrics
    ]


def _all_references(job: _Job, size: int) -> Iterator[Any]:
    """Every reference item of the input, read chunk by chunk (for
    :meth:`~wrdscore.metrics.Metric.reference_statistics`)."""
    for start, ref_lines, pred_lines, _code in _chunks(job, size):
        refs, _, _ = _items(job, start, ref_lines, pred_lines)
        yield from refs


def _memo(job: _Job, segmented: bool) -> dict[str | tuple[str, ...], Tokens]:
    """The job's token memo of a ``segment`` setting, emptied first when it has grown
    past :data:`_MEMO_ITEMS`."""
    memo = job.memo.setdefault(segmented, {})
    if len(memo) > _MEMO_ITEMS:
        memo.clear()
    return memo


def _in_memory(source: object) -> bool:
    """Whether an input is items in memory (or none), not a file's path."""
    return source is None or not isinstance(source, str | Path)


def _batch_centered(metric: Metric) -> TypeGuard[EmbeddingMetric]:
    """Whether ``metric`` centers on the whole batch: an embedding metric, the only
    kind with a centering (and :meth:`~EmbeddingMetric.batch_sums`)."""
    # Asked of the metric, not by isinstance: base imports this module, so importing
    # EmbeddingMetric here would be an import circle.
    return metric.batch_centered


#: A chunk's counts per metric: unseen tokens, empty predictions, degenerate pairs, empty
#: code, cut code, unmasked code, empty references (the columns of score_files' totals).
_Counts = tuple[int, int, int, int, int, int, int]


def _score_chunk(
    job: _Job,
    task: tuple[
        int, list[str] | None, list[str], list[str] | None, list[NDArray | None], list[object]
    ],
) -> tuple[
    int,
    list[tuple[dict[str, float], _Counts, tuple[str, ...], dict[str, int]]],
    str,
]:
    """Score one chunk with every metric: per-metric sums, counts, unseen names and cuts
    (:attr:`~wrdscore.metrics.ScoreResult.cuts`), and per-pair rows."""
    start, ref_lines, pred_lines, code_lines, means, stats = task
    refs, preds, code = _items(job, start, ref_lines, pred_lines, code_lines)
    results = []
    # The chunk's code, read once for all the metrics that read it alike.
    code_memo: dict[tuple[object, ...], ReadCode] = {}
    for metric, mean, stat in zip(job.metrics, means, stats, strict=True):
        # Only batch-centered metrics get a mean, and only those that read every
        # reference their statistics (see score_files).
        run = metric.scoring_run(
            memo=_memo(job, metric.segment),
            batch_mean=mean,
            reference_stats=stat,
            code_memo=code_memo,
        )
        try:
            with run:
                results.append(
                    metric.score(
                        refs,
                        preds,
                        code=code,
                        allow_empty_reference=job.allow_empty_reference,
                        index_offset=start,
                    )
                )
        except ItemError as exc:
            raise _located(job, exc) from None
    rows = ""
    if job.per_pair is not None:
        from wrdscore.inputs import per_pair_text

        # Scored against code alone, the reference column is empty.
        shown = [""] * len(preds) if refs is None else refs
        rows = per_pair_text(
            job.per_pair,
            start,
            shown,
            preds,
            results,
            job.alternatives,
            ids=None if job.ids is None else job.ids[start : start + len(preds)],
            clean=_cleans(job.metrics),
        )
    summary = [
        (
            m._corpus_sums(r.values),
            (
                r.oov_tokens,
                r.empty_predictions,
                r.degenerate_pairs,
                r.empty_code,
                r.cut_code,
                r.unmasked_code,
                r.empty_references,
            ),
            r.oov_names,
            r.cuts,
        )
        for m, r in zip(job.metrics, results, strict=True)
    ]
    return len(preds), summary, rows


def _cleans(metrics: Sequence[Metric]) -> bool:
    """Whether the per-pair output shows the cleaned predictions beside the raw ones."""
    return any(m.clean for m in metrics)


def _check_rereadable(source: object) -> None:
    """A one-line error for an input that can be read only once (a pipe, ``<(...)``, a
    device): :func:`score_files` reads each file twice, to count and to score, and a
    second read of a pipe finds it empty (it ended in an IndexError)."""
    if isinstance(source, Path) and source.exists() and not source.is_file():
        raise WrdscoreError(
            f"{source}: not a regular file (a pipe or device can be read only once, and "
            "scoring reads each input twice): write it to a file first"
        )


def _chunks(
    job: _Job, size: int
) -> Iterator[tuple[int, list[str] | None, list[str], list[str] | None]]:
    """``(start, reference lines, prediction lines, code lines)`` per chunk; a side that
    is not a file (items in memory, or none) gives None: the chunk takes its slice."""
    from wrdscore.inputs import iter_line_chunks

    def lines(source: Path | Sequence[Any] | None) -> Iterator[list[str] | None]:
        if isinstance(source, Path):
            return iter_line_chunks(source, size)
        return itertools.repeat(None)

    start = 0
    refs, code = lines(job.references), lines(job.code)
    for pred_lines in iter_line_chunks(job.predictions, size):
        yield start, next(refs), pred_lines, next(code)
        start += len(pred_lines)


def default_jobs() -> int:
    """The cores this process may run on (a container or taskset can limit them)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def score_files(
    metrics: Sequence[Metric],
    references: str | Path | Sequence[Any] | None,
    predictions: str | Path,
    *,
    code: str | Path | Sequence[Any] | None = None,
    allow_empty_reference: bool = False,
    per_pair: str | Path | None = None,
    force: bool = False,
    jobs: int | None = None,
    chunk_pairs: int = DEFAULT_CHUNK_PAIRS,
    progress: Callable[[int], None] | None = None,
    on_count: Callable[[int], None] | None = None,
    ids: Sequence[str] | None = None,
    item_names: Callable[[int], str] | None = None,
) -> list[CorpusScores]:
    """Score a references file against a predictions file, streaming (``wrdscore score``).

    The files (formats in :mod:`wrdscore.inputs`) are read ``chunk_pairs`` lines at a
    time; every chunk is scored by every metric, its per-pair rows go to
    ``per_pair`` (written atomically: a temporary file renamed at the end, so an error
    or Ctrl-C leaves nothing) and its :meth:`~Metric._corpus_sums` are added up, so
    memory does not grow with the input. Per-pair values do not depend on the
    chunking; corpus values are computed from correctly rounded per-chunk sums.

    Batch-dependent options mean the whole input: under ``centering="batch"`` a
    first pass adds up the token vectors of every chunk (:meth:`batch_sums`), and
    the second pass subtracts that whole-file mean. IDF weights come from the model,
    never from the input, so they need no pass of their own.

    Parameters
    ----------
    metrics : sequence of Metric
        The metrics, e.g. from :func:`~wrdscore.metrics.build_metrics`.
    references, predictions : path
        The two files, one item per line. ``references`` may also be the items
        themselves (a corpus's names or summaries), or None with ``code``.
    code : path or sequence, optional
        The code of each pair's method: a ``.jsonl`` file aligned with the
        predictions (:func:`~wrdscore.inputs.parse_code_lines`), or the items. Every
        metric then also gives ``code`` and, with references, ``combined`` (see
        :meth:`Metric.score`).
    allow_empty_reference : bool
        Score references without tokens as 0 instead of refusing them.
    per_pair : path, optional
        Also write every pair's values to this ``.tsv`` or ``.jsonl`` file, or, for
        ``"-"``, as TSV rows to standard output, chunk by chunk. When some reference
        has alternatives, each metric also names its winner
        (:func:`~wrdscore.inputs.write_per_pair`).
    force : bool
        Replace an existing ``per_pair`` file (refused without it, before scoring).
    jobs : int, optional
        Worker processes (default: the cores available). Chunks are scored in
        parallel and put back in order, so every number is the same for any
        ``jobs``; an input of one chunk, or one scored by a metric that runs a torch
        model, is scored in this process. Workers are forked (they inherit the loaded
        metrics); where ``fork`` does not exist (Windows) everything runs in this process.
    chunk_pairs : int
        Most pairs per chunk. An input of fewer than 8 chunks is cut into 8 chunks
        of at least 1,000 pairs, so that several cores share it; the cut depends on
        the input's length alone, never on ``jobs``.
    progress : callable, optional
        Called with the number of pairs finished, chunk by chunk.
    on_count : callable, optional
        Called once with the number of pairs, when the files are counted (before
        any scoring): a progress bar's total.
    ids : sequence of str, optional
        One per pair (a corpus's method ids): the first column (or field) of the
        per-pair output, to join it on.
    item_names : callable, optional
        What an error message calls pair ``i`` (0-based), in place of a file and line:
        a corpus's method (:func:`~wrdscore.corpus_inputs.corpus_item_names`).

    Returns
    -------
    list of CorpusScores
        One per metric, in order.

    Raises
    ------
    WrdscoreError
        Everything :meth:`Metric.score` and :func:`~wrdscore.inputs.read_items`
        refuse, with the file and line of the bad item, whatever chunk it is in.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.metrics import get_metric
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "refs.txt").write_text("getUserName\\nsize\\nisEmpty\\n")
    >>> _ = (d / "preds.txt").write_text("get name\\ncount\\nisEmpty\\n")
    >>> (res,) = score_files([get_metric("rouge1")], d / "refs.txt", d / "preds.txt",
    ...                      chunk_pairs=2, per_pair=d / "pairs.tsv")
    >>> round(res.corpus["f1"], 4), res.pairs
    (0.6, 3)
    >>> (d / "pairs.tsv").read_text().splitlines()[3].split("\\t")[:3]
    ['3', 'isEmpty', 'isEmpty']
    """
    if chunk_pairs < 1:
        raise WrdscoreError(f"chunk size must be at least 1 pair, not {chunk_pairs}")
    if jobs is not None and jobs < 1:
        raise WrdscoreError(f"--jobs must be at least 1, not {jobs}")
    job, n_refs = _plan(
        metrics,
        references,
        predictions,
        code,
        allow_empty_reference,
        per_pair,
        force,
        ids,
        item_names,
    )
    if on_count is not None:
        on_count(n_refs)
    # A small input is still cut into a few chunks, so that every core gets some. The
    # cut depends on the input alone (never on jobs or cores), so the numbers do not.
    chunk_pairs = min(chunk_pairs, max(_MIN_CHUNK_PAIRS, -(-n_refs // _MIN_CHUNKS)))
    totals = _score_all(job, chunk_pairs, _worker_count(job, jobs, n_refs, chunk_pairs), progress)
    return _aggregate(job, totals, n_refs)


def _plan(
    metrics: Sequence[Metric],
    references: str | Path | Sequence[Any] | None,
    predictions: str | Path,
    code: str | Path | Sequence[Any] | None,
    allow_empty_reference: bool,
    per_pair: str | Path | None,
    force: bool,
    ids: Sequence[str] | None,
    item_names: Callable[[int], str] | None,
) -> tuple[_Job, int]:
    """The run's :class:`_Job` and its number of pairs, every input checked and counted
    (a first read, which checks the encoding too), before any scoring."""
    from wrdscore.inputs import check_per_pair_path, count_items, count_references

    metrics = list(metrics)
    if code is not None:
        for m in metrics:
            m.check_reads_code()
    elif references is None:
        raise WrdscoreError("nothing to score against: give references, code or both")
    job = _Job(
        metrics,
        references if _in_memory(references) else Path(references),  # type: ignore[arg-type]
        Path(predictions),
        allow_empty_reference,
        None if per_pair is None else check_per_pair_path(per_pair, force),
        code if _in_memory(code) else Path(code),  # type: ignore[arg-type]
    )
    for source in (job.references, job.predictions, job.code):
        _check_rereadable(source)
    n_preds = count_items(job.predictions)
    if n_preds == 0:
        raise WrdscoreError(f"{job.predictions}: the file is empty")
    if isinstance(job.references, Path):
        n_refs, job.alternatives = count_references(job.references)
        if n_refs == 0:
            raise WrdscoreError(f"{job.references}: the file is empty")
    else:
        n_refs = n_preds if job.references is None else len(job.references)
    if n_refs != n_preds:
        raise WrdscoreError(
            f"{n_refs} references but {n_preds} predictions; "
            "every prediction needs exactly one reference item"
        )
    if job.code is not None:
        n_code = count_items(job.code) if isinstance(job.code, Path) else len(job.code)
        if n_code != n_preds:
            raise WrdscoreError(
                f"{n_code} code items but {n_preds} predictions; "
                "every prediction needs the code of its method, one per line"
            )
    if ids is not None:
        if len(ids) != n_preds:
            raise WrdscoreError(f"{len(ids)} ids but {n_preds} predictions")
        job.ids = ids
    job.item_names = item_names
    return job, n_refs


def _worker_count(job: _Job, jobs: int | None, pairs: int, chunk_pairs: int) -> int:
    """Worker processes for the run: the cores (or ``jobs``), no more than chunks, and
    none (1) for a metric that runs a torch model or where processes cannot fork."""
    jobs = min(jobs or default_jobs(), -(-pairs // chunk_pairs))
    if any(m.in_process for m in job.metrics):
        # A torch model (an encoder, BARTScore) runs its own threads, is not fork-safe,
        # and each forked worker would hold a copy of it.
        return 1
    if jobs > 1:
        import multiprocessing

        if "fork" not in multiprocessing.get_all_start_methods():
            return 1  # the workers inherit the loaded metrics by forking (not on Windows)
    return jobs


@dataclass
class _Totals:
    """What the chunks of a run add up to, per metric: corpus sums, counts (as
    :func:`_score_chunk` gives them), unseen names and cuts."""

    sums: list[list[dict[str, float]]]
    counts: NDArray[np.int64]
    names: list[tuple[str, ...]]
    cuts: list[Counter[str]]


def _score_all(
    job: _Job, chunk_pairs: int, jobs: int, progress: Callable[[int], None] | None
) -> _Totals:
    """Score every chunk (on ``jobs`` forked workers when more than 1), writing the
    per-pair rows as they come and adding up each metric's sums and counts."""
    from wrdscore.atomic import atomic_write
    from wrdscore.inputs import STDOUT, per_pair_header

    metrics = job.metrics
    reads = (job.code is not None, job.references is not None)
    workers = None
    try:
        if jobs > 1:
            for m in metrics:
                m.prepare()
                if job.code is not None and m.code_scorer is not None:
                    m.code_scorer.prepare()
            if any(m.segment for m in metrics):
                # Nearly every file of names has some word the list's head lacks.
                default_segmenter().load()
            workers = Workers(jobs, job)
        means: list[NDArray | None] = [None] * len(metrics)
        if any(map(_batch_centered, metrics)):
            vectors: list[list[Any]] = [[0.0, 0] for _ in metrics]
            for parts in run_tasks(_batch_chunk, job, _chunks(job, chunk_pairs), workers):
                for total, part in zip(vectors, parts, strict=True):
                    if part is not None:
                        total[0] = total[0] + part[0]
                        total[1] += part[1]
            means = [
                t[0] / t[1] if _batch_centered(m) and t[1] else None
                for m, t in zip(metrics, vectors, strict=True)
            ]
        stats = [
            m.reference_statistics(_all_references(job, chunk_pairs))
            if m.reads_all_references and job.references is not None
            else None
            for m in metrics
        ]
        tasks = ((*chunk, means, stats) for chunk in _chunks(job, chunk_pairs))
        totals = _Totals(
            [[] for _ in metrics],
            np.zeros((len(metrics), 7), dtype=np.int64),
            [() for _ in metrics],
            [Counter() for _ in metrics],
        )
        with contextlib.ExitStack() as stack:
            out = None
            header = ""
            if job.per_pair is not None:
                out = (
                    sys.stdout  # rows as they come: `wrdscore score --per-pair - | ...`
                    if job.per_pair == STDOUT
                    else stack.enter_context(atomic_write(job.per_pair))
                )
                columns = [(m.name, m.result_keys(*reads)) for m in metrics]
                # Written with the first rows, once the first chunk's items have passed
                # their checks: a bad item there leaves standard output empty.
                header = per_pair_header(
                    job.per_pair,
                    columns,
                    job.alternatives,
                    ids=job.ids is not None,
                    clean=_cleans(metrics),
                )
            for n, summary, rows in run_tasks(_score_chunk, job, tasks, workers):
                for k, (chunk_sums, chunk_counts, chunk_names, chunk_cuts) in enumerate(summary):
                    totals.sums[k].append(chunk_sums)
                    totals.counts[k] += chunk_counts
                    totals.names[k] = first_names([*totals.names[k], *chunk_names])
                    totals.cuts[k].update(chunk_cuts)
                if out is not None:
                    out.write(header + rows)
                    header = ""
                if progress is not None:
                    progress(n)
    finally:
        if workers is not None:
            workers.close()
    return totals


def _aggregate(job: _Job, totals: _Totals, pairs: int) -> list[CorpusScores]:
    """Each metric's :class:`CorpusScores` from the run's totals."""
    reads = (job.code is not None, job.references is not None)
    return [
        CorpusScores(
            metric=m.name,
            signature=m.code_signature if job.code is not None else m.signature,
            primary=m.primary if job.references is not None else "code",
            keys=m.result_keys(*reads),
            # Every key a metric's _corpus_sums gives, not only its value keys: corpus
            # statistics such as BLEU's n-gram counts add up over chunks too.
            corpus=m._corpus_values(
                {k: math.fsum(part[k] for part in parts) for k in parts[0]}, pairs
            ),
            pairs=pairs,
            oov_tokens=int(c[0]),
            empty_predictions=int(c[1]),
            degenerate_pairs=int(c[2]),
            oov_names=n,
            empty_code=int(c[3]),
            cut_code=int(c[4]),
            unmasked_code=int(c[5]),
            cuts=dict(cut),
            empty_references=int(c[6]),
        )
        for m, parts, c, n, cut in zip(
            job.metrics, totals.sums, totals.counts, totals.names, totals.cuts, strict=True
        )
    ]
