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

Encoding the probe costs more than scoring a small file (2,000 forward passes' worth of
tokens: about 3 s on 2 CPU cores), so it is measured once per encoder weights, layer and
static model, and kept beside the encoder's baselines
(:func:`~wrdscore.embeddings.encoders.read_encoder_probe`); the pair the README shows
(all-MiniLM-L6-v2 and the bundled default) ships with wrdscore. Kept values are read
back exactly (JSON round-trips float64), so a run that reads them scores exactly as the
run that measured them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings.encoders._baselines import (
    read_encoder_baselines,
    read_encoder_probe,
    store_encoder_probe,
)
from wrdscore.embeddings.encoders._encoder import Encoder
from wrdscore.embeddings.encoders._runtime import stack_versions
from wrdscore.embeddings.store._vectors import TokenEmbeddings
from wrdscore.errors import WrdscoreError

#: Most frequent static tokens encoded alone to find each part's scale and mean.
PROBE_TOKENS = 2_000

Tokens = Sequence[str]

#: ``report(stage, planned, done)``: ``planned`` more items of ``stage`` are to come,
#: ``done`` more are finished (what a progress bar with a known total needs).
Report = Callable[[str, int, int], None]

#: The stages :attr:`ContextualVectors.report` names.
ENCODING = "encoding names"
PROBING = "probing encoder scale"


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
        #: Told of each stage's progress (:data:`Report`); the CLI's progress bar sets it.
        self.report: Report | None = None

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

    def callbacks(
        self, stage: str
    ) -> tuple[Callable[[int], None] | None, Callable[[int], None] | None]:
        """``(progress, planned)`` for :meth:`Encoder.word_states`, reporting to ``stage``."""
        report = self.report
        if report is None:
            return None, None
        return (lambda k: report(stage, 0, k)), (lambda n: report(stage, n, 0))

    @property
    def probe_key(self) -> str:
        """What the probe depends on besides the encoder's weights: the layer, and the
        static model's vocabulary and vectors (its first tokens) and counts (the weights
        of the mean state)."""
        s = self.static
        return f"layer:{self.encoder.layer}|static:{s.sha}|counts:{s.counts_sha}|n:{PROBE_TOKENS}"

    def baselines(self) -> dict[str, Any]:
        """The stored baselines block of :attr:`scope` ({} when none was computed)."""
        return read_encoder_baselines(self.encoder.sha, self.scope)

    def prepare(self) -> None:
        """Read or measure the probe now (:meth:`vectors` does it on first use otherwise)."""
        _ = self._probe

    @cached_property
    def _probe(self) -> tuple[float, float, NDArray[np.float64]]:
        """Mean state norm, mean static norm and count-weighted mean state of the probe."""
        block = read_encoder_probe(self.encoder.sha, self.probe_key)
        if not block:
            block = self.measure_probe()
            # A read-only cache folder only means the probe is measured again next run.
            with contextlib.suppress(OSError):
                store_encoder_probe(self.encoder.sha, self.probe_key, block)
        norm, mean = block.get("state_norm"), block.get("mean_state")
        if (
            not isinstance(norm, float)
            or not isinstance(mean, list)
            or len(mean) != self.encoder.dim
        ):
            raise WrdscoreError(
                f"the kept probe of encoder {self.encoder.name!r} ({self.probe_key}) is "
                f"malformed; delete it from {self.encoder.sha}.json in the cache folder"
            )
        static = np.asarray(self.static.vectors[:PROBE_TOKENS], dtype=np.float64)
        static_norms = np.linalg.norm(static, axis=1)
        static_norm = float(static_norms[static_norms > 0].mean())
        return norm, static_norm, np.array(mean, dtype=np.float64)

    def measure_probe(self) -> dict[str, Any]:
        """Encode the probe tokens alone: the block that is kept (:data:`PROBE_TOKENS`).

        ``state_norm`` is the states' mean norm, ``mean_state`` their count-weighted mean
        (weights: the static model's counts, else equal); the rest says how it was
        measured. The same block, read back, gives exactly the same numbers.
        """
        tokens = self.static.tokens[:PROBE_TOKENS]
        progress, planned = self.callbacks(PROBING)
        states = np.vstack(
            self.encoder.word_states([[t] for t in tokens], progress, planned, cache=False)
        ).astype(np.float64)
        counts = self.static._counts
        w = (
            np.ones(len(tokens))
            if counts is None or counts[: len(tokens)].sum() <= 0
            else counts[: len(tokens)]
        )
        return {
            "state_norm": float(np.linalg.norm(states, axis=1).mean()),
            "mean_state": (w @ states / w.sum()).tolist(),
            "tokens": len(tokens),
            "measured_with": {
                "device": self.encoder.device,
                "batch_size": self.encoder.batch_size,
                "versions": stack_versions(),
            },
        }

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
        states = self.encoder.word_states(token_lists, *self.callbacks(ENCODING))
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
