"""Measure what attract-repel specialisation does to WRDScore's agreement with people.

Mines constraints from CORPUS_DIR (never from ratings; mined pairs only, without the
curated list, so the tables in docs/history.md made before the list existed stay reproducible),
specialises each model with
counter-fitting and with attract-repel at their published hyperparameters (nothing
is tuned on the ratings), and
scores the WRDScore paper's 150 rated pairs with WRDScore F1 (default settings:
``weights="norm"``, ``oov="zero"``, clipped cosines) before and after. Reports
Spearman's rho against the human scores overall, on the pairs with ROUGE-1 = 0 and
per set, for each method with the full constraint set and two ablations (contrasts
only; synonyms and abbreviations only; and, when the corpus has method context and
bodies gave synonyms, all pairs but the synonyms found only in bodies); a seeded
random sample of 30 mined synonyms, to judge their precision; the leave-one-set-out
choice among {before, the variants} (choose on two sets by Spearman, report the
third); the cases of issue 11; and a check that needs no ratings: the mean cosine of random pairs of
constrained words (specialisation should not pull unrelated words together).

Usage::

    python scripts/evaluate_specialise.py CORPUS_DIR [--model default ...] \\
        [--ratings DIR (default: the packaged paper ratings)] [--output report.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from wrdscore import get_metric
from wrdscore.atomic import atomic_write
from wrdscore.embeddings import (
    SPECIALISE_METHODS,
    TokenEmbeddings,
    load_embeddings,
    mine_constraints,
    specialise_vectors,
)
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import load_published_pairs, packaged_ratings_path

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
#: The variants compared: which mined kinds are applied.
VARIANTS = {
    "all pairs": ("contrast", "synonym", "abbreviation"),
    "contrasts only": ("contrast",),
    "synonyms + abbreviations only": ("synonym", "abbreviation"),
}
#: Marks the variant without the synonyms found only in method bodies.
NO_BODY = ("no body",)
#: How many mined synonyms are listed for reading.
SAMPLE = 30


def rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (NaN, without a warning, when ``x`` is constant)."""
    if np.ptp(x) == 0:
        return float("nan")
    return float(spearmanr(x, y)[0])


