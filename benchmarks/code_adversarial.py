"""A held-out, rating-free adversarial signal for code support (issue 32).

On Java projects that trained no model (the held-out projects of
``scripts/code_support_signal.py``, prepared by its ``prepare`` command), each sampled
method's true name (or Javadoc summary) is scored reference-free against its own code,
``metric.score(None, texts, code=...)``, beside texts a model could game the score with:

* **stitched**: 2 to 4 distinct random tokens of its code as scoring reads it (the name
  masked), in random order, joined in camelCase (for summaries: 5 to 12, joined by spaces);
* **pasted**: the code's first 12 distinct identifiers (the declared name left out), joined;
* **signature**: the source up to the first ``{``, whitespace collapsed;
* **other**: the names (summaries) of the other methods of its class, as in
  ``code_support_signal.py`` (its AUC).

It prints, per project and pooled, the true text's win rate over each adversary (ties
count half) with a 95% bootstrap interval over methods, and the AUC against the other
texts, of what the toolkit ships, for the metrics named (without an encoder)::

    python scripts/code_support_signal.py prepare
    python benchmarks/code_adversarial.py library --metrics wrd rouge1

The contextual metrics with a pretrained encoder, as ``--encoder`` runs them::

    python benchmarks/code_adversarial.py library --metrics wrd bertscore sentence \
        --encoder sentence-transformers/all-MiniLM-L6-v2

Round 1's five candidates (``docs/history.md``, issue 32) were scored by this file's
``candidates`` command at commit 2db7bfb and round 2's three at 2d57b3b, before each chosen
one shipped. Round 3's (R0, round 2's prior, against R1-R3 on a table of the default
model's 69 sources with held-out thresholds) and round 4's (R0 against G1 and G2, the gate
softened by copying, on five projects no earlier round saw, with the transport's precision
its AUC target is measured from; :data:`ROUNDS`) are scored by today's ``candidates``, R0
through the shipped support model ``jdk17-seq`` and the others from the shipped table
(round 4's, which is round 3's plus the copied counts; ``--prior`` gives another). Each
round's projects, with the Debian versions ``apt-get source`` fetches, are in
``benchmarks/code_rounds.tsv``; ``fetch`` downloads and ingests them::

    python benchmarks/code_adversarial.py fetch --round 4
    python benchmarks/code_adversarial.py candidates --round 4 [--target summary]
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import random
import re
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Each round's projects: Debian source packages, the version fetched, their domain.
ROUND_FILE = ROOT / "benchmarks" / "code_rounds.tsv"
SEED = 20261127
BOOTSTRAP = 2000
ADVERSARIES = ("stitched", "pasted", "signature")
STITCHED = {"name": (2, 4), "summary": (5, 12)}
PASTED = 12


@functools.cache
def _signal_script() -> ModuleType:
    """``scripts/code_support_signal.py``: its projects and its sampling of positives."""
    spec = importlib.util.spec_from_file_location(
        "code_support_signal", ROOT / "scripts" / "code_support_signal.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Case:
    """One method: its true text, the adversaries, and the other texts of its class."""

    code: str
    name: str
    truth: str
    adversaries: dict[str, str]
    others: list[str]


def _camel(words: Sequence[str]) -> str:
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def build_cases(signal: ModuleType, corpus: Path, target: str, seed: str) -> list[Case]:
    """The signal script's positives of ``target`` in ``corpus``, with adversaries."""
    from wrdscore.corpora import read_code, segment
    from wrdscore.corpora._code import code_words

    items = signal.build_items(
        corpus, target, random.Random(f"{signal.SEED}:{corpus.name}:{target}")
    )
    rng = random.Random(seed)
    lo, hi = STITCHED[target]
    cases = []
    for item in items:
        tokens = list(dict.fromkeys(segment(read_code(item.code, target=target, name=item.name))))
        if len(tokens) < 2:
            # The signal's baseline read comments too; with nothing to stitch, no case.
            continue
        ids = [w for w in dict.fromkeys((code_words(item.code) or "").split()) if w != item.name]
        head = item.code.split("{", 1)[0]
        k = min(len(tokens), rng.randint(lo, hi))
        stitched = rng.sample(tokens, k)
        joiner = _camel if target == "name" else " ".join
        cases.append(
            Case(
                item.code,
                item.name,
                item.candidates[0],
                {
                    "stitched": joiner(stitched),
                    "pasted": joiner(ids[:PASTED]) if ids else joiner(tokens[:PASTED]),
                    "signature": re.sub(r"\s+", " ", head).strip(),
                },
                list(item.candidates[1:]),
            )
        )
    return cases


