"""The two routines of a study end to end: sample a study folder, analyse its ratings."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wrdscore.atomic import check_output_dir
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval._analysis import LEVEL, Analysis, analyze
from wrdscore.human_eval._ratings import expand_ratings, load_published_pairs, load_sheet_ratings
from wrdscore.human_eval._report import write_report
from wrdscore.human_eval._sample import (
    DEFAULT_STRATA,
    Design,
    Stratum,
    distinct_pairs,
    strata_metrics,
    stratified_design,
)
from wrdscore.human_eval._scoring import check_metrics, score_pairs
from wrdscore.human_eval._sheets import read_study, write_study
from wrdscore.human_eval._stats import check_seed
from wrdscore.inputs import _lines
from wrdscore.significance import check_resamples

DEFAULT_METRICS = ("rouge1", "wrd", "bertscore")

Embeddings = TokenEmbeddings | str | Path | None


def read_names(path: str | os.PathLike[str]) -> list[str]:
    """One name per line (``getUserName`` or ``get user name``); blank lines are errors.

    The file is read as ``wrdscore score`` reads a text file (:mod:`wrdscore.inputs`):
    UTF-8, a leading BOM dropped, only ``\\n`` ending a line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "refs.txt"
    >>> _ = f.write_text("getName\\nset value\\n")
    >>> read_names(f)
    ['getName', 'set value']
    """
    names = [text.strip() for text in _lines(Path(path))]
    for line, name in enumerate(names, start=1):
        if not name:
            raise WrdscoreError(f"{path}:{line}: empty line (one name per line expected)")
    if not names:
        raise WrdscoreError(f"{path}: no names")
    return names


def sample_study(
    refs: str | os.PathLike[str],
    preds: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    embeddings: Embeddings = None,
    oov: str = "zero",
    n_sets: int = 3,
    strata: Sequence[Stratum] = DEFAULT_STRATA,
    raters: int = 3,
    seed: int = 0,
    strict: bool = False,
    scale: int = 10,
    force: bool = False,
    encoder: Mapping[str, Any] | None = None,
) -> Design:
    """Draw a stratified study from a model's predictions and write its folder.

    Reads one reference and one prediction per line, scores the pairs with the metrics
    the strata condition on, draws the sets from the distinct pairs
    (:func:`~wrdscore.human_eval.stratified_design`) and writes ``output``
    (:func:`~wrdscore.human_eval.write_study`). ``oov`` is the unseen-token policy of the
    embedding metrics (``zero``, ``drop`` or ``subword``); ``encoder`` the encoder
    options of :func:`~wrdscore.metrics.build_metrics` (``{"encoder": NAME, "layer": 4}``).

    Returns
    -------
    Design
        The sets drawn, with any shortfalls.
    """
    check_seed(seed)
    check_output_dir(output, force)
    references, predictions = read_names(refs), read_names(preds)
    if len(references) != len(predictions):
        raise WrdscoreError(
            f"{refs} has {len(references)} names but {preds} has {len(predictions)}"
        )
    metrics = strata_metrics(strata)
    scored = (
        score_pairs(references, predictions, metrics, embeddings, oov=oov, **(encoder or {}))
        if metrics
        else {}
    )
    candidates = distinct_pairs(references, predictions)
    scores = {name: m.scores for name, m in scored.items()}
    design = stratified_design(scores, candidates, n_sets, strata, seed, strict)
    info = {
        "references": str(refs),
        "predictions": str(preds),
        "input_pairs": len(references),
        "distinct_pairs": int(candidates.size),
        "metrics": {name: m.signature for name, m in scored.items()},
    }
    write_study(
        output,
        references,
        predictions,
        design,
        scores,
        strata,
        raters=raters,
        scale=scale,
        seed=seed,
        info=info,
        force=force,
    )
    return design


def analyze_study(
    output: str | os.PathLike[str],
    *,
    study: str | os.PathLike[str] | None = None,
    ratings: Sequence[str] = (),
    pairs: Sequence[str | os.PathLike[str]] = (),
    scale: float | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    baseline: str | None = "rouge1",
    embeddings: Embeddings = None,
    oov: str = "zero",
    rescale: bool = False,
    segment: bool = True,
    n_boot: int = 100,
    seed: int = 0,
    force: bool = False,
    encoder: Mapping[str, Any] | None = None,
) -> Analysis:
    """Analyse a study's rating sheets, or published rated pairs, and write the report.

    Give either ``study`` with ``ratings`` (paths or glob patterns of filled-in sheets)
    or ``pairs`` (``reference,prediction,score`` files or folders, scores on 0-``scale``,
    or ``"wrdscore-paper"``: the paper's ratings shipped in the package).
    ``oov`` is the unseen-token policy of the embedding metrics; ``rescale`` rescales
    them against their baselines (see :class:`~wrdscore.metrics.EmbeddingMetric`);
    ``segment`` splits run-together names into words (every metric; see
    :class:`~wrdscore.metrics.Metric`); ``encoder`` gives the encoder options of
    :func:`~wrdscore.metrics.build_metrics`.
    A ``baseline`` missing from ``metrics`` is analysed too, before them.

    Returns
    -------
    Analysis
        What ``report.md`` and ``report.json`` in ``output`` show.
    """
    if baseline is not None and baseline not in metrics:
        # The baseline is what the others are compared with: analysed first, as it is
        # by default, rather than refused.
        metrics = [baseline, *metrics]
    check_metrics(metrics)
    check_seed(seed)
    check_resamples(n_boot, LEVEL, "the number of bootstraps")  # before any scoring
    check_output_dir(output, force)
    if (study is None) == (not pairs):
        raise WrdscoreError("give either --study with --ratings, or --pairs")
    if study is not None:
        if not ratings:
            raise WrdscoreError("--study needs --ratings: the filled-in sheets to analyse")
        if scale is not None:
            raise WrdscoreError("--scale is for --pairs; a study's scale is in its study.json")
        found = read_study(study)
        files = expand_ratings(ratings, found.path)
        human = load_sheet_ratings(found, files)
        source = f"study {found.path} with {len(files)} rating sheet(s)"
    else:
        human = load_published_pairs(pairs, scale)
        source = f"rated pairs from {', '.join(map(str, pairs))}"
    scores = score_pairs(
        human.references,
        human.predictions,
        metrics,
        embeddings,
        oov=oov,
        rescale=rescale,
        segment=segment,
        **(encoder or {}),
    )
    analysis = analyze(human, scores, n_boot=n_boot, seed=seed, baseline=baseline)
    write_report(output, analysis, source, force=force)
    return analysis
