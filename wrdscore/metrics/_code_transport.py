"""What ``wrdscore explain --code`` shows: a prediction's transport onto its method's code."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.metrics._code_prior import PriorFactors


@dataclass(frozen=True)
class CoverageParts:
    """What a coverage support model (``coverage``, ``distinct-coverage``) makes of a
    summary: its ``precision`` in the code and ``recall`` over the code (each distinct
    token once where ``distinct``), their harmonic mean ``f``, and the copied-share
    plausibility ``gate``; the code support is ``f * gate``."""

    precision: float
    recall: float
    gate: float
    distinct: bool

    @property
    def f(self) -> float:
        """The harmonic mean of :attr:`precision` and :attr:`recall` (0 when both are)."""
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total > 0 else 0.0


@dataclass(frozen=True)
class CodeTransport:
    """WRDScore's transport of a prediction onto its method's code (``explain --code``).

    ``cosine`` and ``flow`` have one row per code token occurrence (in code order) and one
    column per prediction token; each side's masses are normalised to sum 1, so column
    ``j`` of ``flow`` sums to the mass of prediction token ``j``. ``support`` is the
    metric's code value for the pair, ``match * prior``: ``match`` each predicted
    token's best (clipped) cosine in the code, averaged, and ``prior`` the conciseness
    and plausibility of the prediction (:mod:`wrdscore.metrics.code`).
    ``masked`` is the declared name hidden from the code (target ``name``), else None;
    ``unmasked`` says why the name could not be found declared, where the metric's
    ``allow_unmasked`` let such code be read as it is (else None).
    ``best_tokens`` and ``best_cosines`` say where ``match`` comes from: per prediction
    token, the code token of its best cosine (None where no code token points its way,
    or nothing has a vector) and that cosine as the match counts it (clipped at 0 where
    the metric clips); ``factors`` are the priors' factors, whose product is ``prior``,
    where the scorer's support model is a prior gate for the target (None for another
    model: ``support_model`` names it); ``coverage`` is what a coverage model makes of a
    summary (:class:`CoverageParts`: ``prior`` is then its gate, and ``support`` is not
    ``match * prior``).
    """

    code_tokens: list[str]
    pred_tokens: list[str]
    cosine: NDArray[np.float64]
    flow: NDArray[np.float64]
    code_weights: NDArray[np.float64]
    pred_weights: NDArray[np.float64]
    support: float
    target: str
    strings: str
    masked: str | None
    match: float = 0.0
    prior: float = 1.0
    unmasked: str | None = None
    best_tokens: tuple[str | None, ...] = ()
    best_cosines: tuple[float, ...] = ()
    factors: PriorFactors | None = None
    support_model: str = ""
    coverage: CoverageParts | None = None

    def distinct(self) -> tuple[list[str], NDArray[np.int64], NDArray, NDArray]:
        """The code tokens once each: ``(tokens, occurrences, cosine, flow)``.

        A token's flow row is summed over its occurrences and its cosine row is their
        flow-weighted mean (their plain mean where no flow arrives); under static
        embeddings every occurrence has the same cosine, so it is that cosine.

        Examples
        --------
        >>> t = CodeTransport(["a", "b", "a"], ["x"], np.array([[0.5], [0.1], [0.5]]),
        ...                   np.array([[0.25], [0.5], [0.25]]), np.full(3, 1 / 3),
        ...                   np.ones(1), 0.3, "name", "drop", None)
        >>> tokens, n, cos, flow = t.distinct()
        >>> tokens, n.tolist(), cos.ravel().tolist(), flow.ravel().tolist()
        (['a', 'b'], [2, 1], [0.5, 0.1], [0.5, 0.5])
        """
        tokens = list(dict.fromkeys(self.code_tokens))
        index = {tok: i for i, tok in enumerate(tokens)}
        row_of = np.fromiter(map(index.__getitem__, self.code_tokens), dtype=np.intp)
        counts = np.bincount(row_of, minlength=len(tokens))
        flow = np.zeros((len(tokens), len(self.pred_tokens)))
        weighted, plain = np.zeros_like(flow), np.zeros_like(flow)
        np.add.at(flow, row_of, self.flow)
        np.add.at(weighted, row_of, self.flow * self.cosine)
        np.add.at(plain, row_of, self.cosine)
        has = flow > 0
        cosine = np.where(has, weighted / np.where(has, flow, 1.0), plain / counts[:, None])
        return tokens, counts, cosine, flow

    def top(self, k: int = 3) -> list[list[tuple[str, int, float, float]]]:
        """Per prediction token, the ``k`` distinct code tokens that carry most of its flow.

        Each entry is ``(code token, occurrences, cosine, flow)`` as :meth:`distinct`
        gives them, most flow first (ties in code order); tokens sending none are left out.

        Examples
        --------
        >>> t = CodeTransport(["a", "b", "a"], ["x"], np.array([[0.5], [0.1], [0.5]]),
        ...                   np.array([[0.25], [0.5], [0.25]]), np.full(3, 1 / 3),
        ...                   np.ones(1), 0.3, "name", "drop", None)
        >>> t.top(1)
        [[('a', 2, 0.5, 0.5)]]
        """
        tokens, counts, cosine, flow = self.distinct()
        out = []
        for j in range(len(self.pred_tokens)):
            order = [i for i in np.argsort(-flow[:, j], kind="stable") if flow[i, j] > 0][:k]
            out.append(
                [(tokens[i], int(counts[i]), float(cosine[i, j]), float(flow[i, j])) for i in order]
            )
        return out
