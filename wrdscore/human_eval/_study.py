"""The two routines of a study end to end: sample a study folder, analyse its ratings."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from wrdscore.atomic import check_output_dir
from wrdscore.corpora import DEFAULT_TARGET, TARGETS
from wrdscore.embeddings import TokenEmbeddings, check_oov
from wrdscore.errors import WrdscoreError, counted
from wrdscore.human_eval._analysis import LEVEL, Analysis, analyze, renamed_resamples
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
from wrdscore.human_eval._sheets import CodeItem, read_study, write_study
from wrdscore.human_eval._stats import check_seed
from wrdscore.inputs import _lines
from wrdscore.significance import check_resamples

DEFAULT_METRICS = ("rouge1", "wrd", "bertscore")

Embeddings = TokenEmbeddings | str | Path | None


def check_target(target: str) -> None:
    """Refuse a target other than ``name`` and ``summary``, as ``score --target`` does."""
    if target not in TARGETS:
        raise WrdscoreError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")


def read_names(path: str | os.PathLike[str], *, clean: bool = False) -> list[str]:
    """One name per line (``getUserName`` or ``get user name``); blank lines are errors.

    The file is read as ``wrdscore score`` reads it (:mod:`wrdscore.inputs`): UTF-8, a
    leading BOM dropped, only ``\\n`` ending a line; a ``.jsonl`` file's lines are JSON
    strings (or lists of sub-tokens, joined by spaces), decoded, so that raters never
    see the quotes. With ``clean``, each name goes through
    :func:`~wrdscore.corpora.clean_prediction`, as ``score --clean-predictions`` does.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "refs.txt"
    >>> _ = f.write_text("getName\\nset value\\n")
    >>> read_names(f)
    ['getName', 'set value']
    >>> _ = (f.parent / "preds.jsonl").write_text('"getName"\\n["set", "value"]\\n')
    >>> read_names(f.parent / "preds.jsonl")
    ['getName', 'set value']
    """
    from wrdscore.corpora import clean_prediction

    path = Path(path)
    if path.suffix.lower() == ".jsonl":
        from wrdscore.inputs import parse_lines

        items = parse_lines(_lines(path), path)
        texts = [item if isinstance(item, str) else " ".join(map(str, item)) for item in items]
    else:
        texts = _lines(path)
    if clean:
        texts = [clean_prediction(t) for t in texts]
    names = [text.strip() for text in texts]
    for line, name in enumerate(names, start=1):
        if not name:
            raise WrdscoreError(f"{path}:{line}: empty line (one name per line expected)")
    if not names:
        raise WrdscoreError(f"{path}: no names")
    return names


def read_code_file(
    path: str | os.PathLike[str], language: str | None = None, target: str = DEFAULT_TARGET
) -> list[CodeItem]:
    """The code items of a ``--code`` file, read as ``wrdscore score --code`` reads one.

    Each line is a JSON string (the method's source) or an object with a string
    ``code`` and optionally ``name`` (the name to mask); each source must be code that
    scoring can read (not empty, not binary, in ``language`` or in a language that can
    be told: :func:`~wrdscore.corpora.read_code`; a method over the cap is read cut at a
    line, as scoring cuts it), else a one-line error naming the line. Each item comes
    back as ``{"code", "name", "language"}`` (``name`` where given), the language given
    or found, so that the form shows the code in its language.
    """
    from wrdscore.corpora import SourceCode, capped_code, code_language, read_code
    from wrdscore.inputs import check_code_path, parse_code_lines

    items = parse_code_lines(_lines(check_code_path(Path(path))), Path(path))
    out: list[CodeItem] = []
    for line, item in enumerate(items, start=1):
        source, name = (item, None) if isinstance(item, str) else (item["code"], item.get("name"))
        # Scoring reads a method over the cap cut at a line (as ingest cuts it), so it
        # is checked so here: refusing it refused code that score --code scores.
        cut, was_cut = capped_code(source)
        if was_cut and isinstance(source, SourceCode):
            cut = SourceCode(cut, source.language)
        try:
            found = code_language(cut, language)
            read_code(cut, name=name, language=found, target=target)
        except WrdscoreError as exc:
            raise WrdscoreError(f"{path}:{line}: {exc}") from None
        out.append({"code": source, **({"name": name} if name else {}), "language": found})
    return out


def sample_study(
    refs: str | os.PathLike[str],
    preds: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    code: str | os.PathLike[str] | None = None,
    embeddings: Embeddings = None,
    oov: str = "auto",
    n_sets: int = 3,
    strata: Sequence[Stratum] = DEFAULT_STRATA,
    raters: int = 3,
    seed: int = 0,
    strict: bool = False,
    scale: int = 10,
    force: bool = False,
    encoder: Mapping[str, Any] | None = None,
    clean_predictions: bool = False,
    language: str | None = None,
    target: str = DEFAULT_TARGET,
) -> Design:
    """Draw a stratified study from a model's predictions and write its folder.

    Reads one reference and one prediction per line, scores the pairs with the metrics
    the strata condition on, draws the sets from the distinct pairs
    (:func:`~wrdscore.human_eval.stratified_design`) and writes ``output``
    (:func:`~wrdscore.human_eval.write_study`). ``oov`` is the unseen-token policy of the
    embedding metrics (``auto``, ``zero``, ``drop`` or ``subword``); ``encoder`` the encoder
    options of :func:`~wrdscore.metrics.build_metrics` (``{"encoder": NAME, "layer": 4}``).
    ``code`` is a CODE ``.jsonl`` aligned with the pairs, as ``wrdscore score --code``
    reads it (each line a JSON string of the method's source, or an object with a
    ``code`` field): the raters then see each method's code (format ``wrdscore-study/3``),
    and strata may condition on code-aware values (``10:wrd.code<0.3``). ``language``
    is the code's language (default: told from each snippet; see
    :func:`~wrdscore.corpora.read_code`); the forms highlight the code in it.
    ``clean_predictions`` cleans each prediction as ``score --clean-predictions`` does
    (:func:`~wrdscore.corpora.clean_prediction`); a ``.jsonl`` predictions file is
    decoded as ``score`` decodes it. ``target`` says what the pairs are, ``name`` or
    ``summary``: the instructions ask to rate names or summaries, and the code is read
    for that target (the name masked for names; ``score --target``). A reference line
    with TAB-separated alternatives scores as its best alternative, as ``score`` reads
    it, and raters see the alternatives joined by `` | ``. Every option is checked
    before anything is read or scored.

    Returns
    -------
    Design
        The sets drawn, with any shortfalls.
    """
    check_seed(seed)
    # Before any file is read or scored (an encoder or model loads in seconds).
    for what, value in (
        ("the number of raters", raters),
        ("the number of sets", n_sets),
        ("the rating scale", scale),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise WrdscoreError(f"{what} must be at least 1, got {value!r}")
    if not strata:
        raise WrdscoreError("a study needs at least one stratum")
    check_target(target)
    # Here, not only where a metric is built: random strata build none, and took any.
    check_oov(oov)
    if language is not None and code is None:
        # Without code it would be written to study.json unchecked (any word) and unused.
        raise WrdscoreError("--language applies to --code snippets: give --code")
    if language is not None:
        from wrdscore.corpora import check_language

        # Up front, as score checks it: else the first code line was named as if at fault.
        check_language(language)
    check_output_dir(output, force)
    references, predictions = read_names(refs), read_names(preds, clean=clean_predictions)
    if len(references) != len(predictions):
        raise WrdscoreError(
            f"{refs} has {len(references)} names but {preds} has {len(predictions)}"
        )
    codes = None if code is None else read_code_file(code, language, target)
    if codes is not None and len(codes) != len(references):
        raise WrdscoreError(f"{code} has {len(codes)} lines but {refs} has {len(references)} names")
    metrics = strata_metrics(strata)
    # A stratum on a code-aware value (wrd.code<0.5) scores its metric against the code.
    on_code = [m for m in metrics if "." in m]
    if on_code and codes is None:
        raise WrdscoreError(f"the stratum condition on {on_code[0]} needs --code")
    scored = (
        score_pairs(
            references,
            predictions,
            list(dict.fromkeys(m.partition(".")[0] for m in metrics)),
            embeddings,
            codes=_strata_codes(codes, language) if on_code else None,
            target=target,
            oov=oov,
            **(encoder or {}),
        )
        if metrics
        else {}
    )
    candidates = distinct_pairs(references, predictions, codes)
    scores = {name: m.scores for name, m in scored.items()}
    design = stratified_design(scores, candidates, n_sets, strata, seed, strict)
    info = {
        "references": str(refs),
        "predictions": str(preds),
        **({} if code is None else {"code": str(code)}),
        **({} if language is None else {"language": language}),
        **({"clean_predictions": True} if clean_predictions else {}),
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
        codes=codes,
        target=target,
    )
    return design


def _strata_codes(codes: list[CodeItem] | None, language: str | None) -> list[CodeItem] | None:
    """The code the strata are scored against: in ``language`` where it is given, as the
    forms show it (told again, code given a language was refused, or read as another)."""
    if codes is None or language is None:
        return codes
    return [_in_language(c, language) for c in codes]


def _in_language(item: CodeItem, language: str) -> CodeItem:
    """A code item whose source is read in ``language`` (a SourceCode)."""
    from wrdscore.corpora import SourceCode

    if isinstance(item, str):
        return SourceCode(item, language)
    return {**item, "code": SourceCode(item["code"], language)}


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
    oov: str = "auto",
    rescale: bool = False,
    segment: bool = True,
    resamples: int = 100,
    seed: int = 0,
    force: bool = False,
    encoder: Mapping[str, Any] | None = None,
    n_boot: int | None = None,
    target: str | None = None,
    per_metric: Mapping[str, Mapping[str, Any]] | None = None,
) -> Analysis:
    """Analyse a study's rating sheets, or published rated pairs, and write the report.

    Give either ``study`` with ``ratings`` (paths or glob patterns of filled-in sheets)
    or ``pairs`` (``reference,prediction,score`` files or folders, scores on 0-``scale``,
    or ``"wrdscore-paper"``: the paper's ratings shipped in the package).
    ``oov`` is the unseen-token policy of the embedding metrics; ``rescale`` rescales
    them against their baselines (see :class:`~wrdscore.metrics.EmbeddingMetric`);
    ``segment`` splits run-together names into words (every metric; on by default, see
    :class:`~wrdscore.metrics.Metric`).
    ``encoder`` gives the encoder options of :func:`~wrdscore.metrics.build_metrics`,
    ``per_metric`` options of one metric by name (the judge's server and model).
    A ``baseline`` missing from ``metrics`` is analysed too, before them. ``resamples``
    is the number of bootstrap resamples (:func:`analyze`; ``n_boot``, its old name, is
    still taken, with a :class:`DeprecationWarning`). A study with
    code (``study sample --code``) is also scored against each method's code: every
    metric that can read code adds ``<metric>.code`` and ``<metric>.combined``
    (:func:`~wrdscore.human_eval.score_pairs`), the code read for the study's target
    (``study.json``; ``name`` in studies from before it was recorded). ``target``
    (``name`` or ``summary``) must match it where given; rated pairs from files have no
    code to read for one. The ratings' ``notes`` say which raters of the study's design
    have no sheet among ``ratings``.

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
    resamples = renamed_resamples(resamples, n_boot)
    check_resamples(resamples, LEVEL)  # before any scoring
    check_output_dir(output, force)
    if (study is None) == (not pairs):
        raise WrdscoreError("give either --study with --ratings, or --pairs")
    if target is not None:
        check_target(target)
        if study is None:
            raise WrdscoreError(
                "--target says how a study's code is read: rated pairs from --pairs have no code"
            )
    if study is not None:
        if not ratings:
            raise WrdscoreError("--study needs --ratings: the filled-in sheets to analyse")
        if scale is not None:
            raise WrdscoreError("--scale is for --pairs; a study's scale is in its study.json")
        found = read_study(study)
        sampled = found.info.get("target", DEFAULT_TARGET)
        if target is not None and target != sampled:
            raise WrdscoreError(
                f"--target {target}: the study was sampled with target {sampled} (study.json)"
            )
        target = sampled
        files = expand_ratings(ratings, found.path)
        human = load_sheet_ratings(found, files)
        source = f"study {found.path} with {counted(len(files), 'rating sheet')}"
        language = found.info.get("language")
        if human.codes is not None and isinstance(language, str):
            # The code is scored in the language it was sampled in (study sample
            # --language), not told from it again.
            human = replace(human, codes=[_in_language(c, language) for c in human.codes])
    else:
        human = load_published_pairs(pairs, scale)
        source = f"rated pairs from {', '.join(map(str, pairs))}"
    scores = score_pairs(
        human.references,
        human.predictions,
        metrics,
        embeddings,
        codes=human.codes,
        target=target or DEFAULT_TARGET,
        per_metric=per_metric,
        oov=oov,
        rescale=rescale,
        segment=segment,
        **(encoder or {}),
    )
    analysis = analyze(human, scores, resamples=resamples, seed=seed, baseline=baseline)
    write_report(output, analysis, source, force=force)
    return analysis
