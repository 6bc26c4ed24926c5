"""Vectors for a fused model's unseen tokens: each part's own fallback, scaled and joined.

A fused model (``wrdscore fuse``) concatenates two models' scaled vectors of every token
of their union. A token outside the union still has a vector in each part where that
part can make one: FastText n-grams in a code model, word pieces in a model distilled
from an encoder. The fused model keeps those tables, with the scale each part was fused
with, so an unseen token ``t`` gets

.. math:: v(t) = \\big[\\, s_1\\, f_1(t) \\,;\\; s_2\\, f_2(t) \\,\\big]

with ``f_i`` part ``i``'s fallback (the zero vector for a part that has none) and
``s_i = w_i / \\bar n_i`` its fusion scale. Specialising the fused model (counter-fitting
its vocabulary) leaves the tables as they were, as it leaves FastText's n-grams.

On disk, a MODEL_DIR's ``fallback/`` holds ``parts.json`` (format, and per part its
width, scale and kind) and per part with a table ``N/ngrams.npy`` or ``N/pieces/``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wrdscore.embeddings.store._subword import NGRAM_HASHES, hashing, subword_vector
from wrdscore.embeddings.store._wordpiece import WordPieces, load_pieces, save_pieces
from wrdscore.errors import WrdscoreError

FALLBACK_DIR = "fallback"
FALLBACK_FORMAT = "wrdscore-fallback/1"
_FLOATS = (np.dtype(np.float32), np.dtype(np.float16))


@dataclass(frozen=True)
class FallbackPart:
    """One part of a fused model: its width, its fusion scale and what fills it.

    ``ngrams`` (FastText bucket vectors, with ``min_n``, ``max_n`` and the
    ``ngram_hash`` their rows follow) or ``pieces`` (an encoder's word pieces), or
    neither: the part is then zero for unseen tokens.
    """

    dim: int
    scale: float
    ngrams: NDArray | None = None
    min_n: int = 0
    max_n: int = 0
    ngram_hash: str = ""
    pieces: WordPieces | None = None

    @property
    def kind(self) -> str:
        """``ngrams``, ``pieces`` or ``none``."""
        if self.ngrams is not None:
            return "ngrams"
        return "pieces" if self.pieces is not None else "none"

    def function(self) -> Callable[[str], NDArray]:
        """The unscaled vector of an unseen token in this part."""
        if self.pieces is not None:
            return self.pieces.vector
        ngrams = self.ngrams
        if ngrams is None:
            return lambda _token: np.zeros(self.dim)
        hashes = hashing(self.ngram_hash)
        min_n, max_n = self.min_n, self.max_n
        return lambda token: subword_vector(token, ngrams, min_n, max_n, hashes)


class FusedFallback:
    """The fallbacks of a fused model's parts (see the module's formula).

    Parameters
    ----------
    parts : list of FallbackPart
        In the order of the fused vector's blocks; their widths add up to the model's.

    Examples
    --------
    >>> from wrdscore.embeddings.store._wordpiece import WordPieceRules
    >>> pieces = WordPieces(["get", "##ter"], np.eye(2, dtype=np.float32), WordPieceRules())
    >>> fb = FusedFallback([FallbackPart(dim=1, scale=1.0), FallbackPart(2, 0.5, pieces=pieces)])
    >>> fb.vector("getter").tolist()
    [0.0, 0.25, 0.25]
    """

    def __init__(self, parts: list[FallbackPart]) -> None:
        if not parts or all(p.kind == "none" for p in parts):
            raise WrdscoreError("a fused fallback needs at least one part with a table")
        for p in parts:
            width = (
                p.ngrams.shape[1]
                if p.ngrams is not None
                else p.pieces.vectors.shape[1]
                if p.pieces is not None
                else p.dim
            )
            if width != p.dim:
                raise WrdscoreError(f"fallback part of width {p.dim} holds {width}-wide vectors")
            if not np.isfinite(p.scale) or p.scale < 0:
                raise WrdscoreError(f"fallback part scale {p.scale} is not a finite, >= 0 number")
        self.parts = parts
        self._functions = [p.function() for p in parts]

    @property
    def dim(self) -> int:
        """Width of the fused vector."""
        return sum(p.dim for p in self.parts)

    def vector(self, token: str) -> NDArray[np.float64]:
        """The unseen ``token``'s fused vector: each part's fallback times its scale."""
        return np.concatenate(
            [
                p.scale * np.asarray(f(token), dtype=np.float64)
                for p, f in zip(self.parts, self._functions, strict=True)
            ]
        )

    def hash_into(self, h: Any) -> None:
        """Feed everything that decides the vectors into the hash ``h`` (a model's sha)."""
        for p in self.parts:
            h.update(f"{p.kind}\t{p.dim}\t{p.scale!r}\t{p.min_n}\t{p.max_n}\n".encode())
            if p.ngrams is not None:
                h.update(np.ascontiguousarray(p.ngrams, dtype=np.float32).data)
            if p.pieces is not None:
                h.update("\n".join(p.pieces.pieces).encode("utf-8"))
                h.update(np.ascontiguousarray(p.pieces.vectors, dtype=np.float32).data)

    def describe(self) -> list[dict[str, Any]]:
        """Per part: kind, width, scale (for ``model.json``)."""
        return [{"kind": p.kind, "dim": p.dim, "scale": p.scale} for p in self.parts]


def part_of(
    emb_ngrams: NDArray | None,
    min_n: int,
    max_n: int,
    ngram_hash: str,
    pieces: WordPieces | None,
    fallback: FusedFallback | None,
    dim: int,
    scale: float,
    float16: bool,
) -> list[FallbackPart]:
    """The fallback parts one model contributes to a fusion at ``scale``.

    A fused model contributes its own parts, rescaled (fusions nest flat); a model
    with word pieces or n-grams one part; any other one a part of zeros.
    """
    dtype = np.float16 if float16 else np.float32
    if fallback is not None:
        return [
            FallbackPart(p.dim, p.scale * scale, p.ngrams, p.min_n, p.max_n, p.ngram_hash, p.pieces)
            for p in fallback.parts
        ]
    if pieces is not None:
        kept = WordPieces(pieces.pieces, np.asarray(pieces.vectors, dtype=dtype), pieces.rules)
        return [FallbackPart(dim, scale, pieces=kept)]
    if emb_ngrams is not None:
        table = np.asarray(emb_ngrams, dtype=dtype)
        return [FallbackPart(dim, scale, table, min_n, max_n, ngram_hash)]
    return [FallbackPart(dim, scale)]


def write_fallback(fallback: FusedFallback, folder: Path) -> None:
    """Write ``fallback`` into the (new, empty) folder ``folder``."""
    spec: dict[str, Any] = {"format": FALLBACK_FORMAT, "parts": []}
    for i, p in enumerate(fallback.parts):
        entry: dict[str, Any] = {"kind": p.kind, "dim": p.dim, "scale": p.scale}
        if p.ngrams is not None:
            (folder / str(i)).mkdir()
            np.save(folder / str(i) / "ngrams.npy", np.ascontiguousarray(p.ngrams))
            entry.update(min_n=p.min_n, max_n=p.max_n, ngram_hash=p.ngram_hash)
        elif p.pieces is not None:
            (folder / str(i) / "pieces").mkdir(parents=True)
            save_pieces(p.pieces, folder / str(i) / "pieces")
        spec["parts"].append(entry)
    (folder / "parts.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")


def read_fallback(model_dir: Path) -> FusedFallback | None:
    """A MODEL_DIR's fused fallback (``fallback/``), None where it has none."""
    folder = model_dir / FALLBACK_DIR
    if not folder.is_dir():
        return None
    try:
        spec = json.loads((folder / "parts.json").read_text(encoding="utf-8"))
        if not isinstance(spec, dict) or spec.get("format") != FALLBACK_FORMAT:
            raise ValueError(f"not a {FALLBACK_FORMAT} description")
        parts = [_read_part(folder / str(i), entry) for i, entry in enumerate(spec["parts"])]
        return FusedFallback(parts)
    except (ValueError, KeyError, TypeError, OSError, json.JSONDecodeError) as exc:
        raise WrdscoreError(f"{folder}: corrupt fallback ({exc})") from None
    except WrdscoreError as exc:
        raise WrdscoreError(f"{folder}: corrupt fallback ({exc})") from None


def _read_part(folder: Path, entry: dict[str, Any]) -> FallbackPart:
    kind, dim, scale = entry["kind"], int(entry["dim"]), float(entry["scale"])
    if kind == "none":
        return FallbackPart(dim, scale)
    if kind == "ngrams":
        table = np.load(folder / "ngrams.npy", mmap_mode="r")
        if table.dtype not in _FLOATS or table.ndim != 2 or not np.isfinite(table).all():
            raise ValueError("n-gram vectors are not a finite float matrix")
        if entry["ngram_hash"] not in NGRAM_HASHES:
            raise ValueError(f"unknown ngram_hash {entry['ngram_hash']!r}")
        return FallbackPart(
            dim, scale, table, int(entry["min_n"]), int(entry["max_n"]), entry["ngram_hash"]
        )
    if kind == "pieces":
        pieces = load_pieces(folder / "pieces")
        if not np.isfinite(pieces.vectors).all():
            raise ValueError("a word-piece vector has a non-finite value")
        return FallbackPart(dim, scale, pieces=pieces)
    raise ValueError(f"unknown part kind {kind!r}")


def fallback_sha(fallback: FusedFallback) -> str:
    """SHA-256 (hex) of a fallback alone (what ``model.json`` records of it)."""
    h = hashlib.sha256()
    fallback.hash_into(h)
    return h.hexdigest()
