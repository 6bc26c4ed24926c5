"""Names as models write them now: run-together words segmented.

Language models often write a method name all in lower case (``istimeoutsetinrequestcontext``,
``getuserbyid``); the sub-token splitter sees one unknown token there, so every metric
would score it as one unseen word. :func:`segment` splits such tokens into words with
``wordninja``'s unigram model (each word costs ``log((rank + 1) log N)`` for its rank in a
frequency-ordered list of ``N`` words; the cheapest split wins), over a code-aware word list
shipped in ``wrdscore/data``: identifier words of OpenJDK 17 by frequency, then English
Wikipedia words (wordninja's own list). A token the bundled model has a vector for stays
whole, and a split that leaves a single letter beside a word is refused (issue 33: splitting
``substr`` or ``msgs`` lost what the embeddings knew of them). Metrics call it only under
``segment=True`` (``--segment``): it is off by default, since on held-out renames it did not
score at least as well as leaving names whole (issue 33's rule). The list was chosen by exact
split accuracy on held-out lower-cased camelCase names (``scripts/segment_accuracy.py``; the
numbers are in docs/scoring.md, "Names as models write them", and docs/history.md). Only the
list's commonest words are read on first use; the rest, the model's vocabulary and wordninja
only when some token is not among them, so scoring ordinary names pays a few milliseconds.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
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


#: The bundled default model's vocabulary (``tokens`` of its ``fast/vocab.json``): a
#: token it has a vector for stays whole, since splitting it can only lose meaning
#: (``substr`` has its own vector; ``sub`` and ``str`` do not mean it). corpora/ reads the
#: file itself, not through embeddings/, which comes after it in the data flow.
KEEP_FILE = Path(__file__).resolve().parents[1] / "data" / "default" / "fast" / "vocab.json"
#: The list's code part: its first words are OpenJDK 17's identifier words seen 20 times
#: or more (``wrdscore/data/SEGMENT_WORDS.md``); the hash test pins the file to it.
CODE_WORDS = 5_837
#: The single letters camelCase writes beside a word in its own right: coordinates
#: (``minX``, ``getY``, ``zOrder``). Any other letter beside a word is most likely a
#: piece of an abbreviation or a plural (``i ndx``, ``eq l``, ``msg s``, ``t row``).
CODE_LETTERS = frozenset("xyz")


@dataclass(frozen=True)
class Segmentation:
    """How one token was segmented: its pieces and why (what ``explain`` shows).

    Attributes
    ----------
    token : str
        The token looked at.
    pieces : tuple of str
        Its words (``(token,)`` when it stays whole).
    reason : str
        Why: ``split``, or why it stays whole (``known word``, ``model vocabulary``,
        ``not lower-case letters``, or the refusal of wordninja's split, which is
        quoted).
    """

    token: str
    pieces: tuple[str, ...]
    reason: str


class Segmenter:
    """Split all-lowercase run-together tokens into the words of a frequency-ordered list.

    A token is a candidate only if it is lower-case ASCII letters. It stays whole when it
    is in the list (a known word) or in ``keep`` (a model's vocabulary: the embeddings
    have a vector for it). Otherwise wordninja's split is kept only if every piece is in
    the list; no two single letters are neighbours (camelCase never writes those:
    ``getXY`` splits as ``get xy``, so ``xqzv`` is not cut into letters); no single letter
    stands beside a word unless the letter is a coordinate (:data:`CODE_LETTERS`) and the
    word is a code word (the list's first :data:`CODE_WORDS`): ``i ndx``, ``eq l``,
    ``msg s`` and ``t row`` are refused, ``min x`` is not; and the split is more likely
    than the token being one unknown word. That likelihood is Norvig's for an unknown
    word of ``L`` letters, ``10 / (N 10^L)`` (*Beautiful Data*, ch. 14), on wordninja's
    Zipf scale: cost ``log(N log N) + (L - 1) log 10`` against the pieces' summed
    ``log((rank + 1) log N)``. It keeps rare whole words such as ``evaluator`` whole
    (not ``eval ua tor``) and splits long run-together names.

    Parameters
    ----------
    words_file : path
        A gzipped list of words, whitespace-separated, most frequent first (the format
        ``wordninja.LanguageModel`` reads).
    keep : path or iterable of str, optional
        Tokens never split: a model's ``vocab.json`` (its ``tokens``, read on first
        need, as the list's tail is) or the tokens themselves. None keeps only the list's
        words.

    Examples
    --------
    >>> seg = Segmenter(WORDS_FILE, keep=["substr"])
    >>> seg.split("getuserbyid"), seg.split("timeout"), seg.split("xqzv")
    (['get', 'user', 'by', 'id'], ['timeout'], ['xqzv'])
    >>> seg.split("substr"), seg.split("msgs"), seg.split("setminx")
    (['substr'], ['msgs'], ['set', 'min', 'x'])
    """

    def __init__(
        self, words_file: str | Path, keep: str | Path | Iterable[str] | None = None
    ) -> None:
        self.words_file = Path(words_file)
        with gzip.open(self.words_file) as f:
            head = f.read(HEAD_BYTES)
        # The last word may be cut by the byte limit: the head ends at the last newline.
        self.head = frozenset(head[: head.rfind(b"\n") + 1].decode("utf-8").split())
        self._keep_file: Path | None = None
        self._keep: frozenset[str] | None = None
        if isinstance(keep, str | Path):
            self._keep_file = Path(keep)
        elif keep is not None:
            self._keep = frozenset(keep)
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

    @property
    def keep(self) -> frozenset[str]:
        """The tokens never split (a model's vocabulary; read on first use)."""
        if self._keep is None:
            tokens: list[str] = []
            if self._keep_file is not None:
                data = json.loads(self._keep_file.read_text(encoding="utf-8"))
                tokens = data["tokens"] if isinstance(data, dict) else []
            self._keep = frozenset(tokens)
        return self._keep

    def split(self, token: str) -> list[str]:
        """The words of one token (``[token]`` when it stays whole)."""
        found = self._memo.get(token)
        if found is not None:
            return found
        pieces = list(self.decide(token).pieces)
        if len(self._memo) >= MEMO_TOKENS:
            self._memo.clear()
            self._whole.clear()
        self._memo[token] = pieces
        if len(pieces) == 1:
            self._whole.add(token)
        return pieces

    def decide(self, token: str) -> Segmentation:
        """How ``token`` is segmented, and why (not memoised: :meth:`split` is).

        Examples
        --------
        >>> seg = Segmenter(WORDS_FILE)
        >>> seg.decide("indx").reason
        "refused 'i ndx': a single letter beside a word"
        """
        if not (token.isascii() and token.isalpha() and token.islower()):
            return Segmentation(token, (token,), "not lower-case letters")
        if token in self.head or token in self.known:
            return Segmentation(token, (token,), "known word")
        if token in self.keep:
            return Segmentation(token, (token,), "model vocabulary")
        words = self._wordninja().split(token)
        if len(words) == 1:
            return Segmentation(token, (token,), "no split found")
        why = self._refusal(token, words)
        if why:
            return Segmentation(token, (token,), f"refused {' '.join(words)!r}: {why}")
        return Segmentation(token, tuple(words), "split")

    def _refusal(self, token: str, words: list[str]) -> str:
        """Why wordninja's split of ``token`` is refused; empty when it is kept."""
        if not all(w in self.known for w in words):
            return "a piece is not a known word"
        for a, b in itertools.pairwise(words):
            if len(a) == len(b) == 1:
                return "two single letters side by side"
            if (len(a) == 1) != (len(b) == 1):
                letter, word = (a, b) if len(a) == 1 else (b, a)
                if letter not in CODE_LETTERS or self._rank[word] >= CODE_WORDS:
                    return "a single letter beside a word"
        if self._cost(words) >= self._unknown_cost(token):
            return "less likely than one unknown word"
        return ""

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
    """The segmenter of the shipped list that keeps the bundled model's vocabulary whole,
    loaded on first use."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Segmenter(WORDS_FILE, keep=KEEP_FILE)
    return _DEFAULT


def segmentation(token: str) -> Segmentation:
    """How :func:`segment` treats one token, and why (what ``wrdscore explain`` shows).

    Examples
    --------
    >>> segmentation("getuserbyid")
    Segmentation(token='getuserbyid', pieces=('get', 'user', 'by', 'id'), reason='split')
    """
    return default_segmenter().decide(token)


def segment(tokens: list[str]) -> list[str]:
    """Split the run-together all-lowercase tokens of a sub-token list into words.

    Known words (in the shipped list), tokens the bundled model has a vector for, and
    tokens that are not lower-case letters (digits, ``_``-free mixed tokens) stay as they
    are, and so does a token whose split would leave a single letter beside a word
    (see :class:`Segmenter`); results are memoised per token.

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
    >>> segment(["substr", "indx"])  # both have vectors in the bundled model
    ['substr', 'indx']
    """
    return default_segmenter().segment(tokens)
