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
  ``code_support_signal.py`` (its AUC);

and issue 41's attacks (:func:`issue41_attacks`; no random draws, so the columns above
are unchanged):

* **template**: each stock verb of :data:`TEMPLATES` with the body's most frequent word
  (``getItem``; "Returns the item." for summaries), each reported, and the best-scoring
  one of each method (the attacker's pick);
* **padded**: the true text with the body's three most frequent words it does not use;
* **repeat**: the true text two (and, for names, three) times.

Each table ends with issue 41's floors (:data:`FLOORS`) met and missed. Issue 41's
fresh projects (round 5, chosen by ``benchmarks/round5_projects.md``) and a code support
chosen by name (the metrics' ``code_support`` option)::

    python benchmarks/round5_projects.py list && python benchmarks/round5_projects.py prepare
    python benchmarks/code_adversarial.py library --corpora work-data/round5/corpora \
        --projects libaxiom-java libdb-je-java libxpp2-java libcobra-java libjgraph-java \
        --metrics wrd [--code-support NAME] [--target summary]

``lowercase`` (same options) scores each true name run together in lower case against its
camelCase form, with segmentation off and on (issue 41, item 2).

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
``benchmarks/code_rounds.tsv``; ``fetch`` downloads those versions and ingests them
(``--dry-run`` prints its commands), and ``candidates`` reads text and code as the rounds
did (:data:`ROUND_READING`). Round 4's published table reruns with (docs/history.md,
"Rerunning round 4")::

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
#: Issue 41's stock templates: a verb (names) or an opening (summaries) with the body's
#: most frequent word; the attacker's pick per method is the best-scoring one.
TEMPLATES = {
    "name": ("get", "is", "create", "set"),
    "summary": ("Returns the", "Gets the"),
}
PADDING = 3
REPEATS = {"name": (2, 3), "summary": (2,)}
BEST_TEMPLATE = "template (best)"
#: Issue 41's floors ("Done when"), pooled over the fresh projects: the true text's win
#: rate over each attack, and the AUC against the class's other texts (names).
FLOORS = {
    "name": {
        "stitched": 0.85,
        "pasted": 0.98,
        "signature": 0.98,
        BEST_TEMPLATE: 0.80,
        "padded": 0.80,
        "repeat x2": 0.95,
        "repeat x3": 0.95,
        "auc": 0.83,
    },
    "summary": {
        "stitched": 0.90,
        "pasted": 0.90,
        "signature": 0.90,
        BEST_TEMPLATE: 0.90,
        "padded": 0.90,
        "repeat x2": 0.90,
    },
}


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


def _template_key(target: str, stock: str) -> str:
    return f"template {stock.split()[0].lower()}"


def issue41_attacks(code: str, name: str, truth: str, target: str) -> dict[str, str]:
    """Issue 41's attacks on one method, built from its code as scoring reads it (the
    name masked): each stock template with the body's most frequent word (the first in
    code order among ties; not the template's own verb), the true text padded with the
    body's :data:`PADDING` most frequent words it does not use, and the true text
    repeated (names camelCase-joined, summaries joined by a space)."""
    from collections import Counter

    from wrdscore.corpora import read_code, split_identifier

    counts = Counter(read_code(code, target=target, name=name))
    ranked = [w for w, _ in counts.most_common()]
    out = {}
    for stock in TEMPLATES[target]:
        verb = stock.split()[-1].lower() if target == "name" else ""
        word = next((w for w in ranked if w != verb), "")
        if target == "name":
            out[_template_key(target, stock)] = _camel([stock, word]) if word else stock
        else:
            out[_template_key(target, stock)] = f"{stock} {word}." if word else f"{stock}."
    used = {w.lower() for w in split_identifier(truth)} if target == "name" else set()
    used |= {w.lower().strip(".,;:") for w in truth.split()}
    pad = [w for w in ranked if w not in used][:PADDING]
    if target == "name":
        out["padded"] = _camel([truth, *pad])
        for k in REPEATS[target]:
            out[f"repeat x{k}"] = _camel([truth] * k)
    else:
        out["padded"] = " ".join([truth, *pad])
        for k in REPEATS[target]:
            out[f"repeat x{k}"] = " ".join([truth] * k)
    return out


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
                    **issue41_attacks(item.code, item.name, item.candidates[0], target),
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


def texts_of(case: Case) -> list[str]:
    """A case's texts in scoring order: the truth, its attacks, the class's others."""
    return [case.truth, *case.adversaries.values(), *case.others]


def raw_support(metric: Any, cases: Sequence[Case]) -> list[np.ndarray]:
    """The metric's code support of every case's texts (:func:`texts_of`)."""
    texts, code = [], []
    for c in cases:
        mine = texts_of(c)
        texts += mine
        code += [{"code": c.code, "name": c.name}] * len(mine)
    values = metric.score(None, texts, code=code).values["code"]
    out, at = [], 0
    for c in cases:
        n = 1 + len(c.adversaries) + len(c.others)
        out.append(np.asarray(values[at : at + n]))
        at += n
    return out


def _wins(a: float | np.ndarray, b: np.ndarray, ties: float = 0.0) -> np.ndarray:
    """1 where ``a`` beats ``b``, 0.5 where they are within ``ties`` of each other."""
    if ties == 0.0:
        return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))
    diff = np.asarray(a) - b
    return np.where(diff > ties, 1.0, np.where(diff >= -ties, 0.5, 0.0))


