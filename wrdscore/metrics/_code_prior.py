"""A code support that copying the code cannot win: conciseness, copying and plausibility priors.

A metric's raw code support (:meth:`~wrdscore.metrics.Metric._code_support`) says how
well a prediction is grounded in the words of its method's code. On its own it rewards
copying: a name stitched from the body's words, or all of them pasted, is grounded
perfectly. A reader rejects both, because a name says the method's purpose in a few words,
written the way names are written. Priors from real Java texts (the method names, Javadoc
summaries and code of the default model's 69 sources, OpenJDK 17 and 68 Debian projects,
counted by ``scripts/build_code_prior.py``; never fitted to ratings) say that, for a
prediction ``p`` of ``m`` tokens, ``k`` of them *copied* from its method's code, and a
target ``T`` (``name`` or ``summary``):

.. math::

    \\mathrm{code}(p) = s_{\\mathrm{raw}}(p)\\, L_T(m)\\, L^c_T(k)\\, P_T(p)^{k/m}

* a token is **copied** when it is one of the code's tokens as scoring reads them (the
  name masked), or a reserved word of the code's language
  (:data:`~wrdscore.corpora.RESERVED_WORDS`: a signature's ``public``, ``void`` and
  ``throws`` are the code's words, though reading drops them);
* **conciseness** :math:`L_T(m) = \\min(1, S_T(m) / S_T(m_{99}))`, with :math:`S_T(m)`
  the share of real texts of ``T`` with ``m`` tokens or more and :math:`m_{99}` the
  largest ``m`` with :math:`S_T(m) \\ge 0.01`: a text no longer than 99 in 100 real ones
  is not penalised, a longer one by how much rarer its length is;
* **copied conciseness** :math:`L^c_T(k)`, the same form over the number of tokens real
  texts copy from their own method's code: five copied tokens are common in names, more
  are not;
* **plausibility** :math:`P_T(p) = \\min(1, Q_T(p) / Q_{T,q})`: how much more likely the
  token sequence is as a text of ``T`` than as words drawn from code,

  .. math:: \\log Q_T(p) = \\frac{1}{m+1}\\Big[\\sum_{i=1}^{m}
     \\big(\\log B_T(t_i \\mid t_{i-1}) - \\log C(t_i)\\big)
     + \\log B_T(\\langle/s\\rangle \\mid t_m)\\Big],

  with :math:`t_0 = \\langle s\\rangle`, :math:`B_T` the bigram model of the real texts
  interpolated with their unigrams (Witten-Bell: :math:`B_T(b \\mid a) = \\lambda_a
  c(a, b) / n_a + (1 - \\lambda_a) U_T(b)`, :math:`\\lambda_a = n_a / (n_a + u_a)`,
  :math:`n_a` the bigrams from ``a``, :math:`u_a` their distinct successors),
  :math:`U_T(t) = (n_T(t) + \\tfrac12) / (N_T + \\tfrac12 V)` and :math:`C(t) =
  (n_{\\mathrm{code}}(t) + \\tfrac12) / (N_{\\mathrm{code}} + \\tfrac12 V)`, ``V`` the
  distinct tokens of texts and code; :math:`Q_{T,q}` is the ``q``-quantile (0.2) of
  :math:`Q_T` over real texts, each scored by the table counted without its project's
  fold, so the share q of a *new* project's real texts is scaled down. Words stitched
  from a method's body in any order, or its identifiers pasted together, are sequences
  names are not made of.

The gate's exponent :math:`k/m` applies the plausibility gate only as far as the
prediction is copied: a name that copies none of its words is not judged by how names
usually read (a new project's names often do not), a pure copy fully.

The rule and its settings were chosen on held-out adversarial signals
(``benchmarks/code_adversarial.py``; ``docs/history.md``, issue 32, rounds 2-4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

# A table of the reader's, imported with this module: scoring reads the code in
# corpora once (read_method), and then never goes back into it.
from wrdscore.corpora import RESERVED_WORDS
from wrdscore.metrics._prior_table import END, START, TargetCounts, read_target

#: Added to every token's count in the unigram models (a token seen nowhere is not impossible).
ADD = 0.5
#: The share of real texts whose length is not penalised is 1 - this.
LENGTH_SHARE = 0.01
#: :math:`q`: real texts less plausible than this share of them are penalised (round 4's G1).
QUANTILE = 0.2
#: The share of real texts whose number of copied tokens is not penalised is 1 - this.
COPIED_SHARE = 0.01
#: The quantiles of :math:`Q_T` a table stores (the candidates of rounds 2 to 4).
QUANTILES = (0.02, 0.05, 0.1, 0.2, 0.3)
#: Most floats one stacked gather of code vectors may hold (512 KB: it stays in cache; at 32 MB
#: the gathers ran from memory, and OpenJDK scoring took 4.2-4.4x reference-only CPU, not 3.8-3.9x).
_STACK_FLOATS = 1 << 16
#: The shipped table (``scripts/build_code_prior.py`` rebuilds it): a zip archive with
#: members per target (:mod:`~wrdscore.metrics._prior_table`), so that scoring one target
#: decodes only its part.
PRIOR_FILE = "code_prior.zip"


class SequenceModel:
    """:math:`\\log Q_T`: how much likelier a token sequence is as a text of T than as code.

    Built from the counts of the real texts' tokens (``texts``), of code tokens
    (``code``) and of the texts' bigrams (``bigrams[a][b]``, with :data:`START` and
    :data:`END`), as in the module's formula; :meth:`from_counts` builds it from a
    table's arrays.

    Examples
    --------
    >>> m = SequenceModel({"get": 3, "name": 3}, {"name": 2, "i": 8},
    ...                   {"<s>": {"get": 3}, "get": {"name": 3}, "name": {"</s>": 3}})
    >>> m.log_q(["get", "name"]) > 0 > m.log_q(["i", "get"])
    True
    """

    def __init__(
        self,
        texts: dict[str, int],
        code: dict[str, int],
        bigrams: dict[str, dict[str, int]],
    ) -> None:
        counts = TargetCounts.from_dict({"tokens": texts, "code": code, "bigrams": bigrams})
        self._build(counts)

    @classmethod
    def from_counts(cls, counts: TargetCounts) -> SequenceModel:
        """The model of a table's counts (:func:`~wrdscore.metrics._prior_table.read_target`)."""
        model = cls.__new__(cls)
        model._build(counts)
        return model

    def _build(self, counts: TargetCounts) -> None:
        # Tokens are numbered by the vocabulary; a token never seen in the texts or the
        # code counts 0 there, which gives it the unseen token's probability (0 + ADD).
        self._ids = {t: i for i, t in enumerate(counts.vocabulary)}
        start, end = self._ids[START], self._ids[END]
        self._start, self._end = start, end
        contexts, successors, pairs = counts.bigrams
        # A text's end is one of its tokens here, so that B_T falls back on how often texts
        # end at all, not on an unseen token, after a context never seen.
        texts = counts.tokens.copy()
        texts[end] = int(pairs[contexts == start].sum())
        size = int(np.count_nonzero((counts.tokens > 0) | (counts.code > 0)))
        size += int(counts.tokens[end] == 0 and counts.code[end] == 0)
        text_den = int(texts.sum()) + ADD * size
        code_den = int(counts.code.sum()) + ADD * size
        # The same float operations as (count + ADD) / den on each count.
        self._unigram: list[float] = ((texts + ADD) / text_den).tolist()
        self._unseen_text = ADD / text_den
        self._code = list(map(math.log, ((counts.code + ADD) / code_den).tolist()))
        self._unseen_code = math.log(ADD / code_den)
        # Every bigram by its key a * width + b, sorted: a batch's bigrams are looked up in
        # one search (:meth:`_pair_counts`). A dict per context, built on its first use,
        # was 0.1 s in each scoring worker; one dict of them all, 0.15 s to build.
        width = self._width = len(counts.vocabulary)
        keys = contexts.astype(np.int64) * width + successors
        order = np.argsort(keys)
        self._keys, self._key_counts = keys[order], pairs[order].astype(np.int64)
        # Each context's bigrams n_a and distinct successors u_a (0 for a context never
        # seen); the sums are of integers far below 2**53, so exact.
        self._n: list[int] = (
            np.bincount(contexts, weights=pairs, minlength=width).astype(np.int64).tolist()
        )
        self._u: list[int] = np.bincount(contexts, minlength=width).tolist()

    def _pair_counts(self, prev: list[int], cur: list[int]) -> list[int]:
        """:math:`c(a, b)` of each pair of token ids (0 for a pair never seen, and for
        an id of -1, a token outside the vocabulary)."""
        if not len(self._keys):
            return [0] * len(prev)
        a, b = np.array(prev, dtype=np.int64), np.array(cur, dtype=np.int64)
        keys = a * self._width + b
        at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        hit = (self._keys[at] == keys) & (a >= 0) & (b >= 0)
        found: list[int] = np.where(hit, self._key_counts[at], 0).tolist()
        return found

    def _log_bigram(self, a: int, b: int, count: int) -> float:
        """:math:`\\log B_T(b \\mid a)` of two token ids (-1: outside the vocabulary)
        whose bigram was seen ``count`` times."""
        unigram = self._unseen_text if b < 0 else self._unigram[b]
        n = 0 if a < 0 else self._n[a]
        if not n:
            return math.log(unigram)
        # Witten-Bell: the weight of the context's own counts, n_a / (n_a + u_a).
        weight = n / (n + self._u[a])
        return math.log(weight * count / n + (1 - weight) * unigram)

    def _ids_of(self, tokens: Sequence[str]) -> list[int]:
        get = self._ids.get
        return [get(t, -1) for t in tokens]

    def log_ratios(self, tokens: Sequence[str], context: bool = True) -> list[float]:
        """Each token's term of :math:`\\log Q_T`: :math:`\\log B_T(t_i \\mid t_{i-1}) -
        \\log C(t_i)`, how much likelier the token is as the next word of a text of T than
        as a word drawn from code; without ``context``, :math:`\\log U_T(t_i) - \\log
        C(t_i)`, whatever precedes it.

        Examples
        --------
        >>> m = SequenceModel({"get": 3, "name": 3}, {"name": 2, "i": 8},
        ...                   {"<s>": {"get": 3}, "get": {"name": 3}, "name": {"</s>": 3}})
        >>> [round(r, 2) for r in m.log_ratios(["get", "name"])]
        [2.99, 1.38]
        """
        ids = self._ids_of(tokens)
        if not context:
            return [
                math.log(self._unseen_text if t < 0 else self._unigram[t]) - self._code_of(t)
                for t in ids
            ]
        prev = [self._start, *ids][: len(ids)]
        counts = self._pair_counts(prev, ids)
        return [
            self._log_bigram(a, b, c) - self._code_of(b)
            for a, b, c in zip(prev, ids, counts, strict=True)
        ]

    def _code_of(self, t: int) -> float:
        return self._unseen_code if t < 0 else self._code[t]

    def log_q(self, tokens: Sequence[str]) -> float:
        """:math:`\\log Q_T(p)` of one token list (0 for none: nothing to judge)."""
        return self.log_qs([tokens])[0]

    def log_qs(self, token_lists: Sequence[Sequence[str]]) -> list[float]:
        """:meth:`log_q` of each token list, their bigrams looked up together."""
        rows = [self._ids_of(tokens) for tokens in token_lists]
        prev: list[int] = []
        cur: list[int] = []
        for ids in rows:
            if ids:
                prev.append(self._start)
                prev += ids
                cur += ids
                cur.append(self._end)
        counts = iter(self._pair_counts(prev, cur))
        out = []
        bigram, code = self._log_bigram, self._code_of
        for ids in rows:
            if not ids:
                out.append(0.0)
                continue
            terms, a = [], self._start
            for b in ids:
                terms.append(bigram(a, b, next(counts)) - code(b))
                a = b
            end = bigram(a, self._end, next(counts))
            out.append((sum(terms) + end) / (len(ids) + 1))
        return out


