"""BERTScore's greedy matching (Zhang et al. 2020) over token or word-piece vectors.

Two granularities. ``tokens`` (the default) matches the user's tokens (identifier
sub-tokens, summary words), each one vector: a static model's, or an encoder's states of
its word pieces pooled back. ``pieces`` is BERTScore as the ``bert_score`` package
computes it: an encoder's state of every word piece of the raw text, special tokens
included, weighted by 0 for ``[CLS]``/``[SEP]`` or by IDF from the references.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wrdscore.corpora import clean_prediction
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError, counted
from wrdscore.metrics._centering import FloatArray, cosine_matrix
from wrdscore.metrics._flatten import FlatBatch, Prediction, Reference, gc_paused
from wrdscore.metrics._pairs import PairEmbeddingMetric, snap_to_one
from wrdscore.metrics._result import Scored
from wrdscore.metrics.base import ScoreResult, TokenBatch, check_flag, register
from wrdscore.metrics.overlap import PRF, f_measure
from wrdscore.metrics.wrd import f1_score


def _weighted_mean(values: FloatArray, weights: FloatArray | None) -> float:
    if weights is None:
        return float(values.mean())
    # The total is the same dot product with ones, so that all values 1 give exactly 1.
    total = float(np.ones_like(values) @ weights)
    return float(values @ weights / total) if total > 0 else 0.0


def bertscore(
    reference: FloatArray,
    prediction: FloatArray,
    reference_weights: ArrayLike | None = None,
    prediction_weights: ArrayLike | None = None,
    clip: bool = True,
) -> PRF:
    """Greedy max-cosine matching of reference and predicted token vectors.

    Every predicted token is matched to its most similar reference token (precision),
    every reference token to its most similar predicted token (recall):

    .. math::

        P = \\frac{\\sum_j w^p_j \\max_i \\cos(r_i, p_j)}{\\sum_j w^p_j}, \\quad
        R = \\frac{\\sum_i w^r_i \\max_j \\cos(r_i, p_j)}{\\sum_i w^r_i}, \\quad
        F = \\frac{2PR}{P + R}

    with uniform weights by default or IDF weights (BERTScore's importance
    weighting). Cosines can be negative; like WRDScore, each maximum is clipped at 0
    by default so scores lie in [0, 1] (``clip=False`` keeps them, P and R then lie
    in [-1, 1] and F is 0 when ``P + R <= 0``). A zero vector (unseen token) has
    cosine 0 with everything; an empty side scores 0.

    Parameters
    ----------
    reference, prediction : ndarray of shape (l, dim) and (m, dim)
        Token vectors (already centered if centering is wanted).
    reference_weights, prediction_weights : array_like, optional
        Non-negative weight per token, e.g. IDF.
    clip : bool
        Clip each best cosine at 0.

    Returns
    -------
    (precision, recall, f1) : tuple of float

    Examples
    --------
    >>> r = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> p = np.array([[1.0, 0.0]])
    >>> bertscore(r, p)
    (1.0, 0.5, 0.6666666666666666)
    """
    if len(reference) == 0 or len(prediction) == 0:
        return 0.0, 0.0, 0.0
    sim = snap_to_one(cosine_matrix(reference, prediction))
    best_for_pred = sim.max(axis=0)
    best_for_ref = sim.max(axis=1)
    if clip:
        best_for_pred = np.maximum(best_for_pred, 0.0)
        best_for_ref = np.maximum(best_for_ref, 0.0)
    wp = None if prediction_weights is None else np.asarray(prediction_weights, dtype=np.float64)
    wr = None if reference_weights is None else np.asarray(reference_weights, dtype=np.float64)
    p = _weighted_mean(best_for_pred, wp)
    r = _weighted_mean(best_for_ref, wr)
    return p, r, f_measure(p, r)


def _weighted_mean_many(values: FloatArray, weights: FloatArray | None) -> FloatArray:
    if weights is None:
        return values.mean(axis=1)
    dot = np.einsum("gi,gi->g", values, weights)
    # The total is the same product with ones, so that all values 1 give exactly 1.
    total = np.einsum("gi,gi->g", np.ones_like(values), weights)
    return np.divide(dot, total, out=np.zeros_like(dot), where=total > 0)


def _bertscore_many(
    x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None, clip: bool
) -> FloatArray:
    """:func:`bertscore` of stacks of unit token vectors; (G, 3) of P, R, F1."""
    sim = snap_to_one(np.matmul(x, y.transpose(0, 2, 1)))
    best_for_pred, best_for_ref = sim.max(axis=1), sim.max(axis=2)
    if clip:
        best_for_pred = np.maximum(best_for_pred, 0.0)
        best_for_ref = np.maximum(best_for_ref, 0.0)
    p = _weighted_mean_many(best_for_pred, wy)
    r = _weighted_mean_many(best_for_ref, wx)
    return np.stack([p, r, f1_score(p, r)], axis=1)


#: BERTScore's granularities: the user's tokens (the default) or the encoder's word pieces.
GRANULARITIES = ("tokens", "pieces")


def _text(item: object) -> str:
    """The text of an item: a string itself, a token list joined by spaces."""
    return item if isinstance(item, str) else " ".join(map(str, item))  # type: ignore[call-overload]


def _has_alternatives(item: object) -> bool:
    """Whether a reference item is a list of alternatives (a list of lists), as
    :func:`~wrdscore.metrics._tokenise.alternatives` reads it."""
    return (
        isinstance(item, Sequence)
        and not isinstance(item, str)
        and len(item) > 0
        and isinstance(item[0], Sequence)
        and not isinstance(item[0], str)
    )


def _alternative_texts(item: object) -> list[str]:
    """The text of each reference alternative of an item."""
    return [_text(a) for a in item] if _has_alternatives(item) else [_text(item)]  # type: ignore[attr-defined]


def piece_idf(documents: Iterable[Sequence[int]]) -> tuple[Counter[int], int]:
    """Document frequency of each word piece over ``documents``, and their number.

    bert_score's ``get_idf_dict`` counts each piece once per reference (special tokens
    too) over every reference, repeats included; a piece's IDF is then
    ``log((M + 1) / (df + 1))``, so ``[CLS]`` and ``[SEP]``, in every reference, weigh
    0, and a piece in no reference ``log(M + 1)``.

    Examples
    --------
    >>> piece_idf([[101, 7, 7, 102], [101, 8, 102]])
    (Counter({101: 2, 102: 2, 7: 1, 8: 1}), 2)
    """
    counts: Counter[int] = Counter()
    m = 0
    for ids in documents:
        counts.update(set(ids))
        m += 1
    return counts, m


@register
class BERTScore(PairEmbeddingMetric):
    """BERTScore precision, recall and F1 (:func:`bertscore`) on tokens or word pieces.

    Parameters
    ----------
    embeddings, oov, centering
        As for every embedding metric (:class:`~wrdscore.metrics.base.EmbeddingMetric`).
    idf : bool
        Weight tokens by the model's IDF (:meth:`TokenEmbeddings.idf`); needs a model
        with document frequencies. With ``granularity="pieces"``, weight word pieces by
        their IDF over the references, as bert_score does (:func:`piece_idf`): the
        references of each :meth:`score` call, or of the run's (:meth:`reference_statistics`).
    clip : bool, optional
        Clip each best cosine at 0 so scores lie in [0, 1]. By default yes for
        ``tokens`` and no for ``pieces``: bert_score never clips, and a best cosine
        below 0 (an encoder's states can point apart) would else differ from it.
    granularity : {"tokens", "pieces"}
        What is matched. ``tokens``: the user's tokens, as every wrdscore metric reads
        them (identifiers split, run-together words segmented), one vector each; with
        an encoder, each token's word pieces' states averaged. ``pieces`` (needs an
        encoder, alone): the bert_score package's BERTScore, to float rounding (see
        :meth:`Encoder.piece_ids <wrdscore.embeddings.encoders.Encoder.piece_ids>`):
        the state of every word piece of the raw text (a token list is joined by
        spaces; ``clean`` still applies), ``[CLS]`` and ``[SEP]`` included in the
        matching with weight 0, no best cosine clipped. The signature then says
        ``gran:pieces`` (and ``clip:no``). A reference
        with alternatives scores as its best alternative by F1, where bert_score takes
        each value's maximum on its own.

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> BERTScore(emb).score(["size"], ["count"]).f1.round(6).tolist()
    [0.8]
    """

    name = "bertscore"
    code_key = "precision"

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        idf: bool = False,
        clip: bool | None = None,
        granularity: str = "tokens",
        **options: Any,
    ) -> None:
        if granularity not in GRANULARITIES:
            raise WrdscoreError(
                f"bertscore granularity must be one of {', '.join(GRANULARITIES)}, "
                f"not {granularity!r}"
            )
        if granularity == "pieces":
            _check_pieces_options(embeddings, options)
        super().__init__(embeddings, **options)
        check_flag("idf", idf)
        if clip is None:
            clip = granularity == "tokens"
        check_flag("clip", clip)
        self.granularity = granularity
        if idf and granularity == "tokens" and not self.embeddings.has_df:
            # Fail before scoring anything, with the embeddings' own explanation.
            self.embeddings.idf([])
        self.idf = idf
        self.clip = clip

    def _uses_idf(self) -> bool:
        # Only the tokens' IDF comes from the model's document frequencies.
        return self.idf and self.granularity == "tokens"

    def _signature_fields(self) -> dict[str, str]:
        fields = {
            **super()._signature_fields(),
            "idf": ("refs" if self.granularity == "pieces" else "yes") if self.idf else "no",
            "clip": "yes" if self.clip else "no",
        }
        if self.granularity == "pieces":
            # Recorded only when set, so that the default's signatures (and the keys of
            # stored rescaling baselines) stay as they were.
            fields["gran"] = "pieces"
        return fields

    def _tokenising_fields(self) -> dict[str, str]:
        if self.granularity == "tokens":
            return super()._tokenising_fields()
        # Pieces come from the raw text: segmentation decides only which items are empty.
        return {"clean": "yes"} if self.clean else {}

    def check_reads_code(self) -> None:
        if self.granularity == "pieces":
            raise WrdscoreError(
                "metric 'bertscore': granularity 'pieces' cannot score against code (code "
                "is read as tokens, with the name masked); use granularity=tokens"
            )
        super().check_reads_code()

    def truncation_note(self, cuts: Mapping[str, int]) -> str:
        if self.granularity == "tokens" or not cuts.get("pieces"):
            return super().truncation_note(cuts)
        assert self.contextual is not None
        n = cuts["pieces"]
        return (
            f"{counted(n, 'text')} longer than the tokenizer's maximum of "
            f"{self.contextual.encoder.piece_limit} word pieces {'was' if n == 1 else 'were'} "
            f"truncated, as bert_score truncates {'it' if n == 1 else 'them'}"
        )

    def _row_weights(self, batch: TokenBatch) -> FloatArray | None:
        # IDF is a function of the token alone, so it is looked up once per table row;
        # tokens dropped under oov="drop" have no row, so they get no weight either.
        return self.embeddings.idf(batch.tokens) if self.idf else None

    def _score_group(
        self, x: FloatArray, y: FloatArray, wx: FloatArray | None, wy: FloatArray | None
    ) -> FloatArray:
        return _bertscore_many(x, y, wx, wy, self.clip)

    # -- granularity="pieces" --------------------------------------------------------

    def _piece_ids(self, texts: Iterable[str]) -> tuple[list[list[int]], int]:
        """Word pieces of each text, and how many texts were cut at the tokenizer's
        maximum (counted only where scored: read for IDF, a text would count twice)."""
        assert self.contextual is not None
        encoder = self.contextual.encoder
        out, cuts = [], 0
        for text in texts:
            ids, cut = encoder.piece_ids(text)
            cuts += int(cut)
            out.append(ids)
        return out, cuts

    @property
    def reads_all_references(self) -> bool:
        return self.granularity == "pieces" and self.idf

    def reference_statistics(self, references: Iterable[Reference]) -> tuple[Counter[int], int]:
        """The word pieces' document frequencies over ``references`` and their count
        (``granularity="pieces"`` with ``idf``), as bert_score's ``idf_sents`` takes them.

        :func:`~wrdscore.metrics.score_files` computes them over the whole input and
        lends them to each part (:meth:`~wrdscore.metrics.Metric.scoring_run`), so its
        values do not depend on the chunking; a plain call weighs by its own references,
        as ``bert_score.score`` does.
        """
        if not self.reads_all_references:
            raise WrdscoreError(
                "bertscore reads statistics of the references only with "
                "granularity='pieces' and idf=True"
            )
        texts = (t for item in references for t in _alternative_texts(item))
        return piece_idf(self._piece_ids(texts)[0])

    def _piece_weights(self, refs: Sequence[Reference]) -> Callable[[list[int]], FloatArray]:
        """The weight of each piece of a text: bert_score's IDF, or 1 with ``[CLS]`` and
        ``[SEP]`` at 0."""
        assert self.contextual is not None
        tokenizer = self.contextual.encoder.tokenizer
        if not self.idf:
            special = {tokenizer.sep_token_id, tokenizer.cls_token_id} - {None}
            return lambda ids: np.array([0.0 if i in special else 1.0 for i in ids])
        fixed = self._call.reference_stats
        counts, m = (
            cast(tuple[Counter[int], int], fixed)
            if fixed is not None
            else piece_idf(self._piece_ids(t for item in refs for t in _alternative_texts(item))[0])
        )
        return lambda ids: np.array([math.log((m + 1) / (counts.get(i, 0) + 1)) for i in ids])

    def _score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        *,
        allow_empty_reference: bool = False,
        progress: Callable[[int], None] | None = None,
        index_offset: int = 0,
    ) -> ScoreResult:
        if self.granularity == "tokens":
            return super()._score(
                references,
                predictions,
                allow_empty_reference=allow_empty_reference,
                progress=progress,
                index_offset=index_offset,
            )
        references, predictions = list(references), list(predictions)
        with gc_paused():
            batch = self._flatten(references, predictions, allow_empty_reference, index_offset)
            ref_texts, pred_texts = self._entry_texts(references, predictions, batch)
            raw, degenerate, cut = self._score_pieces(ref_texts, pred_texts, references)
        if progress is not None:
            progress(batch.n)
        # Word pieces have no unseen tokens: nothing counted but the cut texts.
        return self._batch_result(batch, Scored(raw, degenerate, cuts=Counter({"pieces": cut})))

    def _entry_texts(
        self, references: list[Reference], predictions: list[Prediction], batch: FlatBatch
    ) -> tuple[list[str], list[str]]:
        """The reference and prediction text of each scored entry of ``batch``."""
        owners = range(batch.n) if batch.owner is None else batch.owner
        refs = []
        for e, i in enumerate(owners):
            item: object = references[i]
            if batch.alternative is not None and _has_alternatives(item):
                item = item[batch.alternative[e]]  # type: ignore[index]
            refs.append(_text(item))
        preds = [
            _text(clean_prediction(p) if self.clean and isinstance(p, str) else p)
            for p in predictions
        ]
        return refs, [preds[i] for i in owners]

    def _score_pieces(
        self, ref_texts: list[str], pred_texts: list[str], references: Sequence[Reference]
    ) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.bool_], int]:
        """P, R, F1 of each entry from its texts' piece states, which entries had a side
        of zero weight (scored 0), and how many texts were cut."""
        assert self.contextual is not None
        texts = list(dict.fromkeys([*ref_texts, *pred_texts]))
        ids, cut = self._piece_ids(texts)
        from wrdscore.embeddings.encoders import ENCODING

        progress, planned = self.contextual.callbacks(ENCODING)
        if planned is not None:
            planned(len(texts))
        states = self.contextual.encoder.piece_states(ids, progress)
        weigh = self._piece_weights(references)
        at = {t: k for k, t in enumerate(texts)}
        weights = [weigh(i) for i in ids]
        out = np.zeros((len(ref_texts), len(self.keys)))
        degenerate = np.zeros(len(ref_texts), dtype=bool)
        for e, (r, p) in enumerate(zip(ref_texts, pred_texts, strict=True)):
            a, b = at[r], at[p]
            degenerate[e] = not (weights[a].sum() > 0 and weights[b].sum() > 0)
            if not degenerate[e]:
                x, y = states[a].astype(np.float64), states[b].astype(np.float64)
                out[e] = bertscore(x, y, weights[a], weights[b], self.clip)
        return {k: out[:, j] for j, k in enumerate(self.keys)}, degenerate, cut


def _check_pieces_options(embeddings: object, options: dict[str, Any]) -> None:
    """Refuse what ``granularity="pieces"`` cannot honour, before any model loads."""
    if options.get("encoder") is None:
        raise WrdscoreError(
            "bertscore granularity 'pieces' needs an encoder (--encoder): word pieces are "
            "the encoder's"
        )
    refused = [
        # build_metrics passes the bundled model with fuse=False when none was named.
        ("embeddings (fusion)", bool(options.get("fuse", embeddings is not None))),
        ("centering", options.get("centering", "none") != "none"),
        ("oov", options.get("oov", "auto") not in ("auto", "zero")),
        ("rescale", bool(options.get("rescale"))),
    ]
    stray = [name for name, given in refused if given]
    if stray:
        raise WrdscoreError(
            f"bertscore granularity 'pieces' reads the encoder's states as bert_score does; "
            f"it takes no {', '.join(stray)}"
        )
