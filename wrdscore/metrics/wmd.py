"""Word Mover similarities: exact (WMD), tempered (TWMD) and tempered relaxed (TRWMD).

Following Chen et al. (2020), "Improving Text Generation Evaluation with Batch
Centering and Tempered Word Mover Distance", the three are similarities, not
distances: each maximises the inner product ``S_ij = <x_i, y_j>`` of unit token
vectors (cosines, after optional centering) transported between the two names, with
uniform masses ``1/L1`` and ``1/L2``. Each raw transport value ``C`` is normalised:

.. math:: \\mathrm{Sim}(X_1, X_2) = C(X_1, X_2) / \\sqrt{C(X_1, X_1)\\, C(X_2, X_2)}

so a name compared with itself scores exactly 1; the similarity is 0 when either
self-value is not positive (an empty name, or one made only of unseen tokens).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._centering import FloatArray, cosine_matrix, unit_rows
from wrdscore.metrics._pairs import SimilarityMetric, snap_one, snap_to_one
from wrdscore.metrics._result import Scored
from wrdscore.metrics.base import Tokens, register
from wrdscore.metrics.wrd import emd_flows

#: Chen et al. (2020)'s tuned temperatures, without and with batch centering.
TWMD_TEMPERATURE = {"default": 0.02, "batch": 0.10}
TRWMD_TEMPERATURE = {"default": 0.02, "batch": 0.15}
#: The least temperature accepted. In float64, ``S / T`` carries an absolute error of
#: about 2e-16 / T, which the softmax of the plan turns into error in the score: on
#: ``examples/`` TWMD moves by 2e-10 at T = 1e-8, 8e-4 at 1e-14 and crashes near 1e-310,
#: while T = 1e-6 already gives the T -> 0 limit to within 1e-11.
MIN_TEMPERATURE = 1e-6


def default_temperature(metric: str, centering: str) -> float:
    """The paper's tuned temperature of ``"twmd"`` or ``"trwmd"`` for a centering mode.

    Examples
    --------
    >>> default_temperature("trwmd", "batch")
    0.15
    >>> default_temperature("twmd", "none")
    0.02
    """
    table = {"twmd": TWMD_TEMPERATURE, "trwmd": TRWMD_TEMPERATURE}[metric]
    return table["batch" if centering == "batch" else "default"]


def _check_temperature(temperature: float) -> None:
    number = isinstance(temperature, int | float) and not isinstance(temperature, bool)
    if not (number and math.isfinite(temperature) and temperature > 0):
        raise WrdscoreError(f"temperature must be a positive number, got {temperature!r}")
    if temperature < MIN_TEMPERATURE:
        raise WrdscoreError(
            f"temperature must be at least {MIN_TEMPERATURE:g} (float64 loses the plan "
            f"below it), got {temperature!r}"
        )


def _normalise(c12: float, c11: float, c22: float) -> float:
    denom = c11 * c22
    return snap_one(c12 / math.sqrt(denom)) if c11 > 0 and c22 > 0 else 0.0


def _uniform(n: int) -> FloatArray:
    return np.full(n, 1.0 / n)


def _normalise_many(c12: FloatArray, c11: FloatArray, c22: FloatArray) -> FloatArray:
    ok = (c11 > 0) & (c22 > 0)
    # Left out pairs get a dummy 1: a negative product would make sqrt warn.
    denom = np.sqrt(np.where(ok, c11 * c22, 1.0))
    return snap_to_one(np.divide(c12, denom, out=np.zeros_like(c12), where=ok))


def _self_wmd(x: FloatArray) -> float:
    # With uniform masses, any coupling F gives sum_ij F_ij <x_i, x_j> <=
    # sqrt(sum_i |x_i|^2 / L * sum_j |x_j|^2 / L) (Cauchy-Schwarz), and the identity
    # plan attains it: C(X, X) is the mean squared norm, no transport problem needed.
    return float(np.mean(np.einsum("ij,ij->i", x, x)))


def wmd(x: FloatArray, y: FloatArray) -> float:
    """Word Mover similarity: optimal transport maximising the inner product.

    .. math::

        C(X, Y) = \\max_{F \\ge 0,\\, F 1 = 1/L_1,\\, F^T 1 = 1/L_2}
        \\sum_{ij} F_{ij} \\langle \\hat x_i, \\hat y_j \\rangle

    solved exactly with POT's network simplex (``ot.emd`` on the cost ``1 - S``,
    which has the same optimal plans), then normalised as in the module docstring
    (``C(X, X)`` is the mean squared norm, 1 without unseen tokens). The value lies
    in [-1, 1].

    Parameters
    ----------
    x, y : ndarray of shape (L1, dim) and (L2, dim)
        Token vectors; rows are scaled to unit length here (zero rows stay zero).

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> wmd(x, x)
    1.0
    >>> round(wmd(x, np.array([[1.0, 0.0]])), 6)
    0.5
    """
    if len(x) == 0 or len(y) == 0:
        return 0.0
    import ot  # imported where used: importing POT takes a quarter of a second

    xu, yu = unit_rows(x), unit_rows(y)
    sim = xu @ yu.T
    plan = ot.emd(_uniform(len(x)), _uniform(len(y)), 1.0 - sim)
    return _normalise(float(np.sum(plan * sim)), _self_wmd(xu), _self_wmd(yu))


def _wmd_many(x: FloatArray, y: FloatArray) -> FloatArray:
    """:func:`wmd` of stacks of unit token vectors, (G, l, dim) and (G, m, dim)."""
    g, nr, npred = len(x), x.shape[1], y.shape[1]
    sim = np.matmul(x, y.transpose(0, 2, 1))
    plan = emd_flows(np.full((g, nr), 1.0 / nr), np.full((g, npred), 1.0 / npred), 1.0 - sim)
    c12 = np.einsum("gij,gij->g", plan, sim)
    self_x = np.einsum("gid,gid->gi", x, x).mean(axis=1)
    self_y = np.einsum("gid,gid->gi", y, y).mean(axis=1)
    return _normalise_many(c12, self_x, self_y)


def tempered_plan(
    x: FloatArray, y: FloatArray, temperature: float, iterations: int = 1
) -> FloatArray:
    """Transport plan of the tempered WMD: Sinkhorn scaling of ``exp(+S / T)``.

    Starting from :math:`\\pi^0_{ij} = \\exp(+\\langle \\hat x_i, \\hat y_j \\rangle / T)`
    each iteration rescales the columns to sum to ``1/L2`` and then the rows to sum
    to ``1/L1``. The sign is ``+``: the problem maximises similarity, so the more
    similar a pair of tokens, the more mass it gets (Chen et al. print ``exp(-.)``,
    which would favour dissimilar tokens). This is exactly POT's log-domain
    Sinkhorn on the cost ``-S`` with ``reg = T`` stopped after ``iterations``
    (it updates the column scaling first, then the row scaling).

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> plan = tempered_plan(x, x, temperature=0.5)
    >>> bool(plan[0, 0] > plan[0, 1]), plan.sum(axis=1).round(6).tolist()
    (True, [0.5, 0.5])
    """
    _check_temperature(temperature)
    if iterations < 1:
        raise WrdscoreError(f"iterations must be at least 1, got {iterations}")
    import ot

    sim = cosine_matrix(x, y)
    return ot.sinkhorn(
        _uniform(len(x)),
        _uniform(len(y)),
        -sim,
        reg=temperature,
        method="sinkhorn_log",
        numItermax=iterations,
        stopThr=0.0,
        warn=False,
    )


def _twmd_raw(x: FloatArray, y: FloatArray, temperature: float, iterations: int) -> float:
    plan = tempered_plan(x, y, temperature, iterations)
    return float(np.sum(plan * cosine_matrix(x, y)))


def _tempered_plans(sim: FloatArray, temperature: float, iterations: int) -> FloatArray:
    """:func:`tempered_plan` of a stack of cosine matrices (G, l, m).

    POT's ``sinkhorn_log`` batched: the same initialisation (zero log-scalings), the
    same updates in the same order (columns, then rows), ``iterations`` times.
    """
    from scipy.special import logsumexp

    nr, npred = sim.shape[1:]
    # POT's -M / reg with M = -sim: the negations are exact, so this is bit for bit.
    log_kernel = sim / temperature
    log_a, log_b = np.log(_uniform(nr)), np.log(_uniform(npred))
    u = np.zeros(sim.shape[:2])
    for _ in range(iterations):
        v = log_b - logsumexp(log_kernel + u[:, :, None], axis=1)
        u = log_a - logsumexp(log_kernel + v[:, None, :], axis=2)
    return np.exp(log_kernel + u[:, :, None] + v[:, None, :])


def _twmd_raw_many(x: FloatArray, y: FloatArray, temperature: float, iterations: int) -> FloatArray:
    sim = np.matmul(x, y.transpose(0, 2, 1))
    return np.einsum("gij,gij->g", _tempered_plans(sim, temperature, iterations), sim)


def twmd(x: FloatArray, y: FloatArray, temperature: float = 0.02, iterations: int = 1) -> float:
    """Tempered Word Mover similarity (Chen et al. 2020).

    .. math:: C_T(X, Y) = \\sum_{ij} \\pi_{ij} \\langle \\hat x_i, \\hat y_j \\rangle

    with :math:`\\pi` the plan of :func:`tempered_plan` (entropic transport at
    temperature ``T``, ``iterations`` Sinkhorn rounds), normalised as in the module
    docstring. Small ``T`` approaches :func:`wmd` (given enough iterations).

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> twmd(x, x)
    1.0
    >>> round(twmd(x, np.array([[1.0, 0.0], [0.6, 0.8]])), 4)
    0.9
    """
    if len(x) == 0 or len(y) == 0:
        return 0.0
    return _normalise(
        _twmd_raw(x, y, temperature, iterations),
        _twmd_raw(x, x, temperature, iterations),
        _twmd_raw(y, y, temperature, iterations),
    )


def _trwmd_raw(x: FloatArray, y: FloatArray, temperature: float) -> float:
    from scipy.special import logsumexp

    return temperature * float(np.mean(logsumexp(cosine_matrix(x, y) / temperature, axis=1)))


def _trwmd_raw_many(x: FloatArray, y: FloatArray, temperature: float) -> FloatArray:
    from scipy.special import logsumexp

    sim = np.matmul(x, y.transpose(0, 2, 1))
    return temperature * logsumexp(sim / temperature, axis=2).mean(axis=1)


def trwmd(x: FloatArray, y: FloatArray, temperature: float = 0.02) -> float:
    """Tempered relaxed Word Mover similarity (Chen et al. 2020), a closed form.

    Dropping the second marginal constraint of the tempered problem leaves

    .. math::

        C_T(X_1, X_2) = \\frac{T}{L_1} \\sum_i \\log \\sum_j
        \\exp(\\langle \\hat x_i, \\hat y_j \\rangle / T)

    normalised as in the module docstring. It is asymmetric: with ``X_1`` the
    reference, as ``T -> 0`` it tends to BERTScore's (unclipped) recall. The
    normalised value is not bounded by 1 when a name repeats tokens (the log-sum
    grows with the number of near-duplicates).

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> trwmd(x, x)
    1.0
    >>> round(trwmd(x, np.array([[1.0, 0.0]]), temperature=1e-4), 4)
    0.5
    """
    _check_temperature(temperature)
    if len(x) == 0 or len(y) == 0:
        return 0.0
    return _normalise(
        _trwmd_raw(x, y, temperature),
        _trwmd_raw(x, x, temperature),
        _trwmd_raw(y, y, temperature),
    )


@register
class WMD(SimilarityMetric):
    """Word Mover similarity of reference and prediction (:func:`wmd`), in [-1, 1].

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> WMD(emb).score(["size"], ["count"]).scores.round(6).tolist()
    [0.8]
    """

    name = "wmd"

    _similarities = staticmethod(_wmd_many)

    def prepare(self) -> None:
        """Import POT's solver now (see :meth:`Metric.prepare`)."""
        import ot.lp.emd_wrap  # noqa: F401


