"""WRDScore (Mussabayev 2024): precision and recall read off an exact optimal transport."""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import itertools
import re
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.corpora import CodeTokens, code_lengths
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._centering import cosine_matrix, unit_rows
from wrdscore.metrics._pairs import embed_pairs, shape_groups
from wrdscore.metrics._result import Scored
from wrdscore.metrics._validate import MAX_TOKENS
from wrdscore.metrics.base import EmbeddingMetric, Tokens, check_flag, register
from wrdscore.metrics.code import (
    COVERAGE_SUPPORT,
    CodeTransport,
    Coverage,
    CoverageParts,
    PriorGate,
    SupportInput,
    best_match,
)

WEIGHTINGS = ("norm", "norm*idf", "idf", "uniform")
_EMD_MAX_ITER = 100_000  # ot.emd's default


def emd_flow(a: NDArray[np.float64], b: NDArray[np.float64], cost: NDArray) -> NDArray:
    """Exact optimal transport plan: ``ot.emd(a, b, cost)`` to float rounding (1e-15).

    ``b`` is rescaled to the mass of ``a`` (as ``ot.emd`` does) so float rounding in
    the normalisation never makes the problem infeasible.

    Examples
    --------
    >>> emd_flow(np.array([0.5, 0.5]), np.array([1.0]), np.array([[0.0], [1.0]])).tolist()
    [[0.5], [0.5]]
    """
    return _emd_many(a[None], b[None], np.asarray(cost)[None])[0]


#: POT releases whose ``ot/lp/emd_wrap`` extension was checked to load alone and to
#: solve as ``ot.emd`` does (0.9.7.post1; tests pin it). Under another release
#: :func:`_load_emd_c` uses the public ``ot.emd`` instead.
POT_CHECKED = ("0.9.",)
_POT_VERSION = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.M)


@functools.cache
def _load_emd_c() -> Callable[..., Any]:
    """POT's network-simplex entry point ``emd_c``, loaded without the rest of POT.

    Under a POT release not in :data:`POT_CHECKED`, or where the extension is not where
    0.9 keeps it, the same solve through the public ``ot.emd`` (:func:`_emd_public`).
    """
    # ``import ot`` runs ``ot/__init__``, which imports scipy, every POT solver and, when
    # installed, torch (POT's backends): `wrdscore score` on examples/ takes 7.5 s of CPU
    # with it against 0.7 s without (torch installed; min of 5 runs each, 2026-11-25),
    # and about 1 s more without torch. The extension itself needs only numpy and the
    # name ``ot.utils.dist`` (used by its lazy-cost variant, never here). So it is
    # loaded from its file with placeholder parent modules that are removed again;
    # ``ot.lp.emd_wrap`` is dropped too: a later ``import ot`` gets the same (cached)
    # extension module, whose ``dist`` then imports the real one on first use.
    spec = importlib.util.find_spec("ot")
    if spec is None or spec.origin is None:
        return _emd_public  # no POT: fails on first use, as `import ot` would
    init = Path(spec.origin)
    version = _POT_VERSION.search(init.read_text(encoding="utf-8"))
    lp = init.parent / "lp"
    found = sorted(lp.glob("emd_wrap*" + importlib.machinery.EXTENSION_SUFFIXES[0]))
    if version is None or not version[1].startswith(POT_CHECKED) or not found:
        return _emd_public
    if "ot" in sys.modules:  # all of POT is loaded anyway: its own module
        module: Any = sys.modules.get("ot.lp.emd_wrap") or importlib.import_module("ot.lp.emd_wrap")
        return _checked_emd_c(module)
    ext = importlib.util.spec_from_file_location("ot.lp.emd_wrap", found[0])
    if ext is None or ext.loader is None:
        return _emd_public

    def dist(*args: Any, **kwargs: Any) -> Any:
        from ot.utils import dist as real

        return real(*args, **kwargs)

    placeholders = {
        "ot": types.ModuleType("ot"),
        "ot.lp": types.ModuleType("ot.lp"),
        "ot.utils": types.ModuleType("ot.utils"),
    }
    placeholders["ot"].__path__ = [str(lp.parent)]
    placeholders["ot.lp"].__path__ = [str(lp)]
    placeholders["ot.utils"].dist = dist  # type: ignore[attr-defined]
    sys.modules.update(placeholders)
    try:
        module = importlib.util.module_from_spec(ext)
        ext.loader.exec_module(module)
    finally:
        for name, placeholder in placeholders.items():
            if sys.modules.get(name) is placeholder:
                del sys.modules[name]
        sys.modules.pop("ot.lp.emd_wrap", None)
    return _checked_emd_c(module)


