"""Draw the pairs `wrdscore tune` mines from a corpus, for a hand check (issue 20).

Every mined synonym and up to 47 abbreviations (all of them in the OpenJDK corpus), and
enough method-name / Javadoc-summary pairs to make 100, drawn with a fixed seed; synonyms
confirmed by the bundled model's vectors, as `tune` confirms them. Prints a TSV with an
empty ``verdict`` column to fill in.

Usage::

    python scripts/sample_tune_pairs.py CORPUS_DIR > pairs-to-check.tsv
"""

from __future__ import annotations

import random
import sys

from wrdscore.embeddings import load_embeddings
from wrdscore.embeddings.encoders._pairs import PairOptions, corpus_pairs
from wrdscore.errors import WrdscoreError

SAMPLE = 100
MAX_ABBREVIATIONS = 47


def main() -> None:
    if len(sys.argv) != 2:
        print("usage: python scripts/sample_tune_pairs.py CORPUS_DIR", file=sys.stderr)
        raise SystemExit(2)
    try:
        pairs, _, _, _ = corpus_pairs(sys.argv[1], PairOptions(), load_embeddings().kv)
    except WrdscoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    rng = random.Random(0)
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for kind, a, b in pairs:
        by_kind.setdefault(kind, []).append((a, b))
    synonyms = by_kind.get("synonym", [])
    abbreviations = by_kind.get("abbreviation", [])
    abbreviations = rng.sample(abbreviations, min(len(abbreviations), MAX_ABBREVIATIONS))
    summaries = by_kind.get("summary", [])
    summaries = rng.sample(
        summaries, min(len(summaries), SAMPLE - len(synonyms) - len(abbreviations))
    )
    print("n\tkind\ta\tb\tverdict")
    rows = (
        [("summary", *p) for p in summaries]
        + [("synonym", *p) for p in synonyms]
        + [("abbreviation", *p) for p in abbreviations]
    )
    for i, (kind, a, b) in enumerate(rows, 1):
        print(f"{i}\t{kind}\t{a}\t{b}\t")


if __name__ == "__main__":
    main()