def summarise(
    scores: Sequence[np.ndarray],
    attacks: Sequence[str],
    rng: np.random.Generator,
    ties: float = 0.0,
) -> dict[str, Any]:
    """Win rates over each attack with bootstrap intervals, and AUC over the others;
    scores within ``ties`` of each other tie (:func:`_wins`).

    With templates among ``attacks``, also :data:`BEST_TEMPLATE`: the win over the
    best-scoring template of each method, the one an attacker who can score would pick.
    """
    k = len(attacks)
    columns = [np.array([s[1 : 1 + k] for s in scores]).reshape(len(scores), k)]
    names = list(attacks)
    templates = [j for j, a in enumerate(attacks) if a.startswith("template ")]
    if templates:
        columns.append(columns[0][:, templates].max(axis=1, keepdims=True))
        names.append(BEST_TEMPLATE)
    truth = np.array([s[0] for s in scores])[:, None]
    wins = _wins(truth, np.hstack(columns), ties)
    out: dict[str, Any] = {"methods": len(scores)}
    draws = rng.integers(0, len(scores), size=(BOOTSTRAP, len(scores)))
    for j, name in enumerate(names):
        boot = wins[draws, j].mean(axis=1)
        out[name] = (wins[:, j].mean(), *np.quantile(boot, [0.025, 0.975]))
    pairs = np.concatenate([_wins(s[0], s[1 + k :], ties) for s in scores])
    out["auc"] = float(pairs.mean())
    return out


def table(rows: dict[str, dict[str, Any]], label: str, columns: Sequence[str]) -> str:
    head = " | ".join(f"over {a}" for a in columns)
    lines = [
        f"| {label} | methods | {head} | AUC other |",
        "|---|---|" + "---|" * (len(columns) + 1),
    ]
    for key, r in rows.items():
        cells = [f"{r[a][0]:.3f} [{r[a][1]:.3f}, {r[a][2]:.3f}]" for a in columns]
        lines.append(f"| {key} | {r['methods']} | {' | '.join(cells)} | {r['auc']:.3f} |")
    return "\n".join(lines)


def floors(pooled: dict[str, Any], target: str) -> str:
    """Issue 41's floors the pooled point estimates meet and miss."""
    met: list[str] = []
    missed: list[str] = []
    for key, floor in FLOORS[target].items():
        value = pooled[key] if key == "auc" else pooled[key][0]
        (met if value >= floor else missed).append(f"{key} {value:.3f} (>= {floor:g})")
    return f"floors met: {', '.join(met) or 'none'}; missed: {', '.join(missed) or 'none'}"


def evaluate(
    scores: dict[str, list[np.ndarray]], attacks: Sequence[str], label: str, ties: float = 0.0
) -> str:
    """Per project and pooled (the pooled AUC is the mean of the projects'): the win rates
    over the attacks, then over each template alone, then the floors."""
    rows = {p: summarise(s, attacks, np.random.default_rng(SEED), ties) for p, s in scores.items()}
    pooled = summarise(
        [x for s in scores.values() for x in s], attacks, np.random.default_rng(SEED), ties
    )
    pooled["auc"] = float(np.mean([r["auc"] for r in rows.values()]))
    rows["**pooled**"] = pooled
    templates = [a for a in attacks if a.startswith("template ")]
    if not templates:  # cases without issue 41's attacks
        return table(rows, label, attacks)
    main = [a for a in attacks if a not in templates]
    main.insert(3, BEST_TEMPLATE)
    target = "name" if "repeat x3" in attacks else "summary"
    return "\n\n".join(
        [
            table(rows, label, main),
            table(rows, f"{label}, each template", templates),
            floors(pooled, target),
        ]
    )


