"""Rename pairs split once into a tuning and a held-out part, and negatives drawn for them."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from wrdscore.errors import WrdscoreError

Pair = tuple[str, str]

#: The rule that splits the renames, fixed once: a pair (in either order) is held out when
#: the first 8 bytes of the SHA-256 of its two names, sorted and joined by a tab, read as a
#: big-endian integer, are 0 modulo 5 (about 20%); the rest is the tuning part.
HELD_OUT_MODULUS = 5
#: The seed of every draw below (the partners of the negative pairs).
SEED = 26


def held_out(a: str, b: str) -> bool:
    """Whether the rename pair ``a``/``b`` (either order) is in the held-out part.

    Examples
    --------
    >>> held_out("index", "idx") == held_out("idx", "index")
    True
    """
    key = "\t".join(sorted((a, b))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % HELD_OUT_MODULUS == 0


def read_renames(path: str | Path) -> list[Pair]:
    """The ``old<TAB>new`` lines of a renames file, in file order.

    Raises
    ------
    WrdscoreError
        The file cannot be read, or a line is not two names separated by one tab.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WrdscoreError(f"cannot read renames {path}: {exc}") from None
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        a, tab, b = line.partition("\t")
        if not (a and tab and b) or "\t" in b:
            raise WrdscoreError(f"{path}:{number}: expected old<TAB>new, got {line!r}")
        pairs.append((a, b))
    return pairs


def split_renames(pairs: Iterable[Pair]) -> tuple[list[Pair], list[Pair]]:
    """The tuning and held-out parts of rename pairs, each without repeats.

    A pair given twice, in either order, is kept once, in its first order and place, so
    both parts are sets of unordered pairs and no pair is in both.
    """
    seen: set[tuple[str, ...]] = set()
    tune: list[Pair] = []
    test: list[Pair] = []
    for a, b in pairs:
        key = tuple(sorted((a, b)))
        if key in seen:
            continue
        seen.add(key)
        (test if held_out(a, b) else tune).append((a, b))
    return tune, test


def pairs_sha256(pairs: Sequence[Pair]) -> str:
    """SHA-256 of pairs written as ``a<TAB>b`` lines (the held-out part's fingerprint)."""
    return hashlib.sha256("".join(f"{a}\t{b}\n" for a, b in pairs).encode("utf-8")).hexdigest()


def negative_pairs(
    positives: Sequence[Pair], known: Iterable[Pair], *, related: bool, seed: int = SEED
) -> list[Pair]:
    """One negative pair per positive ``(a, b)`` where one can be drawn: ``(a, c)``.

    ``c`` is the new name of another positive, drawn uniformly with ``seed``: any such
    name (``related=False``), or one sharing at least one sub-token with ``a``
    (``related=True``). Never ``c == a`` or ``c == b``, and never a pair (either order)
    in ``known`` (every rename, so no negative is a rename someone made).

    Parameters
    ----------
    positives : sequence of (str, str)
        The held-out renames, names as space-separated sub-tokens.
    known : iterable of (str, str)
        Every rename (both parts), none of which may come out as a negative.
    related : bool
        Draw partners that share a sub-token with ``a`` (harder negatives).
    seed : int
        Seed of the draws; the same inputs and seed give the same pairs.

    Returns
    -------
    list of (str, str)
        In the order of ``positives``; a positive without an allowed partner has none.

    Examples
    --------
    >>> pos = [("file path", "path"), ("dir path", "folder"), ("user name", "login")]
    >>> negative_pairs(pos, pos, related=True)
    [('dir path', 'path')]
    """
    rng = np.random.default_rng(seed)
    renamed = {tuple(sorted(p)) for p in known}
    news = sorted({b for _, b in positives})
    by_token: dict[str, list[str]] = defaultdict(list)
    for c in news:
        for tok in set(c.split()):
            by_token[tok].append(c)

    def allowed(a: str, b: str, c: str) -> bool:
        return c not in (a, b) and tuple(sorted((a, c))) not in renamed

    out = []
    for a, b in positives:
        if related:
            # The related pools are small: filtered whole, then one drawn.
            pool = [
                c
                for c in sorted({c for t in set(a.split()) for c in by_token[t]})
                if allowed(a, b, c)
            ]
            if pool:
                out.append((a, pool[int(rng.integers(len(pool)))]))
            continue
        # In the big pool a few draws find an allowed partner.
        for _ in range(100):
            c = news[int(rng.integers(len(news)))]
            if allowed(a, b, c):
                out.append((a, c))
                break
    return out
