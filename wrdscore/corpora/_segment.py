"""Names as models write them now: run-together words segmented.

Language models often write a method name all in lower case (``istimeoutsetinrequestcontext``,
``getuserbyid``); the sub-token splitter sees one unknown token there, so every metric
would score it as one unseen word. :func:`segment` splits such tokens into words with
``wordninja``'s unigram model (each word costs ``log((rank + 1) log N)`` for its rank in a
frequency-ordered list of ``N`` words; the cheapest split wins), over a code-aware word list
shipped in ``wrdscore/data``: identifier words of OpenJDK 17 by frequency, then English
Wikipedia words (wordninja's own list). The list was chosen by exact split accuracy on
held-out lower-cased camelCase names (``scripts/segment_accuracy.py``; the numbers are in
docs/scoring.md, "Names as models write them", and docs/history.md). Only the list's
commonest words are read on first use; the rest, and wordninja, only when some token is
not among them, so scoring ordinary names pays a few milliseconds.
"""

from __future__ import annotations

import gzip
import itertools
import math
from pathlib import Path
from typing import Any

#: The shipped word list (most frequent first); see ``scripts/segment_words.py``.
WORDS_FILE = Path(__file__).resolve().parents[1] / "data" / "segment_words.txt.gz"
#: The list's name in signatures (``seg:<id>``): OpenJDK 17 code words seen 20 times or
#: more, then English Wikipedia words. A rebuilt list with other words needs a new id
#: (tests/test_segment.py pins the file's hash to it).
WORDS_ID = "jdk17c20+wiki"
#: Distinct tokens a :class:`Segmenter` remembers; past it the memo starts over, so
#: memory stays flat on streamed input.
MEMO_TOKENS = 200_000
#: Decompressed bytes of the list's head read first (about 17,000 words: every code word
#: and the commonest English ones). Nearly every token of a name is among them, so a run
#: reads the whole list (0.1-0.3 s, most of a `wrdscore score` start-up) only when some
#: token is not.
HEAD_BYTES = 1 << 17


