"""Every shipped metric against people who rated summaries by reading the code.

A report, not a selection (``docs/history.md``, 2026-11-29, 16:17 UTC): nothing in the
toolkit is chosen from it. The rows are the 995 generated summaries of the shared ratings
(``benchmarks/code_agreement.py``'s :func:`~code_agreement.load`); each metric runs with
its defaults for ``target="summary"`` and the bundled static model, and gives up to three
scores: its headline value against the developer's comment (``reference``), its code
support (``code``, no reference) and their ``combined`` value, the last two only where the
metric reads code. Spearman with the mean rating, intervals over methods
(:func:`~code_agreement.agreement`), and each score's paired difference from the first
row's (``wrd``'s reference value).

    python benchmarks/metric_agreement.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from code_agreement import DATA, Rows, agreement, load
from numpy.typing import NDArray

#: Every registered metric that runs without torch or a chat server.
TORCH_FREE = (
    "wrd",
    "bertscore",
    "wmd",
    "twmd",
    "trwmd",
    "sbert",
    "cka",
    "rouge1",
    "rougeL",
    "subtoken",
    "bleu",
    "chrf",
)


def metric_scores(rows: Rows, name: str) -> dict[str, NDArray[np.float64]]:
    """``name``'s per-summary scores: ``reference`` (its headline value against the
    developer's comment) and, where it reads code, ``code`` and ``combined``."""
    from wrdscore.errors import WrdscoreError
    from wrdscore.metrics import get_metric

    try:
        metric = get_metric(name, target="summary")
    except WrdscoreError:  # a metric that cannot read code takes no target either
        metric = get_metric(name)
    # Scored against code, a result holds the reference's values too: one call a metric.
    reads = metric.code_key is not None
    res = metric.score(rows.reference, rows.summary, code=rows.code if reads else None)
    keys = {"reference": res.primary, **({"code": "code", "combined": "combined"} if reads else {})}
    return {part: np.asarray(res.values[key], dtype=np.float64) for part, key in keys.items()}


def table(rows: Rows, names: Sequence[str]) -> list[dict[str, float | str]]:
    """One row per (metric, part): Spearman with its interval over methods, Kendall, and
    the paired difference from the first score (the first metric's reference value)."""
    labels, scores = [], []
    for name in names:
        for part, values in metric_scores(rows, name).items():
            if not np.all(np.isfinite(values)):
                sys.exit(f"error: {name} gave a value that is not finite ({part})")
            labels.append((name, part))
            scores.append(values)
    measured = agreement(rows.method, rows.rating, scores)
    return [
        {"metric": name, "part": part, **r}
        for (name, part), r in zip(labels, measured, strict=True)
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--metrics", nargs="+", default=list(TORCH_FREE))
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = load(args.data)
    measured = table(rows, args.metrics)
    print(f"{len(rows.rating)} rated summaries of {len(set(rows.method.tolist()))} methods")
    first = f"{measured[0]['metric']} {measured[0]['part']}"
    print(f"metric     part       spearman [95% over methods]  kendall  diff from {first} [95%]")
    for r in measured:
        print(
            f"{r['metric']:<10} {r['part']:<10} {r['spearman']:.3f} [{r['low']:.3f}, "
            f"{r['high']:.3f}]       {r['kendall']:.3f}    {r['diff']:+.3f} "
            f"[{r['diff_low']:+.3f}, {r['diff_high']:+.3f}]"
        )
    if args.json:
        args.json.write_text(json.dumps(measured, indent=1) + "\n", encoding="utf-8")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
