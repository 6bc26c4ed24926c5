"""Agreement with people who rated summaries against the code (issue 41's measure).

``../shared/data/roy2021-code-summaries`` holds 1,194 summaries of 199 Java methods, each
rated by programmers who read the method's code (half of Roy et al. 2021). Over the 995
generated summaries (``is_reference_itself = 0``) this prints Spearman's rho and Kendall's
tau between a score and the mean rating (``score_mean``), with 95% percentile intervals from
bootstrap resamples of the **methods** (a method's summaries are drawn together), and each
candidate's paired difference from the first one::

    python benchmarks/code_agreement.py

Two scores per candidate, with the bundled default model: the *code support* (reference-free,
``score(None, summaries, code=...)``, target ``summary``) and *combined* (the developer's
comment as the reference, ``code_weight`` 0.5). The candidates are those of issue 41's rule
(``docs/history.md``, "Code support chosen by people"): B0, the shipped gate, and C1-C3; their
formulas are in :func:`supports`; ``--round`` picks the round (the latest by default).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import kendalltau, spearmanr

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "roy2021-code-summaries"
SEED = 20261129
BOOTSTRAP = 2000
#: Each round's candidates (``docs/history.md``, "Code support chosen by people"), the baseline
#: first: B0 through round 4, D1 (the default it chose) from round 5.
ROUNDS = {
    1: ("B0", "C1", "C2", "C3"),
    2: ("B0", "D1", "D2"),
    3: ("B0", "E1", "E2", "D1"),
    4: ("B0", "D1", "F1", "F2"),
    5: ("D1", "R1", "R2", "B0"),
    6: ("D1", "H1", "H2", "B0"),
}
#: Round 6's ``b``: the default model's recorded random-pair best-match precision
#: (``model.json``, baselines, ``bertscore|c:none|oov:zero|idf:no|clip:yes``).
RANDOM_PAIR_PRECISION = 0.2178859446452341
#: Round 5's role lifts are learned on round 5's five projects (``code_roles.PROJECTS``),
#: from the attack benchmark's true summaries, at most this many methods a project.
LIFT_METHODS = 300
CORPORA = ROOT / "work-data" / "round5" / "corpora"


@dataclass(frozen=True)
class Rows:
    """The rated generated summaries, with their method's code and reference."""

    method: NDArray[np.int64]
    summary: list[str]
    reference: list[str]
    code: list[str]
    rating: NDArray[np.float64]


def method_code(data: Path) -> dict[int, str]:
    """Each method's code in the shared set ``data`` by its ``method_id`` (one error line
    and exit where the set is not there)."""
    if not (data / "pairs.tsv").is_file() or not (data / "code.jsonl").is_file():
        sys.exit(f"error: {data} has no pairs.tsv and code.jsonl (the shared ratings)")
    code = {}
    with (data / "code.jsonl").open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            code[int(record["method_id"])] = record["code"]
    return code


