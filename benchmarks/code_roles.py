"""Code-word roles measured (issue 41, item 4): which roles true texts draw their words from.

Item 4 asks to weigh each code word by its role (returned, written, called, tested in a
condition, a parameter, a type, a local variable), learned from how real names and
summaries draw their words from each role, and to measure that before building on it.
This script measures it, and changes nothing the toolkit ships. No ratings are read.

The methods (fixed before anything was measured):

* the attack benchmark's cases (``benchmarks/code_adversarial.py``, its sampling and its
  templates) on round 5's five fresh projects, at most ``--methods`` a project;
* the 199 methods of the shared Roy et al. 2021 set (``code.jsonl``), each with its
  declared name and, for summaries, the developer's reference (``pairs.tsv`` rows with
  ``is_reference_itself = 1``; never a rating), as a sixth group;
* each method's code words and their roles read by
  :func:`wrdscore.corpora.code_roles` (Java; the name masked for names, as scoring reads
  it), each word segmented as scoring segments it; a method whose code does not parse
  cleanly is left out and counted, never read from a broken parse.

For each role, over the distinct code words of each method, pooled: the share of the
body's words in that role (**body**), the share of the true text's words found in the
body that are in that role (**true**), their ratio (**lift**), and the same for the
template attack's word (the body's most frequent word, as
:func:`code_adversarial.issue41_attacks` picks it). A word has every role it plays
anywhere in the method, so shares do not sum to one.

Then one rating-free diagnostic, on the same methods: the true text's win rate (ties half)
over the best of issue 41's templates, with its paired difference from today's, under

* today's shipped code support of ``wrd`` (names: ``src69-copied``, the best match times
  its gate; summaries: ``distinct-coverage``), and for summaries the gate over the best
  match (``src69-copied``) beside it;
* the best match alone (support model ``none``);
* a role-weighted best match: each predicted token's best clipped cosine with a code
  token times that token's weight, averaged, where a code word's weight is the largest
  lift of its roles (**max**) or their mean (**mean**), the lifts learned on the *other*
  groups (leave one group out); alone, and times the gate (``src69-copied``'s).

Run (round 5's corpora: ``benchmarks/round5_projects.py prepare``)::

    python benchmarks/code_roles.py --corpora work-data/round5/corpora \
        [--target summary] [--methods 300]
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "roy2021-code-summaries"
PROJECTS = ("libaxiom-java", "libdb-je-java", "libxpp2-java", "libcobra-java", "libjgraph-java")
ROY = "roy2021"
#: The gate over a best match: today's support of names (``wrd``'s default for summaries,
#: ``distinct-coverage``, reads the code's side itself).
GATE = "src69-copied"
SEED = 20261129
BOOTSTRAP = 2000


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@dataclass
class Method:
    """One method: its true text, issue 41's templates, and its code words' roles."""

    group: str
    code: str
    name: str
    truth: str
    templates: dict[str, str]
    #: Each distinct code token (segmented, as scoring reads it) -> every role it plays.
    roles: dict[str, frozenset[str]]
    #: The roles of the templates' word (the body's most frequent, unsegmented).
    template_roles: frozenset[str]
    #: The code's tokens as scoring reads them (segmented): where a support model finds it.
    key: tuple[str, ...]
    #: Each role's lift learned on the other groups.
    lifts: dict[str, float] = field(default_factory=dict)

    def weights(self, how: str) -> dict[str, float]:
        """Each code token's weight: the largest lift of its roles, or their mean."""
        pick = max if how == "max" else _mean
        return {t: pick([self.lifts[r] for r in roles]) for t, roles in self.roles.items()}


def _read(
    group: str, code: str, name: str, truth: str, templates: dict[str, str], target: str
) -> Method:
    """A :class:`Method` with its code's roles (refused, one line, where it does not parse)."""
    from wrdscore.corpora import code_roles, segment

    read = code_roles(code, target=target, name=name, language="java")
    roles: dict[str, frozenset[str]] = {}
    by_word: dict[str, frozenset[str]] = {}
    key: list[str] = []
    for word in read.words:
        by_word[word.token] = by_word.get(word.token, frozenset()) | word.roles
        # Segmentation works token by token: each word's pieces are the method's.
        pieces = segment([word.token])
        key += pieces
        for piece in pieces:
            roles[piece] = roles.get(piece, frozenset()) | word.roles
    # issue41_attacks' pick: the most frequent word, first in code order among ties, not
    # the template's own verb (names: the ``get`` template's).
    verb = "get" if target == "name" else ""
    ranked = [w for w, _ in Counter(w.token for w in read.words).most_common()]
    top = next((w for w in ranked if w != verb), None)
    tops = by_word.get(top, frozenset()) if top else frozenset()
    return Method(group, code, name, truth, templates, roles, tops, tuple(key))


