"""A small curated list of similarity constraints, added on top of the mined ones.

Mining (:mod:`wrdscore.embeddings.specialise._constraints`) finds what a corpus shows, and a corpus
shows little of some pairs people take for granted: ``get``/``fetch`` are rarely
siblings or documented alike, ``str`` is rejected as ``s-t-r`` + the inflection
``-ing``, and ``up``/``down`` is named ``setUp``/``tearDown``. The list in
``wrdscore/data/curated_pairs.tsv`` covers such pairs: common abbreviations, verb
synonyms and paired operations of programming vocabulary, written from general
knowledge and not read off any corpus or rated pair. It leaves out every pair that
links a token of a reference to a token of its prediction in the 150 rated pairs
shipped with the package, so numbers measured on those pairs do not measure the list.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from wrdscore.embeddings.specialise._constraints import (
    CURATED_SOURCE,
    KINDS,
    Constraints,
    MinedPair,
)
from wrdscore.errors import WrdscoreError

_TOKEN = re.compile(r"[a-z0-9]+")


def curated_pairs_path() -> Path:
    """The packaged list, ``wrdscore/data/curated_pairs.tsv``."""
    return Path(str(resources.files("wrdscore") / "data" / "curated_pairs.tsv"))


def read_curated(path: str | Path | None = None) -> list[MinedPair]:
    """Read a curated list: ``kind<TAB>a<TAB>b`` lines, ``#`` comments.

    For synonyms and contrasts the pair is stored with ``a < b``; an abbreviation
    keeps its order (short form first). Each pair gets support and frames 0 and
    source ``curated``.

    Parameters
    ----------
    path : path, optional
        The list to read; default the packaged one (:func:`curated_pairs_path`).

    Raises
    ------
    WrdscoreError
        If the file is missing, a line is malformed, a token is not a lower-case
        sub-token, or a pair is listed twice.

    Examples
    --------
    >>> pairs = read_curated()
    >>> ("abbreviation", "str", "string") in {(p.kind, p.a, p.b) for p in pairs}
    True
    """
    p = Path(path) if path is not None else curated_pairs_path()
    if not p.is_file():
        raise WrdscoreError(f"curated pairs file {p} does not exist")
    out: list[MinedPair] = []
    seen: dict[frozenset[str], int] = {}
    for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[0] not in KINDS:
            raise WrdscoreError(f"{p}: line {lineno} is not 'kind<TAB>a<TAB>b'")
        kind, a, b = parts
        if not (_TOKEN.fullmatch(a) and _TOKEN.fullmatch(b)) or a == b:
            raise WrdscoreError(
                f"{p}: line {lineno}: tokens must be two different lower-case sub-tokens"
            )
        key = frozenset((a, b))
        if key in seen:
            raise WrdscoreError(f"{p}: line {lineno}: {a}/{b} is already on line {seen[key]}")
        seen[key] = lineno
        if kind != "abbreviation":
            a, b = min(a, b), max(a, b)
        out.append(MinedPair(kind, a, b, 0, 0, "curated list", CURATED_SOURCE))
    return out


def add_curated(constraints: Constraints, curated: Iterable[MinedPair]) -> Constraints:
    """The mined constraints with a curated list on top; the list wins a conflict.

    A mined pair of the same two tokens is dropped, whatever its kind (a curated
    synonym over a mined contrast), and so is a mined abbreviation of a short form
    the list expands (each short form has one expansion, as in mining).

    Examples
    --------
    >>> mined = Constraints(
    ...     contrast=[MinedPair("contrast", "blank", "empty", 9, 3, "is blank|empty")],
    ...     synonym=[],
    ...     abbreviation=[MinedPair("abbreviation", "str", "start", 4, 20, "str -> start")])
    >>> both = add_curated(mined, [
    ...     MinedPair("synonym", "blank", "empty", 0, 0, "", "curated"),
    ...     MinedPair("abbreviation", "str", "string", 0, 0, "", "curated")])
    >>> [(p.kind, p.a, p.b) for p in both]
    [('synonym', 'blank', 'empty'), ('abbreviation', 'str', 'string')]
    """
    curated = list(curated)
    keys = {frozenset((p.a, p.b)) for p in curated}
    shorts = {p.a for p in curated if p.kind == "abbreviation"}

    def kept(p: MinedPair) -> bool:
        if frozenset((p.a, p.b)) in keys:
            return False
        return not (p.kind == "abbreviation" and p.a in shorts)

    def merged(kind: str) -> list[MinedPair]:
        return [p for p in constraints.pairs(kind) if kept(p)] + [
            p for p in curated if p.kind == kind
        ]

    # One keyword per kind of KINDS, spelt out so that mypy checks each field's type.
    return dataclasses.replace(
        constraints,
        contrast=merged("contrast"),
        synonym=merged("synonym"),
        abbreviation=merged("abbreviation"),
    )