class _TemperedMetric(SimilarityMetric):
    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        temperature: float | None = None,
        **options: Any,
    ) -> None:
        super().__init__(embeddings, **options)
        self.temperature = (
            default_temperature(self.name, self.centering) if temperature is None else temperature
        )
        _check_temperature(self.temperature)

    def _signature_fields(self) -> dict[str, str]:
        return {**super()._signature_fields(), "T": f"{self.temperature:g}"}

    def prepare(self) -> None:
        """Import scipy's logsumexp now (see :meth:`Metric.prepare`)."""
        import scipy.special  # noqa: F401


@register
class TWMD(_TemperedMetric):
    """Tempered Word Mover similarity (:func:`twmd`).

    Parameters
    ----------
    temperature : float, optional
        ``T``; default 0.02, or 0.10 with ``centering="batch"`` (Chen et al. 2020).
    iterations : int
        Sinkhorn rounds (default 1, as in the paper).

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> TWMD(emb).signature.split("|")[-4:-1]
    ['T:0.02', 'it:1', 'seg:jdk17c20+wiki']
    """

    name = "twmd"

    def __init__(
        self,
        embeddings: TokenEmbeddings | str | Path | None = None,
        *,
        iterations: int = 1,
        **options: Any,
    ) -> None:
        super().__init__(embeddings, **options)
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise WrdscoreError(f"iterations must be a whole number >= 1, got {iterations!r}")
        self.iterations = iterations

    def _signature_fields(self) -> dict[str, str]:
        return {**super()._signature_fields(), "it": str(self.iterations)}

    def _similarities(self, x: FloatArray, y: FloatArray) -> FloatArray:
        t, it = self.temperature, self.iterations
        return _normalise_many(
            _twmd_raw_many(x, y, t, it), _twmd_raw_many(x, x, t, it), _twmd_raw_many(y, y, t, it)
        )


