"""Synonyms from Javadoc summaries that are only nearly the same: the candidates, measured.

Issue 11 allows synonym pairs from summaries that are "the same or nearly the same". The
miner (:func:`wrdscore.embeddings.mine_constraints`) uses identical summaries only; this
script measures what "nearly" would add. Two summaries are *nearly the same* when they
differ in exactly one word; their methods must be in different classes and have names
that differ in one token (the miner's one-token rule), and the names' tokens are then a
candidate pair. Two versions of the rule:

any
    Any one word may differ, except the names' own difference said in words
    (``Returns the width`` on ``getWidth`` against ``Returns the height`` on
    ``getHeight``: a summary word that starts like a token of the pair, four letters
    compared, so that ``greater``/``smaller`` on ``max``/``min`` still counts).
own-class
    The differing word is, on each side, a token of the method's own class name
    (``Returns the length of the sequence`` in ``Sequence``, ``... of the list`` in
    ``List``): the same sentence written about another class.

As for identical summaries, a candidate needs at least ``min_summaries`` (2) distinct
pairs of summaries, and more of them than the classes where its tokens alternate as
siblings (a contrast). Candidates then go through the miner's confirmation
(:func:`wrdscore.embeddings.confirm_synonyms`) on the given model's vectors (the base
vectors, before specialising). No ratings are read.

Usage::

    nice -n 10 python scripts/near_summary_synonyms.py CORPUS_DIR MODEL_DIR [--top 40]

``MODEL_DIR`` may be ``default`` (the bundled model's specialised vectors, which only
shows the mechanics: confirmation is meant for vectors before specialising).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gensim.models import KeyedVectors

from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.embeddings import (
    Constraints,
    MinedPair,
    MiningSettings,
    confirm_synonyms,
    load_embeddings,
)
from wrdscore.embeddings.specialise._constraints import _mined, _Miner, _substitution
from wrdscore.errors import WrdscoreError

RULES = ("any", "own-class")
#: Larger groups of summaries sharing all but one word are templates ("Sets the X
#: property"), not rewordings; pairing them all would be quadratic for nothing.
MAX_GROUP = 20


@dataclass
class Candidate:
    """One candidate pair: the summary pairs behind it, its classes and one example."""

    summary_pairs: set[tuple[int, int]]
    classes: set[int]
    example: str
    alternations: int = 0


def _names_own_difference(words: tuple[str, str], pair: tuple[str, str]) -> bool:
    """Whether the summaries differ in the names' own tokens (or forms of them)."""
    return any(w[:4] == t[:4] for w in words for t in pair)


@dataclass
class SummaryIndex:
    """One mining pass, and its summaries grouped by the words around each word."""

    miner: _Miner
    texts: list[tuple[list[str], dict[tuple[str, ...], set[int]]]]
    class_words: list[set[str]]
    groups: list[list[tuple[int, int]]]


def summary_index(
    records: Iterable[dict[str, Any]], settings: MiningSettings | None = None
) -> SummaryIndex:
    """Mine ``records`` once and group their summaries that differ in one word (for
    :func:`near_candidates`, whatever its rule)."""
    miner = _mined(records, settings or MiningSettings())
    texts = [(key.split(), names) for key, names in miner.summaries.items() if names]
    class_words = [set(split_identifier(name.split(".")[-1])) for name in miner.type_names]

    # Every summary once per word, keyed by the words around that one: summaries that
    # differ only there share a key. Hashes in arrays keep this to a few bytes a word.
    keys, ids, places = [], [], []
    for sid, (words, _) in enumerate(texts):
        for i in range(len(words)):
            keys.append(hash((tuple(words[:i]), tuple(words[i + 1 :]))))
            ids.append(sid)
            places.append(i)
    key_array = np.array(keys, dtype=np.int64)
    order = np.argsort(key_array, kind="stable")
    starts = np.flatnonzero(np.r_[True, key_array[order][1:] != key_array[order][:-1]])
    ends = np.r_[starts[1:], len(order)]
    groups = [
        [(ids[k], places[k]) for k in order[start:end]]
        for start, end in zip(starts, ends, strict=True)
        if 2 <= end - start <= MAX_GROUP
    ]
    return SummaryIndex(miner, texts, class_words, groups)


