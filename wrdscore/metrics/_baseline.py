"""Baselines for rescaling (bert_score's ``rescale_with_baseline``), stored in ``model.json``.

An embedding metric's raw scores do not start at 0 for unrelated names: two random
method names share a vector space, so their cosines, and every score built on them, sit
well above 0. The baseline ``b`` of a metric setting is its mean on random pairs of the
model's own training names, and ``rescale=True`` maps a score ``s`` to
``(s - b) / (1 - b)``: unrelated names then score about 0 and identical names still
exactly 1.

Layering: the baselines are computed *with* metrics *on* a trained model, so they live
on the metrics side (this module) and never in :mod:`wrdscore.embeddings`: training
writes a MODEL_DIR, then :func:`add_baselines` reads it back with the corpus and adds a
``baselines`` block to its ``model.json`` (what ``wrdscore train`` does at its end, and
``wrdscore baseline MODEL_DIR CORPUS`` for a model trained before).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wrdscore import __version__
from wrdscore.atomic import atomic_write
from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.embeddings import TokenEmbeddings, load_embeddings
from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics.base import (
    METRICS,
    EmbeddingMetric,
    baseline_key,
    get_metric,
    resolve_embeddings,
)

if TYPE_CHECKING:
    from wrdscore.embeddings.encoders import Encoder

#: Random pairs of training names per baseline, and the seed that draws them.
BASELINE_PAIRS = 10_000
BASELINE_SEED = 0
#: Centering modes that get a baseline; ``batch`` has none (its scores depend on the batch).
BASELINE_CENTERINGS = ("none", "dimension", "sentence", "corpus")
#: Options besides ``oov`` and ``centering`` whose every value gets a baseline; every
#: other option keeps its default.
BASELINE_OPTIONS: dict[str, dict[str, tuple[Any, ...]]] = {
    "wrd": {"weights": ("norm", "norm*idf", "idf", "uniform")},
    "bertscore": {"idf": (False, True)},
}
# Candidate pairs drawn per pair wanted: pairs of names with the same tokens are
# skipped, so a few more are drawn than needed.
_OVERDRAW = 3


def baseline_settings(
    embeddings: TokenEmbeddings, *, encoder: bool = False, fuse: bool = False
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (metric, options) combination that gets a baseline on ``embeddings``.

    Each registered embedding metric with its default options, under every OOV policy
    the model supports (``subword`` for FastText models only) and every centering of
    :data:`BASELINE_CENTERINGS`, times the values of :data:`BASELINE_OPTIONS` (IDF
    variants only where the model has document frequencies). With ``encoder``, the
    settings of an encoder whose probe and IDF come from ``embeddings`` (fused with it
    under ``fuse``; ``subword`` only then), and the encoder-only metrics (``sentence``).

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0]})
    >>> sorted({name for name, _ in baseline_settings(emb)})
    ['bertscore', 'cka', 'sbert', 'trwmd', 'twmd', 'wmd', 'wrd']
    """
    subword = embeddings.has_subword and (fuse or not encoder)
    oovs = ("zero", "drop", "subword") if subword else ("zero", "drop")
    for name, cls in METRICS.items():
        if not issubclass(cls, EmbeddingMetric) or (cls.needs_encoder and not encoder):
            continue
        if cls.needs_encoder:
            # No token vectors: no OOV policy or centering to vary.
            yield name, {}
            continue
        grid = BASELINE_OPTIONS.get(name, {})
        for values in itertools.product(*grid.values()):
            extra = dict(zip(grid, values, strict=True))
            needs_df = extra.get("idf") is True or "idf" in str(extra.get("weights", ""))
            if needs_df and not embeddings.has_df:
                continue
            for oov, centering in itertools.product(oovs, BASELINE_CENTERINGS):
                yield name, {"oov": oov, "centering": centering, **extra}


