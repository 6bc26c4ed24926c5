"""Build the word list that segments run-together names (``wrdscore/data/segment_words.txt.gz``).

``wrdscore.corpora.segment`` splits an all-lowercase run-together sub-token
(``istimeoutsetinrequestcontext``) with ``wordninja``'s unigram model, whose only input
is a word list ordered by frequency. This script builds the code-aware list it ships
with, from OpenJDK 17's ``src.zip`` (Debian's ``openjdk-17-source``), and holds what
``scripts/segment_accuracy.py`` shares with it: the split of OpenJDK's packages and the
names and identifier words read from them (the two share ``_jdk_words.py``).

The split (by package, so no held-out name shares a file or a package with the list):
each package directory of ``src.zip`` goes, by the SHA-1 of its path, to

* ``build`` (6 in 10): its identifiers' sub-tokens are counted for the list;
* ``dev`` (2 in 10): its member names choose the list's settings;
* ``test`` (2 in 10): its member names give the reported accuracy, and nothing else.

The list: every alphabetic sub-token of the identifiers in the build packages' code
(comments and string literals removed) seen at least ``--min-count`` times, most frequent
first, then the words of wordninja's own English Wikipedia list (MIT) that it lacks, in
that list's order. The defaults are the settings chosen on the dev split (see
``segment_accuracy.py`` and docs/history.md).

Usage::

    python scripts/segment_words.py [--src-zip PATH] [--min-count 20] \
        [--output wrdscore/data/segment_words.txt.gz] --force
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _jdk_words import SINGLE_LETTERS, SRC_ZIP, code_list, read_jdk, require, write_list

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "wrdscore" / "data" / "segment_words.txt.gz"
#: The chosen settings (on the dev split; see segment_accuracy.py).
MIN_COUNT = 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src-zip", type=Path, default=SRC_ZIP)
    parser.add_argument("--min-count", type=int, default=MIN_COUNT)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--force", action="store_true", help="replace an existing --output")
    args = parser.parse_args()
    require(args.src_zip)
    if args.output.exists() and not args.force:
        sys.exit(f"error: {args.output} exists; give --force to replace it")
    counts, _ = read_jdk(args.src_zip)
    words = code_list(counts, args.min_count, SINGLE_LETTERS, english=True)
    write_list(words, args.output)
    code = sum(1 for c in counts.values() if c >= args.min_count)
    print(f"{len(words):,} words ({code:,} from code) -> {args.output}")


if __name__ == "__main__":
    main()
