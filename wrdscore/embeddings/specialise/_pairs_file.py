"""The ``pairs.tsv`` file mined constraints are kept in: checked, written and read.

Mining (:mod:`._constraints`) yields :class:`~._constraints.MinedPair` objects; this module
is their one file format, shared by ``wrdscore corpus constraints``, ``specialise`` and
``train --specialise`` (which stores the file in the MODEL_DIR).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from wrdscore.atomic import atomic_write, check_writable
from wrdscore.corpora import MANIFEST_FILE, open_corpus
from wrdscore.embeddings.specialise._constraints import KINDS, PAIRS_FILE, MinedPair
from wrdscore.errors import WrdscoreError

PAIRS_HEADER = "kind\ta\tb\tsupport\tframes\texample\tsource"
#: The header of pairs files written before the ``source`` column (still read).
_OLD_HEADER = "kind\ta\tb\tsupport\tframes\texample"


def check_pairs_output(
    path: str | Path, corpus_dir: str | Path | None = None, force: bool = False
) -> Path:
    """Fail now, before mining, if :func:`write_pairs` must not or cannot write ``path``.

    An existing file is refused without ``force``; a file of the corpus the pairs are
    mined from (its ``manifest.json`` or record files) is refused even with it, since
    replacing it would destroy the corpus.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pairs.tsv"
    >>> _ = f.write_text("")
    >>> check_pairs_output(f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wrdscore.errors.WrdscoreError: output .../pairs.tsv already exists (use --force to replace it)
    """
    target = Path(path)
    if corpus_dir is not None and target.exists():
        corpus = open_corpus(corpus_dir)
        own = [corpus.path / MANIFEST_FILE, *corpus.record_files()]
        hit = next((f for f in own if f.exists() and os.path.samefile(f, target)), None)
        if hit is not None:
            raise WrdscoreError(
                f"output {target} is the corpus's own {hit.name}; writing the pairs there "
                "would destroy the corpus (choose another file)"
            )
    if target.exists() and not target.is_dir() and not force:
        raise WrdscoreError(f"output {target} already exists (use --force to replace it)")
    return check_writable(target)


def write_pairs(pairs: Iterable[MinedPair], path: str | Path, *, force: bool = False) -> Path:
    """Write pairs as a tab-separated file with a header (atomically).

    Columns: ``kind a b support frames example source`` (see :class:`MinedPair`;
    an unrecorded source is written ``-``). An existing ``path`` is refused unless
    ``force``.
    """
    if Path(path).exists() and not force:
        raise WrdscoreError(f"output {path} already exists (use --force to replace it)")
    with atomic_write(path) as fh:
        fh.write(PAIRS_HEADER + "\n")
        for line in format_pairs(pairs):
            fh.write(line + "\n")
    return Path(path)


def pairs_file(pairs: Iterable[MinedPair]) -> dict[str, str]:
    """The ``pairs.tsv`` of a specialised MODEL_DIR, for ``save_embeddings(files=...)``.

    Examples
    --------
    >>> pairs_file([MinedPair("synonym", "get", "fetch", 3, 2, "getX/fetchX")])["pairs.tsv"]
    'kind\\ta\\tb\\tsupport\\tframes\\texample\\tsource\\nsynonym\\tget\\tfetch\\t3\\t2\\tgetX/fetchX\\t-\\n'
    """
    return {PAIRS_FILE: "".join(f"{line}\n" for line in [PAIRS_HEADER, *format_pairs(pairs)])}


def format_pairs(pairs: Iterable[MinedPair]) -> Iterator[str]:
    """One tab-separated line per pair (no header)."""
    for p in pairs:
        example = p.example.replace("\t", " ").replace("\n", " ")
        yield f"{p.kind}\t{p.a}\t{p.b}\t{p.support}\t{p.frames}\t{example}\t{p.source or '-'}"


def read_pairs(path: str | Path) -> list[MinedPair]:
    """Read a file written by :func:`write_pairs` (or an older one without ``source``).

    Raises
    ------
    WrdscoreError
        If the file is missing or a line is malformed.
    """
    p = Path(path)
    if not p.is_file():
        raise WrdscoreError(f"pairs file {p} does not exist")
    lines = p.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] not in (PAIRS_HEADER, _OLD_HEADER):
        raise WrdscoreError(f"{p}: not a pairs file (expected the header {PAIRS_HEADER!r})")
    columns = len(lines[0].split("\t"))
    out = []
    for lineno, line in enumerate(lines[1:], 2):
        parts = line.split("\t")
        if len(parts) != columns or parts[0] not in KINDS:
            raise WrdscoreError(f"{p}: line {lineno} is not '{lines[0].replace(chr(9), ' ')}'")
        source = parts[6] if columns == 7 and parts[6] != "-" else ""
        try:
            out.append(
                MinedPair(
                    parts[0], parts[1], parts[2], int(parts[3]), int(parts[4]), parts[5], source
                )
            )
        except ValueError:
            raise WrdscoreError(
                f"{p}: line {lineno}: support and frames must be integers"
            ) from None
    return out
