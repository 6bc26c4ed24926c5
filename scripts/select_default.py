"""Choose the bundled default model with a protocol that cannot overfit 150 ratings.

Most settings are fixed on principle (see MODEL_CARD.md): FastText (the default must
give unseen tokens vectors), 50 dimensions, CBOW, 5 epochs, min-count 5, window 5 on
context documents, 100,000 n-gram buckets (the bundled default then shrinks them to 20,000
to fit the package's size budget). Only a few candidates differ, in what they
learn from (names, method context, both) and whether the vectors are specialised for
similarity with pairs mined from the same corpus and the curated list
(``wrdscore train --specialise``).

Each candidate scores the WRDScore paper's 150 rated pairs (its three sets of 50) with
WRDScore F1 at the metric's default settings. The sets are folds: for each set, the
candidate with the highest Spearman correlation on the *other two* sets is chosen and
its numbers on the held-out set are reported beside ROUGE-1's; then the next set is held
out. The default is the candidate chosen in most folds (ties: the simplest, i.e. the
first listed). Every candidate's numbers on every set are printed too, so nothing
is hidden, but only the fold choices decide.

Usage::

    python scripts/select_default.py CORPUS_DIR --models work-data/select \\
        --output work-data/select/folds.md
    python scripts/select_default.py --models work-data/select --output folds.md

Trained candidates are kept under ``--models`` and reused on the next run, but only when
their ``model.json`` records this corpus (its manifest's SHA-256) and the candidate's
settings; a folder holding any other model is refused, not reused or trained over.
Without CORPUS_DIR (the multi-GB training corpus), the candidates already under
``--models`` are scored as they are: each must be there, with the candidate's settings,
and the output names the corpus each was trained on. That is how the model card's fold
tables are regenerated from the kept candidates.

The output is the model card's two tables, as the card prints them (sets numbered in
the order of their names).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from wrdscore import get_metric
from wrdscore.atomic import atomic_write
from wrdscore.corpora import Corpus, open_corpus
from wrdscore.embeddings import (
    DEFAULT_SPECIALISE_METHOD,
    load_embeddings,
    specialise_model,
    train_embeddings,
)
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_published_pairs, packaged_ratings_path

#: Settings every candidate shares, fixed before looking at any rating.
SHARED: dict[str, Any] = {
    "method": "fasttext",
    "dim": 50,
    "sg": 0,
    "window": 5,
    "min_count": 5,
    "epochs": 5,
    "bucket": 100_000,
    "seed": 1,
    "workers": 2,
}
#: name -> (train_embeddings overrides, specialise afterwards?)
CANDIDATES: dict[str, tuple[dict[str, Any], bool]] = {
    # The previous default's recipe (names only, window 2, 20 epochs) on the new corpus.
    "names": ({"text": "names", "sg": 1, "window": 2, "epochs": 20, "min_count": 2}, False),
    "context": ({"text": "context"}, False),
    "names+context": ({"text": "names+context"}, False),
    "context, specialised": ({"text": "context"}, True),
    "names+context, specialised": ({"text": "names+context"}, True),
}


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation."""
    return float(spearmanr(x, y)[0])


def _reuse(folder: Path, want: dict[str, Any]) -> bool:
    """Whether ``folder`` already holds the model ``want`` describes (no: nothing there).

    ``want`` maps a key of the folder's ``model.json`` to the value the candidate would
    record. A folder holding any other model is refused rather than reused (its numbers
    would be reported under the wrong candidate) or trained over (it may be someone's).
    """
    path = folder / "model.json"
    if not path.is_file():
        return False
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        got = {key: _lookup(meta, key) for key in want}
    except (OSError, ValueError, AttributeError) as exc:
        raise WrdscoreError(
            f"{path} cannot be read ({exc}); delete {folder} or pick another --models folder"
        ) from exc
    for key, value in want.items():
        if got[key] != value:
            raise WrdscoreError(
                f"{folder} holds a model with another {key} ({got[key]} there, {value} for this "
                "candidate); delete it or pick another --models folder"
            )
    return True


def _lookup(meta: dict[str, Any], key: str) -> Any:
    """The value at a dotted key of model.json (None where absent)."""
    for part in key.split("."):
        meta = meta.get(part) if isinstance(meta, dict) else None
    return meta


def model_for(label: str, corpus: Corpus | None, models: Path) -> Path:
    """Train (or reuse) candidate ``label``; returns its MODEL_DIR.

    Without a ``corpus`` nothing is trained: the candidate must already be under
    ``models`` with its settings (on whatever corpus it records).
    """
    overrides, specialised = CANDIDATES[label]
    settings = {**SHARED, **overrides}
    # What train_embeddings records: the method, the other settings, the corpus's hash.
    want: dict[str, Any] = {
        "method": settings["method"],
        "params": {k: v for k, v in settings.items() if k != "method"},
    }
    if corpus is not None:
        want["corpus.manifest_sha256"] = corpus.manifest_sha256
    base_label = label.removesuffix(", specialised")
    base = models / base_label.replace("+", "-")
    out = models / (base.name + "-cf") if specialised else base
    if corpus is None:
        if specialised:
            want["specialise.method"] = DEFAULT_SPECIALISE_METHOD
        if not _reuse(out, want):
            raise WrdscoreError(
                f"{out} holds no model (candidate {label!r}); give the CORPUS_DIR to train it"
            )
        return out
    if not _reuse(base, want):
        started = time.perf_counter()
        train_embeddings(corpus.path, output=base, **settings)
        print(f"trained {base_label} in {time.perf_counter() - started:.0f} s", flush=True)
    if not specialised:
        return base
    want |= {
        "specialise.method": DEFAULT_SPECIALISE_METHOD,
        "specialise.corpus_manifest_sha256": corpus.manifest_sha256,
    }
    if not _reuse(out, want):
        specialise_model(base, corpus.path, out)
    return out