def sample_name_pairs(
    corpus_dir: str | Path, pairs: int = BASELINE_PAIRS, seed: int = BASELINE_SEED
) -> tuple[list[list[str]], list[list[str]], int]:
    """Random pairs of method names of a corpus, as sub-token lists.

    Both names of a pair are drawn uniformly, independently and with replacement from
    the corpus's method records (so a common name is drawn as often as it occurs);
    pairs whose names have the same sub-tokens, or a name without tokens, are skipped.
    The corpus is streamed once; only the drawn names are kept.

    Returns
    -------
    references, predictions : list of token lists
        ``pairs`` names each.
    n_names : int
        Method records the names were drawn from.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import CorpusWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with CorpusWriter(d) as w:
    ...     for n in ["getName", "setName", "size"]:
    ...         w.write({"name": n, "tokens": split_identifier(n)})
    ...     w.write_manifest({"counts": {"methods": 3}})
    >>> refs, preds, n = sample_name_pairs(d, pairs=4, seed=0)
    >>> n, len(refs), all(r != p for r, p in zip(refs, preds))
    (3, 4, True)
    """
    if pairs < 1:
        raise WrdscoreError(f"the number of baseline pairs must be at least 1, got {pairs}")
    corpus = open_corpus(corpus_dir)
    counts = corpus.manifest.get("counts") or {}
    # Ingested corpora count their methods; anything else is counted in one extra pass.
    n_names = (
        int(counts["methods"]) if "methods" in counts else sum(1 for _ in corpus.iter_methods())
    )
    if n_names < 2:
        raise WrdscoreError(
            f"corpus {corpus.path} has {counted(n_names, 'method')}; a baseline needs 2+"
        )
    drawn = np.random.default_rng(seed).integers(0, n_names, size=(_OVERDRAW * pairs, 2))
    wanted = set(drawn.ravel().tolist())
    names: dict[int, list[str]] = {}
    seen = 0
    for i, record in enumerate(corpus.iter_methods()):
        seen = i + 1
        if i in wanted:
            names[i] = list(record.get("tokens") or split_identifier(record.get("name") or ""))
    if seen != n_names:
        raise WrdscoreError(
            f"corpus {corpus.path} has {seen} records but its manifest says {n_names}; re-ingest it"
        )
    refs, preds = [], []
    for a, b in drawn.tolist():
        if names[a] and names[b] and names[a] != names[b]:
            refs.append(names[a])
            preds.append(names[b])
            if len(refs) == pairs:
                return refs, preds, n_names
    raise WrdscoreError(
        f"corpus {corpus.path}: only {len(refs)} of {_OVERDRAW * pairs} random name pairs differ; "
        f"too few distinct names for {pairs} baseline pairs"
    )


def compute_baselines(
    embeddings: TokenEmbeddings,
    references: list[list[str]],
    predictions: list[list[str]],
    **encoder_options: Any,
) -> dict[str, dict[str, float] | None]:
    """The baseline of every setting of :func:`baseline_settings`: its mean on the pairs.

    ``b_k = mean_i s_k(r_i, p_i)`` for each value ``k`` of the metric (precision, recall
    and F1 each get their own, as in bert_score; ``score`` for single-valued metrics).
    Repeated pairs are scored once and counted as often as they occur.
    Keys are :func:`~wrdscore.metrics.baseline_key` of each metric (its signature without
    the model and version). A setting whose baseline is 1 or more for some value
    (random names score as identical: rescaling is undefined) is stored as ``None``.
    ``encoder_options`` (``encoder=`` a loaded :class:`~wrdscore.embeddings.encoders.Encoder`,
    ``fuse=``, ``fuse_weights=``) compute an encoder's baselines instead; its names are
    encoded once and reused by every setting.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0], "b": [0.6, 0.8]})
    >>> b = compute_baselines(emb, [["a"]], [["b"]])
    >>> wrd = b["wrdscore|w:norm|c:none|oov:zero|clip:yes|solver:emd"]
    >>> {k: round(v, 4) for k, v in wrd.items()}
    {'precision': 0.6, 'recall': 0.6, 'f1': 0.6}
    """
    refs, preds, weights = _distinct_pairs(references, predictions)
    total = float(weights.sum())
    out: dict[str, dict[str, float] | None] = {}
    encoder = "encoder" in encoder_options
    fuse = bool(encoder_options.get("fuse"))
    for name, options in baseline_settings(embeddings, encoder=encoder, fuse=fuse):
        metric = get_metric(name, embeddings=embeddings, **options, **encoder_options)
        result = metric.score(refs, preds)
        # The mean over every pair, each distinct pair's value counted as often as it
        # was drawn: with no repeats, exactly np.mean of the values.
        means = {k: float(np.sum(v * weights) / total) for k, v in result.values.items()}
        out[baseline_key(metric)] = None if max(means.values()) >= 1.0 else means
    return out


def _distinct_pairs(
    references: list[list[str]], predictions: list[list[str]]
) -> tuple[list[list[str]], list[list[str]], np.ndarray]:
    """The distinct pairs in order of first occurrence, and how often each occurs.

    Random pairs of a small corpus's names repeat (10,000 pairs of 36 names hold about
    1,100 distinct ones): each is scored once, and weighted, instead of every time.
    """
    counts: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
    for ref, pred in zip(references, predictions, strict=True):
        key = (tuple(ref), tuple(pred))
        counts[key] = counts.get(key, 0) + 1
    # Equal names share one list, so that the metrics embed each name once.
    names: dict[tuple[str, ...], list[str]] = {}
    refs = [names.setdefault(r, list(r)) for r, _ in counts]
    preds = [names.setdefault(p, list(p)) for _, p in counts]
    return refs, preds, np.fromiter(counts.values(), dtype=np.float64, count=len(counts))


