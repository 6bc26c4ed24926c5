"""A code support that copying the code cannot win: conciseness and plausibility priors.

A metric's raw code support (:meth:`~wrdscore.metrics.Metric._code_support`) says how
well a prediction is grounded in the words of its method's code. On its own it rewards
copying: a name stitched from the body's words, or all of them pasted, is grounded
perfectly. A reader rejects both, because a name says the method's purpose in a few words
of the kind names are written in. Two priors from real Java texts (OpenJDK 17's method
names, Javadoc summaries and code, counted by ``scripts/build_code_prior.py``; never
fitted to ratings) say that, for a prediction ``p`` of ``m`` tokens and a target ``T``
(``name`` or ``summary``):

.. math::

    \\mathrm{code}(p) = s_{\\mathrm{raw}}(p)\\, L_T(m)\\, P_T(p)

* **conciseness** :math:`L_T(m) = \\min(1, S_T(m) / S_T(m_{90}))`, with :math:`S_T(m)`
  the share of real texts of ``T`` with ``m`` tokens or more and :math:`m_{90}` the
  largest ``m`` with :math:`S_T(m) \\ge 0.1`: a text no longer than nine in ten real ones
  is not penalised, a longer one by how much rarer its length is;
* **plausibility** :math:`P_T(p) = \\min(1, G_T(p) / G_{T,q})`, with
  :math:`\\log G_T(p)` the mean over ``p``'s tokens of :math:`\\log r_T(t)`,

  .. math:: r_T(t) = \\frac{(n_T(t) + k\\pi) / (n_T(t) + n_{\\mathrm{code}}(t) + k)}{\\pi},
     \\qquad \\pi = \\frac{N_T}{N_T + N_{\\mathrm{code}}},\\ k = 10,

  the smoothed odds that ``t`` is written in a text of ``T`` rather than in code,
  relative to the base rate (a token seen in neither is neutral, :math:`r = 1`), and
  :math:`G_{T,q}` the ``q``-quantile of :math:`G_T` over the real texts.

The rule and its quantile were chosen on a held-out adversarial signal
(``benchmarks/code_adversarial.py``; ``docs/history.md``).
"""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

#: Smoothing of the odds: a token needs about this many sightings to move from neutral.
SMOOTHING = 10.0
#: The share of real texts whose length is not penalised.
LENGTH_SHARE = 0.10
#: :math:`q`: real texts less plausible than this share of them are penalised.
QUANTILE = 0.5
#: The signature's name of the shipped table (``prior:`` in a code signature).
PRIOR_LABEL = "jdk17"
#: Most floats one stacked gather of code vectors may hold (about 32 MB).
_STACK_FLOATS = 1 << 22
#: The shipped table (``scripts/build_code_prior.py`` rebuilds it).
PRIOR_FILE = "code_prior.json.gz"


@dataclass(frozen=True)
class TextPrior:
    """How real texts of one target are written: their lengths and their tokens' odds.

    ``lengths[m]`` counts real texts of ``m`` tokens; ``log_odds`` maps a token to
    :math:`\\log r_T(t)` (tokens absent are neutral, 0); ``threshold`` is
    :math:`G_{T,q}`.
    """

    lengths: NDArray[np.float64]
    log_odds: dict[str, float]
    threshold: float

    def conciseness(self, sizes: NDArray[np.int64]) -> NDArray[np.float64]:
        """:math:`L_T(m)` of each size ``m`` (0 tokens count as 1: nothing to penalise).

        Examples
        --------
        >>> p = TextPrior(np.array([0.0, 6, 2, 1, 0.5, 0.5]), {}, 1.0)
        >>> p.conciseness(np.array([1, 3, 5, 9])).round(3).tolist()
        [1.0, 1.0, 0.5, 0.0]
        """
        survival = np.cumsum(self.lengths[::-1])[::-1] / self.lengths.sum()
        m90 = int(np.flatnonzero(survival >= LENGTH_SHARE)[-1])
        padded = np.append(survival, 0.0)
        at = np.clip(sizes, 1, len(padded) - 1)
        return np.minimum(1.0, padded[at] / survival[m90])

    def log_plausibility(self, tokens: Sequence[str]) -> float:
        """:math:`\\log G_T(p)`: the mean log odds of the tokens (0 for none)."""
        if not tokens:
            return 0.0
        get = self.log_odds.get
        return sum(get(t, 0.0) for t in tokens) / len(tokens)

    def plausibility(self, token_lists: Sequence[Sequence[str]]) -> NDArray[np.float64]:
        """:math:`P_T(p)` of each token list.

        Examples
        --------
        >>> p = TextPrior(np.ones(3), {"get": math.log(4.0), "tmp": math.log(0.25)}, 2.0)
        >>> p.plausibility([["get"], ["get", "tmp"], ["tmp"], ["unseen"]]).tolist()
        [1.0, 0.5, 0.125, 0.5]
        """
        logs = np.fromiter(map(self.log_plausibility, token_lists), float, len(token_lists))
        return np.minimum(1.0, np.exp(logs) / self.threshold)

    def factor(self, token_lists: Sequence[Sequence[str]]) -> NDArray[np.float64]:
        """:math:`L_T(m)\\, P_T(p)` of each token list: what a raw support is scaled by."""
        sizes = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
        return self.conciseness(sizes) * self.plausibility(token_lists)