def load(data: Path) -> Rows:
    """The 995 rows of ``pairs.tsv`` with ``is_reference_itself = 0`` and their code."""
    code = method_code(data)
    method, summary, reference, source, rating = [], [], [], [], []
    with (data / "pairs.tsv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["is_reference_itself"] != "0":
                continue
            method.append(int(row["method_id"]))
            summary.append(row["summary"])
            reference.append(row["reference"])
            source.append(code[int(row["method_id"])])
            rating.append(float(row["score_mean"]))
    return Rows(np.asarray(method), summary, reference, source, np.asarray(rating))


def _wrd(target: str, encoder: str | None, support: str | None = None) -> Any:
    """WRDScore with the bundled default, or with ``encoder``'s contextual states, and
    the code support ``support`` (the metric's default where None)."""
    from wrdscore.metrics import get_metric

    options: dict[str, Any] = {"target": target}
    if encoder:
        options["encoder"] = encoder
    if support:
        options["code_support"] = support
    return get_metric("wrd", **options)


def candidate_supports(
    rows: Rows,
    encoder: str | None = None,
    wanted: Collection[str] | None = None,
    lifts: dict[str, float] | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Each candidate's code support of the rated summaries (:func:`supports`; those of
    ``wanted`` only, where given: the others are NaN)."""
    return supports(rows.summary, rows.code, "summary", encoder, wanted, lifts)


def supports(
    texts: Sequence[str],
    sources: Sequence[str],
    target: str,
    encoder: str | None = None,
    wanted: Collection[str] | None = None,
    lifts: dict[str, float] | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Each candidate's code support of ``texts`` against their methods' Java ``sources``.

    With ``s_bm`` the best-match precision of the text in its code (the shipped raw
    support), ``r_bm`` its mirror over the code's tokens weighted by the metric's masses
    (each occurrence its token's mass), ``F`` their harmonic mean, ``P`` the shipped
    plausibility and ``k / m`` the text's copied share:

    * B0: the shipped support, ``s_bm x L(m) x Lc(k) x P^(k/m)``;
    * C1: ``F(s_bm, r_bm) x P^(k/m)``;
    * C2: WRDScore's F1 between the text and the code's tokens, ``x P^(k/m)``;
    * C3: ``s_bm x P^(k/m)``;

    and round 2's, with ``s_d`` the precision over the text's distinct tokens (summed once,
    divided by all ``m`` tokens: a word said again earns nothing) and ``r_d`` the recall over
    the code's distinct tokens, each weighted by its mass once (not times its count):

    * D1: ``F(s_d, r_d) x P^(k/m)``;
    * D2: ``F(s_d, r_d) x P``;

    and round 3's, ``s_d`` and ``r_d`` with each text token ``t`` weighted by ``w_t``, the
    probability that it was written as a word of the target rather than drawn from code, at
    even odds: ``w = R / (1 + R)`` with ``R`` the prior's likelihood ratio of the token
    (:meth:`~wrdscore.metrics.code.SequenceModel.log_ratios`), a distinct token taking its
    largest; the precision is ``(1/m) sum_t w_t max_j c(t, j)`` and the recall weighs each
    code token's ``max_t w_t c(t, j)`` by its mass once:

    * E1: ``F(s_w, r_w) x P^(k/m)``, the ratio from the bigram model (the token's context);
    * E2: the same with the ratio from the unigram model (no context);

    and round 4's, with ``G`` the gate on a text that reads better stopped earlier
    (:func:`stop_gate`):

    * F1: ``D1 x G``;
    * F2: ``D1 x G^(k/m)``;

    and round 5's, D1 with its recall weighing each distinct code token by its mass times
    ``l``, its role weight (:func:`role_weights`; 1 for every token of a method whose code
    does not parse cleanly), from ``lifts``:

    * R1: ``l`` the mean lift of the token's roles;
    * R2: ``l`` the largest lift of its roles;

    and round 6's, D1 with unrelated words' cosine floor removed:

    * H1: D1 on corpus-centered vectors (``centering="corpus"``, masses their norms);
    * H2: D1 on the cosines ``max(0, (c - b) / (1 - b))``, ``b`` :data:`RANDOM_PAIR_PRECISION`.
    """
    from wrdscore.corpora import read_code_and_language
    from wrdscore.metrics.code import code_prior, copied_counts

    # B0 is round 4's gate of issue 32, by name: wrd's default has moved on since.
    wrd = _wrd(target, encoder, "src69-copied")
    b0 = wrd.score(None, list(texts), code=list(sources)).values["code"]
    preds = [wrd.tokens(s, prediction=True) for s in texts]
    codes = [read_code_and_language(c, target=target, language="java")[0] for c in sources]
    prior = code_prior(target)
    plausible = prior.plausibility(preds)
    copied = copied_counts(preds, codes, ["java"] * len(preds))
    sizes = np.fromiter(map(len, preds), np.int64, len(preds))
    gate = plausible ** (copied / np.maximum(sizes, 1))
    s_bm, r_bm = np.zeros(len(preds)), np.zeros(len(preds))
    s_d, r_d = np.zeros(len(preds)), np.zeros(len(preds))
    weighted = {k: (np.zeros(len(preds)), np.zeros(len(preds))) for k in ("E1", "E2")}
    by_role = {k: np.zeros(len(preds)) for k in ("R1", "R2")}
    roles_wanted = wanted is None or bool({"R1", "R2"} & set(wanted))
    if roles_wanted and lifts is None:
        raise ValueError("R1 and R2 need the role lifts")
    floorless = {k: np.zeros(len(preds)) for k in ("H1", "H2")}
    floor_wanted = wanted is None or bool({"H1", "H2"} & set(wanted))
    centered = _wrd_centered(target, encoder) if floor_wanted else None
    role_cache: dict[str, tuple[dict[str, float], dict[str, float]] | None] = {}
    unparsed: set[str] = set()
    for i, (code, pred) in enumerate(zip(codes, preds, strict=True)):
        if not code or not pred:
            continue
        pair = _cosines(wrd, code, pred)
        batch, cos, c_rows, p_rows = pair.batch, pair.cos, pair.c_rows, pair.p_rows
        c_once, at_c, at_p = pair.c_once, pair.at_c, pair.at_p
        s_bm[i] = cos.max(axis=0).mean()
        weight = pair.masses[c_rows]
        r_bm[i] = float(weight @ cos.max(axis=1) / weight.sum()) if weight.sum() > 0 else 0.0
        # Distinct tokens: each table row once (static vectors: one row per token).
        s_d[i] = cos[:, at_p].max(axis=0).sum() / len(p_rows)
        once = pair.masses[c_once]
        r_d[i] = float(once @ cos[at_c].max(axis=1) / once.sum()) if once.sum() > 0 else 0.0
        if floor_wanted:
            assert centered is not None
            b = RANDOM_PAIR_PRECISION
            floorless["H2"][i] = _distinct_f(
                dataclasses.replace(pair, cos=np.clip((cos - b) / (1 - b), 0.0, 1.0))
            )
            floorless["H1"][i] = _distinct_f(_cosines(centered, code, pred))
        if roles_wanted:
            assert lifts is not None
            if sources[i] not in role_cache:
                role_cache[sources[i]] = role_weights(sources[i], lifts)
            found = role_cache[sources[i]]
            if found is None:
                unparsed.add(sources[i])
            for key, pick in (("R1", 0), ("R2", 1)):
                tokens = [batch.tokens[r] for r in c_once]
                if found is None:
                    ell = np.ones(len(c_once))
                else:
                    missing = [t for t in tokens if t not in found[pick]]
                    if missing:
                        raise ValueError(f"code tokens without roles: {missing[:5]}")
                    ell = np.array([found[pick][t] for t in tokens])
                w_once = once * ell
                cover = cos[at_c].max(axis=1)
                r_l = float(w_once @ cover / w_once.sum()) if w_once.sum() > 0 else 0.0
                both_l = s_d[i] + r_l
                by_role[key][i] = 2 * s_d[i] * r_l / both_l if both_l > 0 else 0.0
        weigh = wanted is None or bool({"E1", "E2"} & set(wanted))
        if weigh and len(p_rows) != len(pred):  # the weights are per token: each needs its row
            raise ValueError(f"{len(pred)} tokens embedded as {len(p_rows)} rows")
        p_once = p_rows[at_p]
        for key, context in (("E1", True), ("E2", False)):
            if wanted is not None and key not in wanted:
                continue
            ratio = np.exp(np.asarray(prior.model.log_ratios(pred, context=context)))
            w = np.zeros(len(batch.table))
            np.maximum.at(w, p_rows, ratio / (1.0 + ratio))
            # cos_w[j, t]: code token j covered by distinct text token t, as far as t reads
            # as a word of the target.
            cos_w = cos[:, at_p] * w[p_once]
            weighted[key][0][i] = cos_w.max(axis=0).sum() / len(p_rows)
            cover = cos_w[at_c].max(axis=1)
            weighted[key][1][i] = float(once @ cover / once.sum()) if once.sum() > 0 else 0.0
    both = s_bm + r_bm
    f = np.divide(2 * s_bm * r_bm, both, out=np.zeros_like(both), where=both > 0)
    # C2's transport holds the whole code as one reference: a long method passes the
    # limit on an item's tokens, so it is scored only where asked for.
    transport = (
        wrd.score(codes, preds, allow_empty_reference=True).values["f1"]
        if wanted is None or "C2" in wanted
        else np.full(len(preds), np.nan)
    )
    both = s_d + r_d
    f_d = np.divide(2 * s_d * r_d, both, out=np.zeros_like(both), where=both > 0)
    out_w = {}
    for key, (s_w, r_w) in weighted.items():
        if wanted is not None and key not in wanted:
            out_w[key] = np.full(len(preds), np.nan)
            continue
        both = s_w + r_w
        out_w[key] = np.divide(2 * s_w * r_w, both, out=np.zeros_like(both), where=both > 0)
    stop = np.array([stop_gate(prior.model, p) for p in preds])
    if roles_wanted:
        print(
            f"round 5's roles: {len(unparsed)} of {len(role_cache)} methods do not parse "
            "cleanly as Java (role weight 1: D1's recall)"
        )
    return {
        "B0": b0,
        "C1": f * gate,
        "C2": transport * gate,
        "C3": s_bm * gate,
        "D1": f_d * gate,
        "D2": f_d * plausible,
        "E1": out_w["E1"] * gate,
        "E2": out_w["E2"] * gate,
        "F1": f_d * gate * stop,
        "F2": f_d * gate * stop ** (copied / np.maximum(sizes, 1)),
        "R1": by_role["R1"] * gate if roles_wanted else np.full(len(preds), np.nan),
        "R2": by_role["R2"] * gate if roles_wanted else np.full(len(preds), np.nan),
        "H1": floorless["H1"] * gate if floor_wanted else np.full(len(preds), np.nan),
        "H2": floorless["H2"] * gate if floor_wanted else np.full(len(preds), np.nan),
    }


def get_metric_centered(target: str, encoder: str | None, centering: str) -> Any:
    """WRDScore with the default code support and the given ``centering``."""
    from wrdscore.metrics import get_metric

    options: dict[str, Any] = {"target": target, "centering": centering}
    if encoder:
        options["encoder"] = encoder
    return get_metric("wrd", **options)


def _wrd_centered(target: str, encoder: str | None) -> Any:
    """Round 6's H1 metric: WRDScore on corpus-centered vectors."""
    return get_metric_centered(target, encoder, "corpus")


@dataclass(frozen=True)
class Pair:
    """One text and its code under a metric's vectors (:func:`_cosines`)."""

    batch: Any
    #: Each code token's (rows) and predicted token's (columns) clipped cosine.
    cos: NDArray[np.float64]
    c_rows: NDArray[np.int64]
    p_rows: NDArray[np.int64]
    #: The distinct code rows, and the first occurrence of each code and predicted row.
    c_once: NDArray[np.int64]
    at_c: NDArray[np.int64]
    at_p: NDArray[np.int64]
    #: Each table row's mass.
    masses: NDArray[np.float64]


def _cosines(wrd: Any, code: Sequence[str], pred: Sequence[str]) -> Pair:
    """``code`` and ``pred`` embedded by ``wrd``, with their clipped cosines."""
    batch = wrd.embed([list(code), list(pred)])
    masses = wrd._masses(batch.table, batch.tokens)
    norms = np.linalg.norm(batch.table, axis=1, keepdims=True)
    unit = np.divide(batch.table, norms, out=np.zeros_like(batch.table), where=norms > 0)
    c_rows = batch.rows[batch.offsets[0] : batch.offsets[1]]
    p_rows = batch.rows[batch.offsets[1] : batch.offsets[2]]
    cos = np.clip(unit[c_rows] @ unit[p_rows].T, 0.0, 1.0)
    c_once, at_c = np.unique(c_rows, return_index=True)
    _, at_p = np.unique(p_rows, return_index=True)
    return Pair(batch, cos, c_rows, p_rows, c_once, at_c, at_p, masses)


def _distinct_f(pair: Pair) -> float:
    """D1's ``F(s_d, r_d)`` of ``pair``."""
    m, cos = len(pair.p_rows), pair.cos
    if m == 0 or len(pair.at_c) == 0:
        return 0.0
    once = pair.masses[pair.c_once]
    s_d = cos[:, pair.at_p].max(axis=0).sum() / m
    r_d = float(once @ cos[pair.at_c].max(axis=1) / once.sum()) if once.sum() > 0 else 0.0
    return 2 * s_d * r_d / (s_d + r_d) if s_d + r_d > 0 else 0.0


def round5_lifts(corpora: Path) -> dict[str, float]:
    """Round 5's role lifts: pooled over the true (Javadoc) summaries of round 5's five
    projects, at most :data:`LIFT_METHODS` a project (``benchmarks/code_roles.py``'s counts;
    the shared set is not read)."""
    import code_roles

    from wrdscore.corpora import ROLES

    methods, left = code_roles.load(corpora, code_roles.PROJECTS, "summary", LIFT_METHODS, None)
    metric = _wrd("summary", None)
    pooled = code_roles.Counts()
    for m in methods:
        pooled.add(m, metric.tokens(m.truth, prediction=True))
    lifts = pooled.lifts(ROLES)
    print(
        f"round 5's lifts from {pooled.methods} methods of {', '.join(code_roles.PROJECTS)} "
        f"(left out, not parsing: {sum(left.values())}): "
        + ", ".join(f"{r} {v:.3f}" for r, v in lifts.items())
    )
    return lifts


def role_weights(
    source: str, lifts: dict[str, float]
) -> tuple[dict[str, float], dict[str, float]] | None:
    """Each code token of the Java ``source`` (as :func:`supports` reads it) with the mean
    and the largest lift of the roles it plays anywhere in the method; None where the code
    does not parse cleanly."""
    from wrdscore.corpora import code_roles
    from wrdscore.errors import WrdscoreError

    try:
        read = code_roles(source, target="summary", language="java")
    except WrdscoreError:
        return None
    roles: dict[str, frozenset[str]] = {}
    # The words as read_code reads them, unsegmented, as :func:`supports` reads the code.
    for word in read.words:
        roles[word.token] = roles.get(word.token, frozenset()) | word.roles
    mean = {t: float(np.mean([lifts[r] for r in rs])) for t, rs in roles.items()}
    return mean, {t: max(lifts[r] for r in rs) for t, rs in roles.items()}


def stop_gate(model: Any, tokens: Sequence[str]) -> float:
    """Round 4's ``G(p) = min(1, Q(p) / max Q(p_1..j))`` over the prefixes of ``j`` tokens,
    ``ceil(m/2) <= j < m``, with ``Q`` the prior's sequence model: how much better the text
    would read stopped earlier (1 for fewer than 2 tokens)."""
    m = len(tokens)
    if m < 2:
        return 1.0
    best = max(model.log_q(tokens[:j]) for j in range(-(-m // 2), m))
    return float(np.exp(min(0.0, model.log_q(tokens) - best)))


def combined(rows: Rows, support: NDArray[np.float64], encoder: str | None = None) -> NDArray:
    """The even mean of the reference F1 and ``support`` (``code_weight`` 0.5)."""
    f1 = _wrd("summary", encoder).score(rows.reference, rows.summary).values["f1"]
    return 0.5 * f1 + 0.5 * support


def agreement(
    method: NDArray[np.int64], rating: NDArray, scores: Sequence[NDArray], seed: int = SEED
) -> list[dict[str, float]]:
    """Spearman and Kendall of each score with ``rating``, intervals over methods, and the
    paired bootstrap difference of each score's Spearman from the first one's."""
    ids, index = np.unique(method, return_inverse=True)
    members = [np.flatnonzero(index == k) for k in range(len(ids))]
    rng = np.random.default_rng(seed)
    draws = np.zeros((BOOTSTRAP, len(scores)))
    for b in range(BOOTSTRAP):
        at = np.concatenate([members[k] for k in rng.integers(0, len(ids), len(ids))])
        for j, s in enumerate(scores):
            draws[b, j] = spearmanr(s[at], rating[at]).statistic
    out = []
    for j, s in enumerate(scores):
        diff = draws[:, j] - draws[:, 0]
        out.append(
            {
                "spearman": float(spearmanr(s, rating).statistic),
                "low": float(np.percentile(draws[:, j], 2.5)),
                "high": float(np.percentile(draws[:, j], 97.5)),
                "kendall": float(kendalltau(s, rating).statistic),
                "diff": float(
                    spearmanr(s, rating).statistic - spearmanr(scores[0], rating).statistic
                ),
                "diff_low": float(np.percentile(diff, 2.5)),
                "diff_high": float(np.percentile(diff, 97.5)),
            }
        )
    return out


def floors(
    corpora: Path,
    projects: Sequence[str],
    methods: int,
    names: Sequence[str],
    lifts: dict[str, float] | None = None,
) -> str:
    """The summary floors of each candidate in ``names`` on the attack benchmark's cases of
    ``projects`` (``benchmarks/code_adversarial.py``), scored by :func:`supports`."""
    import code_adversarial as attacks

    cases = attacks.held_out_cases(corpora, "summary", methods, projects)
    texts, sources, sizes = [], [], []
    for its in cases.values():
        for case in its:
            mine = attacks.texts_of(case)
            texts += mine
            sources += [case.code] * len(mine)
            sizes.append(len(mine))
    every = supports(texts, sources, "summary", wanted=names, lifts=lifts)
    report = []
    for name in names:
        split = np.split(every[name], np.cumsum(sizes)[:-1])
        scores, at = {}, 0
        for project, its in cases.items():
            scores[project] = split[at : at + len(its)]
            at += len(its)
        report.append(attacks.evaluate(scores, attacks.attacks_of(cases), f"{name} (summary)"))
    return "\n\n".join(report)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--encoder", help="score with this sentence-transformers encoder")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    parser.add_argument("--round", type=int, choices=sorted(ROUNDS), default=max(ROUNDS))
    parser.add_argument(
        "--floors",
        type=Path,
        metavar="CORPORA",
        help="score the round's summary floors on the corpora of --projects instead",
    )
    parser.add_argument("--projects", nargs="+", help="--floors: the projects under CORPORA")
    parser.add_argument("--methods", type=int, default=300, help="--floors: methods per project")
    parser.add_argument(
        "--centering", help="also score wrd's default with this centering (a row, not a candidate)"
    )
    parser.add_argument(
        "--lift-corpora",
        type=Path,
        default=CORPORA,
        help="round 5: the corpora holding round 5's projects, where the role lifts are learned",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lifts = round5_lifts(args.lift_corpora) if {"R1", "R2"} & set(ROUNDS[args.round]) else None
    if args.floors is not None:
        if not args.projects:
            sys.exit("error: --floors needs --projects")
        missing = [p for p in args.projects if not (args.floors / p / "manifest.json").is_file()]
        if missing:
            sys.exit(f"error: no corpus {args.floors / missing[0]} (round5_projects.py prepare)")
        print(floors(args.floors, args.projects, args.methods, ROUNDS[args.round], lifts))
        print(f"{time.perf_counter() - start:.0f} s")
        return
    rows = load(args.data)
    every = candidate_supports(rows, args.encoder, ROUNDS[args.round], lifts)
    supports = {name: every[name] for name in ROUNDS[args.round]}
    names = list(supports)
    # What wrd ships (its default support, reading the code as scoring does, the
    # candidates' prototypes above read it unsegmented): beside them, not one of them.
    shipped = _wrd("summary", args.encoder)
    extra = {
        "shipped": (
            shipped.score(None, rows.summary, code=rows.code).values["code"],
            shipped.score(rows.reference, rows.summary, code=rows.code).values["combined"],
        )
    }
    if args.centering:
        # A shipped option measured as users run it (``--centering``): not a candidate.
        centered = get_metric_centered("summary", args.encoder, args.centering)
        extra[f"c:{args.centering}"] = (
            centered.score(None, rows.summary, code=rows.code).values["code"],
            centered.score(rows.reference, rows.summary, code=rows.code).values["combined"],
        )
    if args.encoder:
        # The encoder's own sentence cosine reads code as shipped (B0's priors): beside the
        # candidates, not one of them.
        from wrdscore.metrics import get_metric

        sentence = get_metric("sentence", encoder=args.encoder, target="summary")
        extra["sentence"] = (
            sentence.score(None, rows.summary, code=rows.code).values["code"],
            sentence.score(rows.reference, rows.summary, code=rows.code).values["combined"],
        )
    code_rows = agreement(rows.method, rows.rating, [supports[n] for n in names])
    both_rows = agreement(
        rows.method, rows.rating, [combined(rows, supports[n], args.encoder) for n in names]
    )
    table = {}
    print(f"{len(rows.rating)} rated summaries of {len(set(rows.method.tolist()))} methods")
    print(f"candidate  part      spearman [95% over methods]  kendall  diff from {names[0]} [95%]")
    for name, code, both in zip(names, code_rows, both_rows, strict=True):
        table[name] = {"code": code, "combined": both}
        for part, r in (("code", code), ("combined", both)):
            print(
                f"{name:<10} {part:<9} {r['spearman']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
                f"       {r['kendall']:.3f}    {r['diff']:+.3f} [{r['diff_low']:+.3f}, "
                f"{r['diff_high']:+.3f}]"
            )
    for name, (code_score, both_score) in extra.items():
        code_r, both_r = (
            agreement(rows.method, rows.rating, [supports[names[0]], v])[1]
            for v in (code_score, both_score)
        )
        table[name] = {"code": code_r, "combined": both_r}
        for part, r in (("code", code_r), ("combined", both_r)):
            print(
                f"{name:<10} {part:<9} {r['spearman']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
                f"       {r['kendall']:.3f}"
            )
    print(f"{time.perf_counter() - start:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