@register
class TRWMD(_TemperedMetric):
    """Tempered relaxed Word Mover similarity (:func:`trwmd`), reference as ``X_1``.

    Parameters
    ----------
    temperature : float, optional
        ``T``; default 0.02, or 0.15 with ``centering="batch"`` (Chen et al. 2020).

    Examples
    --------
    >>> from wrdscore.embeddings import TokenEmbeddings
    >>> emb = TokenEmbeddings.from_vectors({"size": [1.0, 0.0], "count": [0.8, 0.6]})
    >>> TRWMD(emb, centering="batch").temperature
    0.15
    """

    name = "trwmd"

    def _code_support(self, codes: list[Tokens], preds: list[Tokens]) -> Scored:
        """TRWMD with the prediction as ``X_1``: each predicted token's softened best
        match in the code (as ``T -> 0``, BERTScore's precision). With the code as
        ``X_1`` it would average over the code's tokens, asking how much of the method
        the name says, which no name can."""
        scored = self._scored(self._score_tokens(preds, codes))
        return replace(scored, values={"code": scored.values["score"]})

    def _similarities(self, x: FloatArray, y: FloatArray) -> FloatArray:
        t = self.temperature
        return _normalise_many(
            _trwmd_raw_many(x, y, t), _trwmd_raw_many(x, x, t), _trwmd_raw_many(y, y, t)
        )