def people_by_pair(refs: list[str], preds: list[str], human: np.ndarray) -> dict[Pair, float]:
    """The people's score of each (reference, prediction), averaged over repeats.

    A pair rated in more than one set (``darken color``/``lighten color``) gets the mean
    of its ratings, so no one set's rating stands for it.
    """
    seen: dict[Pair, list[float]] = {}
    for ref, pred, h in zip(refs, preds, human, strict=True):
        seen.setdefault((ref, pred), []).append(float(h))
    return {pair: float(np.mean(h)) for pair, h in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--model", action="append", help="MODEL_DIR or 'default' (repeatable)")
    parser.add_argument("--ratings", type=Path, default=packaged_ratings_path())
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    try:
        report(args)
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")


def report(args: argparse.Namespace) -> None:
    """Mine, specialise every model, and print (and optionally write) the report."""
    ratings = load_published_pairs([args.ratings], scale=10)
    refs, preds, human = list(ratings.references), list(ratings.predictions), ratings.human
    sets = np.array(ratings.sets)
    names = sorted(set(sets))
    rouge = get_metric("rouge1").score(refs, preds)
    r1 = np.asarray(rouge.values[rouge.primary])
    zero = r1 == 0

    # Models first: a wrong path fails before the pass over the corpus.
    models = [load_embeddings(model) for model in args.model or ["default"]]
    started = time.perf_counter()
    constraints = mine_constraints(args.corpus)
    if not any(constraints.sizes().values()):
        raise WrdscoreError(
            f"no constraints mined from {args.corpus}: nothing to specialise with "
            "(its methods give no synonyms, contrasts or abbreviations; use a larger corpus)"
        )
    sources = constraints.synonym_sources()
    lines = [
        f"Constraints mined from {args.corpus} in {time.perf_counter() - started:.1f} s: "
        + ", ".join(f"{k} {v}" for k, v in constraints.sizes().items())
        + f" (synonyms from summaries {sources['summary']}, from bodies {sources['body']})",
        "",
    ]
    # A seeded random sample of the synonyms (not the strongest ones), so a reader can
    # judge their precision.
    rng = np.random.default_rng(0)
    synonyms = constraints.synonym
    sample = sorted(rng.choice(len(synonyms), min(SAMPLE, len(synonyms)), replace=False).tolist())
    lines += [
        f"{len(sample)} random mined synonyms of {len(synonyms)}:",
        "",
        "| a | b | source | support | classes | example |",
        "| --- | --- | --- | ---: | ---: | --- |",
        *(
            f"| {p.a} | {p.b} | {p.source} | {p.support} | {p.frames} | "
            f"{p.example.replace('|', '/')} |"
            for p in (synonyms[i] for i in sample)
        ),
        "",
        f"| model | variant | all {len(human)} | ROUGE-1 = 0 ({int(zero.sum())}) | "
        + " | ".join(names)
        + " |",
        "| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in names) + " |",
    ]

    def row(label: str, kind: str, s: np.ndarray) -> str:
        per_set = [rho(s[sets == k], human[sets == k]) for k in names]
        cells = [rho(s, human), rho(s[zero], human[zero]), *per_set]
        # A constant score (ROUGE-1 on the pairs where it is 0) has no rank correlation.
        text = ["-" if np.isnan(c) else f"{c:.3f}" for c in cells]
        return f"| {label} | {kind} | " + " | ".join(text) + " |"

    lines.append(row("ROUGE-1 F", "-", r1))
    case_refs, case_preds = (list(x) for x in zip(*CASES, strict=True))
    cases = []
    folds = []
    spread = []
    for emb in models:
        scores = {"before": get_metric("wrd", embeddings=emb).score(refs, preds).f1}
        lines.append(row(emb.name, "before", scores["before"]))
        case_scores = {"before": get_metric("wrd", embeddings=emb).score(case_refs, case_preds).f1}
        ix = emb.kv.key_to_index
        constrained = sorted({ix[w] for p in constraints for w in (p.a, p.b) if w in ix})
        if not constrained:
            raise WrdscoreError(f"none of the constrained words is in {emb.name}'s vocabulary")
        rng = np.random.default_rng(0)
        left, right = rng.choice(constrained, 20_000), rng.choice(constrained, 20_000)

        def mean_cos(vectors: np.ndarray, i: np.ndarray = left, j: np.ndarray = right) -> float:
            u = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
            return float(np.mean(np.einsum("ij,ij->i", u[i], u[j])))

        spread.append(f"| {emb.name} | before | {mean_cos(emb.kv.vectors):.3f} |")
        variants = dict(VARIANTS)
        if sources["body"]:
            # The body rule's own effect: everything except the synonyms only it found.
            variants["all pairs, no body-only synonyms"] = NO_BODY
        for method, (variant, kinds) in (
            (m, v) for m in SPECIALISE_METHODS for v in variants.items()
        ):
            started = time.perf_counter()
            chosen = [
                p
                for p in constraints
                if (p.source != "body" if kinds == NO_BODY else p.kind in kinds)
            ]
            res = specialise_vectors(emb.kv, chosen, method)
            seconds = time.perf_counter() - started
            variant = f"{method}, {variant}"
            if kinds == VARIANTS["all pairs"]:
                spread.append(f"| {emb.name} | {variant} | {mean_cos(res.kv.vectors):.3f} |")
            special = TokenEmbeddings(
                res.kv, name=f"{emb.name}-ar", doc_freq=emb.doc_freq, n_docs=emb.n_docs
            )
            metric = get_metric("wrd", embeddings=special)
            scores[variant] = metric.score(refs, preds).f1
            case_scores[variant] = metric.score(case_refs, case_preds).f1
            used = ", ".join(f"{k} {v}" for k, v in res.used.items() if v)
            lines.append(row(emb.name, f"{variant} ({used}; {seconds:.1f} s)", scores[variant]))
        cases.append((emb.name, case_scores))
        # Leave one set out: choose the variant (or none) on two sets, report the third.
        for held in names:
            train = sets != held
            best = max(scores, key=lambda v: rho(scores[v][train], human[train]))
            test = sets == held
            folds.append(
                f"| {emb.name} | {held} | {best} | "
                f"{rho(scores[best][test], human[test]):.3f} | "
                f"{rho(scores['before'][test], human[test]):.3f} |"
            )
    lines += [
        "",
        "Mean cosine of 20,000 random pairs of constrained words (no ratings involved):",
        "",
        "| model | vectors | mean cosine |",
        "| --- | --- | ---: |",
        *spread,
    ]
    lines += [
        "",
        "Leave one set out (choose among before and the variants by Spearman on the other "
        "two sets; report the held-out set):",
        "",
        "| model | held-out set | chosen | held-out rho (chosen) | held-out rho (before) |",
        "| --- | --- | --- | ---: | ---: |",
        *folds,
    ]
    people = people_by_pair(refs, preds, human)
    header = "| reference | prediction | people |"
    rule = "| --- | --- | ---: |"
    for name, case_scores in cases:
        for variant in case_scores:
            header += f" {name} {variant} |"
            rule += " ---: |"
    lines += ["", "WRDScore F1 on the cases of issue 11:", "", header, rule]
    for i, (ref, pred) in enumerate(CASES):
        h = people.get((ref, pred))
        cells = [f"{h:.2f}" if h is not None else "-"]
        cells += [f"{s[i]:.2f}" for _, case_scores in cases for s in case_scores.values()]
        lines.append(f"| {ref} | {pred} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with atomic_write(args.output) as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
