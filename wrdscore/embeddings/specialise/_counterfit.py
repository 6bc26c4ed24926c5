"""Counter-fitting: push contrasts apart, pull synonyms together, keep neighbourhoods."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings.specialise._sphere import PairsLike, prepare, unit_rows
from wrdscore.errors import WrdscoreError

_CHUNK = 1024  # rows of the cosine matrix computed at a time (bounded memory)


@dataclass(frozen=True)
class CounterFitSettings:
    """Hyperparameters of :func:`counter_fit`: those of Mrkšić et al. (2016)'s release.

    ``k1``, ``k2``, ``k3`` weigh (and, as in the reference code, are the step sizes of)
    the repel, attract and preservation terms; ``delta`` is the cosine distance a
    contrast pair is pushed to, ``gamma`` the one a synonym pair is pulled to, and
    ``rho`` the distance within which original neighbours are preserved.
    """

    k1: float = 0.1
    k2: float = 0.1
    k3: float = 0.1
    delta: float = 1.0
    gamma: float = 0.0
    rho: float = 0.2
    iterations: int = 20


def _neighbour_pairs(
    unit: NDArray[np.float64], rows: NDArray[np.int64], rho: float
) -> NDArray[np.int64]:
    """Directed pairs (i, j), i != j, with i or j in ``rows``, closer than ``rho``."""
    found = []
    for start in range(0, len(rows), _CHUNK):
        block = rows[start : start + _CHUNK]
        sims = unit[block] @ unit.T
        i, j = np.nonzero(1.0 - sims <= rho)
        i = block[i]
        keep = i != j
        found.append(np.stack([i[keep], j[keep]], axis=1))
    pairs = np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)
    both = np.concatenate([pairs, pairs[:, ::-1]])
    return np.unique(both, axis=0) if len(both) else both


def counter_fit(
    vectors: NDArray[np.floating],
    attract: PairsLike,
    repel: PairsLike,
    settings: CounterFitSettings | None = None,
) -> NDArray[np.float64]:
    """Specialise vectors with synonym (attract) and contrast (repel) pairs by counter-fitting.

    Counter-fitting (Mrkšić et al. 2016) minimises, over unit vectors ``x`` with
    cosine distance ``d(u, w) = 1 - x_u . x_w`` and ``[z]_+ = max(0, z)``,

    .. math::

        C = k_1 \\sum_{(u,w) \\in A} [\\delta - d(u, w)]_+
          + k_2 \\sum_{(u,w) \\in S} [d(u, w) - \\gamma]_+
          + k_3 \\sum_{i} \\sum_{j \\in N(i)} [d(i, j) - d_0(i, j)]_+

    ``A``: contrast pairs, pushed to distance ``delta = 1`` (orthogonal); ``S``:
    synonym pairs, pulled to ``gamma = 0``; ``N(i)``: the words within the original
    distance ``rho = 0.2`` of word ``i`` (``d_0``), whose distance may not grow
    (vector space preservation). As in the authors' code, each of the 20 iterations
    is one full-batch step: every word moves by the mean of its terms' gradients
    (scaled by ``k``) and is renormalised. Hyperparameters are the published ones
    (``k1 = k2 = k3 = 0.1``), not tuned here.

    Unlike attract-repel there are no negative examples: nothing but a synonym or an
    original neighbour ever pulls two words together. Preservation is restricted to
    pairs with at least one constrained word (the others start and, one step away
    from any moved word, stay at their original distance), which keeps the cost at
    ``O(|constrained| n)`` instead of ``O(n^2)``; so an unconstrained word moves
    only if it is an original neighbour of a constrained one.

    Parameters
    ----------
    vectors : ndarray (n, d)
    attract, repel : array-like of int pairs
        Row indices of synonym and contrast pairs (either order).
    settings : CounterFitSettings, optional

    Returns
    -------
    ndarray (n, d), float64
        Specialised vectors at their original norms; rows that never moved are
        returned bit for bit.

    Examples
    --------
    >>> v = np.array([[1.0, 0.1, 0.0], [0.9, 0.3, 0.1], [0.0, 1.0, 0.0], [0.1, 0.9, 0.3]])
    >>> out = counter_fit(v, attract=[(0, 2)], repel=[(0, 1)])
    >>> def cos(m, i, j):
    ...     return m[i] @ m[j] / np.linalg.norm(m[i]) / np.linalg.norm(m[j])
    >>> bool(cos(out, 0, 2) > cos(v, 0, 2)), bool(cos(out, 0, 1) < cos(v, 0, 1))
    (True, True)
    >>> np.allclose(np.linalg.norm(out, axis=1), np.linalg.norm(v, axis=1))
    True
    """
    s = settings or CounterFitSettings()
    if s.iterations < 0:
        raise WrdscoreError("iterations must be non-negative")
    problem = prepare(vectors, attract, repel)
    x0 = problem.unit
    both = lambda p: np.concatenate([p, p[:, ::-1]])  # noqa: E731 - directed pairs
    ant, syn = both(problem.repel), both(problem.attract)
    vsp = _neighbour_pairs(x0, np.flatnonzero(problem.touched), s.rho)
    if len(vsp) and len(ant):
        # The reference removes contrast pairs from the preserved neighbourhoods.
        n = len(x0)
        vsp = vsp[~np.isin(vsp[:, 0] * n + vsp[:, 1], ant[:, 0] * n + ant[:, 1])]
    d0 = 1.0 - np.einsum("ij,ij->i", x0[vsp[:, 0]], x0[vsp[:, 1]]) if len(vsp) else None
    x = x0.copy()
    moved = problem.touched.copy()
    for _ in range(s.iterations):
        grad = np.zeros_like(x)
        count = np.zeros(len(x))
        for pairs, k, sign, active_if in (
            (ant, s.k1, 1.0, lambda d: d < s.delta),
            (syn, s.k2, -1.0, lambda d: d > s.gamma),
        ):
            if not len(pairs):
                continue
            u, w = x[pairs[:, 0]], x[pairs[:, 1]]
            dots = np.einsum("ij,ij->i", u, w)
            act = active_if(1.0 - dots)
            # d(1 - u.w)/du on the sphere is u (u.w) - w; contrasts step along it
            # (away from w), synonyms against it (towards w).
            g = sign * k * (u * dots[:, None] - w)
            np.add.at(grad, pairs[act, 0], g[act])
            np.add.at(count, pairs[act, 0], 1.0)
        if len(vsp):
            u, w = x[vsp[:, 0]], x[vsp[:, 1]]
            dots = np.einsum("ij,ij->i", u, w)
            act = (1.0 - dots) > d0
            g = -s.k3 * (u * dots[:, None] - w)
            np.add.at(grad, vsp[act, 0], g[act])
            np.add.at(count, vsp[act, 0], 1.0)
        step = count > 0
        # Each word moves by the mean of its gradients (the reference's update).
        x[step] += grad[step] / count[step, None]
        x, _ = unit_rows(x)
        moved |= step
    return problem.finish(x, moved)