def near_candidates(index: SummaryIndex, rule: str) -> dict[tuple[str, str], Candidate]:
    """Candidate synonym pairs from nearly-identical summaries, under ``rule``.

    Examples
    --------
    >>> def rec(name, cls, summary):
    ...     return {"name": name, "tokens": split_identifier(name), "type": cls,
    ...             "path": f"{cls}.java", "summary": summary}
    >>> recs = [rec("getLength", "Sequence", "Returns the length of the sequence."),
    ...         rec("getSize", "List", "Returns the length of the list."),
    ...         rec("getLength", "Chain", "Returns the number of links in the chain."),
    ...         rec("getSize", "Queue", "Returns the number of links in the queue.")]
    >>> found = near_candidates(summary_index(recs), "own-class")
    >>> [(pair, len(c.summary_pairs)) for pair, c in found.items()]
    [(('length', 'size'), 2)]
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
    miner, texts, class_words = index.miner, index.texts, index.class_words
    found: dict[tuple[str, str], Candidate] = {}
    for group in index.groups:
        for (s1, i1), (s2, i2) in itertools.combinations(group, 2):
            words1, names1 = texts[s1]
            words2, names2 = texts[s2]
            if i1 != i2 or words1[:i1] + words1[i1 + 1 :] != words2[:i2] + words2[i2 + 1 :]:
                continue  # a hash collision, not the same frame
            w1, w2 = words1[i1], words2[i2]
            for (ta, ca), (tb, cb) in itertools.product(names1.items(), names2.items()):
                if ca == cb and len(ca) == 1:
                    continue  # one class: siblings, not independent wording
                pair = _substitution(ta, tb)
                if pair is None or _names_own_difference((w1, w2), pair):
                    continue
                if rule == "own-class" and not (
                    all(w1 in class_words[c] for c in ca) and all(w2 in class_words[c] for c in cb)
                ):
                    continue
                example = " ~ ".join(sorted((" ".join(words1), " ".join(words2))))
                candidate = found.setdefault(pair, Candidate(set(), set(), example))
                candidate.summary_pairs.add((min(s1, s2), max(s1, s2)))
                candidate.classes.update(ca | cb)
                # The shortest example, not the first: groups come in hash order, which
                # changes from run to run (string hashing is salted per process).
                candidate.example = min(candidate.example, example, key=lambda t: (len(t), t))
    s = miner.s
    kept = {}
    for pair, candidate in found.items():
        candidate.alternations = len(miner.contrast_types.get(pair, ()))
        support = len(candidate.summary_pairs)
        if support >= s.min_summaries and support > candidate.alternations:
            kept[pair] = candidate
    return dict(sorted(kept.items(), key=lambda item: (-len(item[1].summary_pairs), item[0])))


def report(found: dict[tuple[str, str], Candidate], kv: KeyedVectors, top: int) -> None:
    """Print the candidates, confirmed or not, strongest first."""
    pairs = [
        MinedPair("synonym", a, b, len(c.summary_pairs), len(c.classes), c.example, "summary")
        for (a, b), c in found.items()
    ]
    constraints = Constraints(contrast=[], synonym=pairs, abbreviation=[])
    _, confirmation = confirm_synonyms(constraints, kv)
    dropped = {(p.a, p.b) for p in confirmation.dropped}
    threshold = confirmation.threshold
    print(
        f"candidates {len(found)}, confirmed {confirmation.kept}"
        + (f" (cosine >= {threshold:.3f})" if threshold is not None else "")
    )
    print("pair | summary pairs | classes | sibling classes | cosine | confirmed | example")
    index = kv.key_to_index
    for (a, b), c in itertools.islice(found.items(), top):
        cosine = f"{kv.similarity(a, b):.2f}" if a in index and b in index else "-"
        kept = "no" if (a, b) in dropped else "yes"
        print(
            f"{a}/{b} | {len(c.summary_pairs)} | {len(c.classes)} | {c.alternations} | "
            f"{cosine} | {kept} | {c.example[:110]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a corpus folder from wrdscore ingest")
    parser.add_argument(
        "model", type=Path, help="the vectors to confirm with (before specialising)"
    )
    parser.add_argument("--rule", choices=RULES, action="append", help="default: both")
    parser.add_argument("--top", type=int, default=40, help="candidates listed per rule")
    args = parser.parse_args()
    if args.top < 0:
        sys.exit("error: --top must be at least 0")
    try:
        corpus = open_corpus(args.corpus)
        kv = load_embeddings(args.model).kv
        index = summary_index(corpus.iter_methods())  # one pass for every rule
        for rule in args.rule or RULES:
            print(f"== {rule}")
            report(near_candidates(index, rule), kv, args.top)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
