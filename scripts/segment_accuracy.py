"""Split accuracy of segmentation word lists on held-out lower-cased camelCase names.

The protocol (fixed before any list was scored):

* Names: the lowerCamelCase member (method and field) names of OpenJDK 17's ``src.zip``,
  ASCII letters only, of 2 to 5 sub-tokens. Packages are split by
  ``_jdk_words.part_of``: ``build`` packages supply the code list's word counts,
  ``dev`` packages choose its settings, ``test`` packages give the reported number.
  A test name that also occurs in a build or dev package is left out.
* Each name is lower-cased (``getUserById`` -> ``getuserbyid``) and segmented by
  ``wrdscore.corpora._segment.Segmenter`` over the candidate list; a split is right when
  it equals the name's sub-tokens (``get user by id``) exactly.
* 2,000 names are drawn from each of dev and test (seed 0).
* Candidates: (a) wordninja's bundled English Wikipedia list; (b) the bundled model's
  vocabulary ordered by document frequency (its training corpus includes OpenJDK, the
  test packages too); (c) code lists from the build packages' identifier words, with
  ``--min-count`` in {2, 5, 20}, single letters all kept or only "a", and with or
  without wordninja's English words after the code words.
* Also reported, not used to choose: how many of the test names' sub-tokens that a list
  lacks it leaves whole (splitting ``evaluator`` into ``eval ua tor`` is the failure).
* Choice rule: the (c) setting with the highest dev accuracy (the smaller list on a
  tie) is shipped; every candidate is then scored once on test, and that is the
  reported accuracy.

Usage::

    python scripts/segment_accuracy.py [--src-zip PATH] [--cache work-data/segment-jdk.json]
        [--sample tests/data/segment_heldout.tsv]

``--sample`` writes 200 of the test names (lower-cased, gold split) for
tests/test_segment.py.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

from _jdk_words import SRC_ZIP, WIKIPEDIA, code_list, read_jdk, write_list

from wrdscore.corpora import split_identifier
from wrdscore.corpora._segment import WORDS_FILE, Segmenter

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = 2_000
EXAMPLES = (
    "istimeoutsetinrequestcontext",
    "getuserbyid",
    "timeout",
    "tostring",
    "hashcode",
    "timeoutset",
    "getfilename",
    "isempty",
    "xqzv",
)


def load(src_zip: Path, cache: Path | None) -> tuple[Counter[str], dict[str, set[str]]]:
    """read_jdk's counts and names, kept in ``cache`` (reading src.zip takes minutes)."""
    if cache is not None and cache.exists():
        data = json.loads(cache.read_text())
        return Counter(data["counts"]), {k: set(v) for k, v in data["names"].items()}
    counts, names = read_jdk(src_zip)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(
            json.dumps({"counts": counts, "names": {k: sorted(v) for k, v in names.items()}})
        )
    return counts, names


def sample(names: set[str], exclude: set[str], seed: int = 0) -> list[tuple[str, list[str]]]:
    """2,000 (lower-cased name, gold words) pairs of 2-5 words, not in ``exclude``."""
    pool = sorted(n for n in names - exclude if 2 <= len(split_identifier(n)) <= 5)
    picked = random.Random(seed).sample(pool, min(SAMPLE, len(pool)))
    return [(n.lower(), split_identifier(n)) for n in picked]


def accuracy(seg: Segmenter, pairs: list[tuple[str, list[str]]]) -> float:
    return sum(seg.split(name) == gold for name, gold in pairs) / len(pairs)


def segmenter(words: list[str], tmp: Path, label: str) -> Segmenter:
    path = tmp / f"{label}.txt.gz"
    write_list(words, path)
    return Segmenter(path)


def df_list() -> list[str]:
    """The bundled model's vocabulary, most documents first (ties alphabetical)."""
    df = json.loads((ROOT / "wrdscore" / "data" / "default" / "doc_freq.json").read_text())
    return [w for w, _ in sorted(df.items(), key=lambda wc: (-wc[1], wc[0])) if w.isalpha()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src-zip", type=Path, default=SRC_ZIP)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--sample", type=Path, default=None)
    args = parser.parse_args()
    counts, names = load(args.src_zip, args.cache)
    dev = sample(names["dev"], set())
    test = sample(names["test"], names["build"] | names["dev"])
    if not (dev and test):
        sys.exit(f"error: {args.src_zip} has no names of 2-5 words in its dev or test packages")
    # Over-splitting: the test names' sub-tokens (3+ letters) that a list lacks. Mostly
    # rare words and abbreviations (evaluator, cron) that should stay whole, though
    # some are run-together in the source too (subcomponent).
    subtokens = sorted(
        {t for n in names["test"] for t in split_identifier(n) if t.isalpha() and len(t) >= 3}
    )
    print(f"dev {len(dev)} names, test {len(test)} names (of 2-5 words)")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        grid = {}
        for min_count in (2, 5, 20):
            for letters in ("a", "abcdefghijklmnopqrstuvwxyz"):
                for english in (False, True):
                    label = f"c{min_count}-{'a' if letters == 'a' else 'az'}" + (
                        "+wiki" if english else ""
                    )
                    words = code_list(counts, min_count, letters, english)
                    seg = segmenter(words, tmp, label)
                    grid[label] = (accuracy(seg, dev), len(words), seg)
        print("\n| code list (dev split) | words | dev accuracy |\n| --- | ---: | ---: |")
        for label, (acc, size, _) in grid.items():
            print(f"| {label} | {size:,} | {acc:.1%} |")
        chosen = max(grid, key=lambda k: (grid[k][0], -grid[k][1]))
        print(f"\nchosen on dev: {chosen}")
        candidates = {
            "(a) wordninja Wikipedia": Segmenter(WIKIPEDIA),
            "(b) bundled model by doc freq": segmenter(df_list(), tmp, "df"),
            f"(c) code-aware {chosen}": grid[chosen][2],
        }
        if WORDS_FILE.exists():
            candidates["shipped (wrdscore/data)"] = Segmenter(WORDS_FILE)
        print(
            "\n| list | words | test accuracy | unknown sub-tokens kept whole |\n"
            "| --- | ---: | ---: | ---: |"
        )
        for label, seg in candidates.items():
            unknown = [w for w in subtokens if w not in seg.known]
            whole = sum(seg.split(w) == [w] for w in unknown)
            print(
                f"| {label} | {len(seg.known):,} | {accuracy(seg, test):.1%} "
                f"| {whole}/{len(unknown)} |"
            )
        print("\n| token | " + " | ".join(k.split(" ")[0] for k in candidates) + " |")
        print("| --- |" + " --- |" * len(candidates))
        for token in EXAMPLES:
            cells = [" ".join(seg.split(token)) for seg in candidates.values()]
            print(f"| `{token}` | " + " | ".join(cells) + " |")
    if args.sample is not None:
        rows = test[:200]
        args.sample.parent.mkdir(parents=True, exist_ok=True)
        args.sample.write_text("".join(f"{n}\t{' '.join(g)}\n" for n, g in rows))
        shipped = accuracy(Segmenter(WORDS_FILE), rows)
        print(f"\n{len(rows)} test names -> {args.sample}; the shipped list splits {shipped:.1%}")


if __name__ == "__main__":
    main()