def load(
    corpora: Path, projects: Sequence[str], target: str, methods: int, data: Path | None
) -> tuple[list[Method], Counter[str]]:
    """Every group's methods, and how many of each group were left out (code that does
    not parse, or Roy's code that declares no method); ``data`` None leaves the shared set
    out."""
    import code_adversarial as attacks

    from wrdscore.corpora import declared_name
    from wrdscore.errors import WrdscoreError

    out: list[Method] = []
    left: Counter[str] = Counter()
    cases = attacks.held_out_cases(corpora, target, methods, projects) if projects else {}
    for project, its in cases.items():
        for case in its:
            templates = {k: v for k, v in case.adversaries.items() if k.startswith("template ")}
            try:
                out.append(_read(project, case.code, case.name, case.truth, templates, target))
            except WrdscoreError:
                left[project] += 1
    for code, reference in _roy(data)[:methods] if data is not None else []:
        name = declared_name(code, "java")
        if name is None:
            left[ROY] += 1
            continue
        truth = name if target == "name" else reference
        templates = {
            k: v
            for k, v in attacks.issue41_attacks(code, name, truth, target).items()
            if k.startswith("template ")
        }
        try:
            out.append(_read(ROY, code, name, truth, templates, target))
        except WrdscoreError:
            left[ROY] += 1
    return out, left