def _checked_emd_c(module: Any) -> Callable[..., Any]:
    """``module.emd_c`` if it is there, else the public solve."""
    emd_c = getattr(module, "emd_c", None)
    return emd_c if callable(emd_c) else _emd_public


def _emd_public(
    a: NDArray, b: NDArray, cost: NDArray, max_iter: int, _threads: int
) -> tuple[NDArray, float, NDArray, NDArray, int]:
    """``emd_c``'s solve through POT's public ``ot.emd`` (imports all of POT)."""
    import ot

    flow, log = ot.emd(a, b, cost, numItermax=max_iter, log=True)
    return flow, log["cost"], log["u"], log["v"], log["result_code"]


def _emd_many(a: NDArray, b: NDArray, cost: NDArray) -> NDArray:
    """:func:`emd_flow` over a stack of same-shape problems (masses (G, l), (G, m))."""
    # POT's exact network-simplex solver, called below ot.emd's backend dispatch: that
    # layer costs ~80 us per call, 15x the solve itself on name-sized problems. The
    # inputs are prepared as ot.emd prepares them, and a test checks the flows agree to
    # 1e-15. Loaded on the first problem that needs it (most name pairs never do: see
    # emd_flows).
    emd_c = _load_emd_c()
    b = b * a.sum(axis=1, keepdims=True) / b.sum(axis=1, keepdims=True)
    a = np.ascontiguousarray(a, dtype=np.float64)
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    flow = np.empty_like(cost)
    # Iterating the stacks hands out row views without per-item indexing.
    for g, (ag, bg, cg) in enumerate(zip(a, b, cost, strict=True)):
        flow[g], _cost, _u, _v, code = emd_c(ag, bg, cg, _EMD_MAX_ITER, 1)
        if code != 1:  # 1 = OPTIMAL in POT's result codes
            raise RuntimeError(f"the transport solver did not reach an optimum (code {code})")
    return flow


def _flow_two_rows(a: NDArray, b: NDArray, cost: NDArray) -> NDArray:
    """Optimal plans of a stack of 2 x m problems in closed form, ties left to the solver.

    Row 0 sends ``x_j`` to column ``j`` and row 1 the rest, ``b_j - x_j``, so the cost
    is ``sum_j x_j (d_0j - d_1j)`` plus a constant, with ``0 <= x_j <= b_j`` and
    ``sum_j x_j = a_0``: row 0 fills the columns in increasing order of
    ``d_0j - d_1j`` until its mass is spent. When two of those differences are (nearly)
    equal several plans can be optimal, so such problems go to :func:`emd_flow`,
    which picks the same one as ``ot.emd``.
    """
    diff = cost[:, 0, :] - cost[:, 1, :]
    order = np.argsort(diff, axis=1, kind="stable")
    b_sorted = np.take_along_axis(b, order, axis=1)
    before = np.cumsum(b_sorted, axis=1) - b_sorted
    x_sorted = np.clip(a[:, :1] - before, 0.0, b_sorted)
    x = np.empty_like(x_sorted)
    np.put_along_axis(x, order, x_sorted, axis=1)
    flow = np.stack([x, np.maximum(b - x, 0.0)], axis=1)
    tie = np.any(np.diff(np.take_along_axis(diff, order, axis=1), axis=1) <= 1e-9, axis=1)
    if tie.any():
        flow[tie] = _emd_many(a[tie], b[tie], cost[tie])
    return flow


def emd_flows(a: NDArray, b: NDArray, cost: NDArray) -> NDArray:
    """:func:`emd_flow` of a stack of same-shape problems, solver-free where it can be.

    A one-token side forces the flow (``F = a b^T``) and a two-token side has a closed
    form (ties go to the solver), so the network simplex runs only when both sides
    have three tokens or more.

    Parameters
    ----------
    a, b : ndarray of shape (G, l) and (G, m)
        Masses, each row summing to 1.
    cost : ndarray of shape (G, l, m)

    Examples
    --------
    >>> cost = np.array([[[0.0, 1.0], [1.0, 0.0]]])
    >>> emd_flows(np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]]), cost).tolist()
    [[[0.5, 0.0], [0.0, 0.5]]]
    """
    nr, npred = cost.shape[1:]
    if nr == 1 or npred == 1:
        return a[:, :, None] * b[:, None, :]
    if nr == 2:
        return _flow_two_rows(a, b, cost)
    if npred == 2:
        return _flow_two_rows(b, a, cost.transpose(0, 2, 1)).transpose(0, 2, 1)
    return _emd_many(a, b, cost)


