"""Print docs/scoring.md's table: WRDScore on the paper's eleven example pairs beside the paper's.

Reads ``examples/paper-scores.tsv`` (the pairs and the precision, recall and F1 the
WRDScore paper reports for them), scores the same pairs with WRDScore on the given
embeddings (the bundled default unless ``--embeddings``) and ROUGE-1, and prints a
markdown table plus one summary line. Re-run it whenever the default model changes and
paste the output into "The example pairs" of docs/scoring.md.

Usage::

    python scripts/paper_examples.py [--embeddings MODEL]
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from wrdscore.embeddings import TokenEmbeddings, load_embeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embeddings", default=None, help="MODEL_DIR or vectors file")
    args = parser.parse_args()

    with (EXAMPLES / "paper-scores.tsv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    refs = [r["reference"] for r in rows]
    preds = [r["prediction"] for r in rows]
    # The example files must be exactly these pairs (the README's first command scores them).
    for name, expected in (("refs.txt", refs), ("preds.txt", preds)):
        if (EXAMPLES / name).read_text(encoding="utf-8").splitlines() != expected:
            raise SystemExit(f"error: examples/{name} differs from examples/paper-scores.tsv")

    try:
        emb = load_embeddings(args.embeddings)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")
    wrd = get_metric("wrd", embeddings=emb).score(refs, preds)
    rouge = get_metric("rouge1").score(refs, preds)
    paper = np.array([[float(r[k]) for k in ("precision", "recall", "f1")] for r in rows])

    print(f"WRDScore on `{wrd.signature}`")
    print()
    print("| # | reference | prediction | paper P | paper R | paper F1 | P | R | F1 | ROUGE-1 F |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, (ref, pred) in enumerate(zip(refs, preds, strict=True)):
        unseen = [t for t in f"{ref} {pred}".split() if t not in emb]
        mark = "".join(f" `{t}`*" for t in unseen)
        ours = (wrd.precision[i], wrd.recall[i], wrd.f1[i])
        print(
            f"| {i + 1} | {ref} | {pred}{mark} | "
            + " | ".join(f"{v:.4f}" for v in paper[i])
            + " | "
            + " | ".join(f"{v:.4f}" for v in ours)
            + f" | {rouge.f1[i]:.4f} |"
        )
    means = paper.mean(axis=0)
    print(
        "| | mean | | "
        + " | ".join(f"{v:.4f}" for v in means)
        + " | "
        + " | ".join(f"{wrd.corpus[k]:.4f}" for k in ("precision", "recall", "f1"))
        + f" | {rouge.corpus['f1']:.4f} |"
    )
    rho = spearmanr(paper[:, 2], wrd.f1).statistic
    print()
    print(
        f"`*` unseen by the model ({wrd.oov_tokens} occurrences, vector zero under oov=zero). "
        f"Spearman correlation of our F1 with the paper's over the 11 pairs: {rho:.3f}. "
        f"Mean cosine of two random tokens of the model: {_random_cosine(emb):.3f}."
    )


def _random_cosine(emb: TokenEmbeddings, n: int = 20_000, seed: int = 0) -> float:
    """Mean cosine of ``n`` random pairs of the model's (non-zero) token vectors.

    The level at which unrelated tokens sit: it sets where scores of pairs without
    shared meaning land, and differs from model to model.
    """
    vectors = emb.kv.vectors[np.linalg.norm(emb.kv.vectors, axis=1) > 0].astype(np.float64)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, len(unit), size=(2, n))
    return float(np.einsum("ij,ij->i", unit[i], unit[j]).mean())


if __name__ == "__main__":
    main()
