"""Contextual token vectors for the metrics: an encoder's states, alone or fused with a model.

:class:`ContextualVectors` is what an embedding metric reads when it is given an
encoder: one vector per token occurrence (the token's state in its name), optionally
concatenated with a static model's vector of the same token, each part scaled by its
mean norm so that neither dominates the cosine by its scale alone:

.. math:: v(t) = \\Big[\\, w_e \\frac{c(t)}{\\bar n_c} \\,;\\; w_s \\frac{s(t)}{\\bar n_s} \\Big]

with ``c(t)`` the contextual state, ``s(t)`` the static vector, and ``\\bar n`` each
part's mean norm over a fixed probe: the static model's :data:`PROBE_TOKENS` most
frequent tokens, each encoded alone. The same probe gives the encoder's
frequency-weighted mean state, which corpus centering subtracts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings.encoders._baselines import read_encoder_baselines
from wrdscore.embeddings.encoders._encoder import Encoder
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.errors import WrdscoreError

#: Most frequent static tokens encoded alone to find each part's scale and mean.
PROBE_TOKENS = 2_000

Tokens = Sequence[str]


def check_fuse_weights(weights: tuple[float, float]) -> tuple[float, float]:
    """Two finite, non-negative weights, not both zero (``--weights a,b``)."""
    a, b = (float(w) for w in weights)
    if not (np.isfinite(a) and np.isfinite(b)) or a < 0 or b < 0 or a + b == 0:
        raise WrdscoreError(
            f"fusion weights must be two non-negative numbers, not both 0 (got {a:g},{b:g})"
        )
    return a, b


class ContextualVectors:
    """Vectors of token occurrences from an encoder, optionally fused with static ones.

    Parameters
    ----------
    encoder : Encoder
    static : TokenEmbeddings
        The static model: fused in when ``fuse`` is true; its document frequencies
        give IDF weights and its most frequent tokens the probe either way.
    fuse : bool
        Concatenate each state with the static vector of the same token.
    weights : (float, float)
        ``(w_e, w_s)`` of the fusion.
    """

    def __init__(
        self,
        encoder: Encoder,
        static: TokenEmbeddings,
        *,
        fuse: bool = False,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> None:
        self.encoder = encoder
        self.static = static
        self.fuse = fuse
        self.weights = check_fuse_weights(weights)
        self.progress: Callable[[int], None] | None = None

    @property
    def dim(self) -> int:
        """Width of a vector: the encoder's, plus the static model's when fused."""
        return self.encoder.dim + (self.static.dim if self.fuse else 0)

    @property
    def label(self) -> str:
        """The ``emb`` field of a signature: encoder (and fused model) with their hashes."""
        out = f"enc:{self.encoder.signature}"
        if self.fuse:
            a, b = self.weights
            out += f"+{self.static.name}@sha:{self.static.sha},fw:{a:g}/{b:g}"
        return out

    @property
    def scope(self) -> str:
        """What an encoder's rescaling baselines depend on besides its weights and the metric
        setting: the layer, the static model (IDF, probe) and the fusion."""
        out = f"layer:{self.encoder.layer}|static:{self.static.name}@sha:{self.static.sha}"
        if self.fuse:
            a, b = self.weights
            out += f"|fuse:{a:g}/{b:g}"
        return out

    def baselines(self) -> dict[str, Any]:
        """The stored baselines block of :attr:`scope` ({} when none was computed)."""
        return read_encoder_baselines(self.encoder.sha, self.scope)

    @cached_property
    def _probe(self) -> tuple[float, float, NDArray[np.float64]]:
        """Mean state norm, mean static norm and count-weighted mean state of the probe."""
        tokens = self.static.tokens[:PROBE_TOKENS]
        states = np.vstack(self.encoder.word_states([[t] for t in tokens])).astype(np.float64)
        counts = self.static._counts
        w = (
            np.ones(len(tokens))
            if counts is None or counts[: len(tokens)].sum() <= 0
            else counts[: len(tokens)]
        )
        mean_state = w @ states / w.sum()
        static = np.asarray(self.static.vectors[: len(tokens)], dtype=np.float64)
        static_norms = np.linalg.norm(static, axis=1)
        static_norm = float(static_norms[static_norms > 0].mean())
        return float(np.linalg.norm(states, axis=1).mean()), static_norm, mean_state

    def mean_vector(self) -> NDArray[np.float64]:
        """What corpus centering subtracts: the probe's mean vector, in this space."""
        n_c, n_s, mean_state = self._probe
        if not self.fuse:
            return mean_state
        a, b = self.weights
        return np.concatenate([a * mean_state / n_c, b * self.static.mean_vector() / n_s])

    def vectors(
        self, token_lists: Sequence[Tokens], static_oov: str = "zero"
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """One row per token occurrence, item after item, and which rows are unseen.

        A token is unseen when it got no state (past the encoder's maximum length) or,
        when fused, the static model does not know it (its part then follows
        ``static_oov``: zero or the model's subword vector).
        """
        states = self.encoder.word_states(token_lists, self.progress)
        table = np.vstack(states).astype(np.float64) if states else np.zeros((0, self.encoder.dim))
        unseen = ~np.any(table != 0.0, axis=1)
        if not self.fuse:
            return table, unseen
        flat = [t for tokens in token_lists for t in tokens]
        static, static_unseen = self.static.lookup(
            flat, oov="zero" if static_oov == "drop" else static_oov
        )
        n_c, n_s, _ = self._probe
        a, b = self.weights
        fused = np.hstack([a * table / n_c, b * static / n_s])
        return fused, unseen | static_unseen