def wrd_from_flow(
    flow: NDArray, cos: NDArray, clip: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Precision and recall read off transport plans, batched over the leading axis.

    precision = 1/m * sum_j [ sum_i F_ij c_ij / sum_i F_ij ],
    recall    = 1/l * sum_i [ sum_j F_ij c_ij / sum_j F_ij ],

    with ``c = max(cos, 0)`` under ``clip``, and cosines capped at 1 so float error
    never lifts a score above 1. A token that receives no flow (zero weight)
    contributes 0 to its average.

    Parameters
    ----------
    flow, cos : ndarray of shape (G, l, m)
        Transport plans and cosines of ``G`` pairs of the same shape.

    Returns
    -------
    precision, recall : ndarray of shape (G,)

    Examples
    --------
    >>> p, r = wrd_from_flow(np.array([[[0.5], [0.5]]]), np.array([[[1.0], [0.5]]]))
    >>> p.tolist(), r.tolist()
    ([0.75], [0.75])
    """
    c = np.clip(cos, 0.0 if clip else -1.0, 1.0)
    moved = flow * c
    col, row = flow.sum(axis=1), flow.sum(axis=2)
    p_terms = np.divide(moved.sum(axis=1), col, out=np.zeros_like(col), where=col > 0)
    r_terms = np.divide(moved.sum(axis=2), row, out=np.zeros_like(row), where=row > 0)
    return p_terms.mean(axis=1), r_terms.mean(axis=1)


#: Most floats one stacked gather of name vectors may hold: slices that
#: fit the cache (2 MB) were the fastest on 100,000 OpenJDK name pairs (1.8-1.9 s of CPU
#: against 2.0-2.5 s at 32 MB and 2.2-2.5 s at 0.5 MB) and keep each worker's peak small.
_NAME_STACK_FLOATS = 1 << 18


def f1_score(p: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
    """F1 = 2PR / (P + R), and 0 where P + R <= 0."""
    s = p + r
    return np.divide(2 * p * r, s, out=np.zeros_like(s), where=s > 0)


@dataclass
class PairTransport:
    """Everything WRDScore computes for one pair (what ``wrdscore explain`` shows).

    ``cosine`` and ``flow`` have one row per kept reference token and one column per
    kept prediction token; ``ref_weights``/``pred_weights`` are the normalised masses.
    """

    ref_tokens: list[str]
    pred_tokens: list[str]
    cosine: NDArray[np.float64]
    flow: NDArray[np.float64]
    ref_weights: NDArray[np.float64]
    pred_weights: NDArray[np.float64]
    precision: float
    recall: float
    f1: float


@register
class WRDScore(EmbeddingMetric):
    r"""WRDScore: precision and recall of a predicted name, matched by optimal transport.

    Reference :math:`r = t_1..t_l` and prediction :math:`p = \hat t_1..\hat t_m` get
    token weights :math:`W, \hat W` normalised to sum 1 on each side. The exact
    transport problem (POT's network simplex, as ``ot.emd``)

    .. math::
        \min_F \sum_{ij} F_{ij} d_{ij},\quad F\mathbf 1 = W,\ \mathbf 1^\top F = \hat W,
        \quad d_{ij} = 1 - \cos(t_i, \hat t_j)

    gives a flow :math:`F`, read off as

    .. math::
        P = \frac1m \sum_j \frac{\sum_i F_{ij} c_{ij}}{\sum_i F_{ij}},\quad
        R = \frac1l \sum_i \frac{\sum_j F_{ij} c_{ij}}{\sum_j F_{ij}},\quad
        F_1 = \frac{2PR}{P+R}

    with :math:`c_{ij} = \max(\cos(t_i, \hat t_j), 0)`.

    Choices the paper leaves open, made here:

    * **clipping**: cosines can be negative, so they are clipped at 0 in P and R
      (not in the cost) to keep scores in [0, 1]; ``clip=False`` keeps them (F1 is
      then 0 wherever P + R <= 0).
    * **identity**: a prediction with the same tokens as the reference (as a
      multiset, so order does not matter) scores exactly 1, without float error and
      even when some of its tokens are unseen. The formula agrees, to float rounding,
      when every token has a vector; it differs only when one has none (unseen under
      ``oov="zero"``): ``get zzz`` against ``zzz get`` is 0.5 by the formula (``zzz``
      has no mass and matches nothing) and ``zzz`` against ``zzz`` is degenerate
      (0), both 1 here: the same name is the best prediction, whatever the model knows.
    * **zero vectors**: the cosine with a zero vector (an unseen token under
      ``oov="zero"``) is 0; a token that receives no flow (zero weight) adds 0 to
      its average but still counts in ``1/m`` or ``1/l``, so an unknown token is an
      unmatched one.
    * **degenerate pairs**: if every weight on a side is zero (only unseen tokens, or
      ``oov="drop"`` removed them all) there is nothing to transport: the pair scores
      0 and is counted in ``ScoreResult.degenerate_pairs``.
    * a one-token side forces the flow (:math:`F = W \hat W^\top`), and a two-token
      side has a closed-form optimum unless it has ties, so no solver runs for them.

    Parameters
    ----------
    embeddings : TokenEmbeddings, path or None
        Token vectors; None is the bundled default model.
    weights : {"norm", "norm*idf", "idf", "uniform"}
        Token masses before normalisation: the embedding norm (the paper's default),
        norm times IDF, IDF (both need a model with document frequencies), or 1.
    clip : bool
        Clip cosines at 0 in precision and recall.
    oov, centering
        See :class:`~wrdscore.metrics.base.EmbeddingMetric`.

    Examples
    --------
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "get": [0.0, 1.0],
    ...                                     "count": [0.8, 0.6]})
    >>> res = WRDScore(emb).score(["size", "getSize"], ["get count", "sizeGet"])
    >>> res.precision.round(3).tolist(), res.recall.round(3).tolist(), res.f1.round(3).tolist()
    ([0.4, 1.0], [0.4, 1.0], [0.4, 1.0])
    >>> res.signature  # doctest: +ELLIPSIS
    'wrdscore|emb:custom@sha:...|w:norm|c:none|oov:zero|clip:yes|solver:emd|seg:jdk17c20+wiki|v:0.1.0'
    """

    name = "wrd"
    label = "wrdscore"
    code_key = "precision"
    # Its best match reads the code's side too (code_coverage): summaries are judged for
    # what they cover, chosen by agreement with people (issue 41).
    default_code_support = COVERAGE_SUPPORT
    _reads_code_ids = True

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        weights: str = "norm",
        clip: bool = True,
        oov: str = "auto",
        centering: str = "none",
        **options: Any,
    ) -> None:
        if weights not in WEIGHTINGS:
            raise WrdscoreError(
                f"unknown weighting {weights!r}; choose one of {', '.join(WEIGHTINGS)}"
            )
        super().__init__(embeddings, oov=oov, centering=centering, **options)
        check_flag("clip", clip)
        if "idf" in weights and not self.embeddings.has_df:
            raise WrdscoreError(
                f"weights={weights!r} needs document frequencies, which embeddings "
                f"{self.embeddings.name!r} lack; use weights='norm' or 'uniform'"
            )
        self.weights = weights
        self.clip = clip

    def _uses_idf(self) -> bool:
        return "idf" in self.weights

    def _signature_fields(self) -> dict[str, str]:
        base = super()._signature_fields()
        return {
            "emb": base["emb"],
            "w": self.weights,
            "c": base["c"],
            "oov": base["oov"],
            "clip": "yes" if self.clip else "no",
            "solver": "emd",
        }

    def prepare(self) -> None:
        """Load POT's solver now (see :meth:`Metric.prepare`)."""
        _load_emd_c()

    def _masses(self, table: NDArray, tokens: list[str]) -> NDArray:
        """Unnormalised weights of the distinct vectors of a batch (``tokens`` labels them)."""
        if self.weights == "uniform":
            return np.ones(len(table))
        norms = np.linalg.norm(table, axis=1)
        if self.weights == "norm":
            return norms
        idf = self.embeddings.idf(tokens)
        return idf if self.weights == "idf" else norms * idf

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> Scored:
        # Each distinct name is embedded once and each distinct pair scored once.
        pairs = embed_pairs(self, refs, preds)
        batch, first_list, inverse = pairs.batch, pairs.items, pairs.inverse
        ref_item, pred_item = pairs.ref_item, pairs.pred_item
        rows = batch.rows
        masses = self._masses(batch.table, batch.tokens)
        unit = unit_rows(batch.table, overwrite=True)  # the raw rows are not read again
        # Same tokens as a multiset: scored exactly 1 (see the class docstring). Only
        # two different names with the same number of tokens, and the same sum and
        # sum of squares of token ids, can be that, so only theirs are sorted.
        if self._rows_number_tokens:
            # embed numbered the distinct tokens of the distinct names in order of first
            # occurrence, as below: reuse its numbering.
            sizes = np.diff(batch.offsets)
            token_id = rows.astype(np.float64)
        else:
            sizes = np.fromiter(map(len, first_list), dtype=np.int64, count=len(first_list))
            flat = list(itertools.chain.from_iterable(first_list))
            ids = dict(zip(dict.fromkeys(flat), itertools.count()))
            token_id = np.fromiter(map(ids.__getitem__, flat), dtype=np.float64, count=len(flat))
        owner = np.repeat(np.arange(len(first_list)), sizes)
        s1 = np.bincount(owner, weights=token_id, minlength=len(first_list))
        s2 = np.bincount(owner, weights=token_id**2, minlength=len(first_list))
        maybe = (
            (sizes[ref_item] == sizes[pred_item])
            & (s1[ref_item] == s1[pred_item])
            & (s2[ref_item] == s2[pred_item])
            & (ref_item != pred_item)
        )
        bag_of = np.arange(len(first_list))
        if maybe.any():
            bag: dict[tuple[str, ...], int] = {}
            sorted_items = np.unique(np.concatenate([ref_item[maybe], pred_item[maybe]]))
            bag_of[sorted_items] = np.fromiter(
                (bag.setdefault(tuple(sorted(first_list[i])), i) for i in sorted_items.tolist()),
                dtype=np.int64,
                count=len(sorted_items),
            )

        starts_r, starts_p = pairs.ref_start, pairs.pred_start
        len_r, len_p = pairs.ref_len, pairs.pred_len
        u = len(ref_item)
        p_out, r_out = np.zeros(u), np.zeros(u)
        counts = np.bincount(inverse, minlength=u)
        identical = bag_of[ref_item] == bag_of[pred_item]
        active = ~identical & (len_r > 0) & (len_p > 0)
        degenerate = ~identical & ~active
        dim = unit.shape[1]
        for nr, npred, group in shape_groups(len_r, len_p, active):
            ri = rows[starts_r[group, None] + np.arange(nr)]
            pi = rows[starts_p[group, None] + np.arange(npred)]
            a, b = masses[ri], masses[pi]
            sa, sb = a.sum(axis=1), b.sum(axis=1)
            ok = (sa > 0) & (sb > 0)
            degenerate[group[~ok]] = True
            group, ri, pi, a, b = group[ok], ri[ok], pi[ok], a[ok], b[ok]
            a /= sa[ok, None]
            b /= sb[ok, None]
            cos = np.empty((len(group), nr, npred))
            # The vectors are gathered and multiplied in slices of about
            # _NAME_STACK_FLOATS doubles whatever the model's width (a 384-wide model
            # took 184 MB a side for a chunk's 20,000 three-token names at once); the
            # cosines (pairs x tokens x tokens) are small, so the solve takes the group.
            step = max(1, _NAME_STACK_FLOATS // ((nr + npred) * dim))
            for start in range(0, len(group), step):
                part = slice(start, start + step)
                np.matmul(unit[ri[part]], unit[pi[part]].transpose(0, 2, 1), out=cos[part])
            flow = emd_flows(a, b, 1.0 - cos)
            p_out[group], r_out[group] = wrd_from_flow(flow, cos, self.clip)
            self._advance(int(counts[group].sum()))
        p_out[identical] = r_out[identical] = 1.0
        # Identical and degenerate pairs need no solve but are finished all the same.
        self._advance(int(counts[identical | degenerate].sum()))
        f_out = f1_score(p_out, r_out)
        values = {"precision": p_out[inverse], "recall": r_out[inverse], "f1": f_out[inverse]}
        return batch.scored(values, degenerate[inverse], pairs.oov_count)

    def _code_support(self, codes: list[Tokens] | CodeTokens, preds: list[Tokens]) -> Scored:
        """Best-match precision of each prediction in its code
        (:func:`~wrdscore.metrics.code.best_match_precision`): each predicted
        token's best clipped cosine with a code token, averaged. Not the transport's
        precision: a balanced transport must move all of the code's mass, so each
        predicted token's credit was its mean cosine to the whole method, which a longer
        prediction covering more of the body raised (issue 32; ``docs/history.md``).
        The engine then scales it by the priors on the prediction read with its code.

        Static vectors depend on the token alone, so each method's repeated tokens are
        merged (one point, summed mass) and every distinct token of the batch is
        embedded once; under sentence centering or with an encoder every occurrence
        keeps its own vector.
        """
        return self._best_match_in_code(codes, preds, recall=False)[0]

    def code_coverage(
        self, codes: list[Tokens] | CodeTokens, preds: list[Tokens], distinct: bool = False
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
        """Best-match precision of each prediction in its code, the mirror recall over the
        code (:func:`~wrdscore.metrics.code.best_match`: each code token's best clipped
        cosine with a predicted token, weighted by the mass the transport would give it,
        its token's mass times its count), and which pairs had a side of zero weight.
        What the ``coverage`` support model reads (``docs/code.md``).

        With ``distinct``, each distinct token counts once on both sides (what the default
        ``distinct-coverage`` reads): a predicted token said again adds nothing to the
        precision's sum, which is still divided by all the prediction's tokens, and a code
        token's recall weight is its mass alone, not times its count. Distinct means one
        row of the token table: one per token with static vectors, one per occurrence with
        contextual states (a word in another context is another vector).
        """
        scored, recall = self._best_match_in_code(codes, preds, recall=True, distinct=distinct)
        assert recall is not None and scored.degenerate is not None
        return scored.values["code"], recall, scored.degenerate

    def _best_match_in_code(
        self,
        codes: list[Tokens] | CodeTokens,
        preds: list[Tokens],
        recall: bool,
        distinct: bool = False,
    ) -> tuple[Scored, NDArray[np.float64] | None]:
        """The best-match precision (``values["code"]``, with what embedding counted and
        which pairs had a side of zero weight) and, with ``recall``, its mirror recall;
        with ``distinct``, both over distinct rows (:meth:`code_coverage`)."""
        n = len(codes)
        code_len = code_lengths(codes)
        pred_len = np.fromiter(map(len, preds), dtype=np.int64, count=n)
        code_item = np.repeat(np.arange(n), code_len)
        pred_item = np.repeat(np.arange(n), pred_len)
        if self.contextual is None and self.centering != "sentence":
            pflat = list(itertools.chain.from_iterable(preds))
            if isinstance(codes, CodeTokens):
                # Token ids already: only the distinct ones are looked up, found by a
                # mask over the vocabulary (np.unique's inverse sorted every occurrence:
                # 0.1 s of each OpenJDK chunk).
                present = np.zeros(len(codes.vocabulary), dtype=bool)
                present[codes.ids] = True
                used = np.flatnonzero(present)
                code_tokens = [codes.vocabulary[t] for t in used.tolist()]
            else:
                flat = list(itertools.chain.from_iterable(codes))
                code_tokens = list(set(flat))
            # Sorted, so that a token's row, and with it the order of each method's merged
            # tokens below, does not depend on the rest of the batch: sums over them round
            # the same way whatever the chunk.
            tokens = sorted(set(code_tokens).union(pflat))
            index = dict(zip(tokens, itertools.count()))
            if isinstance(codes, CodeTokens):
                rank = np.zeros(len(codes.vocabulary), dtype=np.int64)
                rank[used] = np.fromiter(map(index.__getitem__, code_tokens), np.int64, len(used))
                code_id = rank[codes.ids]
            else:
                code_id = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
            pred_id = np.fromiter(map(index.__getitem__, pflat), dtype=np.int64, count=len(pflat))
            # Centering of these modes is per vector, so one item holding every distinct
            # token gives each its row.
            batch = self.embed([tokens])
            unseen = self._cached_rows(tokens) < 0
            # embed counted each distinct unseen token once; these are occurrences.
            oov_count: int | None = int(unseen[code_id].sum() + unseen[pred_id].sum())
            row_of = np.full(len(tokens), -1, dtype=np.int64)
            row_of[~unseen if self.oov == "drop" else slice(None)] = batch.rows
            code_row, pred_row = row_of[code_id], row_of[pred_id]
            if self.oov == "drop":
                code_item, code_row = code_item[code_row >= 0], code_row[code_row >= 0]
                pred_item, pred_row = pred_item[pred_row >= 0], pred_row[pred_row >= 0]
            merged, counts = np.unique(code_item * len(batch.table) + code_row, return_counts=True)
            code_item, code_row = np.divmod(merged, len(batch.table))
            weights = counts.astype(np.float64)
        else:
            batch = self.embed([*codes, *preds])
            lengths = np.diff(batch.offsets)
            code_item = np.repeat(np.arange(n), lengths[:n])
            pred_item = np.repeat(np.arange(n), lengths[n:])
            code_row = batch.rows[: batch.offsets[n]]
            pred_row = batch.rows[batch.offsets[n] :]
            weights = np.ones(len(code_row))
            oov_count = None  # the batch's: every occurrence has its own row
        masses = self._masses(batch.table, batch.tokens)
        share = None
        if distinct:
            # A row said again adds nothing: each pair's predicted rows once (in pair order),
            # their mean later made a sum over all the prediction's tokens by this share.
            every = np.bincount(pred_item, minlength=n)
            once = np.unique(pred_item * len(batch.table) + pred_row)
            pred_item, pred_row = np.divmod(once, len(batch.table))
            share = np.divide(
                np.bincount(pred_item, minlength=n), every, out=np.zeros(n), where=every > 0
            )
            weights = np.ones(len(code_row))
        # Masses only say which side has weight: best matching reads no mass.
        code_mass, pred_mass = masses[code_row] * weights, masses[pred_row]
        code_sum = np.bincount(code_item, weights=code_mass, minlength=n)
        pred_sum = np.bincount(pred_item, weights=pred_mass, minlength=n)
        # A side of zero weight (unseen tokens under oov="zero", or none left under
        # "drop") has nothing to transport: it scores 0 and is counted.
        degenerate = (code_sum <= 0) | (pred_sum <= 0)
        keep_c, keep_p = ~degenerate[code_item], ~degenerate[pred_item]
        out, covered = best_match(
            code_item[keep_c],
            code_row[keep_c],
            pred_item[keep_p],
            pred_row[keep_p],
            unit_rows(batch.table),
            n,
            self.clip,
            code_mass[keep_c] if recall else None,
        )
        if share is not None:
            out = out * share
        self._advance(n)
        return batch.scored({"code": out}, degenerate, oov_count), covered

    def transport(
        self, reference: str | Sequence[str], prediction: str | Sequence[str]
    ) -> PairTransport:
        """Cosines, weights, flow and P/R/F1 of one pair, for inspection.

        Examples
        --------
        >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
        >>> t = WRDScore(emb).transport("size", "count")
        >>> t.cosine.round(2).tolist(), t.flow.tolist(), round(t.f1, 2)
        ([[0.8]], [[1.0]], 0.8)
        """
        ref, pred = self.tokens(reference), self.tokens(prediction, prediction=True)
        if not ref or not pred:
            raise WrdscoreError("both names need at least one token (a letter or digit)")
        res = self.sentence_score(ref, pred)
        return self._flow(
            ref, pred, float(res.precision[0]), float(res.recall[0]), float(res.f1[0])
        )

    def _flow(
        self, ref: Tokens, pred: Tokens, precision: float, recall: float, f1: float
    ) -> PairTransport:
        """:meth:`transport` of two token lists, with the pair's P/R/F1 given."""
        batch = self.embed([ref, pred])
        rv, pv = batch[0], batch[1]
        cos = cosine_matrix(rv, pv)
        masses = self._masses(batch.table, batch.tokens)[batch.rows]
        a, b = masses[: len(rv)], masses[len(rv) :]
        rt, pt = batch.row_tokens[: len(rv)], batch.row_tokens[len(rv) :]
        # Each side is normalised on its own, so the masses printed are the ones P and R use
        # even when the other side carries no weight (then nothing flows).
        a = a / a.sum() if a.sum() > 0 else a
        b = b / b.sum() if b.sum() > 0 else b
        flow = emd_flow(a, b, 1.0 - cos) if a.sum() > 0 and b.sum() > 0 else np.zeros_like(cos)
        return PairTransport(
            ref_tokens=rt,
            pred_tokens=pt,
            cosine=cos,
            flow=flow,
            ref_weights=a,
            pred_weights=b,
            precision=precision,
            recall=recall,
            f1=f1,
        )

    def code_transport(
        self,
        prediction: str | Sequence[str],
        code: str,
        *,
        target: str | None = None,
        name: str | None = None,
        strings: str | None = None,
    ) -> CodeTransport:
        """The transport of ``prediction`` onto the tokens of its method's ``code``.

        The code is read as code-aware scoring reads it
        (:func:`wrdscore.corpora.read_code`: identifiers split into sub-tokens, keywords,
        punctuation and comments dropped, string literals per ``strings``, the declared
        name masked for target ``name``); the code tokens take the reference's side of
        :meth:`transport`, shown for inspection. ``support`` is the metric's ``code``
        value for this pair: ``match`` (each predicted token's best cosine in the code,
        averaged) times ``prior`` (conciseness, copying and plausibility, see
        :mod:`wrdscore.metrics.code`). ``target`` and ``strings`` default to
        the metric's code options; ``name`` is the name to mask (default: the declared one).
        The code is read in the metric's ``language`` when it has one, as :meth:`score`
        reads it, and refused as there when its name cannot be masked, unless the
        metric's ``allow_unmasked`` lets it be read unmasked (``unmasked`` says why).

        Examples
        --------
        >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
        >>> t = WRDScore(emb).code_transport("count", "int size() { return count; }")
        >>> t.code_tokens, t.masked, round(t.match, 6), round(t.support, 3) == round(t.prior, 3)
        (['count'], 'size', 1.0, True)
        """
        # Imported here: the code reader loads tree-sitter, which scoring names never needs.
        from wrdscore.corpora import SourceCode, read_method

        scorer = self.code_scorer
        assert scorer is not None
        target = scorer.target if target is None else target
        strings = scorer.strings if strings is None else strings
        if scorer.language is not None and not isinstance(code, SourceCode):
            # Read (and its name found) in the metric's language, as score reads it.
            code = SourceCode(code, scorer.language)
        read = read_method(
            code,
            target=target,
            name=name,
            strings=strings,
            segmented=self.segment,
            allow_unmasked=scorer.allow_unmasked,
        )
        tokens, language = list(read.tokens), read.language
        if not tokens:
            raise WrdscoreError(
                "the code has no tokens to read (only keywords, punctuation, literals or "
                "annotations, or just the masked name)"
            )
        pred = self.tokens(prediction, prediction=True)
        if not pred:
            raise WrdscoreError("the prediction needs at least one token (a letter or digit)")
        if len(pred) > MAX_TOKENS:
            raise WrdscoreError(
                f"the prediction has {len(pred):,} sub-tokens, more than the {MAX_TOKENS:,} "
                "an item may have"
            )
        # Not through transport: its pair score caps the code at MAX_TOKENS sub-tokens as a
        # reference, while score's code value reads a method of any length; the flow of a
        # name's few tokens onto thousands of code tokens is cheap. P/R/F1 go unused.
        t = self._flow(self.tokens(tokens), pred, np.nan, np.nan, np.nan)
        # The metric's code value for this pair: each predicted token's best match in the
        # code, made support by the scorer's support model (the priors on the prediction
        # as the engine splits it); ``prior`` is what it makes of a perfect match.
        best = np.clip(t.cosine, 0.0 if self.clip else -1.0, 1.0).max(axis=0)
        found = t.ref_weights.sum() > 0 and t.pred_weights.sum() > 0
        match = float(best.mean()) if found else 0.0
        given = SupportInput(np.array([match, 1.0]), [pred] * 2, [tokens] * 2, [language] * 2,
                             target, self)  # fmt: skip
        support, prior = scorer.support.support(given).tolist()
        # Where the match comes from, for explain --code: each token's best code token
        # (none where nothing points its way, or nothing has a vector: the match is 0),
        # and the factors of the priors where the support model is a prior gate.
        at = t.cosine.argmax(axis=0)
        shown = best if found else np.zeros_like(best)
        best_tokens = tuple(
            t.ref_tokens[i] if found and (t.cosine[i, j] > 0 or not self.clip) else None
            for j, i in enumerate(at.tolist())
        )
        model = scorer.support.for_target(target)
        factors = (
            model.prior(target).factors(pred, tokens, language)
            if isinstance(model, PriorGate)
            else None
        )
        coverage = None
        if isinstance(model, Coverage):
            one = SupportInput(np.array([match]), [pred], [tokens], [language], target, self)
            precision, recall, gate = (float(x[0]) for x in model.parts(one))
            coverage = CoverageParts(precision, recall, gate, model.distinct)
            prior = gate
        return CodeTransport(
            code_tokens=t.ref_tokens,
            pred_tokens=t.pred_tokens,
            cosine=t.cosine,
            flow=t.flow,
            code_weights=t.ref_weights,
            pred_weights=t.pred_weights,
            support=support,
            target=target,
            strings=strings,
            masked=read.masked,
            match=match,
            prior=prior,
            unmasked=read.unmasked,
            best_tokens=best_tokens,
            best_cosines=tuple(shown.tolist()),
            factors=factors,
            support_model=scorer.support.name,
            coverage=coverage,
        )
