"""Specialisation for similarity: attract-repel, and the model-level entry points."""

from __future__ import annotations

import copy
import hashlib
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gensim.models import KeyedVectors
from gensim.models.fasttext import FastTextKeyedVectors
from numpy.typing import NDArray

from wrdscore.embeddings._seed import check_seed
from wrdscore.embeddings.specialise._confirm import confirm_synonyms
from wrdscore.embeddings.specialise._constraints import (
    KINDS,
    Constraints,
    MinedPair,
    mine_constraints,
)
from wrdscore.embeddings.specialise._counterfit import CounterFitSettings, counter_fit
from wrdscore.embeddings.specialise._curated import add_curated, read_curated
from wrdscore.embeddings.specialise._inflect import add_inflections
from wrdscore.embeddings.specialise._pairs_file import pairs_file, read_pairs
from wrdscore.embeddings.specialise._sphere import PairsLike, prepare, unit_rows
from wrdscore.embeddings.store._store import load_embeddings, save_embeddings
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.errors import WrdscoreError

#: Which specialisation methods exist. Counter-fitting is the default: on the bundled
#: model, attract-repel's in-batch negatives pulled unrelated constrained words
#: together (mean cosine of random pairs of them 0.35 -> 0.46), counter-fitting, which
#: has none, spread them (0.35 -> 0.15); see the README.
SPECIALISE_METHODS = ("counter-fitting", "attract-repel")
#: Appended to a specialised model's name, so score signatures tell them apart.
SUFFIX = {"counter-fitting": "cf", "attract-repel": "ar"}
DEFAULT_SPECIALISE_METHOD = "counter-fitting"
#: Attract-repel's published hyperparameters (Mrkšić et al. 2017, TACL 5:309-324):
#: margins, L2 regularisation, mini-batch size, epochs, AdaGrad learning rate.
ATTRACT_MARGIN = 0.6
REPEL_MARGIN = 0.0
REGULARISATION = 1e-9
BATCH_SIZE = 50
EPOCHS = 5
LEARNING_RATE = 0.05
_ADAGRAD_INIT = 0.1  # TensorFlow's AdagradOptimizer initial accumulator, as in the paper's code


@dataclass(frozen=True)
class SpecialiseSettings:
    """Hyperparameters of :func:`attract_repel` (defaults: the published ones)."""

    attract_margin: float = ATTRACT_MARGIN
    repel_margin: float = REPEL_MARGIN
    regularisation: float = REGULARISATION
    batch_size: int = BATCH_SIZE
    epochs: int = EPOCHS
    learning_rate: float = LEARNING_RATE
    seed: int = 0


