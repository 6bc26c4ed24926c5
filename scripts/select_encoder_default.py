"""Choose the bundled default among static models built from an encoder, by the fold protocol.

The candidates are fixed before any rating is read, simplest first (ties go to the first):
the code-trained default, the all-MiniLM-L6-v2 vectors distilled over its vocabulary at
several dimensions, those fused with the code model, and a fusion specialised with the code
model's mined pairs. Each scores the WRDScore paper's 150 rated pairs with WRDScore F1 at
the metric's default settings; for each of the three sets, the candidate with the best
Spearman on the other two is chosen and reported on the held-out set (the protocol and
tables of ``select_default.py``, reused). A candidate over the bundled-data budget (30 MB)
is scored and shown, but cannot be chosen.

Contextual scoring (``--encoder``) needs torch, so it cannot be the bundled default; its
rows are given beside the static ones (``--encoder NAME``), on the same pairs.

Usage::

    python scripts/select_encoder_default.py code=wrdscore/data/default \\
        minilm=work-data/minilm-384 ... --encoder sentence-transformers/all-MiniLM-L6-v2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

# Run as a script, this folder is on sys.path: the fold protocol has one home.
from select_default import BASELINE, chosen_default, errors_row, fold_choices, fold_tables

from wrdscore import get_metric
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_paper_ratings
from wrdscore.metrics import build_metrics

#: What all bundled data (wrdscore/data) may weigh, in bytes.
BUDGET = 30_000_000


def folder_bytes(path: Path) -> int:
    """Bytes of every file under ``path``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "models", nargs="+", metavar="LABEL=PATH", help="candidates, simplest first"
    )
    parser.add_argument("--encoder", help="also show contextual rows of this encoder")
    parser.add_argument(
        "--other-data",
        type=int,
        default=0,
        help="bytes of bundled data besides the model (model card, ratings...)",
    )
    args = parser.parse_args()
    try:
        select(args)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


def select(args: argparse.Namespace) -> None:
    """Score every candidate, run the folds, print the tables and the choice."""
    models: dict[str, Path] = {}
    for spec in args.models:
        label, sep, path = spec.partition("=")
        if not (label and sep and path) or label in models:
            raise WrdscoreError(f"{spec!r}: expected a new LABEL=PATH")
        models[label] = Path(path)
    pairs = load_paper_ratings()
    refs, preds, human = list(pairs.references), list(pairs.predictions), pairs.human
    sets = np.array(pairs.sets)
    rouge = get_metric("rouge1").score(refs, preds)
    scores = {BASELINE: np.asarray(rouge.values[rouge.primary])}
    sizes = {}
    for label, path in models.items():
        scores[label] = get_metric("wrd", embeddings=path).score(refs, preds).f1
        sizes[label] = folder_bytes(path)
    within = [label for label in models if sizes[label] + args.other_data <= BUDGET]
    every, _ = fold_tables(scores, human, sets, BASELINE)
    print("Every candidate on every set: Spearman / MSE / MAE.\n")
    print(every)
    print("\n| candidate | MB on disk | within the 30 MB budget |\n| --- | ---: | --- |")
    for label in models:
        print(f"| {label} | {sizes[label] / 1e6:.1f} | {'yes' if label in within else 'no'} |")
    budgeted = {BASELINE: scores[BASELINE], **{label: scores[label] for label in within}}
    _, folds = fold_tables(budgeted, human, sets, BASELINE)
    print("\nFolds (candidates within budget): choose on two sets by Spearman.\n")
    print(folds)
    choice = chosen_default(fold_choices(scores, human, sets, within), within)
    print(f"\nDefault: **{choice}**.")
    if args.encoder:
        print("\nContextual rows (need torch; not candidates for bundling):\n")
        everything = np.ones(len(human), dtype=bool)
        first = next(iter(models))
        rows = {"contextual": None, f"contextual fused with {first}": models[first]}
        print("| scorer | Spearman / MSE / MAE |\n| --- | --- |")
        for label, static in rows.items():
            (wrd,) = build_metrics(["wrd"], static, encoder=args.encoder)
            s = wrd.score(refs, preds).f1
            r, m, a = errors_row(s, human, everything)
            print(f"| {label} wrd | {r:.3f} / {m:.4f} / {a:.4f} |")


if __name__ == "__main__":
    main()