def best_match_precision(
    code_item: NDArray[np.int64],
    code_row: NDArray[np.int64],
    pred_item: NDArray[np.int64],
    pred_row: NDArray[np.int64],
    unit: NDArray[np.float64],
    n: int,
    clip: bool = True,
) -> NDArray[np.float64]:
    r"""Each prediction's best-match precision in its method's code.

    Pair ``k``'s code is the rows ``unit[code_row[e]]`` with ``code_item[e] == k``, its
    prediction those with ``pred_item == k`` (both ordered by pair, unit length or zero):

    .. math:: P = \frac1m \sum_j \max_i c_{ij}

    with :math:`c_{ij}` the (clipped) cosine of predicted token ``j`` and code token
    ``i``. Unlike a balanced transport, a predicted token need not spread over all of
    the code: its support is what it finds there, however long the method. A pair
    without an entry on a side scores 0.

    Examples
    --------
    >>> unit = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> best_match_precision(np.array([0, 0]), np.array([0, 1]), np.array([0, 0]),
    ...                      np.array([0, 2]), unit, 1).round(3).tolist()
    [0.9]
    """
    out = np.zeros(n)
    code_len = np.bincount(code_item, minlength=n)
    pred_len = np.bincount(pred_item, minlength=n)
    code_start = np.cumsum(code_len) - code_len
    pred_start = np.cumsum(pred_len) - pred_len
    # Pairs are grouped by the prediction's length and the code's padded width (the next
    # multiple of 8 up to 128 tokens, the next power of two beyond: few groups, little
    # padding), so each group's cosines are one product of stacked vectors.
    width = np.where(
        code_len <= 128,
        -(-code_len // 8) * 8,
        1 << np.ceil(np.log2(np.maximum(code_len, 1))).astype(np.int64),
    )
    most = int(pred_len.max(initial=0)) + 1
    key = np.where((code_len > 0) & (pred_len > 0), width * most + pred_len, -1)
    dim = unit.shape[1]
    # A padded slot points at an appended zero row, and is left out of the maximum.
    unit = np.vstack([unit, np.zeros((1, dim))])
    pad = len(unit) - 1
    for k in np.unique(key[key >= 0]).tolist():
        w, m = divmod(k, most)
        items = np.flatnonzero(key == k)
        step = max(1, _STACK_FLOATS // (w * max(dim, m)))
        for start in range(0, len(items), step):
            part = items[start : start + step]
            slot = np.arange(w)
            valid = slot < code_len[part, None]
            at = np.minimum(code_start[part, None] + slot, len(code_row) - 1)
            ci = np.where(valid, code_row[at], pad)
            pi = pred_row[pred_start[part, None] + np.arange(m)]
            cos = np.matmul(unit[ci], unit[pi].transpose(0, 2, 1))
            cos[~valid] = -np.inf
            best = np.minimum(cos.max(axis=1), 1.0)
            out[part] = (np.maximum(best, 0.0) if clip else best).mean(axis=1)
    return out


def log_odds(texts: Counter[str], code: Counter[str]) -> dict[str, float]:
    """:math:`\\log r_T(t)` of every token seen in ``texts`` or ``code`` (counts)."""
    n_text, n_code = sum(texts.values()), sum(code.values())
    base = n_text / (n_text + n_code)
    out = {}
    for t in texts.keys() | code.keys():
        a = texts.get(t, 0)
        share = (a + SMOOTHING * base) / (a + code.get(t, 0) + SMOOTHING)
        out[t] = math.log(share / base)
    return out


def quantile_threshold(
    log_odds_of: dict[str, float], texts: Iterable[Sequence[str]], q: float
) -> float:
    """:math:`G_{T,q}`: the ``q``-quantile of :math:`G_T` over real ``texts``."""
    prior = TextPrior(np.ones(1), log_odds_of, 1.0)
    logs = [prior.log_plausibility(t) for t in texts if t]
    return float(np.exp(np.quantile(logs, q)))


@cache
def code_prior(target: str, quantile: float = QUANTILE) -> TextPrior:
    """The shipped prior of ``target`` (``name`` or ``summary``), read once."""
    data = json.loads(
        gzip.decompress(resources.files("wrdscore.data").joinpath(PRIOR_FILE).read_bytes())
    )
    part = data["targets"][target]
    return TextPrior(
        np.asarray(part["lengths"], dtype=np.float64),
        log_odds(Counter(part["tokens"]), Counter(part["code"])),
        float(part["thresholds"][f"{quantile:g}"]),
    )
