"""Shared driver of the embedding metrics that score one pair of vector arrays at a time."""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from numpy.typing import NDArray

from wrdscore.base import EmbeddingMetric, Tokens
from wrdscore.centering import FloatArray

# Progress is reported in chunks: a callback per pair would cost more than a metric.
_PROGRESS_EVERY = 1000


class PairEmbeddingMetric(EmbeddingMetric):
    """An :class:`~wrdscore.base.EmbeddingMetric` defined by a function of two vector arrays.

    The whole batch is embedded at once (so batch centering sees every token), then
    :meth:`_score_pair` runs on each pair. A pair whose reference or prediction has
    no non-zero vector (every token unseen under ``oov="zero"``, dropped under
    ``oov="drop"``, or centered to zero) scores 0 on every value and is counted in
    ``degenerate_pairs``.
    """

    @abstractmethod
    def _score_pair(
        self, x: FloatArray, y: FloatArray, ref: Tokens, pred: Tokens
    ) -> tuple[float, ...]:
        """Values of one pair, in ``keys`` order, from its reference and predicted vectors."""

    def _score_tokens(self, refs: list[Tokens], preds: list[Tokens]) -> dict[str, NDArray]:
        batch = self.embed([*refs, *preds])
        n = len(refs)
        out = np.zeros((n, len(self.keys)))
        for i in range(n):
            x, y = batch[i], batch[n + i]
            if np.any(x) and np.any(y):
                out[i] = self._score_pair(x, y, refs[i], preds[i])
            else:
                self._degenerate += 1
            if (i + 1) % _PROGRESS_EVERY == 0:
                self._advance(_PROGRESS_EVERY)
        self._advance(n % _PROGRESS_EVERY)
        return {k: out[:, j] for j, k in enumerate(self.keys)}


class SimilarityMetric(PairEmbeddingMetric):
    """A metric with one value per pair, ``score``, from :meth:`_similarity` of the vectors."""

    keys = ("score",)
    primary = "score"

    @abstractmethod
    def _similarity(self, x: FloatArray, y: FloatArray) -> float:
        """Similarity of the reference vectors ``x`` and the predicted vectors ``y``."""

    def _score_pair(
        self, x: FloatArray, y: FloatArray, ref: Tokens, pred: Tokens
    ) -> tuple[float, ...]:
        return (self._similarity(x, y),)