def held_out_cases(
    corpora: Path, target: str, methods: int, projects: Sequence[str] | None
) -> dict[str, list[Case]]:
    """Each project's cases (the held-out ones by default); exits with one error line if
    any of them is a rated pair."""
    from wrdscore.errors import WrdscoreError

    signal = _signal_script()
    try:
        cases = {
            p: build_cases(signal, corpora / p, target, f"{SEED}:{p}:{target}")[:methods]
            for p in projects or signal.HELD_OUT
        }
    except WrdscoreError as exc:  # a rated pair among a project's names
        sys.exit(f"error: {exc}")
    from wrdscore.signals import rated_among

    pairs = [
        (c.truth, other)
        for its in cases.values()
        for c in its
        for other in [*c.adversaries.values(), *c.others]
    ]
    rated = rated_among(pairs)
    if rated:
        what = "case is a rated pair" if len(rated) == 1 else "cases are rated pairs"
        sys.exit(f"error: {len(rated):,} {what}, the first {rated[0]}")
    return cases


def raw_support(metric: Any, cases: Sequence[Case]) -> list[np.ndarray]:
    """The metric's code support of every case's texts: truth, adversaries, others."""
    texts, code = [], []
    for c in cases:
        mine = [c.truth, *(c.adversaries[a] for a in ADVERSARIES), *c.others]
        texts += mine
        code += [{"code": c.code, "name": c.name}] * len(mine)
    values = metric.score(None, texts, code=code).values["code"]
    out, at = [], 0
    for c in cases:
        n = 1 + len(ADVERSARIES) + len(c.others)
        out.append(np.asarray(values[at : at + n]))
        at += n
    return out


def _wins(a: float, b: np.ndarray) -> np.ndarray:
    return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))


def summarise(scores: Sequence[np.ndarray], rng: np.random.Generator) -> dict[str, Any]:
    """Win rates over each adversary with bootstrap intervals, and AUC over the others."""
    k = len(ADVERSARIES)
    wins = np.array([_wins(s[0], s[1 : 1 + k]) for s in scores])  # methods x adversaries
    out: dict[str, Any] = {"methods": len(scores)}
    draws = rng.integers(0, len(scores), size=(BOOTSTRAP, len(scores)))
    for j, name in enumerate(ADVERSARIES):
        boot = wins[draws, j].mean(axis=1)
        out[name] = (wins[:, j].mean(), *np.quantile(boot, [0.025, 0.975]))
    pairs = np.concatenate([_wins(s[0], s[1 + k :]) for s in scores])
    out["auc"] = float(pairs.mean())
    return out


def table(rows: dict[str, dict[str, Any]], label: str) -> str:
    lines = [
        f"| {label} | methods | wins over stitched | over pasted | over signature | AUC other |",
        "|---|---|---|---|---|---|",
    ]
    for key, r in rows.items():
        cells = [f"{r[a][0]:.3f} [{r[a][1]:.3f}, {r[a][2]:.3f}]" for a in ADVERSARIES]
        lines.append(f"| {key} | {r['methods']} | {' | '.join(cells)} | {r['auc']:.3f} |")
    return "\n".join(lines)


def evaluate(scores: dict[str, list[np.ndarray]], label: str) -> str:
    """Per project and pooled (the pooled AUC is the mean of the projects')."""
    rows = {p: summarise(s, np.random.default_rng(SEED)) for p, s in scores.items()}
    pooled = summarise([x for s in scores.values() for x in s], np.random.default_rng(SEED))
    pooled["auc"] = float(np.mean([r["auc"] for r in rows.values()]))
    rows["**pooled**"] = pooled
    return table(rows, label)