def _roy(data: Path) -> list[tuple[str, str]]:
    """The shared set's methods with their developer's reference summary (the rows with
    ``is_reference_itself = 1``: the reference itself; no rating is read)."""
    from code_agreement import method_code

    code = method_code(data)
    out = []
    with (data / "pairs.tsv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["is_reference_itself"] == "1":
                out.append((code[int(row["method_id"])], row["reference"]))
    return out


@dataclass
class Counts:
    """Role counts over distinct words, pooled over methods."""

    body: Counter[str] = field(default_factory=Counter)
    truth: Counter[str] = field(default_factory=Counter)
    template: Counter[str] = field(default_factory=Counter)
    body_words: int = 0
    body_roles: int = 0
    truth_roles: int = 0
    template_roles: int = 0
    truth_words: int = 0
    found: int = 0
    methods: int = 0

    def add(self, m: Method, truth_tokens: Sequence[str]) -> None:
        self.methods += 1
        self.body_words += len(m.roles)
        for roles in m.roles.values():
            self.body.update(roles)
            self.body_roles += len(roles)
        words = set(truth_tokens)
        self.truth_words += len(words)
        for w in words & m.roles.keys():
            self.found += 1
            self.truth.update(m.roles[w])
            self.truth_roles += len(m.roles[w])
        self.template.update(m.template_roles)
        self.template_roles += len(m.template_roles)

    def __iadd__(self, other: Counts) -> Counts:
        self.body += other.body
        self.truth += other.truth
        self.template += other.template
        self.body_words += other.body_words
        self.body_roles += other.body_roles
        self.truth_roles += other.truth_roles
        self.template_roles += other.template_roles
        self.truth_words += other.truth_words
        self.found += other.found
        self.methods += other.methods
        return self

    def lifts(self, roles: Sequence[str]) -> dict[str, float]:
        """Each role's true share over its body share (1 where the body has none)."""
        return {
            r: self.share("truth", r) / b if (b := self.share("body", r)) else 1.0 for r in roles
        }

    def share(self, what: str, role: str) -> float:
        total = {"body": self.body_words, "truth": self.found, "template": self.methods}[what]
        return getattr(self, what)[role] / total if total else 0.0


def role_table(counts: dict[str, Counts], target: str) -> str:
    """Pooled shares and lifts per role, with the lift's range over the groups left out."""
    from wrdscore.corpora import ROLES

    pooled = Counts()
    for c in counts.values():
        pooled += c
    folds = []
    for g in counts:
        rest = Counts()
        for h, c in counts.items():
            if h != g:
                rest += c
        folds.append(rest.lifts(ROLES))
    what = "name" if target == "name" else "summary"
    whats = "names" if target == "name" else "summaries"
    lines = [
        f"| role | body | true {what} | lift | lift, each group left out | template word "
        "| template lift |",
        "|---|---|---|---|---|---|---|",
    ]
    lifts = pooled.lifts(ROLES)
    for r in ROLES:
        body = pooled.share("body", r)
        tpl = pooled.share("template", r)
        lo, hi = min(f[r] for f in folds), max(f[r] for f in folds)
        lines.append(
            f"| {r} | {body:.3f} | {pooled.share('truth', r):.3f} | {lifts[r]:.2f} | "
            f"{lo:.2f}-{hi:.2f} | {tpl:.3f} | {tpl / body if body else 1.0:.2f} |"
        )
    lines.append(
        f"\n{pooled.methods} methods, {pooled.body_words} distinct body words; "
        f"{pooled.found} of the true {whats}' {pooled.truth_words} distinct words "
        f"({pooled.found / max(pooled.truth_words, 1):.3f}) are body words; roles per "
        f"word: body {pooled.body_roles / max(pooled.body_words, 1):.2f}, true "
        f"{pooled.truth_roles / max(pooled.found, 1):.2f}, template word "
        f"{pooled.template_roles / max(pooled.methods, 1):.2f}"
    )
    return "\n".join(lines)


def role_weighted(methods: Sequence[Method], how: str, gate: Any, check: list[float]) -> Any:
    """The role-weighted best match as a support model (see the module), then ``gate``
    (a support model) applied to it, if any. ``check`` gathers, for every pair, how far
    the unweighted best match computed here is from the engine's raw support: it must be
    ~0 (the same best match, read the same way)."""
    from wrdscore.metrics.code import SupportInput, SupportModel

    by_code = {m.key: m.weights(how) for m in methods}

    class RoleWeighted(SupportModel):
        name = "roles"

        def support(self, given: SupportInput) -> NDArray[np.float64]:
            tokens = sorted({t for ts in (*given.predictions, *given.codes) for t in ts})
            metric: Any = given.metric  # WRDScore: an embedding metric
            vectors = np.asarray(metric.embed([tokens])[0], dtype=np.float64)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            unit = vectors / np.where(norms > 0, norms, 1.0)
            row = {t: i for i, t in enumerate(tokens)}
            raw = np.zeros(len(given.raw))
            for i, (pred, code) in enumerate(zip(given.predictions, given.codes, strict=True)):
                if not pred or not code:
                    continue
                weights = by_code[tuple(code)]
                distinct = list(dict.fromkeys(code))
                cos = unit[[row[t] for t in pred]] @ unit[[row[t] for t in distinct]].T
                cos = np.clip(cos, 0.0, 1.0)
                check.append(abs(float(cos.max(axis=1).mean()) - float(given.raw[i])))
                w = np.array([weights[t] for t in distinct])
                raw[i] = float((cos * w).max(axis=1).mean())
            if gate is None:
                return raw
            return np.asarray(gate.support(dataclasses.replace(given, raw=raw)))

    return RoleWeighted()


def scores(metric: Any, methods: Sequence[Method]) -> list[NDArray[np.float64]]:
    """Each method's code support of its true text and its templates (truth first)."""
    texts, code = [], []
    for m in methods:
        mine = [m.truth, *m.templates.values()]
        texts += mine
        code += [{"code": m.code, "name": m.name}] * len(mine)
    values = np.asarray(metric.score(None, texts, code=code).values["code"], dtype=np.float64)
    out, at = [], 0
    for m in methods:
        out.append(values[at : at + 1 + len(m.templates)])
        at += 1 + len(m.templates)
    return out


def wins_over_templates(values: Sequence[NDArray[np.float64]]) -> NDArray[np.float64]:
    """Per method, 1 where the true text beats the best template, 1/2 for a tie, else 0."""
    truth = np.array([v[0] for v in values])
    best = np.array([v[1:].max() for v in values])
    return np.where(truth > best, 1.0, np.where(truth == best, 0.5, 0.0))


def _interval(values: NDArray[np.float64]) -> str:
    """The mean with a 95% bootstrap interval over methods (the same draws for every row,
    so that a difference is paired)."""
    rng = np.random.default_rng(SEED)
    boot = values[rng.integers(0, len(values), size=(BOOTSTRAP, len(values)))].mean(axis=1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return f"{values.mean():+.3f} [{lo:+.3f}, {hi:+.3f}]"


def win_rates(
    methods: Sequence[Method], wins: NDArray[np.float64], today: NDArray[np.float64]
) -> str:
    """A row: the win rate pooled with its 95% interval over methods, its paired
    difference from today's, pooled over round 5's projects (the attack benchmark's),
    then per group."""
    groups = dict.fromkeys(m.group for m in methods)
    group = np.array([m.group for m in methods])
    each = " | ".join(f"{wins[group == g].mean():.3f}" for g in groups)
    return (
        f"{_interval(wins).replace('+', '')} | {_interval(wins - today)} | "
        f"{wins[group != ROY].mean():.3f} | {each}"
    )


def run(corpora: Path, projects: Sequence[str], target: str, methods: int, data: Path) -> None:
    """Load, measure the roles, then score the diagnostic's supports."""
    from wrdscore.corpora import ROLES
    from wrdscore.metrics import get_metric
    from wrdscore.metrics.code import support_model

    what = "names" if target == "name" else "summaries"
    started = time.perf_counter()
    every, left = load(corpora, projects, target, methods, data)
    groups = list(dict.fromkeys(m.group for m in every))
    metric = get_metric("wrd", target=target)
    counts = {g: Counts() for g in groups}
    for m in every:
        counts[m.group].add(m, metric.tokens(m.truth, prediction=True))
    # Leave one group out: a method's code words weighed by the lifts of the others.
    for g in groups:
        rest = Counts()
        for h, c in counts.items():
            if h != g:
                rest += c
        lifts = rest.lifts(ROLES)
        for m in every:
            if m.group == g:
                m.lifts = lifts
    measured = time.perf_counter() - started
    report = [
        f"## Roles ({what})",
        role_table(counts, target),
        "left out (code that does not parse as Java, or declares no method): "
        + (", ".join(f"{g} {n}" for g, n in left.items()) or "none"),
        f"{measured:.0f} s to read and measure",
        f"## Win rate of the true {target} over the best template",
        f"| support | pooled [95%] | minus today's [95%] | round 5 | {' | '.join(groups)} |",
        "|---|---|---|---|" + "---|" * len(groups),
    ]
    check: list[float] = []
    scorer = get_metric("wrd", target=target).code_scorer
    assert scorer is not None
    # The gate over a best match (for summaries, today's default reads the code's side
    # itself and would not see a weighted best match).
    gate = support_model(GATE)
    rows: list[tuple[str, Any]] = [(f"today's ({scorer.support.name})", None)]
    if scorer.support.name != GATE:
        rows.append((f"best match x the gate ({GATE})", GATE))
    rows += [
        ("best match alone (none)", "none"),
        *(
            (f"role-weighted best match, {how}{label}", role_weighted(every, how, g, check))
            for how in ("max", "mean")
            for label, g in (("", None), (" x the gate", gate))
        ),
    ]
    today: NDArray[np.float64] | None = None
    for label, support in rows:
        options = {} if support is None else {"code_support": support}
        wins = wins_over_templates(scores(get_metric("wrd", target=target, **options), every))
        today = wins if today is None else today
        report.append(f"| {label} | {win_rates(every, wins, today)} |")
    report.append(
        f"\nthe unweighted best match recomputed here is within {max(check):.1e} of the "
        f"engine's over {len(check)} pairs; {time.perf_counter() - started:.0f} s in all"
    )
    print("\n\n".join(report[:4]) + "\n\n" + "\n".join(report[4:]))


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--corpora",
        type=Path,
        default=ROOT / "work-data" / "round5" / "corpora",
        help="round 5's corpora (benchmarks/round5_projects.py prepare)",
    )
    ap.add_argument("--projects", nargs="+", default=list(PROJECTS))
    ap.add_argument("--target", choices=("name", "summary"), default="name")
    ap.add_argument("--methods", type=int, default=300, help="methods per group")
    ap.add_argument("--data", type=Path, default=DATA, help="the shared Roy et al. 2021 set")
    args = ap.parse_args(argv)
    missing = [p for p in args.projects if not (args.corpora / p / "manifest.json").is_file()]
    if missing:
        sys.exit(f"error: no corpus {args.corpora / missing[0]} (round5_projects.py prepare)")
    run(args.corpora, args.projects, args.target, args.methods, args.data)


if __name__ == "__main__":
    main()