def add_baselines(
    model_dir: str | Path,
    corpus_dir: str | Path,
    *,
    pairs: int = BASELINE_PAIRS,
    seed: int = BASELINE_SEED,
) -> dict[str, Any]:
    """Compute the baselines of a MODEL_DIR on its training names; store them in ``model.json``.

    Any ``baselines`` block already there is replaced; the vectors are not touched (so
    score signatures, which carry the vectors' hash, stay the same).

    Parameters
    ----------
    model_dir : path
        A folder written by ``wrdscore train``.
    corpus_dir : path
        The corpus it was trained on (names are drawn from its method records).
    pairs, seed : int
        How many random name pairs, drawn with which seed.

    Returns
    -------
    dict
        The ``baselines`` block written: ``pairs``, ``seed``, ``names`` (records drawn
        from), ``corpus`` (path, manifest SHA-256, and whether it is the model's own
        training corpus), ``wrdscore`` version, ``vectors_sha`` (the vectors they were
        computed with) and ``settings`` (key -> values or None).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import CorpusWriter
    >>> from wrdscore.embeddings import save_embeddings
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "c").mkdir()
    >>> with CorpusWriter(d / "c") as w:
    ...     for n in ["size", "count", "getName"]:
    ...         w.write({"name": n, "tokens": split_identifier(n)})
    ...     w.write_manifest({"counts": {"methods": 3}})
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6],
    ...                                     "get": [0.0, 1.0], "name": [0.6, 0.8]})
    >>> _ = save_embeddings(emb.kv, d / "m", meta={"name": "tiny", "n_docs": 3}, doc_freq={})
    >>> block = add_baselines(d / "m", d / "c", pairs=50)
    >>> b = get_metric("wrd", embeddings=d / "m", rescale=True).baseline
    >>> b == block["settings"]["wrdscore|w:norm|c:none|oov:zero|clip:yes|solver:emd"]
    True
    """
    folder = Path(model_dir)
    meta_path = folder / "model.json"
    if not meta_path.is_file():
        raise WrdscoreError(
            f"{folder} is not a model folder (no model.json); baselines are stored in one"
        )
    embeddings = load_embeddings(folder)
    corpus = open_corpus(corpus_dir)
    refs, preds, n_names = sample_name_pairs(corpus.path, pairs, seed)
    trained_on = embeddings.meta.get("corpus", {}).get("manifest_sha256")
    block = {
        "pairs": pairs,
        "seed": seed,
        "names": n_names,
        "corpus": {
            "path": str(corpus_dir),
            "manifest_sha256": corpus.manifest_sha256,
            # None: the model records no training corpus (a distilled one), so no claim.
            "training_corpus": None if trained_on is None else corpus.manifest_sha256 == trained_on,
        },
        "wrdscore": __version__,
        "vectors_sha": embeddings.sha,
        "settings": compute_baselines(embeddings, refs, preds),
    }
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["baselines"] = block
    with atomic_write(meta_path) as fh:
        fh.write(json.dumps(meta, indent=2) + "\n")
    return block


def add_encoder_baselines(
    corpus_dir: str | Path,
    encoder: Encoder,
    *,
    embeddings: TokenEmbeddings | str | Path | None = None,
    fuse_weights: tuple[float, float] | None = None,
    pairs: int = BASELINE_PAIRS,
    seed: int = BASELINE_SEED,
) -> tuple[dict[str, Any], Path]:
    """Compute an encoder's baselines on a corpus's names; store them by its weights' hash.

    What ``rescale=True`` reads for an encoder (see
    :mod:`wrdscore.embeddings.encoders._baselines` for where they are kept). With
    ``embeddings`` the baselines are those of the encoder fused with that model;
    without, the bundled model supplies document frequencies and the probe, as in scoring.

    Returns
    -------
    block : dict
        ``pairs``, ``seed``, ``names``, ``corpus`` (path, manifest SHA-256), ``wrdscore``
        version, ``encoder`` (its signature) and ``settings``.
    path : Path
        The file written.
    """
    from wrdscore.embeddings.encoders import ContextualVectors, store_encoder_baselines

    static = resolve_embeddings(embeddings)
    fuse = embeddings is not None
    weights = fuse_weights or (1.0, 1.0)
    scope = ContextualVectors(encoder, static, fuse=fuse, weights=weights).scope
    corpus = open_corpus(corpus_dir)
    refs, preds, n_names = sample_name_pairs(corpus.path, pairs, seed)
    options: dict[str, Any] = {"encoder": encoder, "fuse": fuse}
    if fuse_weights is not None:
        options["fuse_weights"] = fuse_weights
    block = {
        "pairs": pairs,
        "seed": seed,
        "names": n_names,
        "corpus": {"path": str(corpus_dir), "manifest_sha256": corpus.manifest_sha256},
        "wrdscore": __version__,
        "encoder": encoder.signature,
        "settings": compute_baselines(static, refs, preds, **options),
    }
    return block, store_encoder_baselines(encoder.sha, scope, block)
