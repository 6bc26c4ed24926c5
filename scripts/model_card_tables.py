"""Tables for the model card: the bundled default beside earlier models, on the paper's pairs.

For each MODEL_DIR given (label=PATH), WRDScore F1 at the metric's default settings on the
WRDScore paper's 150 rated pairs (packaged copy): Spearman / MSE / MAE per set and overall,
Spearman on the pairs with ROUGE-1 = 0; the cosine of token pairs people would call
synonyms, abbreviations or opposites; and WRDScore F1 on the rank errors quoted in issue 11.
Nothing here chooses anything: the default was chosen by ``scripts/default_signals.py``.

Usage::

    python scripts/model_card_tables.py old=work-data/old-default new=wrdscore/data/default
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from scipy.stats import spearmanr

from wrdscore.embeddings import TokenEmbeddings, load_embeddings, similarity
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import get_metric

Pair = tuple[str, str]

#: The rank errors listed in issue 11 (reference, prediction).
CASES: list[Pair] = [
    ("rotate right", "rotate left"),
    ("get", "set"),
    ("darken color", "lighten color"),
    ("encode block", "decode block"),
    ("is blank", "is empty"),
    ("pick", "sample"),
    ("get number of roles", "get num roles"),
    ("is image", "is photo"),
]
#: Token pairs people would call synonyms or abbreviations, then opposites.
TOKEN_PAIRS: list[Pair] = [
    ("size", "count"),
    ("size", "length"),
    ("remove", "delete"),
    ("init", "initialize"),
    ("num", "number"),
    ("cfg", "config"),
    ("blank", "empty"),
    ("add", "remove"),
    ("get", "set"),
    ("left", "right"),
    ("encode", "decode"),
    ("min", "max"),
]


def people_by_pair(refs: list[str], preds: list[str], human: np.ndarray) -> dict[Pair, float]:
    """The people's score of each (reference, prediction), averaged over repeats.

    A pair rated in more than one set (``darken color``/``lighten color``) gets the mean
    of its ratings, so no one set's rating stands for it.

    Examples
    --------
    >>> people_by_pair(["a", "a", "b"], ["x", "x", "y"], np.array([0.25, 0.75, 1.0]))
    {('a', 'x'): 0.5, ('b', 'y'): 1.0}
    """
    seen: dict[Pair, list[float]] = {}
    for ref, pred, h in zip(refs, preds, human, strict=True):
        seen.setdefault((ref, pred), []).append(float(h))
    return {pair: float(np.mean(h)) for pair, h in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", metavar="LABEL=PATH", help="a label and MODEL_DIR")
    args = parser.parse_args()
    models: dict[str, str] = {}
    for spec in args.models:
        label, sep, path = spec.partition("=")
        if not (label and sep and path):
            sys.exit(f"error: {spec!r} is not LABEL=PATH (a label and a model folder)")
        if label in models:
            sys.exit(f"error: label {label!r} is given twice")
        models[label] = path
    try:
        tables(models)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


def tables(models: dict[str, str]) -> None:
    """Print the three tables for the models (label -> MODEL_DIR)."""
    pairs = load_paper_ratings()
    refs, preds, human = list(pairs.references), list(pairs.predictions), pairs.human
    sets = np.array(pairs.sets)
    # Without segmentation (issue 25): the tables compare models measured before it existed.
    rouge = get_metric("rouge1", segment=False).score(refs, preds)
    r1 = np.asarray(rouge.values[rouge.primary])
    scores = {"ROUGE-1": r1}
    embs: dict[str, TokenEmbeddings] = {}
    for label, path in models.items():
        embs[label] = load_embeddings(path)
        wrd = get_metric("wrd", embeddings=embs[label], segment=False)
        scores[label] = wrd.score(refs, preds).f1

    def cell(s: np.ndarray, mask: np.ndarray) -> str:
        err = s[mask] - human[mask]
        rho = spearmanr(s[mask], human[mask])[0]
        return f"{rho:.3f} / {np.mean(err**2):.4f} / {np.mean(np.abs(err)):.4f}"

    names = sorted(set(sets))
    print("| scores | " + " | ".join(names) + " | all 150 | Spearman, ROUGE-1 = 0 |")
    print("| --- |" + " ---: |" * (len(names) + 2))
    zero = r1 == 0
    for label, s in scores.items():
        cells = [cell(s, sets == n) for n in names] + [cell(s, np.ones_like(zero))]
        z = "-" if label == "ROUGE-1" else f"{spearmanr(s[zero], human[zero])[0]:.3f}"
        print(f"| {label} | " + " | ".join(cells) + f" | {z} ({int(zero.sum())} pairs) |")

    print("\n| tokens | " + " | ".join(models) + " |")
    print("| --- |" + " ---: |" * len(models))
    for a, b in TOKEN_PAIRS:
        print(
            f"| {a} / {b} | "
            + " | ".join(f"{similarity(e, a, b):.2f}" for e in embs.values())
            + " |"
        )

    print("\n| reference | prediction | people | ROUGE-1 | " + " | ".join(models) + " |")
    print("| --- | --- | ---: | ---: |" + " ---: |" * len(models))
    # A pair rated in two sets has one score per metric but two ratings: their mean.
    people = people_by_pair(refs, preds, human)
    for ref, pred in CASES:
        i = next(k for k in range(len(refs)) if refs[k] == ref and preds[k] == pred)
        row = " | ".join(f"{scores[label][i]:.2f}" for label in models)
        print(f"| {ref} | {pred} | {people[(ref, pred)]:.2f} | {r1[i]:.2f} | {row} |")


if __name__ == "__main__":
    main()
