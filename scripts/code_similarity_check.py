"""A check of similarity judgements on code no model was trained or tuned on, without raters.

Two signals from the code itself stand in for people:

* **alike** pairs: two different method names, in different classes, with the same
  Javadoc summary (normalised as the miner does; at least 4 words, written on at most 5
  distinct names, so boilerplate such as "Not supported." is left out). Their authors
  described them in the same words, so one name could stand in for the other.
* **different** pairs: two methods of one class whose names differ in exactly one token at
  the same position, a word (``getWidth``/``getHeight``, ``addListener``/``removeListener``;
  not ``testQuery12``/``testQuery73``), in a slot of at most 5 fillers, as the miner's
  contrasts (not ``size``/``clear``, two of a class's twenty one-word names). One class
  has both, so they are different operations, however related; a pair that is also
  documented alike elsewhere counts here.

Test code is left out (a method named ``test...`` or under a ``test``/``tests`` folder):
test names are numbered variants and their Javadoc is copied from case to case.

A metric that judges similarity, as people rating names do, should score *alike* pairs
above *different* ones. The script reports, for each metric, the area under the ROC
curve (AUC: the chance that a random alike pair scores above a random different pair,
ties counting half; 0.5 is chance) with a bootstrap 95% interval, and the mean score of
each kind. Different pairs share all but one token, but alike pairs often extend one
another (``getXHigh``/``getXHighValue``), so token overlap is not out of the running.

Both signals are noisy (copied Javadoc documents different methods alike), the *different*
pairs are built like the contrasts that specialisation mines (so on a specialised model
this partly checks that mined contrasts carry over to new code), and the result depends on
how the pairs are defined: the rules above are the miner's, and two drafts without the
test-code and slot rules ranked the metrics differently (model card). Run it on a corpus
of projects the model never saw; nothing here chooses anything.

Usage::

    python scripts/code_similarity_check.py HELD_OUT_CORPUS default [label=MODEL_DIR ...]
        [--pairs 5000] [--bootstrap 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np
from scipy.stats import rankdata

from wrdscore import get_metric
from wrdscore.corpora import open_corpus, split_identifier
from wrdscore.embeddings import MiningSettings
from wrdscore.embeddings.specialise._constraints import _mined
from wrdscore.errors import WrdscoreError

Name = tuple[str, ...]
_TEST_FOLDERS = {"test", "tests"}


def code_pairs(corpus_dir: str) -> tuple[list[tuple[Name, Name]], list[tuple[Name, Name]]]:
    """The alike and different pairs of a corpus (distinct, in a stable order)."""
    s = MiningSettings()
    by_class: dict[tuple[str, str], set[Name]] = defaultdict(set)

    def kept() -> Iterator[dict[str, Any]]:
        for r in open_corpus(corpus_dir).iter_methods():
            tokens = tuple(r.get("tokens") or split_identifier(r.get("name") or ""))
            if not tokens or tokens[0] == "test" or _TEST_FOLDERS & set(str(r["path"]).split("/")):
                continue
            by_class[(str(r.get("path")), str(r.get("type")))].add(tokens)
            yield r

    # The miner's own summary counting: normalised, at least min_summary_words, and
    # forgotten as boilerplate once written on more than max_summary_names names.
    miner = _mined(kept(), s)
    summaries = miner.summaries.values()
    alike: set[tuple[Name, Name]] = set()
    for names in summaries:
        for (a, ca), (b, cb) in itertools.combinations(sorted((names or {}).items()), 2):
            if ca != cb or len(ca) > 1:  # not one and the same single class
                alike.add((a, b))
    different: set[tuple[Name, Name]] = set()
    for names in by_class.values():
        # The miner's frames: a name with one token replaced by a slot; a slot with more
        # than max_fillers fillers (get_ of a big bean, or the one-word names of a class)
        # lists different things rather than alternatives, and is skipped.
        fillers: dict[tuple[Name, Name], set[Name]] = defaultdict(set)
        for tokens in names:
            for i, tok in enumerate(tokens):
                if tok.isalpha():
                    fillers[(tokens[:i], tokens[i + 1 :])].add(tokens)
        for slot in fillers.values():
            if 2 <= len(slot) <= s.max_fillers:
                different.update(itertools.combinations(sorted(slot), 2))
    return sorted(alike - different), sorted(different)


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(pos > neg) + P(pos = neg) / 2, from the Mann-Whitney rank sum."""
    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("models", nargs="+", help="'default' or label=MODEL_DIR")
    parser.add_argument("--pairs", type=int, default=5000, help="pairs drawn of each kind")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.pairs < 1 or args.bootstrap < 1:
        sys.exit("error: --pairs and --bootstrap must be at least 1")
    try:
        report(args)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


def report(args: argparse.Namespace) -> None:
    """Score the drawn pairs with every metric and print the table."""
    # Models first: a wrong path fails before the pass over the corpus.
    metrics = [("ROUGE-1 F", get_metric("rouge1"))]
    for spec in args.models:
        label, _, path = spec.rpartition("=")
        metrics.append((f"WRDScore F1, {label or path}", get_metric("wrd", embeddings=path)))
    alike, different = code_pairs(args.corpus)
    if not alike or not different:
        raise WrdscoreError(
            f"{args.corpus} gives {len(alike)} alike and {len(different)} different pairs"
        )
    rng = np.random.default_rng(args.seed)

    def draw(pairs: list[tuple[Name, Name]]) -> list[tuple[Name, Name]]:
        keep = rng.choice(len(pairs), size=min(args.pairs, len(pairs)), replace=False)
        return [pairs[i] for i in sorted(keep)]

    pos, neg = draw(alike), draw(different)
    print(
        f"{args.corpus}: {len(alike)} alike pairs (same summary), {len(different)} different "
        f"pairs (siblings, one token apart); scoring {len(pos)} and {len(neg)}"
    )
    refs = [" ".join(a) for a, _ in pos + neg]
    preds = [" ".join(b) for _, b in pos + neg]
    boot = [
        (rng.integers(0, len(pos), len(pos)), rng.integers(0, len(neg), len(neg)))
        for _ in range(args.bootstrap)
    ]
    print("\n| metric | AUC [95% CI] | mean score, alike | mean score, different |")
    print("| --- | --- | ---: | ---: |")
    for label, metric in metrics:
        result = metric.score(refs, preds)
        values = np.asarray(result.values[result.primary], dtype=np.float64)
        p, n = values[: len(pos)], values[len(pos) :]
        lo, hi = np.percentile([auc(p[i], n[j]) for i, j in boot], [2.5, 97.5])
        area = f"{auc(p, n):.3f} [{lo:.3f}, {hi:.3f}]"
        print("| " + " | ".join([label, area, f"{p.mean():.3f}", f"{n.mean():.3f}"]) + " |")
        print(f"<!-- {result.signature} -->")


if __name__ == "__main__":
    main()
