"""The bundled default on code in other languages than Java (issue 34): unseen tokens and
the rating-free signal, on held-out projects of each language.

For each project (a Debian source package's upstream archive, ingested in its language):

* **unseen**: the share of sub-token occurrences that the default model's vocabulary does
  not hold, in the functions' names and in their code as code-aware scoring reads it
  (target name: the declared name masked);
* **signal**: the rating-free signal of ``scripts/code_support_signal.py`` (issue 25),
  with its protocol: a function's true name (or docstring summary) should get more code
  support than the names (summaries) of the other functions of its file and class. AUC
  over (function, negative) pairs, ties half; at most 20 negatives per function (those
  sharing a sub-token, the hard ones, first) and 300 functions per project (seeded); a
  positive has a name of two sub-tokens or more and three code tokens or more (for
  summaries: a summary of three words or more). Scorers: code support as ``score --code``
  computes it (the code read in the project's language), with the bundled default
  WRDScore and with ROUGE-1 (the lexical baseline).

The packages and the protocol were written down before anything was scored. Java's
project is one the default was not trained on (``libjoda-time-java``, held out by the
build script), read the same way, for comparison.

Run (downloads with a private deb-src apt configuration, as the build script does)::

    python benchmarks/language_signal.py /work/data/h7
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from wrdscore.corpora import SourceCode, open_corpus, read_code, split_identifier
from wrdscore.signals import rank_first

#: Debian source package -> the language ingested. Written down before scoring.
PROJECTS = {
    "jinja2": "python",
    "python-toml": "python",
    # Added after the first run, before they were scored: the mirror had no JavaScript,
    # Ruby or C package of the ones tried (node-semver, node-lodash, ruby-rack, inih...).
    "golang-github-spf13-cobra": "go",
    "node-commander": "javascript",
    "libjoda-time-java": "java",
}
SEED = 20261127
METHODS_PER_PROJECT = 300
MAX_NEGATIVES = 20


def prepare(work: Path) -> dict[str, Path]:
    """Each project's corpus, downloaded and ingested where not yet there, as
    ``scripts/code_support_signal.py`` fetches its held-out projects."""
    spec = importlib.util.spec_from_file_location(
        "code_support_signal",
        Path(__file__).resolve().parents[1] / "scripts" / "code_support_signal.py",
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script
    spec.loader.exec_module(script)
    corpora: dict[str, Path] = script.fetch_projects(work, dict(PROJECTS))
    return corpora


def _candidates(records: list[dict[str, Any]], key: str, rng: random.Random) -> list[Any]:
    """(record, candidates with the true text first, hard flags) of every positive."""
    groups: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["path"], r["type"])].append(r)
    items = []
    for r in records:
        text = r.get(key)
        if not text or not r.get("code"):
            continue
        if key == "name" and len(split_identifier(text)) < 2:
            continue
        if key == "summary" and len(text.split()) < 3:
            continue
        others = sorted({o[key] for o in groups[(r["path"], r["type"])] if o.get(key)} - {text})
        if not others:
            continue
        mine = set(split_identifier(text))
        hard = [o for o in others if mine & set(split_identifier(o))]
        easy = [o for o in others if o not in hard]
        rng.shuffle(easy)
        negatives = (hard + easy)[:MAX_NEGATIVES]
        items.append((r, [text, *negatives], [o in hard for o in negatives]))
    rng.shuffle(items)
    return items[:METHODS_PER_PROJECT]


def _auc(scores: list[np.ndarray], hard: list[list[bool]]) -> tuple[float, float]:
    ranking = rank_first(scores, hard)
    return ranking.auc, ranking.auc_hard


def measure(corpus: Path, language: str, vocabulary: set[str]) -> dict[str, Any]:
    """Unseen shares and the signal of one project's corpus."""
    from wrdscore.metrics import get_metric

    records = list(open_corpus(corpus).iter_methods())
    names = [t for r in records for t in split_identifier(r["name"])]
    result: dict[str, Any] = {
        "functions": len(records),
        "unseen_names": sum(t not in vocabulary for t in names) / max(len(names), 1),
    }
    code_tokens: list[str] = []
    for target, key in (("name", "name"), ("summary", "summary")):
        items = _candidates(records, key, random.Random(SEED))
        codes = [
            read_code(r["code"], target=target, name=r["name"], language=language)
            for r, _, _ in items
        ]
        keep = [k for k, c in enumerate(codes) if len(c) >= 3]
        items, codes = [items[k] for k in keep], [codes[k] for k in keep]
        if target == "name":
            code_tokens = [t for c in codes for t in c]
        result[f"{target}_functions"] = len(items)
        # Each candidate against its function's code, read in the project's language.
        code_items = [
            {"code": SourceCode(r["code"], language), "name": r["name"]}
            for r, texts, _ in items
            for _ in texts
        ]
        preds = [t for item in items for t in item[1]]
        for metric_name in ("wrd", "rouge1"):
            if not preds:
                continue
            metric = get_metric(metric_name, target=target)
            values = metric.score(None, preds, code=code_items).values["code"]
            scores, at = [], 0
            for item in items:
                scores.append(np.asarray(values[at : at + len(item[1])]))
                at += len(item[1])
            auc, auc_hard = _auc(scores, [item[2] for item in items])
            result[f"{target}_{metric_name}_auc"] = auc
            result[f"{target}_{metric_name}_auc_hard"] = auc_hard
    result["unseen_code"] = sum(t not in vocabulary for t in code_tokens) / max(len(code_tokens), 1)
    return result


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("work", type=Path, help="work folder (apt state, archives, corpora)")
    args = ap.parse_args(argv)
    from wrdscore.embeddings import load_embeddings

    vocabulary = set(load_embeddings(None).tokens)
    corpora = prepare(args.work)
    print(
        "| project | language | functions | unseen (names) | unseen (code) | "
        "name AUC wrd (hard) | name AUC rouge1 | summary AUC wrd (hard) | summary AUC rouge1 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for package, corpus in corpora.items():
        m = measure(corpus, PROJECTS[package], vocabulary)
        print(
            f"| {package} | {PROJECTS[package]} | {m['functions']:,} | "
            f"{m['unseen_names']:.1%} | {m['unseen_code']:.1%} | "
            f"{m.get('name_wrd_auc', float('nan')):.3f} "
            f"({m.get('name_wrd_auc_hard', float('nan')):.3f}, n={m['name_functions']}) | "
            f"{m.get('name_rouge1_auc', float('nan')):.3f} | "
            f"{m.get('summary_wrd_auc', float('nan')):.3f} "
            f"({m.get('summary_wrd_auc_hard', float('nan')):.3f}, "
            f"n={m['summary_functions']}) | "
            f"{m.get('summary_rouge1_auc', float('nan')):.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
