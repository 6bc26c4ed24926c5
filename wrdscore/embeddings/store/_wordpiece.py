"""Vectors for unseen tokens from an encoder's word pieces, with no tokenizer library.

A model distilled from an encoder (``wrdscore distill``) stores, beside its token
vectors, the static vector of every word piece of the encoder's vocabulary. A token
the model has not seen is split into those pieces as BERT's tokenizer splits it --
its normaliser (clean the text, space out CJK characters, strip accents, lowercase),
its pre-tokeniser (whitespace, then every punctuation character on its own) and
WordPiece's greedy longest-match-first -- and gets the mean of their vectors. This
pure-Python copy of the split keeps scoring free of torch, transformers and the
tokenizers library; the tests compare it with the real tokenizer on many words.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.errors import WrdscoreError

PIECES_FORMAT = "wrdscore-pieces/1"


@dataclass(frozen=True)
class WordPieceRules:
    """The settings of a BERT-style tokenizer that decide how a word is split.

    Read from the tokenizer's ``tokenizer.json`` (:meth:`from_tokenizer_json`):
    ``BertNormalizer`` options, and the ``WordPiece`` model's unknown token,
    continuation prefix and longest word.
    """

    unk_token: str = "[UNK]"
    prefix: str = "##"
    max_chars: int = 100
    lowercase: bool = True
    strip_accents: bool = True
    clean_text: bool = True
    chinese_chars: bool = True

    @classmethod
    def from_tokenizer_json(cls, spec: dict[str, Any]) -> WordPieceRules | None:
        """The rules of a tokenizer (``tokenizer.json`` as a dict); None if not BERT's.

        Only a ``BertNormalizer`` + ``BertPreTokenizer`` + ``WordPiece`` tokenizer is
        copied here; any other (BPE, SentencePiece, other normalisers) gets ``None``.
        """
        norm, pre, model = spec.get("normalizer"), spec.get("pre_tokenizer"), spec.get("model")
        if not (
            isinstance(norm, dict)
            and norm.get("type") == "BertNormalizer"
            and isinstance(pre, dict)
            and pre.get("type") == "BertPreTokenizer"
            and isinstance(model, dict)
            and model.get("type") == "WordPiece"
        ):
            return None
        lowercase = bool(norm.get("lowercase", True))
        accents = norm.get("strip_accents")
        return cls(
            unk_token=str(model.get("unk_token", "[UNK]")),
            prefix=str(model.get("continuing_subword_prefix", "##")),
            max_chars=int(model.get("max_input_chars_per_word", 100)),
            lowercase=lowercase,
            # BERT's rule: unset means "as lowercase".
            strip_accents=lowercase if accents is None else bool(accents),
            clean_text=bool(norm.get("clean_text", True)),
            chinese_chars=bool(norm.get("handle_chinese_chars", True)),
        )

    def to_json(self) -> dict[str, Any]:
        """The rules as stored in a model's ``pieces/vocab.json``."""
        return asdict(self)

    def can_occur(self, piece: str) -> bool:
        """Whether the split can ever produce ``piece`` (a piece worth a stored vector).

        The pre-tokeniser leaves words that are one punctuation character or hold none,
        and no whitespace: ``[unused3]`` or ``##!`` never come out of a split.
        """
        body = piece[len(self.prefix) :] if piece.startswith(self.prefix) else piece
        if not body or any(_is_whitespace(c) for c in body):
            return False
        if len(body) == 1 and _is_punctuation(body):
            return body == piece
        return not any(_is_punctuation(c) for c in body)


