"""The base of the metrics that read token vectors, and the vectors of a batch.

:class:`EmbeddingMetric` adds to :class:`~wrdscore.metrics.Metric` a model (static
vectors, or a pretrained encoder's states), the OOV policy, centering and rescaling;
:class:`TokenBatch` holds the vectors of a batch with each distinct vector once.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings import TokenEmbeddings, check_oov, load_embeddings
from wrdscore.errors import WrdscoreError, counted, only_with
from wrdscore.metrics._centering import center, check_centering
from wrdscore.metrics._flatten import FlatBatch, Tokens
from wrdscore.metrics._metric import Metric
from wrdscore.metrics._result import Scored, ScoreResult
from wrdscore.metrics._validate import check_flag

if TYPE_CHECKING:
    # Imported when an encoder is asked for: the encoders subpackage is light, but
    # scoring without one should not even pay for that.
    from wrdscore.embeddings.encoders import ContextualVectors, Encoder

#: Distinct tokens an embedding metric keeps the rows of; past it the cache starts over,
#: so memory stays flat on streamed input (a model's vocabulary is far smaller).
CACHE_TOKENS = 500_000


@dataclass
class TokenBatch:
    """Vectors of a batch of token lists: item ``i`` is ``table[rows[offsets[i]:offsets[i+1]]]``.

    Distinct vectors are stored once (``table``), so per-vector work (norms, unit
    vectors, weights) is done per distinct token, not per occurrence.

    Attributes
    ----------
    table : ndarray of shape (R, dim), float64
        Distinct vectors, after the OOV policy and centering.
    rows : ndarray of shape (N,), int64
        The ``table`` row of every kept token occurrence, item after item.
    offsets : ndarray of shape (n + 1,), int64
        Item boundaries in ``rows``.
    tokens : list of str
        The token of each ``table`` row.
    oov_count : int
        Unseen token occurrences among the lists embedded.
    oov_names : frozenset of str
        Those tokens.
    cuts : Counter of str
        Lists an encoder cut at its maximum length, by kind.
    """

    table: NDArray[np.float64]
    rows: NDArray[np.int64]
    offsets: NDArray[np.int64]
    tokens: list[str] = field(repr=False)
    oov_count: int = 0
    oov_names: frozenset[str] = frozenset()
    cuts: Counter[str] = field(default_factory=Counter)

    def scored(
        self,
        values: dict[str, NDArray[np.float64]],
        degenerate: NDArray[np.bool_] | None = None,
        oov_count: int | None = None,
    ) -> Scored:
        """``values`` scored from this batch, with what embedding it counted
        (``oov_count`` in place of the batch's when given)."""
        count = self.oov_count if oov_count is None else oov_count
        return Scored(values, degenerate, count, self.oov_names, Counter(self.cuts))

    @property
    def vectors(self) -> NDArray[np.float64]:
        """One row per kept token occurrence, shape (N, dim)."""
        return self.table[self.rows]

    @property
    def row_tokens(self) -> list[str]:
        """The token of each occurrence."""
        return [self.tokens[r] for r in self.rows]

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> NDArray[np.float64]:
        return self.table[self.rows[self.offsets[i] : self.offsets[i + 1]]]

    def __iter__(self) -> Iterator[NDArray[np.float64]]:
        return (self[i] for i in range(len(self)))


def resolve_embeddings(embeddings: TokenEmbeddings | str | Path | None) -> TokenEmbeddings:
    """The embeddings a metric was given: an instance, a model path, or None (bundled default)."""
    if isinstance(embeddings, TokenEmbeddings):
        return embeddings
    if embeddings is not None and not isinstance(embeddings, str | Path):
        raise WrdscoreError(
            f"embeddings must be a model path or TokenEmbeddings, not {type(embeddings).__name__}"
        )
    return load_embeddings(None if embeddings is None else str(embeddings))


def contextual_vectors(
    encoder: Encoder | str | Path,
    static: TokenEmbeddings,
    *,
    fuse: bool,
    layer: int | None,
    device: str | None,
    batch_size: int | None,
    fuse_weights: tuple[float, float] | None,
) -> ContextualVectors:
    """The encoder side of an :class:`EmbeddingMetric`: load (or reuse) it, check options."""
    from wrdscore.embeddings.encoders import ContextualVectors, Encoder

    if isinstance(encoder, Encoder):
        stray = [
            k
            for k, v in (("layer", layer), ("device", device), ("batch_size", batch_size))
            if v is not None
        ]
        if stray:
            raise WrdscoreError(
                f"{', '.join(stray)}: set these when the encoder is loaded, not per metric"
            )
    else:
        encoder = Encoder(encoder, layer=layer, device=device, batch_size=batch_size)
    if fuse_weights is not None and not fuse:
        raise only_with(["fuse_weights"], "both an encoder and embeddings")
    return ContextualVectors(encoder, static, fuse=fuse, weights=fuse_weights or (1.0, 1.0))


def _check_vector_options(
    oov: str = "auto",
    centering: str = "none",
    rescale: bool = False,
    encoder: object = None,
    layer: int | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    fuse_weights: tuple[float, float] | None = None,
    fuse: bool | None = None,
) -> None:
    check_oov(oov)
    check_centering(centering)
    check_flag("rescale", rescale)


def baseline_key(metric: Metric) -> str:
    """The settings of ``metric`` that its rescaling baseline depends on, as one string.

    Its signature without the model (``emb``) and version fields: baselines are stored
    per model, and recomputed when the model is.

    Examples
    --------
    >>> from wrdscore.metrics import get_metric
    >>> emb = TokenEmbeddings.from_vectors({"a": [1.0, 0.0]})
    >>> baseline_key(get_metric("bertscore", embeddings=emb, oov="drop"))
    'bertscore|c:none|oov:drop|idf:no|clip:yes'
    """
    fields = {k: v for k, v in metric._signature_fields().items() if k != "emb"}
    return "|".join([metric.label or metric.name, *(f"{k}:{v}" for k, v in fields.items())])


class EmbeddingMetric(Metric):
    """Base of the metrics that read token vectors: model, OOV policy, centering.

    Parameters
    ----------
    embeddings : TokenEmbeddings, path or None
        The token vectors; a path is loaded with ``wrdscore.embeddings.load_embeddings``
        and None means the bundled default model.
    oov : {"auto", "zero", "drop", "subword"}
        What an unseen token becomes: the zero vector, nothing, or its FastText
        sub-word vector or word pieces' mean (see :meth:`TokenEmbeddings.lookup`).
        ``auto`` (the default) is ``subword`` when the model has them and ``zero``
        otherwise, and ``zero`` for an encoder not fused with a model (an encoder
        meets no unknown token); it is resolved here, so :attr:`oov` and the signature
        hold the policy that runs. Unseen tokens are counted in
        :attr:`ScoreResult.oov_tokens` whatever the policy.
    centering : {"none", "dimension", "sentence", "corpus", "batch"}
        Subtract, before any normalisation, the mean of each vector's dimensions, of
        the item's vectors, of the vocabulary (frequency-weighted), or of every token
        vector in the batch being scored (so a score then depends on its batch; the
        signature says ``c:batch``). The arithmetic is :func:`wrdscore.metrics._centering.center`.
    rescale : bool
        Map every value ``s`` to ``(s - b) / (1 - b)``, with ``b`` that value's mean on
        random pairs of the model's training names under the same settings (stored in
        ``model.json`` by ``wrdscore train``; see :attr:`baseline`), so unrelated names
        score about 0 and identical names still exactly 1. Values below ``b`` become
        negative and are kept (as bert_score does). The signature says ``rescale:yes``.
    encoder : Encoder, str or path, optional
        A pretrained encoder (sentence-transformers or Hugging Face; a local folder or
        a hub name): each token's vector becomes its contextual state in its name
        (word pieces pooled back to the token). With ``embeddings`` given too, each
        state is concatenated with that model's vector of the token (fusion, see
        :class:`~wrdscore.embeddings.encoders.ContextualVectors`); without it, the
        bundled model only supplies document frequencies (IDF) and the probe tokens.
    layer : int, optional
        The encoder's hidden layer (default: the last).
    device : {"cpu", "cuda"}, optional
        Where the encoder runs (default: cuda when available).
    batch_size : int, optional
        Names per forward pass (default 64).
    fuse_weights : (float, float)
        ``(w_encoder, w_static)`` of the fusion (only with both ``encoder`` and
        ``embeddings``).
    fuse : bool, optional
        Whether an encoder's states are fused with ``embeddings``; by default, when
        ``embeddings`` is given (:func:`build_metrics` passes the bundled model
        resolved, and says whether the user named one).
    **options
        Passed on to :class:`Metric` (unknown ones are refused).
    """

    #: Whether the metric works only with an encoder (it reads no static vectors).
    needs_encoder: ClassVar[bool] = False

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        oov: str = "auto",
        centering: str = "none",
        rescale: bool = False,
        encoder: Encoder | str | Path | None = None,
        layer: int | None = None,
        device: str | None = None,
        batch_size: int | None = None,
        fuse_weights: tuple[float, float] | None = None,
        fuse: bool | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        _check_vector_options(oov, centering, rescale)
        if fuse is None:
            fuse = embeddings is not None
        self.embeddings = resolve_embeddings(embeddings)
        self.contextual: ContextualVectors | None = None
        if encoder is not None:
            self.in_process = True  # a torch model (see Metric.in_process)
            self.contextual = contextual_vectors(
                encoder,
                self.embeddings,
                fuse=fuse,
                layer=layer,
                device=device,
                batch_size=batch_size,
                fuse_weights=fuse_weights,
            )
        else:
            given = {
                "layer": layer,
                "device": device,
                "batch_size": batch_size,
                "fuse_weights": fuse_weights,
            }
            stray = [k for k, v in given.items() if v is not None]
            if stray:
                raise only_with(stray, "an encoder")
        if oov == "auto":
            unfused = self.contextual is not None and not self.contextual.fuse
            oov = "zero" if unfused else self.embeddings.resolve_oov(oov)
        if oov == "subword" and not self.embeddings.has_subword:
            raise WrdscoreError(
                f"embeddings {self.embeddings.name!r} have no subword vectors; "
                "use oov='zero' or 'drop', or a FastText or distilled model"
            )
        self.oov = oov
        self.centering = centering
        self.rescale = rescale
        # Each token's row in the model's vectors, or for an unseen token ``-1 - k``
        # with its vector (zero or subword) at ``_unseen_vectors[k]``: lookups dominate
        # small-pair scoring, and rows, unlike cached float64 copies (3 KB a token at
        # 384 dims), cost no memory per token. Bounded by CACHE_TOKENS.
        self._cache: dict[str, int] = {}
        self._unseen_vectors: list[NDArray[np.float64]] = []
        # Held while the cache is filled and read: calls in two threads share it.
        self._cache_lock = threading.Lock()

    @property
    def _batch_mean(self) -> NDArray[np.float64] | None:
        """What ``centering="batch"`` subtracts when the batch is scored in parts: the
        whole input's mean, lent by the streaming engine (:meth:`Metric.scoring_run`)."""
        return self._call.batch_mean

    def truncation_note(self, cuts: Mapping[str, int]) -> str:
        """Names longer than the encoder's maximum, whose tokens past it count as unseen,
        and methods encoded in runs (``cuts``'s ``truncated`` and ``chunked``)."""
        c = self.contextual
        if c is None:
            return ""
        notes = []
        if n := cuts.get("truncated"):
            notes.append(
                f"{counted(n, 'name')} longer than the encoder's maximum of "
                f"{c.encoder.max_length} word pieces {'was' if n == 1 else 'were'} truncated "
                "(tokens past it count as unseen)"
            )
        if n := cuts.get("chunked"):
            notes.append(
                f"{counted(n, 'method')} whose code is longer than the encoder's maximum of "
                f"{c.encoder.max_length} word pieces {'was' if n == 1 else 'were'} encoded in "
                "runs of whole tokens"
            )
        return "; ".join(notes)

    def _signature_fields(self) -> dict[str, str]:
        emb = self.embeddings
        # The vectors' sha, and of the statistics a setting reads beside them: two models
        # with the same vectors but other document frequencies (or counts) give other
        # IDF weights (or corpus means), so their scores must not share a signature.
        model = f"{emb.name}@sha:{emb.sha}" if self.contextual is None else self.contextual.label
        if self._uses_idf():
            model += f"+df:{emb.df_sha}"
        if self.centering == "corpus":
            model += f"+counts:{emb.counts_sha}"
        return {"emb": model, "c": self.centering, "oov": self.oov}

    @property
    def batch_centered(self) -> bool:
        return self.centering == "batch"

    def _uses_idf(self) -> bool:
        """Whether the metric's settings read document frequencies (IDF weights)."""
        return False

    def _repeated_prediction_oov(self, batch: FlatBatch) -> int:
        # Every entry's tokens were counted; a prediction of k alternatives k times.
        if batch.owner is None:
            return 0
        copies = np.bincount(batch.owner, minlength=batch.n) - 1
        repeated = np.flatnonzero(copies > 0)
        return int(self._unseen_counts([batch.preds[i] for i in repeated]) @ copies[repeated])

    def _unseen_counts(self, token_lists: Sequence[Tokens]) -> NDArray[np.int64]:
        """Tokens of each embedded list that are not in the vocabulary (cached flags)."""
        if self.contextual is not None:
            return np.array(
                [int(self.contextual.vectors([t], self.oov)[1].sum()) for t in token_lists],
                dtype=np.int64,
            )
        # One C-level pass over every token, not a Python generator per list.
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        with self._cache_lock:
            at = self._cached_rows(list(itertools.chain.from_iterable(token_lists)))
        owner = np.repeat(np.arange(len(token_lists)), lengths)
        return np.bincount(owner[at < 0], minlength=len(token_lists))

    def _cached_rows(self, tokens: Sequence[str]) -> NDArray[np.int64]:
        """The cached entries of tokens already embedded: a row of the model's vectors, or
        below 0 for an unseen token (see ``_cache``)."""
        return np.fromiter(map(self._cache.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    @property
    def _rows_number_tokens(self) -> bool:
        """Whether :meth:`embed` gives a batch one row per distinct token, numbered in
        order of first occurrence, with every occurrence kept (static vectors, no
        per-occurrence centering, nothing dropped): then its ``rows`` number the tokens.
        """
        return (
            self.contextual is None
            and self.oov != "drop"
            and self.centering in ("none", "dimension", "corpus")
        )

    def _output_fields(self) -> dict[str, str]:
        return {"rescale": "yes"} if self.rescale else {}

    @property
    def baseline(self) -> dict[str, float]:
        """The rescaling baseline ``b`` of each value under this metric's settings.

        Read from the model's ``model.json`` (``baselines.settings``, keyed by
        :func:`baseline_key`).

        Raises
        ------
        WrdscoreError
            The model has no baseline for these settings (a plain vector file, a model
            trained before baselines existed, ``centering="batch"``, or an option value
            outside the stored grid), its baselines were computed for other vectors, or
            rescaling is undefined for these settings.
        """
        key = baseline_key(self)
        if self.contextual is not None:
            block = self.contextual.baselines()
            where = f"encoder {self.contextual.encoder.name!r} ({self.contextual.scope})"
            how = "`wrdscore baseline --encoder ENCODER CORPUS` (with the same --layer, -e)"
        else:
            block = self.embeddings.meta.get("baselines", {})
            where = f"embeddings {self.embeddings.name!r}"
            how = "`wrdscore baseline MODEL_DIR CORPUS`"
        if self.contextual is None and block and block.get("vectors_sha") != self.embeddings.sha:
            # model.json kept beside new vectors: its baselines belong to the old ones.
            raise WrdscoreError(
                f"the rescaling baselines of embeddings {self.embeddings.name!r} were computed "
                f"for other vectors (sha {block.get('vectors_sha')}, these are "
                f"{self.embeddings.sha}); recompute them with `wrdscore baseline MODEL_DIR CORPUS`"
            )
        stored = block.get("settings", {})
        if key not in stored:
            if self.centering == "batch":
                why = "centering 'batch' has none: its scores depend on the batch"
            elif not stored:
                whose = "the model has" if self.contextual is None else "this encoder has"
                why = f"{whose} none; add them with {how}"
            else:
                why = "outside the stored settings (see the README's rescaling section)"
            raise WrdscoreError(f"no rescaling baseline for {key} in {where}: {why}")
        if stored[key] is None:
            raise WrdscoreError(
                f"rescaling is undefined for {key} on {where}: random names score 1 on average"
            )
        return dict(stored[key])

    def _score(self, *args: Any, **kwargs: Any) -> ScoreResult:
        """:meth:`Metric.score`, then rescaled against :attr:`baseline` if ``rescale``.

        Rescaling is monotone per value, so the best reference alternative, the order
        of pairs and every rank correlation are unchanged.
        """
        result = super()._score(*args, **kwargs)
        if not self.rescale:
            return result
        b = self.baseline
        # (1 - b) / (1 - b) is exactly 1.0 in floating point: identity still scores 1.
        values = {k: (v - b[k]) / (1.0 - b[k]) for k, v in result.values.items()}
        return replace(result, values=values, corpus=self._corpus(values))

    def embed(self, token_lists: Sequence[Tokens]) -> TokenBatch:
        """Vectors of many token lists, OOV-handled, counted and centered, in one flat batch.

        Under ``oov="drop"`` unseen tokens have no row (an item may become empty);
        otherwise every token has one. Centering sees the whole batch, so call this
        once with every item of the batch (references and predictions together).

        Returns
        -------
        TokenBatch
            ``batch[i]`` is the ``(k_i, dim)`` array of item ``i``.

        Examples
        --------
        >>> emb = TokenEmbeddings.from_vectors({"get": [3.0, 4.0]})
        >>> class Demo(EmbeddingMetric):
        ...     name = "demo"
        ...     def _score_tokens(self, refs, preds):
        ...         return {}
        >>> batch = Demo(emb).embed([["get", "nope"], ["get"]])
        >>> batch[0].tolist(), batch[1].tolist()
        ([[3.0, 4.0], [0.0, 0.0]], [[3.0, 4.0]])
        """
        if self.contextual is not None:
            return self._embed_contextual(token_lists)
        rows, tokens, table, unseen = self._distinct_vectors(token_lists)
        unseen_at = unseen[rows]
        oov_names = frozenset(tokens[i] for i in np.flatnonzero(unseen))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        if self.oov == "drop":
            item_of = np.repeat(np.arange(len(token_lists)), lengths)
            lengths = np.bincount(item_of[~unseen_at], minlength=len(token_lists))
            rows = rows[~unseen_at]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if self.centering in ("dimension", "corpus"):
            # These means do not depend on the batch: center each distinct vector once.
            table = center(table, [0, len(table)], self.centering, self.embeddings)
        elif self.centering != "none":
            tokens = [tokens[r] for r in rows]
            table = center(table[rows], offsets, self.centering, self.embeddings, self._batch_mean)
            rows = np.arange(len(rows))
        return TokenBatch(table, rows, offsets, tokens, int(unseen_at.sum()), oov_names)

    def _distinct_vectors(
        self, token_lists: Sequence[Tokens]
    ) -> tuple[NDArray[np.int64], list[str], NDArray[np.float64], NDArray[np.bool_]]:
        """Row of every occurrence, the distinct tokens, their raw vectors and OOV flags."""
        flat = list(itertools.chain.from_iterable(token_lists))
        # Distinct tokens in order of first occurrence, and each occurrence's row, at
        # C speed (no Python call per token).
        tokens = list(dict.fromkeys(flat))
        index = dict(zip(tokens, range(len(tokens)), strict=True))
        rows = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
        with self._cache_lock:
            self._fill_cache(tokens)
            at = self._cached_rows(tokens)
            unseen = at < 0
            table = np.zeros((len(tokens), self.embeddings.dim))
            # One gather of the stored rows (float16 or float32, exact in float64) instead
            # of a copy per token.
            table[~unseen] = self.embeddings.vectors[at[~unseen]]
            if unseen.any():
                extra = self._unseen_vectors
                table[unseen] = np.stack([extra[-1 - k] for k in at[unseen].tolist()])
        return rows, tokens, table, unseen

    def batch_sums(self, token_lists: Sequence[Tokens]) -> tuple[NDArray[np.float64], int]:
        """Sum and count of the non-zero token vectors (OOV policy applied) of token lists.

        What ``centering="batch"`` averages, in a form that adds up over the parts of
        a batch: the mean over a whole file is the summed sums over the summed counts.
        Nothing is counted as unseen.

        Examples
        --------
        >>> from wrdscore.metrics import get_metric
        >>> emb = TokenEmbeddings.from_vectors({"get": [3.0, 4.0]})
        >>> total, count = get_metric("wrd", embeddings=emb).batch_sums([["get", "x"], ["get"]])
        >>> total.tolist(), count
        ([6.0, 8.0], 2)
        """
        if self.contextual is not None:
            table, unseen = self.contextual.vectors(token_lists, self.oov)
            keep = np.any(table != 0.0, axis=1) & ~(unseen if self.oov == "drop" else False)
            return table[keep].sum(axis=0), int(keep.sum())
        rows, _, table, unseen = self._distinct_vectors(token_lists)
        if self.oov == "drop":
            rows = rows[~unseen[rows]]
        counts = np.bincount(rows, minlength=len(table)).astype(np.float64)
        known = np.any(table != 0.0, axis=1)
        return counts[known] @ table[known], int(counts[known].sum())

    def reading_code(self) -> contextlib.AbstractContextManager[None]:
        """With an encoder, code longer than its maximum is encoded in runs of whole
        tokens, each token in its own run's context, never cut
        (:meth:`~wrdscore.embeddings.encoders.Encoder.chunking`)."""
        if self.contextual is None:
            return contextlib.nullcontext()
        return self.contextual.encoder.chunking()

    def _embed_contextual(self, token_lists: Sequence[Tokens]) -> TokenBatch:
        """:meth:`embed` with an encoder: a row per token occurrence (its state in its name)."""
        assert self.contextual is not None
        table, unseen = self.contextual.vectors(token_lists, self.oov)
        tokens = list(itertools.chain.from_iterable(token_lists))
        # Named as without an encoder: the note counting them lists them.
        oov_names = frozenset(itertools.compress(tokens, unseen.tolist()))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        if self.oov == "drop":
            item_of = np.repeat(np.arange(len(token_lists)), lengths)
            lengths = np.bincount(item_of[~unseen], minlength=len(token_lists))
            table = table[~unseen]
            tokens = [t for t, u in zip(tokens, unseen.tolist(), strict=True) if not u]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if self.centering != "none":
            table = center(table, offsets, self.centering, self.contextual, self._batch_mean)
        return TokenBatch(
            table=table,
            rows=np.arange(len(table), dtype=np.int64),
            offsets=offsets,
            tokens=tokens,
            oov_count=int(unseen.sum()),
            oov_names=oov_names,
            # These names the encoder cut (cached ones too): this batch's count, not a total.
            cuts=Counter(self.contextual.encoder.cuts(token_lists)),
        )

    def _fill_cache(self, tokens: list[str]) -> None:
        """Cache the rows of the distinct ``tokens`` of a batch that are not cached yet."""
        todo = [t for t in tokens if t not in self._cache]
        if len(self._cache) + len(todo) > CACHE_TOKENS:
            # Memory stays flat on streamed input with ever new (unseen) tokens; the
            # whole batch is cached again, since scoring it reads every token's entry.
            self._cache.clear()
            self._unseen_vectors.clear()
            todo = tokens
        if not todo:
            return
        at = self.embeddings.rows(todo)
        unseen = np.flatnonzero(at < 0)
        if len(unseen):
            new = [todo[i] for i in unseen.tolist()]
            # Under "drop" the vector of an unseen token is never used; zero is a placeholder.
            policy = "zero" if self.oov == "drop" else self.oov
            vecs, _ = self.embeddings.lookup(new, oov=policy)
            first = len(self._unseen_vectors)
            self._unseen_vectors.extend(vecs)
            at[unseen] = -1 - np.arange(first, first + len(new))
        self._cache.update(zip(todo, at.tolist(), strict=True))
