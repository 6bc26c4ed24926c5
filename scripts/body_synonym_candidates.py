"""Why method bodies give no synonyms: the candidates the body rule sees, before its filters.

Runs the miner of :func:`wrdscore.embeddings.mine_constraints` over a format-2 corpus
and prints, for names sharing an identical context (and, with ``--same-words``, the
same set of distinct words), how many contexts are shared, the candidate
substitutions with the most contexts, and how often each alternates as a contrast
(siblings of one class). With ``--delegation`` it instead measures the delegation idea
(a short undocumented method whose context holds a run of words that differs from its
name by one token, ``getLength() { return getSize(); }``). No ratings are read.

Usage::

    nice -n 10 python scripts/body_synonym_candidates.py CORPUS_DIR [--same-words]
    nice -n 10 python scripts/body_synonym_candidates.py CORPUS_DIR --delegation
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from wrdscore.corpora import open_corpus
from wrdscore.embeddings import MiningSettings
from wrdscore.embeddings.specialise._constraints import _Body, _iter_files, _Miner, _substitution
from wrdscore.errors import WrdscoreError

TOP = 25


def words(context: Any) -> list[str]:
    """The context as a list of words (a string in new corpora, a list in early ones)."""
    return context.split() if isinstance(context, str) else list(context or ())


def bodies(corpus: Path, same_words: bool) -> None:
    """Shared contexts and the body rule's candidates with their contrast counts."""
    miner = _Miner(MiningSettings())
    if same_words:
        exact = miner._add_context
        least = miner.s.min_context_tokens

        def by_word_set(context: Any, tokens: tuple[str, ...], type_id: int) -> None:
            distinct = sorted(set(words(context)))
            exact(distinct if len(distinct) >= least else [], tokens, type_id)

        miner._add_context = by_word_set  # type: ignore[method-assign]
    for records in _iter_files(open_corpus(corpus).iter_methods()):
        miner.add_file(records)
    entries = list(miner.contexts.values())
    print(
        f"contexts kept {len(entries)}, shared by 2-{miner.s.max_context_names} names "
        f"{sum(isinstance(e, _Body) for e in entries)}, boilerplate "
        f"{sum(e is None for e in entries)}"
    )
    candidates = miner.body_candidates()
    counts = Counter(min(len(b), 3) for b, _, _ in candidates.values())
    print(
        f"candidate pairs {len(candidates)}; by contexts (3 = 3 or more): {sorted(counts.items())}"
    )
    print("pair | contexts | type names | classes alternating as contrast | example")
    ranked = sorted(candidates.items(), key=lambda kv: (-len(kv[1][0]), kv[0]))
    for pair, (keys, classes, example) in ranked[:TOP]:
        types = len({miner.type_names[t] for t in classes})
        contrast = len(miner.contrast_types.get(pair, ()))
        print(f"{pair[0]}/{pair[1]} | {len(keys)} | {types} | {contrast} | {example[:90]}")


def delegation(corpus: Path) -> None:
    """One-token differences between a short method's name and a run of its context."""
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    example: dict[tuple[str, str], str] = {}
    seen = 0
    for record in open_corpus(corpus).iter_methods():
        context, name = words(record.get("context")), tuple(record["tokens"])
        if record.get("summary") or len(context) > 5 or len(name) < 2:
            continue
        seen += 1
        for i in range(len(context) - len(name) + 1):
            pair = _substitution(name, context[i : i + len(name)])
            if pair is not None:
                found[pair].add(str(record["type"]))
                example.setdefault(pair, f"{' '.join(name)} <- {' '.join(context)}")
    print(f"short undocumented methods {seen}, pairs {len(found)}")
    for pair, types in sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:TOP]:
        print(f"{pair[0]}/{pair[1]} | {len(types)} classes | {example[pair]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--same-words", action="store_true", help="match sets of words")
    parser.add_argument("--delegation", action="store_true", help="measure delegations")
    args = parser.parse_args()
    try:
        if args.delegation:
            delegation(args.corpus)
        else:
            bodies(args.corpus, args.same_words)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