def _batch_gradient(
    w: NDArray[np.float64],
    w0: NDArray[np.float64],
    pairs: NDArray[np.int64],
    attract: bool,
    s: SpecialiseSettings,
    rng: np.random.Generator,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Rows touched by one mini-batch and the gradient of its loss with respect to them."""
    rows, local = np.unique(pairs, return_inverse=True)
    local = local.reshape(pairs.shape)
    x, norms = unit_rows(w[rows])
    norms = np.where(norms > 0, norms, 1.0)
    b = len(pairs)
    # The 2b word slots of the batch: left words, then right words.
    words = np.concatenate([local[:, 0], local[:, 1]])
    partner = np.concatenate([np.arange(b, 2 * b), np.arange(b)])
    # In-batch negatives: any slot holding neither the word itself nor its partner.
    mask = (words[:, None] == words[None, :]) | (words[partner][:, None] == words[None, :])
    has_neg = ~mask.all(axis=1)
    sims = x[words] @ x[words].T
    if attract:
        neg = np.where(mask, -np.inf, sims).argmax(axis=1)
    else:
        neg = np.where(mask, np.inf, sims).argmin(axis=1)
    # Mix sampling, as in the reference implementation: each negative is replaced, with
    # probability 1/2, by a random word of another pair of the batch (here only by one
    # that is neither the word nor its partner, the rule of the closest/farthest pick).
    if b > 1:
        other_pair = (np.arange(2 * b) % b + rng.integers(1, b, size=2 * b)) % b
        random_slot = other_pair + b * rng.integers(0, 2, size=2 * b)
        swap = (rng.random(2 * b) < 0.5) & ~mask[np.arange(2 * b), random_slot]
        neg = np.where(swap, random_slot, neg)
    anchor, other, t = words, words[partner], words[neg]
    xa, xo, xt = x[anchor], x[other], x[t]
    pos = np.einsum("ij,ij->i", xa, xo)
    # A slot with no in-batch negative (a batch of one pair) compares with an
    # orthogonal impostor (similarity 0): synonyms are pulled to cosine >= delta_att,
    # contrasts pushed to cosine <= delta_rpl.
    negs = np.where(has_neg, np.einsum("ij,ij->i", xa, xt), 0.0)
    xt = xt * has_neg[:, None]
    grad = np.zeros_like(x)
    if attract:
        # hinge(delta_att + a.t - a.o): gradient a: t - o, t: a, o: -a
        active = (s.attract_margin + negs - pos) > 0
        ga, gt, go = xt - xo, xa * has_neg[:, None], -xa
    else:
        # hinge(delta_rpl + a.o - a.t): gradient a: o - t, o: a, t: -a
        active = (s.repel_margin + pos - negs) > 0
        ga, gt, go = xo - xt, -xa * has_neg[:, None], xa
    act = active[:, None]
    np.add.at(grad, anchor, ga * act)
    np.add.at(grad, t, gt * act)
    np.add.at(grad, other, go * act)
    # Through the normalisation x = w / |w|: dL/dw = (g - (g.x) x) / |w|.
    grad = (grad - np.einsum("ij,ij->i", grad, x)[:, None] * x) / norms
    grad += 2.0 * s.regularisation * (w[rows] - w0[rows])
    return rows, grad


def attract_repel(
    vectors: NDArray[np.floating],
    attract: PairsLike,
    repel: PairsLike,
    settings: SpecialiseSettings | None = None,
) -> NDArray[np.float64]:
    """Specialise vectors for similarity with attract (synonym) and repel (contrast) pairs.

    Attract-repel (Mrkšić et al. 2017). Training starts from the unit vectors
    ``w_0 = v / |v|`` (as in the paper) and compares them as unit vectors
    ``x = w / |w|``. Each mini-batch ``B_A`` of attract pairs ``(l, r)`` takes, for
    each word, the *closest* other word of the batch as its negative ``t``; each
    batch ``B_R`` of repel pairs the *farthest*. The loss of a batch is

    .. math::

        S(B_A) = \\sum_{(l,r)} [\\delta_{att} + x_l t_l - x_l x_r]_+
                               + [\\delta_{att} + x_r t_r - x_l x_r]_+

        R(B_R) = \\sum_{(l,r)} [\\delta_{rpl} + x_l x_r - x_l t_l]_+
                               + [\\delta_{rpl} + x_l x_r - x_r t_r]_+

        O = S + R + \\lambda \\sum_{w \\in B} \\lVert w - w_0 \\rVert^2

    (``[z]_+ = max(0, z)``; ``w_0`` the original vector): a synonym pair must be
    closer than each word's nearest in-batch impostor by the margin
    ``delta_att = 0.6``; a contrast pair must be no closer than each word's farthest
    in-batch word (``delta_rpl = 0``); the L2 term (``lambda = 1e-9``) keeps the
    words it touches near where they were. A word with no in-batch negative (a
    batch of one pair) is compared with an orthogonal impostor (``t = 0``).
    Words in no pair never move, so every
    other similarity is kept exactly. Hyperparameters are the paper's (batch 50,
    5 epochs, AdaGrad with learning rate 0.05), not tuned here.

    Each epoch shuffles both pair lists with ``seed`` and visits their batches in a
    shuffled interleaved order; one AdaGrad step per batch on the rows it touches.
    As in the authors' code, half of the negatives (at random) are replaced by a
    random word of another pair of the batch ("mix sampling").

    Parameters
    ----------
    vectors : ndarray of shape (n, d)
        The vectors (any norms; zero rows are left alone).
    attract, repel : array-like of int pairs
        Row indices of synonym and contrast pairs.
    settings : SpecialiseSettings, optional

    Returns
    -------
    ndarray of shape (n, d), float64
        The specialised vectors, each rescaled to its original norm (WRDScore's
        ``norm`` weights read a token's importance from its norm, which the
        specialisation must not change).

    Examples
    --------
    >>> v = np.array([[1.0, 0.1, 0.0], [0.9, 0.3, 0.1], [0.0, 1.0, 0.0], [0.1, 0.9, 0.3]])
    >>> out = attract_repel(v, attract=[(0, 2)], repel=[(0, 1)])
    >>> def cos(m, i, j):
    ...     return m[i] @ m[j] / np.linalg.norm(m[i]) / np.linalg.norm(m[j])
    >>> bool(cos(out, 0, 2) > cos(v, 0, 2)), bool(cos(out, 0, 1) < cos(v, 0, 1))
    (True, True)
    >>> np.allclose(np.linalg.norm(out, axis=1), np.linalg.norm(v, axis=1))
    True
    """
    s = settings or SpecialiseSettings()
    if s.batch_size < 1 or s.epochs < 0:
        raise WrdscoreError("batch size must be positive and epochs non-negative")
    problem = prepare(vectors, attract, repel)
    w0 = problem.unit
    w = w0.copy()
    accum = np.full_like(w, _ADAGRAD_INIT)
    rng = np.random.default_rng(s.seed)
    for _ in range(s.epochs):
        batches = []
        for is_attract, arr in ((True, problem.attract), (False, problem.repel)):
            order = rng.permutation(len(arr))
            for start in range(0, len(arr), s.batch_size):
                batches.append((is_attract, arr[order[start : start + s.batch_size]]))
        for i in rng.permutation(len(batches)):
            is_attract, batch = batches[i]
            rows, grad = _batch_gradient(w, w0, batch, is_attract, s, rng)
            accum[rows] += grad**2
            w[rows] -= s.learning_rate * grad / np.sqrt(accum[rows])
    return problem.finish(w)


@dataclass(frozen=True)
class SpecialiseResult:
    """The specialised vectors and how many constraints reached them."""

    kv: KeyedVectors
    used: dict[str, int]


def _settings_for(method: str, seed: int) -> SpecialiseSettings | CounterFitSettings:
    if method not in SPECIALISE_METHODS:
        raise WrdscoreError(
            f"unknown specialisation method {method!r}; choose one of "
            + ", ".join(SPECIALISE_METHODS)
        )
    check_seed(seed)
    return CounterFitSettings() if method == "counter-fitting" else SpecialiseSettings(seed=seed)


def specialise_vectors(
    kv: KeyedVectors,
    constraints: Constraints | Iterable[MinedPair],
    method: str = DEFAULT_SPECIALISE_METHOD,
    settings: SpecialiseSettings | CounterFitSettings | None = None,
) -> SpecialiseResult:
    """A copy of ``kv`` specialised with mined constraints.

    Synonym and abbreviation pairs attract, contrast pairs repel; pairs with a token
    outside the vocabulary are skipped (``used`` counts the pairs applied per kind).

    Parameters
    ----------
    kv : gensim KeyedVectors
        The vectors (not changed).
    constraints : Constraints or iterable of MinedPair
    method : {"counter-fitting", "attract-repel"}
        :func:`~wrdscore.embeddings.counter_fit` (the default) or
        :func:`attract_repel`.
    settings : SpecialiseSettings or CounterFitSettings, optional
        The method's hyperparameters; default the published ones.

    Notes
    -----
    FastText: only the in-vocabulary word vectors are specialised. gensim stores a
    word's vector as the mean of its own row in ``vectors_vocab`` and its n-gram
    rows, and recomputes it on load, so the own row is shifted by
    ``(1 + n_ngrams) * delta``, which makes the recomposed vector exactly the
    specialised one; the n-gram buckets are left as trained, so an unseen token's
    subword vector (``oov="subword"``) is the original model's. Shifting shared
    n-grams would move every word containing ``get`` whenever ``get`` is pushed
    from ``set``, i.e. spread pair-specific moves onto unconstrained words.

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors(
    ...     {"get": [1.0, 0.2], "set": [0.9, 0.4], "fetch": [0.3, 1.0], "x": [0.5, 0.5]})
    >>> pairs = [MinedPair("contrast", "get", "set", 3, 2, ""),
    ...          MinedPair("synonym", "fetch", "get", 2, 2, "")]
    >>> res = specialise_vectors(emb.kv, pairs)
    >>> res.used
    {'contrast': 1, 'synonym': 1, 'abbreviation': 0}
    >>> bool(res.kv.similarity("get", "set") < emb.kv.similarity("get", "set"))
    True
    """
    index = kv.key_to_index
    attract: list[tuple[int, int]] = []
    repel: list[tuple[int, int]] = []
    used = {"contrast": 0, "synonym": 0, "abbreviation": 0}
    for p in constraints:
        if p.a not in index or p.b not in index:
            continue
        (repel if p.kind == "contrast" else attract).append((index[p.a], index[p.b]))
        used[p.kind] += 1
    chosen = settings or _settings_for(method, 0)
    if method == "counter-fitting":
        if not isinstance(chosen, CounterFitSettings):
            raise WrdscoreError("counter-fitting needs CounterFitSettings")
        new = counter_fit(kv.vectors, attract, repel, chosen)
    else:
        _settings_for(method, 0)  # checks the name
        if not isinstance(chosen, SpecialiseSettings):
            raise WrdscoreError("attract-repel needs SpecialiseSettings")
        new = attract_repel(kv.vectors, attract, repel, chosen)
    return SpecialiseResult(replace_vectors(kv, new), used)


def replace_vectors(kv: KeyedVectors, new: NDArray) -> KeyedVectors:
    """A copy of ``kv`` whose in-vocabulary vectors are ``new`` (specialised or tuned).

    A FastText model recomposes a word's vector from its own row and its n-gram rows on
    load, so its own row is shifted by ``(1 + n_ngrams) * delta`` and the n-gram buckets
    stay as trained: moving shared n-grams would move every word that contains them.
    """
    # float16 models (``distill --float16``, ``fuse --float16``) stay float16: halving
    # the size is their point (the bundled default is one).
    new = new.astype(np.float16 if kv.vectors.dtype == np.float16 else np.float32)
    out = copy.deepcopy(kv)
    if isinstance(out, FastTextKeyedVectors) and out.bucket:
        delta = new - np.asarray(out.vectors, dtype=np.float32)
        counts = np.array([len(b) for b in out.buckets_word], dtype=np.float32)
        out.vectors_vocab = out.vectors_vocab + delta * (1.0 + counts)[:, None]
        out.adjust_vectors()
    else:
        out.vectors = new
    out.fill_norms(force=True)
    return out


def specialise_from_corpus(
    kv: KeyedVectors,
    corpus_dir: str | Path,
    method: str = DEFAULT_SPECIALISE_METHOD,
    seed: int = 0,
    curated: bool = True,
    confirm: bool = True,
    inflect: bool = True,
) -> tuple[KeyedVectors, dict[str, Any], Constraints]:
    """Mine a corpus's constraints and specialise ``kv`` with them.

    With ``curated`` (the default), the packaged curated list goes on top of the
    mined pairs (:func:`~wrdscore.embeddings.add_curated`); ``model.json`` counts its
    pairs under ``constraints.curated`` and ``pairs.tsv`` marks them ``curated``.
    With ``confirm`` (the default), mined synonyms that ``kv`` does not already
    relate are dropped first (:func:`~wrdscore.embeddings.confirm_synonyms`);
    ``model.json`` lists them under ``confirm``, and ``pairs.tsv`` holds only the
    pairs used. With ``inflect`` (the default), the contrasts and synonyms are then
    carried over to the inflected forms of ``kv``'s vocabulary
    (:func:`~wrdscore.embeddings.add_inflections`: ``adding``/``removing`` from
    ``add``/``remove``); ``model.json`` counts them under ``constraints.inflected``.

    Returns
    -------
    (KeyedVectors, dict, Constraints)
        The specialised copy, the ``specialise`` entry for ``model.json`` (method,
        settings, pair counts mined and in the vocabulary, seconds) and the pairs.
    """
    settings = _settings_for(method, seed)
    started = time.perf_counter()
    constraints = mine_constraints(corpus_dir)
    if curated:
        constraints = add_curated(constraints, read_curated())
    confirmation = None
    if confirm:
        constraints, confirmation = confirm_synonyms(constraints, kv)
    if inflect:
        constraints = add_inflections(constraints, set(kv.key_to_index))
    result = specialise_vectors(kv, constraints, method, settings)
    meta = {
        "method": method,
        "settings": asdict(settings),
        "constraints": {**constraints.summary(), "corpus": str(corpus_dir)},
        "confirm": confirmation.summary() if confirmation else None,
        "pairs_in_vocab": result.used,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return result.kv, meta, constraints


def _specialise_from_file(
    kv: KeyedVectors, path: Path, method: str, seed: int
) -> tuple[KeyedVectors, dict[str, Any], Constraints]:
    """:func:`specialise_from_corpus` with the pairs read from a file instead of mined."""
    settings = _settings_for(method, seed)
    started = time.perf_counter()
    read = read_pairs(path)
    if not read:
        raise WrdscoreError(f"{path}: no pairs")
    by_kind = {kind: [p for p in read if p.kind == kind] for kind in KINDS}
    constraints = Constraints(by_kind["contrast"], by_kind["synonym"], by_kind["abbreviation"])
    result = specialise_vectors(kv, constraints, method, settings)
    meta = {
        "method": method,
        "settings": asdict(settings),
        "constraints": {
            "sizes": constraints.sizes(),
            "file": str(path),
            "file_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        },
        "confirm": None,
        "pairs_in_vocab": result.used,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return result.kv, meta, constraints


def specialise_model(
    model: str | Path,
    corpus_dir: str | Path,
    output: str | Path,
    *,
    method: str = DEFAULT_SPECIALISE_METHOD,
    seed: int = 0,
    name: str | None = None,
    force: bool = False,
    curated: bool = True,
    confirm: bool = True,
    inflect: bool = True,
    pairs: str | Path | None = None,
) -> TokenEmbeddings:
    """Specialise an existing MODEL_DIR with constraints mined from a corpus.

    Writes a new MODEL_DIR (same document frequencies and word pieces, ``model.json``
    extended with ``specialise``, the pairs in ``pairs.tsv``); the input model is not
    changed.

    Parameters
    ----------
    model : path or "default"
        A MODEL_DIR written by ``wrdscore train`` (or the bundled default).
    corpus_dir : path
        The corpus to mine (normally the one the model was trained on).
    output : path
        The MODEL_DIR to write.
    method : {"counter-fitting", "attract-repel"}
        See :func:`specialise_vectors`.
    seed : int
        Shuffling seed of :func:`attract_repel` (counter-fitting is deterministic).
    name : str, optional
        Label in score signatures; default the model's name plus ``-cf``
        (counter-fitting) or ``-ar`` (attract-repel).
    force : bool
        Replace an existing ``output``.
    curated : bool
        Add the packaged curated list to the mined pairs (see
        :func:`specialise_from_corpus`).
    confirm : bool
        Drop mined synonyms the model's vectors do not already relate (see
        :func:`specialise_from_corpus`).
    inflect : bool
        Carry contrasts and synonyms over to inflected forms (see
        :func:`specialise_from_corpus`).
    pairs : path, optional
        A ``pairs.tsv`` (written by ``specialise`` or ``mine``) to use as it is, instead
        of mining ``corpus_dir``: ``curated``, ``confirm`` and ``inflect`` are then not
        applied, because such a file already holds the final pairs. This is how one
        model's pairs specialise another, e.g. a fusion with the code model's own pairs
        (the bundled default). ``model.json`` records the file and its SHA-256.

    Raises
    ------
    WrdscoreError
        If the model has no document frequencies (a plain vectors file) or is
        already specialised.
    """
    emb = load_embeddings(model)
    if emb.doc_freq is None or not emb.n_docs:
        raise WrdscoreError(
            f"{model} is a plain vectors file; specialise a MODEL_DIR written by `wrdscore train`"
        )
    if "specialise" in emb.meta:
        raise WrdscoreError(f"{model} is already specialised; start from the trained model")
    _settings_for(method, seed)  # a bad method fails before the mining pass
    if pairs is None:
        kv, special, constraints = specialise_from_corpus(
            emb.kv, corpus_dir, method, seed, curated, confirm, inflect
        )
    else:
        kv, special, constraints = _specialise_from_file(emb.kv, Path(pairs), method, seed)
    # Rescaling baselines belong to the input vectors; the CLI computes new ones.
    meta = {k: v for k, v in emb.meta.items() if k not in ("format", "dim", "baselines")}
    meta["name"] = name or f"{emb.name}-{SUFFIX[method]}"
    meta["specialise"] = special
    # A distilled model's word pieces and a fused model's fallback go along unchanged,
    # as FastText's n-grams do.
    save_embeddings(
        kv,
        output,
        meta=meta,
        doc_freq=emb.doc_freq,
        files=pairs_file(constraints),
        force=force,
        pieces=emb.pieces,
        fallback=emb.fallback,
    )
    return TokenEmbeddings(
        kv,
        name=meta["name"],
        doc_freq=emb.doc_freq,
        n_docs=emb.n_docs,
        meta=meta,
        pieces=emb.pieces,
        fallback=emb.fallback,
    )