def library(
    corpora: Path,
    target: str,
    methods: int,
    metrics: Sequence[str],
    encoder: str | None = None,
    projects: Sequence[str] | None = None,
) -> None:
    """What the toolkit ships: ``metric.score(None, texts, code=...)`` of each metric,
    with a pretrained ``encoder``'s contextual states where given (as ``--encoder``)."""
    from wrdscore.metrics import get_metric

    started = time.perf_counter()
    cases = held_out_cases(corpora, target, methods, projects)
    report = []
    for name in metrics:
        options = {"encoder": encoder} if encoder else {}
        metric = get_metric(name, target=target, **options)
        scores = {p: raw_support(metric, its) for p, its in cases.items()}
        label = f"{name}, {encoder}" if encoder else name
        report.append(evaluate(scores, f"{label} ({target})"))
    report.append(f"{time.perf_counter() - started:.0f} s")
    print("\n\n".join(report))


#: The candidates of rounds 3 and 4 (``docs/history.md``, issue 32): the length share,
#: quantile and copied share (None: the gate reads the prediction alone) of the table
#: given by ``--prior``. The shipped table, with its settings, is R0 in both.
ROUNDS: dict[int, dict[str, tuple[float, float, float | None]]] = {
    3: {"R1": (0.01, 0.2, None), "R2": (0.02, 0.3, None), "R3": (0.05, 0.3, None)},
    4: {"G1": (0.01, 0.2, 0.01), "G2": (0.01, 0.3, 0.01)},
}


def transport_precision(metric: Any, cases: Sequence[Case]) -> list[np.ndarray]:
    """WRDScore's balanced-transport precision onto the code, the code support before
    issue 32: the reference of round 4's AUC target."""
    from wrdscore.corpora import read_code

    out = []
    for c in cases:
        code = read_code(c.code, target=metric.code_scorer.target, name=c.name)
        mine = [c.truth, *(c.adversaries[a] for a in ADVERSARIES), *c.others]
        preds = [metric.tokens(t, prediction=True) for t in mine]
        # The engine's own P/R/F1 of token lists, the code on the reference side, as
        # score's code value was computed before issue 32 (no cap on the code's length).
        values = metric._score_tokens([code] * len(preds), preds)["precision"]
        out.append(np.asarray(values, dtype=np.float64))
    return out


def candidates(
    corpora: Path,
    target: str,
    methods: int,
    projects: Sequence[str] | None = None,
    table: Path | None = None,
    round_: int = 4,
) -> None:
    """WRDScore's best match alone (a reference), R0 (round 2's priors, ``jdk17-seq``) and, with
    ``table``, the candidates of round ``round_`` (:data:`ROUNDS`), on ``projects``
    (default: the held-out ones); round 4 also prints the transport's precision."""
    from wrdscore.metrics import get_metric
    from wrdscore.metrics.code import SupportInput, SupportModel, TextPrior, read_prior

    started = time.perf_counter()
    cases = held_out_cases(corpora, target, methods, projects)

    class Candidate(SupportModel):
        """A round's candidate: the raw support times a table's prior (not shipped)."""

        def __init__(self, name: str, prior: TextPrior) -> None:
            self.name, self.prior = name, prior

        def support(self, given: SupportInput) -> np.ndarray:
            return given.raw * self.prior.factor(given.predictions, given.codes, given.languages)

    report = []
    if round_ == 4:
        metric = get_metric("wrd", target=target)
        scores = {p: transport_precision(metric, its) for p, its in cases.items()}
        report.append(evaluate(scores, f"wrd transport precision, before issue 32 ({target})"))
    # The shipped support models by name (R0 is round 2's, shipped until round 4).
    rows: list[tuple[str, str | SupportModel]] = [
        ("best match alone", "none"),
        ("R0", "jdk17-seq"),
    ]
    if table is not None:
        data = table.read_bytes()
        for label, (share, q, copied) in ROUNDS[round_].items():
            prior = read_prior(data, target, q, share, copied)
            rows.append((f"{label} ({share:g}, {q:g}, copied {copied})", Candidate(label, prior)))
    for label, support in rows:
        metric = get_metric("wrd", target=target, code_support=support)
        scores = {p: raw_support(metric, its) for p, its in cases.items()}
        report.append(evaluate(scores, f"wrd {label} ({target})"))
    report.append(f"{time.perf_counter() - started:.0f} s")
    print("\n\n".join(report))


