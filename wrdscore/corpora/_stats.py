"""``wrdscore corpus stats``: what a corpus holds, read back from its records."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from wrdscore.corpora._corpus import open_corpus
from wrdscore.corpora._ingest import COUNT_KEYS
from wrdscore.errors import WrdscoreError

# Names of this many sub-tokens or more share the histogram's last row.
_LONGEST_ROW = 10
_FAILED_SHOWN = 10
_BAR_WIDTH = 40


@dataclass(frozen=True)
class CorpusStats:
    """Counts of one corpus.

    Attributes
    ----------
    manifest : dict
        The corpus manifest.
    methods : int
        Records read (checked against the manifest's count).
    top_tokens : list of (str, int)
        The most frequent sub-tokens over all method names, most frequent first
        (ties in alphabetical order).
    name_lengths : dict of int to int
        How many names have 1, 2, ... sub-tokens.
    """

    manifest: dict[str, Any]
    methods: int
    top_tokens: list[tuple[str, int]]
    name_lengths: dict[int, int]


def corpus_stats(path: str | os.PathLike[str], top: int = 20) -> CorpusStats:
    """Stream a corpus once and count its tokens and name lengths.

    Parameters
    ----------
    path : path-like
        A folder written by ``wrdscore ingest``.
    top : int
        How many of the most frequent tokens to keep.

    Raises
    ------
    WrdscoreError
        If the folder is not a corpus, is corrupt, or holds a different number of
        records than its manifest says.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from wrdscore.corpora import ingest
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A.java").write_text("class A { int getX() {} int getY() {} void run() {} }")
    >>> _ = ingest([d], d / "c", jobs=1, quiet=True)
    >>> s = corpus_stats(d / "c", top=2)
    >>> s.methods, s.top_tokens, s.name_lengths
    (3, [('get', 2), ('run', 1)], {1: 1, 2: 2})
    """
    if top < 1:
        raise WrdscoreError(f"--top must be at least 1, not {top}")
    corpus = open_corpus(path)
    tokens: Counter[str] = Counter()
    lengths: Counter[int] = Counter()
    methods = 0
    for record in corpus.iter_methods():
        tokens.update(record["tokens"])
        lengths[len(record["tokens"])] += 1
        methods += 1
    # iter_methods has checked ``methods`` against the manifest's count.
    ranked = sorted(tokens.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return CorpusStats(corpus.manifest, methods, ranked, dict(sorted(lengths.items())))


def stats_tables(stats: CorpusStats) -> list[Table]:
    """Rich tables for the terminal: summary, top tokens, name-length histogram."""
    m = stats.manifest
    counts = m.get("counts", {})
    summary = Table(title="corpus", show_header=False)
    summary.add_column("what")
    summary.add_column("value", justify="right")
    for source in m.get("sources", []):
        summary.add_row(
            f"source ({source['kind']})",
            f"{source['path']}  {source['size']:,} B  sha256 {source['sha256'][:12]}",
        )
    language = m.get("language")
    if language is not None:
        summary.add_row("language", str(language))
        summary.add_row("grammars", ", ".join(map(str, (m.get("grammars") or {}).values())))
    if language in (None, "all"):
        # The parser and its fallback are Java's: a corpus of one other language was read
        # with its grammar only, so they were not used (it showed Python's as javalang).
        parser = m.get("parser", {})
        fallback = m.get("fallback_parser") or {}
        summary.add_row("parser", parser.get("version", "?"))
        summary.add_row("fallback parser", fallback.get("version", "none"))
    for key in COUNT_KEYS:
        if key in counts:
            summary.add_row(key.replace("_", " "), f"{counts[key]:,}")
    summary.add_row("wall time", f"{m.get('wall_seconds', 0):.1f} s")
    summary.add_row("wrdscore", str(m.get("wrdscore_version", "?")))

    top = Table(title=f"top {len(stats.top_tokens)} tokens")
    top.add_column("#", justify="right")
    top.add_column("token")
    top.add_column("count", justify="right")
    top.add_column("share", justify="right")
    total = sum(n * c for n, c in stats.name_lengths.items()) or 1
    for rank, (token, count) in enumerate(stats.top_tokens, 1):
        top.add_row(str(rank), token, f"{count:,}", f"{count / total:.1%}")

    hist = Table(title="name length (sub-tokens)")
    hist.add_column("tokens", justify="right")
    hist.add_column("names", justify="right")
    hist.add_column("")
    rows: Counter[str] = Counter()
    for n, c in stats.name_lengths.items():
        rows[str(n) if n < _LONGEST_ROW else f"{_LONGEST_ROW}+"] += c
    biggest = max(rows.values(), default=1)
    for label, c in rows.items():
        hist.add_row(label, f"{c:,}", "█" * max(1, round(_BAR_WIDTH * c / biggest)))
    tables = [summary, top, hist]
    failed = m.get("failed", [])
    if failed:
        listed = Table(title=f"failed files ({len(failed):,}, first {_FAILED_SHOWN} shown)")
        listed.add_column("source", justify="right")
        listed.add_column("path")
        listed.add_column("reason")
        for entry in failed[:_FAILED_SHOWN]:
            listed.add_row(str(entry["source"]), entry["path"], entry["reason"])
        tables.append(listed)
    return tables