def attacks_of(cases: dict[str, list[Case]]) -> list[str]:
    """The attacks of the cases (every case has the same, in the same order)."""
    return next((list(c[0].adversaries) for c in cases.values() if c), list(ADVERSARIES))


def build_metric(
    name: str,
    target: str,
    encoder: str | None = None,
    code_support: str | None = None,
    centering: str | None = None,
) -> Any:
    """The metric as the toolkit builds it, with a pretrained ``encoder``, a code
    support chosen by name and a ``centering`` where given (an unknown one is the
    library's error line)."""
    from wrdscore.metrics import get_metric

    options: dict[str, Any] = {"target": target}
    if encoder:
        options["encoder"] = encoder
    if centering:
        options["centering"] = centering
    if code_support:
        # The metrics' option that selects the code support by name (issue 41, item 6).
        options["code_support"] = code_support
    return get_metric(name, **options)


def library(
    corpora: Path,
    target: str,
    methods: int,
    metrics: Sequence[str],
    encoder: str | None = None,
    projects: Sequence[str] | None = None,
    code_support: str | None = None,
    centering: str | None = None,
) -> None:
    """What the toolkit ships: ``metric.score(None, texts, code=...)`` of each metric,
    with a pretrained ``encoder``'s contextual states where given (as ``--encoder``),
    the code support named ``code_support`` and the ``centering`` where given."""
    started = time.perf_counter()
    cases = held_out_cases(corpora, target, methods, projects)
    attacks = attacks_of(cases)
    report = []
    for name in metrics:
        metric = build_metric(name, target, encoder, code_support, centering)
        scores = {p: raw_support(metric, its) for p, its in cases.items()}
        label = ", ".join(
            [name, *(x for x in (encoder, code_support) if x)]
            + ([f"centering {centering}"] if centering else [])
        )
        report.append(evaluate(scores, attacks, f"{label} ({target})"))
    report.append(f"{time.perf_counter() - started:.0f} s")
    print("\n\n".join(report))