def round_projects(round_: int) -> dict[str, str]:
    """Round ``round_``'s projects (:data:`ROUND_FILE`): package -> Debian version."""
    rows = [line.split("\t") for line in ROUND_FILE.read_text(encoding="utf-8").splitlines()]
    return {package: version for r, package, version, _ in rows[1:] if int(r) == round_}


def fetch(corpora: Path, round_: int) -> None:
    """Download round ``round_``'s projects' upstream archives from the Debian mirror and
    ingest them under ``corpora`` (as ``code_support_signal.py prepare``), saying where the
    mirror's version is not the one the round scored."""
    wanted = round_projects(round_)
    _signal_script().fetch_projects(corpora.parent, dict.fromkeys(wanted))
    for package, version in wanted.items():
        upstream = version.split(":")[-1].rsplit("-", 1)[0]
        if not list((corpora.parent / "debsrc").glob(f"{package}_{upstream}.orig.tar.*")):
            print(f"note: {package}: the mirror's version is not {version}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("library", "candidates", "fetch"))
    ap.add_argument(
        "--corpora",
        type=Path,
        default=ROOT / "work-data" / "code-signal" / "corpora",
        help="the held-out projects' corpora (code_support_signal.py prepare)",
    )
    ap.add_argument("--target", choices=("name", "summary"), default="name")
    ap.add_argument("--methods", type=int, default=300, help="methods per project")
    ap.add_argument("--metrics", nargs="+", default=["wrd", "rouge1"])
    ap.add_argument(
        "--projects",
        nargs="+",
        help="corpora under --corpora (default: the round's for candidates, rounds 1-3's else)",
    )
    ap.add_argument(
        "--prior",
        type=Path,
        help="candidates: the table of the round's candidates (default: the shipped one)",
    )
    ap.add_argument(
        "--round", type=int, choices=(1, 2, 3, 4), default=4, help="candidates, fetch: the round"
    )
    ap.add_argument("--encoder", help="library: a pretrained encoder for the metrics")
    args = ap.parse_args(argv)
    if args.command == "fetch":
        fetch(args.corpora, args.round)
        return
    if args.command == "candidates" and args.round not in ROUNDS:
        sys.exit(f"error: round {args.round} was scored at its own commit (see the docstring)")
    if args.command == "candidates" and args.projects is None:
        args.projects = list(round_projects(args.round))
    projects = args.projects or _signal_script().HELD_OUT
    missing = [p for p in projects if not (args.corpora / p / "manifest.json").is_file()]
    if missing:
        sys.exit(f"error: no corpus {args.corpora / missing[0]} (code_support_signal.py prepare)")
    if args.prior is not None and not args.prior.is_file():
        sys.exit(f"error: no table {args.prior} (build_code_prior.py --held-out-thresholds)")
    if args.prior is not None and not zipfile.is_zipfile(args.prior):
        # Tables before round 4's were gzipped JSON: build it again with today's script.
        sys.exit(f"error: {args.prior} is not a table of today's build_code_prior.py (a zip)")
    if args.command == "candidates":
        from importlib import resources

        from wrdscore.metrics.code import PRIOR_FILE

        with resources.as_file(resources.files("wrdscore.data").joinpath(PRIOR_FILE)) as shipped:
            table = shipped if args.prior is None else args.prior
            candidates(args.corpora, args.target, args.methods, args.projects, table, args.round)
    else:
        library(args.corpora, args.target, args.methods, args.metrics, args.encoder, args.projects)


if __name__ == "__main__":
    main()