Row = tuple[float, float, float]


def errors_row(scores: np.ndarray, human: np.ndarray, mask: np.ndarray) -> Row:
    """Spearman, MSE and MAE of ``scores`` against ``human`` on the pairs in ``mask``."""
    err = scores[mask] - human[mask]
    return spearman(scores[mask], human[mask]), float(np.mean(err**2)), float(np.mean(np.abs(err)))


def fold_choices(
    scores: dict[str, np.ndarray], human: np.ndarray, sets: np.ndarray, candidates: list[str]
) -> list[tuple[str, str, float]]:
    """For each set held out (in name order): the candidate with the highest Spearman on
    the other sets, and that Spearman. Ties go to the candidate listed first."""
    folds = []
    for name in sorted(set(sets.tolist())):
        train = sets != name
        fits = {label: spearman(scores[label][train], human[train]) for label in candidates}
        best = max(candidates, key=fits.__getitem__)  # max keeps the first of equals
        folds.append((name, best, fits[best]))
    return folds


def chosen_default(folds: list[tuple[str, str, float]], candidates: list[str]) -> str:
    """The candidate chosen in most folds; ties: the first listed (the simplest)."""
    votes = Counter(best for _, best, _ in folds)
    return max(candidates, key=lambda label: votes[label])


def fold_tables(
    scores: dict[str, np.ndarray], human: np.ndarray, sets: np.ndarray, baseline: str
) -> tuple[str, str]:
    """The model card's two tables: every row on every set, and the folds.

    ``scores`` holds the baseline's and every candidate's per-pair scores, in the rows'
    order; the candidates are every key but ``baseline``.
    """
    names = sorted(set(sets.tolist()))
    label_of = {name: f"set {i}" for i, name in enumerate(names, 1)}
    everything = np.ones(len(human), dtype=bool)
    header = [label_of[n] for n in names] + [f"all {len(human)}"]
    lines = ["| candidate | " + " | ".join(header) + " |", "| --- |" + " ---: |" * len(header)]
    for label, s in scores.items():
        cells = [errors_row(s, human, sets == name) for name in names]
        cells.append(errors_row(s, human, everything))
        shown = f"{baseline} (no embeddings)" if label == baseline else label
        lines.append(
            f"| {shown} | " + " | ".join(f"{r:.3f} / {m:.4f} / {a:.4f}" for r, m, a in cells) + " |"
        )
    every = "\n".join(lines)
    candidates = [label for label in scores if label != baseline]
    lines = [
        "| held out | chosen on the other two | Spearman there | held-out Spearman "
        f"| held-out MSE | held-out MAE | {baseline.split()[0]} held out (Spearman / MSE / MAE) |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, best, fit in fold_choices(scores, human, sets, candidates):
        r, m, a = errors_row(scores[best], human, sets == name)
        br, bm, ba = errors_row(scores[baseline], human, sets == name)
        lines.append(
            f"| {label_of[name]} | {best} | {fit:.3f} | {r:.3f} | {m:.4f} | {a:.4f} "
            f"| {br:.3f} / {bm:.4f} / {ba:.4f} |"
        )
    return every, "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus", type=Path, nargs="?", help="Train missing candidates on it (else reuse only)."
    )
    parser.add_argument("--ratings", type=Path, default=packaged_ratings_path())
    parser.add_argument("--models", type=Path, default=Path("work-data/select"))
    parser.add_argument("--output", type=Path, default=Path("work-data/select/folds.md"))
    args = parser.parse_args()
    try:
        select(args)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


BASELINE = "ROUGE-1 F"


def select(args: argparse.Namespace) -> None:
    """Train or reuse every candidate, run the folds, and write and print the tables."""
    # The corpus first: a wrong path fails before any candidate folder is made.
    corpus = None if args.corpus is None else open_corpus(args.corpus)
    pairs = load_published_pairs([args.ratings], scale=10)
    refs, preds, human = list(pairs.references), list(pairs.predictions), pairs.human
    sets = np.array(pairs.sets)

    rouge = get_metric("rouge1").score(refs, preds)
    scores = {BASELINE: np.asarray(rouge.values[rouge.primary])}
    trained_on = {}
    for label in CANDIDATES:
        emb = load_embeddings(model_for(label, corpus, args.models))
        trained_on[label] = str(emb.meta.get("corpus", {}).get("manifest_sha256", "?"))[:8]
        scores[label] = get_metric("wrd", embeddings=emb).score(refs, preds).f1
    every, folds = fold_tables(scores, human, sets, BASELINE)
    choices = fold_choices(scores, human, sets, list(CANDIDATES))
    votes = dict(Counter(best for _, best, _ in choices))
    corpora = ", ".join(sorted(set(trained_on.values())))
    text = (
        f"WRDScore F1 (default settings) against people on {len(human)} rated pairs; "
        f"candidates trained on corpus {corpora}.\n\n"
        "Every candidate on every set: Spearman / MSE / MAE.\n\n"
        f"{every}\n\n"
        "Folds: choose on two sets by Spearman, report the held-out set.\n\n"
        f"{folds}\n\n"
        f"Chosen in the folds: {votes}; default: **{chosen_default(choices, list(CANDIDATES))}**.\n"
    )
    with atomic_write(args.output) as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