def lowercase(
    corpora: Path, methods: int, metrics: Sequence[str], projects: Sequence[str] | None = None
) -> None:
    """Issue 41 item 2's case: each true name run together in lower case
    (``computeTotal`` -> ``computetotal``) against its camelCase form, with segmentation
    off (the default) and on: the mean code support of both, the share of methods where
    the lower-cased name keeps at least 99% of the camelCase one's support, and the AUC of
    each against the class's other names (as they are written)."""
    from wrdscore.metrics import get_metric

    started = time.perf_counter()
    cases = held_out_cases(corpora, "name", methods, projects)
    flat = [c for its in cases.values() for c in its]
    lines = [
        "| metric | segment | methods | mean camelCase | mean lower-cased | lower >= 0.99 camel "
        "| AUC camelCase | AUC lower-cased |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in metrics:
        for seg in (False, True):
            metric = get_metric(name, target="name", segment=seg)
            texts, code = [], []
            for c in flat:
                mine = [c.truth, c.truth.lower(), *c.others]
                texts += mine
                code += [{"code": c.code, "name": c.name}] * len(mine)
            values = metric.score(None, texts, code=code).values["code"]
            camel, lower, auc_c, auc_l, at = [], [], [], [], 0
            for c in flat:
                v = np.asarray(values[at : at + 2 + len(c.others)])
                at += len(v)
                camel.append(v[0])
                lower.append(v[1])
                auc_c.append(_wins(v[0], v[2:]))
                auc_l.append(_wins(v[1], v[2:]))
            cm, lw = np.array(camel), np.array(lower)
            kept = float(np.mean(lw >= 0.99 * cm))
            lines.append(
                f"| {name} | {seg} | {len(flat)} | {cm.mean():.3f} | {lw.mean():.3f} | "
                f"{kept:.3f} | {np.concatenate(auc_c).mean():.3f} | "
                f"{np.concatenate(auc_l).mean():.3f} |"
            )
    lines.append(f"\n{time.perf_counter() - started:.0f} s")
    print("\n".join(lines))


#: The candidates of rounds 3 and 4 (``docs/history.md``, issue 32): the length share,
#: quantile and copied share (None: the gate reads the prediction alone) of the table
#: given by ``--prior``. The shipped table, with its settings, is R0 in both.
ROUNDS: dict[int, dict[str, tuple[float, float, float | None]]] = {
    3: {"R1": (0.01, 0.2, None), "R2": (0.02, 0.3, None), "R3": (0.05, 0.3, None)},
    4: {"G1": (0.01, 0.2, 0.01), "G2": (0.01, 0.3, 0.01)},
}
#: How rounds 3 and 4 read text and code, which later defaults changed: names kept whole
#: (segmentation came on by default with issue 41), and code whose name cannot be masked
#: read unmasked, as scoring did before it refused such code (one of round 4's methods,
#: libjlatexmath-java's ``invokeID``, cut at the length limit, is told PHP).
ROUND_READING: dict[str, Any] = {"segment": False, "allow_unmasked": True}


def transport_precision(metric: Any, cases: Sequence[Case]) -> list[np.ndarray]:
    """WRDScore's balanced-transport precision onto the code, the code support before
    issue 32: the reference of round 4's AUC target."""
    from wrdscore.corpora import read_code

    out = []
    for c in cases:
        code = read_code(c.code, target=metric.code_scorer.target, name=c.name)
        preds = [metric.tokens(t, prediction=True) for t in texts_of(c)]
        # The engine's own P/R/F1 of token lists, the code on the reference side, as
        # score's code value was computed before issue 32 (no cap on the code's length).
        scored = metric._scored(metric._score_tokens([code] * len(preds), preds))
        values = scored.values["precision"]
        out.append(np.asarray(values, dtype=np.float64))
    return out


def candidates(
    corpora: Path,
    target: str,
    methods: int,
    projects: Sequence[str] | None = None,
    table: Path | None = None,
    round_: int = 4,
    ties: float = 0.0,
) -> None:
    """WRDScore's best match alone (a reference), R0 (round 2's priors, ``jdk17-seq``) and, with
    ``table``, the candidates of round ``round_`` (:data:`ROUNDS`), on ``projects``
    (default: the held-out ones); round 4 also prints the transport's precision."""
    from wrdscore.metrics import get_metric
    from wrdscore.metrics.code import SupportInput, SupportModel, TextPrior, read_prior

    started = time.perf_counter()
    cases = held_out_cases(corpora, target, methods, projects)
    attacks = attacks_of(cases)

    class Candidate(SupportModel):
        """A round's candidate: the raw support times a table's prior (not shipped)."""

        def __init__(self, name: str, prior: TextPrior) -> None:
            self.name, self.prior = name, prior

        def support(self, given: SupportInput) -> np.ndarray:
            return given.raw * self.prior.factor(given.predictions, given.codes, given.languages)

    report = []
    if round_ == 4:
        metric = get_metric("wrd", target=target, **ROUND_READING)
        scores = {p: transport_precision(metric, its) for p, its in cases.items()}
        label = f"wrd transport precision, before issue 32 ({target})"
        report.append(evaluate(scores, attacks, label, ties))
    # The shipped support models by name (R0 is round 2's, shipped until round 4), each
    # row labelled with the name that selects it (--code-support, code_support=).
    rows: list[tuple[str, str | SupportModel]] = [
        ("best match alone (none)", "none"),
        ("R0 (jdk17-seq)", "jdk17-seq"),
    ]
    if table is not None:
        data = table.read_bytes()
        for label, (share, q, copied) in ROUNDS[round_].items():
            prior = read_prior(data, target, q, share, copied)
            rows.append((f"{label} ({share:g}, {q:g}, copied {copied})", Candidate(label, prior)))
    for label, support in rows:
        metric = get_metric("wrd", target=target, code_support=support, **ROUND_READING)
        scores = {p: raw_support(metric, its) for p, its in cases.items()}
        report.append(evaluate(scores, attacks, f"wrd {label} ({target})", ties))
    report.append(f"{time.perf_counter() - started:.0f} s")
    print("\n\n".join(report))


def round_rows(round_: int) -> list[tuple[str, str, str]]:
    """Round ``round_``'s projects (:data:`ROUND_FILE`): package, Debian version, domain."""
    rows = [line.split("\t") for line in ROUND_FILE.read_text(encoding="utf-8").splitlines()]
    return [
        (package, version, domain) for r, package, version, domain in rows[1:] if int(r) == round_
    ]


def round_projects(round_: int) -> dict[str, str]:
    """Round ``round_``'s projects (:data:`ROUND_FILE`): package -> Debian version."""
    return {package: version for package, version, _ in round_rows(round_)}


def fetch_command(package: str, version: str) -> list[str]:
    """The command that downloads a project's source package at the version its round
    scored (run with :func:`fetch`'s private apt configuration)."""
    return ["apt-get", "source", "--download-only", f"{package}={version}"]


def _upstream_archives(debsrc: Path, package: str, version: str) -> list[Path]:
    """The upstream archives of ``package`` at ``version`` in ``debsrc`` (Debian names them
    without the epoch and the Debian revision)."""
    upstream = version.split(":")[-1].rsplit("-", 1)[0]
    return sorted(debsrc.glob(f"{package}_{upstream}.orig.tar.*"))


def fetch(corpora: Path, round_: int, dry_run: bool = False) -> None:
    """Download round ``round_``'s projects' source packages, at the versions
    :data:`ROUND_FILE` pins, from the Debian mirror into ``corpora``'s parent and ingest
    their upstream archives as Java under ``corpora`` (as ``code_support_signal.py
    prepare``); ``dry_run`` prints the commands and changes nothing."""
    import shlex
    import subprocess

    work = corpora.parent
    debsrc = work / "debsrc"
    if dry_run:
        print(f"# round {round_}'s projects ({ROUND_FILE.relative_to(ROOT)}), fetched with a")
        print(f"# private apt configuration under {work / 'apt'}: the system's mirrors as deb-src")
        print("apt-get update")
        for package, version, domain in round_rows(round_):
            print(f"{shlex.join(fetch_command(package, version))}  # {domain}")
        print(f"# then each upstream archive in {debsrc} is ingested as Java into")
        print(f"# {corpora / 'PACKAGE'}")
        return
    signal = _signal_script()
    debsrc.mkdir(parents=True, exist_ok=True)
    apt = signal._apt_options(work)
    lists = list((work / "apt" / "lists").glob("*Sources*"))
    if not lists and subprocess.run(["apt-get", *apt, "update"]).returncode:
        sys.exit("error: apt-get update failed (the Debian mirror is needed)")
    wanted = round_projects(round_)
    for package, version in wanted.items():
        if not _upstream_archives(debsrc, package, version):
            command = fetch_command(package, version)
            # The mirror may lack the Debian patch archive (a 404, a non-zero exit): only
            # the upstream archive is used, so the command is judged by what it left.
            subprocess.run([command[0], *apt, *command[1:]], cwd=debsrc)
        if not _upstream_archives(debsrc, package, version):
            sys.exit(f"error: the mirror serves no {package} {version} (apt-get source)")
    # Each archive is there: this ingests what is not ingested yet.
    signal.fetch_projects(work, dict.fromkeys(wanted))


def parser() -> argparse.ArgumentParser:
    """The command line (docs/history.md's rerun commands are tested against it)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("library", "candidates", "lowercase", "fetch"))
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
    ap.add_argument("--code-support", help="library: the metrics' code support, by name")
    ap.add_argument(
        "--ties",
        type=float,
        default=0.0,
        help="candidates: scores this close tie (default 0, as the rounds counted; 1e-9 "
        "counts float rounding as a tie, the same on every CPU)",
    )
    ap.add_argument("--centering", help="library: the metrics' centering (as --centering)")
    ap.add_argument("--dry-run", action="store_true", help="fetch: print the commands only")
    return ap


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    from wrdscore.errors import WrdscoreError

    if args.command == "fetch":
        fetch(args.corpora, args.round, args.dry_run)
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
            candidates(
                args.corpora,
                args.target,
                args.methods,
                args.projects,
                table,
                args.round,
                args.ties,
            )
    elif args.command == "lowercase":
        lowercase(args.corpora, args.methods, args.metrics, args.projects)
    else:
        try:
            library(
                args.corpora,
                args.target,
                args.methods,
                args.metrics,
                args.encoder,
                args.projects,
                args.code_support,
                args.centering,
            )
        except WrdscoreError as exc:  # an unknown metric, option or code support
            sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