class Segmenter:
    """Split all-lowercase run-together tokens into the words of a frequency-ordered list.

    A token is a candidate only if it is lower-case ASCII letters; a token in the list
    (a known word) stays whole. wordninja's split is kept only if every piece is in the
    list, no two single letters are neighbours (camelCase never writes those: ``getXY``
    splits as ``get xy``, so ``xqzv`` is not cut into letters), and the split is more
    likely than the token being one unknown word. That likelihood is Norvig's for an
    unknown word of ``L`` letters, ``10 / (N 10^L)`` (*Beautiful Data*, ch. 14), on
    wordninja's Zipf scale: cost ``log(N log N) + (L - 1) log 10`` against the pieces'
    summed ``log((rank + 1) log N)``. It keeps rare whole words such as ``evaluator``
    whole (not ``eval ua tor``) and splits long run-together names.

    Parameters
    ----------
    words_file : path
        A gzipped list of words, whitespace-separated, most frequent first (the format
        ``wordninja.LanguageModel`` reads).

    Examples
    --------
    >>> seg = Segmenter(WORDS_FILE)
    >>> seg.split("getuserbyid"), seg.split("timeout"), seg.split("xqzv")
    (['get', 'user', 'by', 'id'], ['timeout'], ['xqzv'])
    """

    def __init__(self, words_file: str | Path) -> None:
        self.words_file = Path(words_file)
        with gzip.open(self.words_file) as f:
            head = f.read(HEAD_BYTES)
        # The last word may be cut by the byte limit: the head ends at the last newline.
        self.head = frozenset(head[: head.rfind(b"\n") + 1].decode("utf-8").split())
        self._known: frozenset[str] | None = None
        self._words: list[str] = []  # the whole list in order, read with :attr:`known`
        self._rank: dict[str, int] = {}  # each word's first rank, built with the model
        self._model: Any = None  # the wordninja.LanguageModel, built on first need
        self._log_n = 0.0
        self._memo: dict[str, list[str]] = {}
        # Memoised tokens that stay whole, beside the head: most tokens of code are, and
        # a set difference finds the rest at C speed.
        self._whole: set[str] = set()

    @property
    def known(self) -> frozenset[str]:
        """Every word of the list (read on first use; :attr:`head` holds the commonest)."""
        if self._known is None:
            with gzip.open(self.words_file, "rt", encoding="utf-8") as f:
                self._words = f.read().split()
            self._known = frozenset(self._words)
        return self._known

    def split(self, token: str) -> list[str]:
        """The words of one token (``[token]`` when it is known or not a candidate)."""
        found = self._memo.get(token)
        if found is not None:
            return found
        pieces = [token]
        candidate = token.isascii() and token.isalpha() and token.islower()
        if candidate and token not in self.head and token not in self.known:
            words = self._wordninja().split(token)
            if (
                len(words) > 1
                and all(w in self.known for w in words)
                and not any(len(a) == len(b) == 1 for a, b in itertools.pairwise(words))
                and self._cost(words) < self._unknown_cost(token)
            ):
                pieces = words
        if len(self._memo) >= MEMO_TOKENS:
            self._memo.clear()
            self._whole.clear()
        self._memo[token] = pieces
        if len(pieces) == 1:
            self._whole.add(token)
        return pieces

    def load(self) -> None:
        """Read the whole list and build wordninja's model now, not on first need.

        The streaming engine calls it before forking workers, so that they share one
        load (about 0.3 s) instead of each paying for its own.
        """
        self._wordninja()

    def _wordninja(self) -> Any:
        if self._model is None:
            # Imported here: importing wordninja loads its own 126k-word list.
            import wordninja  # type: ignore[import-untyped]

            self._model = wordninja.LanguageModel(str(self.words_file))
            words = self._words if self.known else []
            # Reversed, so a word listed twice keeps its first (lowest) rank.
            self._rank = dict(zip(reversed(words), range(len(words) - 1, -1, -1), strict=True))
            self._log_n = math.log(len(words))
        return self._model

    def _cost(self, words: list[str]) -> float:
        """wordninja's cost of a split: the sum of ``log((rank + 1) log N)``."""
        return sum(math.log((self._rank[w] + 1) * self._log_n) for w in words)

    def _unknown_cost(self, token: str) -> float:
        """The cost of ``token`` as one unknown word (Norvig's probability)."""
        n = math.exp(self._log_n)
        return math.log(n * self._log_n) + (len(token) - 1) * math.log(10)

    def segment(self, tokens: list[str]) -> list[str]:
        """Every token of a list split; the same list object when nothing was split."""
        # Once per name and per method's code: only the distinct tokens that are neither
        # common words nor already known to stay whole are looked at, found at C speed.
        unseen = set(tokens).difference(self.head, self._whole)
        if not unseen:
            return tokens
        pieces = {t: self.split(t) for t in unseen}
        if all(len(p) == 1 for p in pieces.values()):
            return tokens
        out: list[str] = []
        for t in tokens:
            found = pieces.get(t)
            if found is None:
                out.append(t)
            else:
                out.extend(found)
        return out


_DEFAULT: Segmenter | None = None


def default_segmenter() -> Segmenter:
    """The segmenter of the shipped list, loaded on first use."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Segmenter(WORDS_FILE)
    return _DEFAULT


def segment(tokens: list[str]) -> list[str]:
    """Split the run-together all-lowercase tokens of a sub-token list into words.

    Known words (in the shipped list) and tokens that are not lower-case letters
    (digits, ``_``-free mixed tokens) stay as they are; results are memoised per token.

    Parameters
    ----------
    tokens : list of str
        Sub-tokens, as :func:`~wrdscore.corpora.to_tokens` gives them.

    Returns
    -------
    list of str
        The tokens with each run-together one replaced by its words (``tokens``
        itself when none is).

    Examples
    --------
    >>> segment(["istimeoutsetinrequestcontext"])
    ['is', 'timeout', 'set', 'in', 'request', 'context']
    >>> segment(["get", "user", "name", "2"])
    ['get', 'user', 'name', '2']
    """
    return default_segmenter().segment(tokens)
