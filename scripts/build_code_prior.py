"""Rebuild ``wrdscore/data/code_prior.json.gz``: how real method names and summaries are written.

Counts, over an ingested corpus (format 4, with each method's identifiers), the sub-tokens
of every method's name (split as the metrics split predictions by default: run-together
words not segmented, since issue 33), the words of its Javadoc
summary, and the tokens of its code as code-aware scoring reads them (the name masked for
the ``name`` target, nothing masked for ``summary``); the bigrams of the names and
summaries (with start and end marks) and their lengths; and the quantiles of their
plausibility (``wrdscore.metrics._code_support``).
The shipped table is OpenJDK 17's ``src.zip``, no project of the held-out signals and
nothing rated::

    wrdscore ingest /usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip -o jdk17
    python scripts/build_code_prior.py jdk17 wrdscore/data/code_prior.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from wrdscore.corpora import open_corpus
from wrdscore.corpora._code import read_code_words
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._code_support import (
    END,
    QUANTILES,
    START,
    SequenceModel,
    quantile_threshold,
)
from wrdscore.metrics._engine import splitter

#: The metrics' default: run-together words are not segmented (issue 33).
SEGMENTED = False


def count(corpus: Path) -> dict[str, object]:
    """The table: per target, token counts of the texts and of the code, and lengths."""
    split = splitter(SEGMENTED)
    texts: dict[str, list[list[str]]] = {"name": [], "summary": []}
    code: dict[str, Counter[str]] = {"name": Counter(), "summary": Counter()}
    for record in open_corpus(corpus).iter_methods():
        words = record.get("code_words")
        if words is None:
            sys.exit(f"error: {corpus} has no code_words (ingest it again: format 4)")
        texts["name"].append(split(record["name"]))
        if record["summary"]:
            texts["summary"].append(split(record["summary"]))
        for target in code:
            code[target].update(
                read_code_words(words, target=target, name=record["name"], segmented=SEGMENTED)
            )
    out: dict[str, object] = {}
    for target, items in texts.items():
        tokens = Counter(t for item in items for t in item)
        lengths = Counter(len(item) for item in items)
        bigrams: dict[str, Counter[str]] = {}
        for item in items:
            for a, b in zip([START, *item], [*item, END], strict=True):
                bigrams.setdefault(a, Counter())[b] += 1
        table = {a: dict(nxt.most_common()) for a, nxt in sorted(bigrams.items())}
        model = SequenceModel(dict(tokens), dict(code[target]), table)
        out[target] = {
            "texts": len(items),
            "lengths": [lengths.get(m, 0) for m in range(max(lengths) + 1)],
            "tokens": dict(tokens.most_common()),
            "code": dict(code[target].most_common()),
            "bigrams": table,
            "thresholds": {f"{q:g}": quantile_threshold(model, items, q) for q in QUANTILES},
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path, help="an ingested corpus folder (format 4)")
    ap.add_argument("output", type=Path, help="the table to write (.json.gz)")
    args = ap.parse_args(argv)
    try:
        table = {"source": args.corpus.name, "targets": count(args.corpus)}
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")
    data = json.dumps(table, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    # mtime 0: the same corpus gives the same bytes.
    args.output.write_bytes(gzip.compress(data.encode("utf-8"), mtime=0))


if __name__ == "__main__":
    main()