def _survival_prior(
    counts: NDArray[np.float64], share: float, sizes: NDArray[np.int64]
) -> NDArray[np.float64]:
    """:math:`\\min(1, S(m) / S(m_{99}))` of each size: ``counts[m]`` real texts have
    size ``m``, :math:`S(m)` is the share with size ``m`` or more, and :math:`m_{99}`
    the largest size with :math:`S \\ge` ``share`` (sizes below 1 count as 1)."""
    survival = _survival(counts)
    m99 = _largest_common(survival, share)
    padded = np.append(survival, 0.0)
    at = np.clip(sizes, 1, len(padded) - 1)
    return np.minimum(1.0, padded[at] / survival[m99])


def _survival(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.cumsum(counts[::-1])[::-1] / counts.sum()


def _largest_common(survival: NDArray[np.float64], share: float) -> int:
    """:math:`m_{99}`: the largest size that the share ``share`` of real texts reach,
    given :func:`_survival` of their sizes."""
    return int(np.flatnonzero(survival >= share)[-1])


def copied_counts(
    token_lists: Sequence[Sequence[str]],
    codes: Sequence[Sequence[str]],
    languages: Sequence[str | None],
) -> NDArray[np.int64]:
    """How many of each prediction's tokens are copied from its method's code: found
    among the code's tokens, or a reserved word of its language
    (:data:`~wrdscore.corpora.RESERVED_WORDS`).

    Examples
    --------
    >>> copied_counts([["write", "users"], ["public", "void", "run"]],
    ...               [["out", "write"], ["run"]], ["java", "java"]).tolist()
    [1, 3]
    """
    out = np.zeros(len(token_lists), dtype=np.int64)
    none: frozenset[str] = frozenset()
    for i, (tokens, code, language) in enumerate(zip(token_lists, codes, languages, strict=True)):
        if tokens:
            reserved = RESERVED_WORDS.get(language, none) if language else none
            found = set(code)
            out[i] = sum(t in found or t in reserved for t in tokens)
    return out


def per_distinct(
    values_of: Callable[[list[list[str]]], NDArray[np.float64]],
    token_lists: Sequence[Sequence[str]],
) -> NDArray[np.float64]:
    """``values_of(token_lists)`` where each value depends on its own list alone (the code
    priors'), computed once per distinct list and spread back.

    A model's names repeat: a 19,397-pair chunk of OpenJDK predictions holds 6,100 to
    7,900 distinct ones, and the priors' Python loop per name was a twentieth of
    code-aware scoring.

    Examples
    --------
    >>> lengths = lambda lists: np.array([float(len(t)) for t in lists])
    >>> per_distinct(lengths, [["get", "x"], ["run"], ["get", "x"]]).tolist()
    [2.0, 1.0, 2.0]
    """
    index: dict[tuple[str, ...], int] = {}
    inverse = np.fromiter(
        (index.setdefault(tuple(t), len(index)) for t in token_lists),
        dtype=np.int64,
        count=len(token_lists),
    )
    return np.asarray(values_of([list(t) for t in index]), dtype=np.float64)[inverse]


@dataclass(frozen=True)
class PriorFactors:
    """The factors of one prediction's prior (:meth:`TextPrior.factor`), by name.

    ``conciseness`` is :math:`L_T(m)` of its ``tokens`` ``m``, ``copied_conciseness``
    :math:`L^c_T(k)` of its ``copied`` tokens ``k``, ``plausibility`` :math:`P_T(p)`;
    the prior is their :attr:`product`, the plausibility raised to the share copied
    (:attr:`exponent`). ``copied`` is None for a prior that counts no copies: the
    plausibility then counts whole, and there is no copied conciseness (1).

    Examples
    --------
    >>> f = PriorFactors(1.0, 1.0, 0.25, copied=1, tokens=2)
    >>> f.exponent, f.gate, f.product
    (0.5, 0.5, 0.5)
    """

    conciseness: float
    copied_conciseness: float
    plausibility: float
    copied: int | None
    tokens: int

    @property
    def exponent(self) -> float:
        """:math:`k/m`, the share of the prediction copied (1 where copies are not counted)."""
        return 1.0 if self.copied is None else self.copied / max(self.tokens, 1)

    @property
    def gate(self) -> float:
        """The plausibility as the prior counts it, :math:`P_T(p)^{k/m}`."""
        return float(self.plausibility**self.exponent)

    @property
    def product(self) -> float:
        """The prior: conciseness x copied conciseness x gate."""
        return self.conciseness * self.copied_conciseness * self.gate


@dataclass(frozen=True)
class TextPrior:
    """How real texts of one target are written: their lengths and their token sequences.

    ``lengths[m]`` counts real texts of ``m`` tokens; ``model`` gives
    :math:`\\log Q_T`; ``threshold`` is :math:`Q_{T,q}`; texts longer than all but the
    share ``length_share`` of real ones are penalised. With ``copied`` (``copied[k]``
    counts real texts with ``k`` tokens copied from their method's code), the
    plausibility gate is softened by how much of a prediction is copied, and the number
    of copied tokens has a conciseness prior of its own (share ``copied_share``): see
    :meth:`factor`.
    """

    lengths: NDArray[np.float64]
    model: SequenceModel
    threshold: float
    length_share: float = LENGTH_SHARE
    copied: NDArray[np.float64] | None = None
    copied_share: float = COPIED_SHARE

    def conciseness(self, sizes: NDArray[np.int64]) -> NDArray[np.float64]:
        """:math:`L_T(m)` of each size ``m`` (0 tokens count as 1: nothing to penalise).

        Examples
        --------
        >>> p = TextPrior(np.array([0.0, 96, 2, 1, 0.5, 0.5]), SequenceModel({}, {}, {}), 1.0)
        >>> p.conciseness(np.array([1, 3, 5, 9])).round(3).tolist()
        [1.0, 1.0, 0.5, 0.0]
        """
        return _survival_prior(self.lengths, self.length_share, sizes)

    def plausibility(self, token_lists: Sequence[Sequence[str]]) -> NDArray[np.float64]:
        """:math:`P_T(p)` of each token list.

        Examples
        --------
        >>> m = SequenceModel({"get": 3, "name": 3}, {"name": 2, "i": 8},
        ...                   {"<s>": {"get": 3}, "get": {"name": 3}, "name": {"</s>": 3}})
        >>> p = TextPrior(np.ones(3), m, 1.0)
        >>> p.plausibility([["get", "name"], ["i", "get"]]).round(3).tolist()
        [1.0, 0.214]
        """
        logs = np.array(self.model.log_qs(token_lists), dtype=np.float64)
        return np.minimum(1.0, np.exp(logs) / self.threshold)

    def factors(
        self,
        tokens: Sequence[str],
        code: Sequence[str] | None = None,
        language: str | None = None,
    ) -> PriorFactors:
        """The factors of one prediction's :meth:`factor`, read with its method's
        ``code`` (its tokens as scoring reads them, in ``language``); their product is
        that factor.

        Raises
        ------
        ValueError
            A prior with ``copied`` counts given no ``code``.
        """
        m = len(tokens)
        conciseness = float(self.conciseness(np.array([m]))[0])
        plausibility = float(self.plausibility([tokens])[0])
        if self.copied is None:
            return PriorFactors(conciseness, 1.0, plausibility, None, m)
        if code is None:
            raise ValueError("this prior reads each prediction's code: give code")
        k = int(copied_counts([tokens], [code], [language])[0])
        copied = float(_survival_prior(self.copied, self.copied_share, np.array([k]))[0])
        return PriorFactors(conciseness, copied, plausibility, k, m)

    def factor(
        self,
        token_lists: Sequence[Sequence[str]],
        codes: Sequence[Sequence[str]] | None = None,
        languages: Sequence[str | None] | None = None,
    ) -> NDArray[np.float64]:
        """What each prediction's raw support is scaled by.

        Without ``copied`` counts, :math:`L_T(m)\\, P_T(p)`. With them (the shipped
        prior), each prediction is read with its method's code (``codes``, as scoring
        reads it, and the ``languages`` it was read in): of its ``m`` tokens, ``k``
        are copied (:func:`copied_counts`), and

        .. math:: L_T(m)\\, L^c_T(k)\\, P_T(p)^{k/m}

        with :math:`L^c_T` the conciseness prior over copied tokens. A prediction that
        copies nothing is not gated by its plausibility, a pure copy fully.

        Raises
        ------
        ValueError
            A prior with ``copied`` counts given no ``codes``.
        """
        plausible = per_distinct(self.plausibility, token_lists)
        sizes = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
        out = self.conciseness(sizes)
        if self.copied is None:
            return out * plausible
        if codes is None:
            raise ValueError("this prior reads each prediction's code: give codes")
        # Only a prediction gated by its plausibility, or with more tokens than copies
        # go unpenalised, needs its copied tokens counted: k <= m, and P^c = 1 when P = 1.
        most = _largest_common(_survival(self.copied), self.copied_share)
        need = np.flatnonzero((plausible < 1.0) | (sizes > most))
        if len(need):
            at = need.tolist()
            k = copied_counts(
                [token_lists[i] for i in at],
                [codes[i] for i in at],
                [None] * len(at) if languages is None else [languages[i] for i in at],
            )
            out[need] *= _survival_prior(self.copied, self.copied_share, k)
            # k / m: the share of the prediction that is copied (m >= k >= 0, m >= 1 here).
            out[need] *= plausible[need] ** (k / np.maximum(sizes[need], 1))
        return out


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
    return best_match(code_item, code_row, pred_item, pred_row, unit, n, clip)[0]


def best_match(
    code_item: NDArray[np.int64],
    code_row: NDArray[np.int64],
    pred_item: NDArray[np.int64],
    pred_row: NDArray[np.int64],
    unit: NDArray[np.float64],
    n: int,
    clip: bool = True,
    code_weight: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    r""":func:`best_match_precision`, and with ``code_weight`` (one weight per code entry)
    the mirror recall over the code,

    .. math:: R = \frac{\sum_i w_i \max_j c_{ij}}{\sum_i w_i},

    how much of the code's weight the prediction's words find; None without weights.

    Examples
    --------
    >>> unit = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> p, r = best_match(np.array([0, 0]), np.array([0, 1]), np.array([0]), np.array([0]),
    ...                   unit, 1, code_weight=np.array([3.0, 1.0]))
    >>> p.tolist(), r.tolist()
    ([1.0], [0.75])
    """
    out = np.zeros(n)
    recall = None if code_weight is None else np.zeros(n)
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
    weight = None if code_weight is None else np.append(code_weight, 0.0)
    # The groups in key order, each group's pairs in pair order: each group's gather
    # indices are built in one go (per stack, their small numpy calls were a third of
    # the time on OpenJDK's chunks).
    order = np.argsort(key, kind="stable")
    order = order[key[order] >= 0]
    cuts = np.flatnonzero(np.diff(key[order])) + 1
    for group in np.split(order, cuts) if len(order) else []:
        w, m = divmod(int(key[group[0]]), most)
        slot = np.arange(w)
        valid = slot < code_len[group, None]
        at = np.minimum(code_start[group, None] + slot, len(code_row) - 1)
        rows = np.where(valid, code_row[at], pad)
        preds = pred_row[pred_start[group, None] + np.arange(m)]
        step = max(1, _STACK_FLOATS // (w * max(dim, m)))
        # Each stack's maxima go into the group's arrays, and what follows runs once per
        # group: per stack (1,700 of them in an OpenJDK chunk, most of one pair) its small
        # numpy calls cost about what its product did. Every value is the same: the
        # products are the same, and each row is reduced alone.
        best = np.empty((len(group), m))
        found = None if recall is None else np.empty((len(group), w))
        for start in range(0, len(group), step):
            part = slice(start, start + step)
            cos = np.matmul(unit[rows[part]], unit[preds[part]].transpose(0, 2, 1))
            here = cos.max(axis=1, out=best[part])
            # A padded slot's cosine is 0 (the zero row), so a positive maximum is a code
            # token's own; only a pair whose maximum is not positive is taken again
            # without its padded slots (few: a predicted token unlike every code token).
            if here.min() <= 0.0:
                low = np.flatnonzero((here <= 0.0).any(axis=1))
                again = cos[low]
                again[~valid[part][low]] = -np.inf
                here[low] = again.max(axis=1)
            if found is not None:
                # Each code slot's best match in the prediction.
                cos.max(axis=2, out=found[part])
        best = np.minimum(best, 1.0)
        out[group] = (np.maximum(best, 0.0) if clip else best).mean(axis=1)
        if recall is not None and weight is not None and found is not None:
            # A padded slot weighs 0.
            found = np.minimum(found, 1.0)
            found = np.where(valid, np.maximum(found, 0.0) if clip else found, 0.0)
            w_at = weight[np.where(valid, at, len(weight) - 1)]
            total = w_at.sum(axis=1)
            recall[group] = np.divide(
                (w_at * found).sum(axis=1), total, out=np.zeros(len(w_at)), where=total > 0
            )
    return out, recall


def table_part(table: bytes, target: str) -> dict[str, Any]:
    """One target's counts in a table's bytes, in their JSON form
    (:meth:`~wrdscore.metrics._prior_table.TargetCounts.as_dict`): ``tokens`` and ``code``
    as ``{token: count}``, ``bigrams`` as ``{context: {successor: count}}``."""
    return read_target(table, target).as_dict()


def read_prior(
    table: bytes,
    target: str,
    quantile: float = QUANTILE,
    length_share: float = LENGTH_SHARE,
    copied_share: float | None = None,
) -> TextPrior:
    """The prior of ``target`` in a table's bytes (``build_code_prior.py``'s output),
    with the threshold of a ``quantile`` the table stores; with a ``copied_share``, the
    gate softened by copying, from the table's copied counts."""
    counts = read_target(table, target)
    part = counts.meta
    copied = None if copied_share is None else np.asarray(part["copied"], dtype=np.float64)
    return TextPrior(
        np.asarray(part["lengths"], dtype=np.float64),
        SequenceModel.from_counts(counts),
        float(part["thresholds"][f"{quantile:g}"]),
        length_share,
        copied,
        COPIED_SHARE if copied_share is None else copied_share,
    )