def _is_control(ch: str) -> bool:
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_whitespace(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) == "Zs"


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # BERT counts every non-alphanumeric ASCII symbol ($, ^, `...) as punctuation.
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class WordPieces:
    """Word-piece vectors, and the split that gives an unseen token its pieces.

    Parameters
    ----------
    pieces : list of str
        The word pieces with a vector (continuations carry the rules' prefix).
    vectors : ndarray of shape (len(pieces), dim)
        Each piece's static vector.
    rules : WordPieceRules
        How the encoder's tokenizer splits words.

    Examples
    --------
    >>> wp = WordPieces(["get", "##ter", "set"], np.eye(3, dtype=np.float32), WordPieceRules())
    >>> wp.split("Getter"), wp.split("getx"), wp.split("get-set")
    (['get', '##ter'], ['[UNK]'], ['get', '[UNK]', 'set'])
    >>> wp.vector("getter").tolist()
    [0.5, 0.5, 0.0]
    """

    def __init__(self, pieces: list[str], vectors: NDArray, rules: WordPieceRules) -> None:
        if len(pieces) != len(vectors) or np.ndim(vectors) != 2:
            raise WrdscoreError(
                f"word pieces: {len(pieces)} pieces but vectors of shape {np.shape(vectors)}"
            )
        self.pieces = pieces
        self.vectors = vectors
        self.rules = rules
        self._index = {p: i for i, p in enumerate(pieces)}
        self._max_len = max((len(p) for p in pieces), default=0)

    def _normalise(self, text: str) -> str:
        r = self.rules
        if r.clean_text:
            text = "".join(
                " " if _is_whitespace(c) else c
                for c in text
                if not (c in "\x00\ufffd" or _is_control(c))
            )
        if r.chinese_chars:
            text = "".join(f" {c} " if _is_cjk(ord(c)) else c for c in text)
        if r.strip_accents:
            text = "".join(
                c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn"
            )
        if r.lowercase:
            text = text.lower()
        return text

    def _words(self, text: str) -> list[str]:
        words: list[str] = []
        for chunk in self._normalise(text).split():
            current = ""
            for c in chunk:
                if _is_punctuation(c):
                    if current:
                        words.append(current)
                    words.append(c)
                    current = ""
                else:
                    current += c
            if current:
                words.append(current)
        return words

    def _word_pieces(self, word: str) -> list[str]:
        r = self.rules
        if len(word) > r.max_chars:
            return [r.unk_token]
        out: list[str] = []
        start = 0
        while start < len(word):
            prefix = r.prefix if start else ""
            # Longest match first; no piece is longer than the longest stored one.
            for end in range(min(len(word), start + self._max_len), start, -1):
                piece = prefix + word[start:end]
                if piece in self._index:
                    out.append(piece)
                    start = end
                    break
            else:
                return [r.unk_token]  # as BERT: a word with an unmatched part is unknown whole
        return out

    def split(self, token: str) -> list[str]:
        """The word pieces of ``token`` as the encoder's tokenizer gives them."""
        return [p for word in self._words(token) for p in self._word_pieces(word)]

    def vector(self, token: str) -> NDArray[np.float64]:
        """Mean vector of the token's known pieces; zero when it has none (all unknown)."""
        rows = [self._index[p] for p in self.split(token) if p in self._index]
        if not rows:
            return np.zeros(self.vectors.shape[1])
        return np.asarray(self.vectors[rows], dtype=np.float64).mean(axis=0)


def save_pieces(pieces: WordPieces, folder: Path) -> None:
    """Write ``pieces`` into the (new) folder ``folder``: ``vectors.npy`` and
    ``vocab.json`` (format, the splitting rules, the pieces in row order)."""
    np.save(folder / "vectors.npy", np.ascontiguousarray(pieces.vectors))
    spec = {"format": PIECES_FORMAT, "rules": pieces.rules.to_json(), "pieces": pieces.pieces}
    (folder / "vocab.json").write_text(
        json.dumps(spec, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )


def load_pieces(folder: Path) -> WordPieces:
    """What :func:`save_pieces` wrote, the vectors memory-mapped.

    Raises
    ------
    ValueError, KeyError, TypeError, OSError
        A folder that is not such pieces (the caller names it in its one-line error).
    """
    spec = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    if not isinstance(spec, dict) or spec.get("format") != PIECES_FORMAT:
        raise ValueError(f"not a {PIECES_FORMAT} vocabulary")
    names = spec["pieces"]
    if not isinstance(names, list) or not all(isinstance(p, str) for p in names):
        raise ValueError("pieces must be a list of strings")
    vectors = np.load(folder / "vectors.npy", mmap_mode="r")
    floats = (np.dtype(np.float32), np.dtype(np.float16))
    if vectors.dtype not in floats or vectors.ndim != 2 or len(vectors) != len(names):
        raise ValueError("shapes disagree with vocab.json")
    return WordPieces(names, vectors, WordPieceRules(**spec["rules"]))
