"""Rebuild ``wrdscore/data/code_prior.zip``: how real method names and summaries are written.

Counts, over ingested corpora (format 4, with each method's identifiers; several are
counted together), the sub-tokens of every method's name (split as the metrics split
predictions by default: run-together words not segmented, since issue 33), the words of
its Javadoc summary, and the tokens of its code as code-aware scoring reads them (the name
masked for the ``name`` target, nothing masked for ``summary``); the bigrams of the names
and summaries (with start and end marks), their lengths and how many of their tokens each
copies from its own method's code (a code token, or a reserved word of the corpus's
language: issue 32's round 4); and the quantiles of their
plausibility (``wrdscore.metrics.code``), each text scored by the whole table
or, with ``--held-out-thresholds``, by the table without its fold (ten folds by project
where there are ten projects or more, else by file). The shipped table (issue 32's round 4)
is the default model's 69 sources, OpenJDK 17's ``src.zip`` and the 68 Debian projects of
``scripts/build_default_model.sh``, each ingested into its own corpus named after its
package, counted together in name order with held-out thresholds; no project of the
held-out signals and nothing rated::

    scripts/build_default_model.sh --download-only    # WORK/archives (work-data/default-model)
    for a in WORK/archives/*; do n=$(basename "$a"); n=${n%%_*}; \\
        wrdscore ingest "$a" -o "corpora/${n%.zip}" --quiet; done
    python scripts/build_code_prior.py --held-out-thresholds $(ls -d corpora/* | LC_ALL=C sort) \\
        wrdscore/data/code_prior.zip --force

Rounds 2 and 3 read OpenJDK's table with whole-table thresholds
(``python scripts/build_code_prior.py jdk17 TABLE``).

A table stores its counts as arrays (``wrdscore/metrics/_prior_table.py``); one of the
layout before, each target's counts one JSON member, is rewritten with the same counts by
``python scripts/build_code_prior.py --from-table OLD NEW``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wrdscore.atomic import atomic_write
from wrdscore.corpora import RESERVED_WORDS, open_corpus
from wrdscore.corpora._code import read_code_words
from wrdscore.errors import WrdscoreError
from wrdscore.metrics._prior_table import TargetCounts, target_members
from wrdscore.metrics._tokenise import splitter
from wrdscore.metrics.code import (
    END,
    QUANTILES,
    START,
    SequenceModel,
    table_part,
)

#: Folds of the held-out plausibility the thresholds are quantiles of.
FOLDS = 10
#: The metrics' default: run-together words are not segmented (issue 33).
SEGMENTED = False


def _records(corpora: Sequence[Path]) -> Iterator[tuple[str, frozenset[str], dict[str, Any]]]:
    """Every method of the corpora, with its project (its corpus and archive) and the
    reserved words of its corpus's language."""
    for i, corpus in enumerate(corpora):
        opened = open_corpus(corpus)
        language = opened.manifest.get("language", "java")
        reserved = RESERVED_WORDS.get(language, frozenset())
        for record in opened.iter_methods():
            if record.get("code_words") is None:
                sys.exit(f"error: {corpus} has no code_words (ingest it again: format 4)")
            yield f"{i}:{record['source']}", reserved, record


def _count_texts(items: Iterable[list[str]]) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """The tokens of ``items`` and their bigrams (with start and end marks)."""
    tokens: Counter[str] = Counter()
    bigrams: dict[str, Counter[str]] = {}
    for item in items:
        tokens.update(item)
        for a, b in zip([START, *item], [*item, END], strict=True):
            bigrams.setdefault(a, Counter())[b] += 1
    return tokens, bigrams


def held_out_logs(
    items: Sequence[tuple[int, list[str]]], code: Sequence[Counter[str]]
) -> list[float]:
    """:math:`\\log Q_T` of every non-empty text, each under the model counted on the
    other folds' texts and code (``items`` are ``(fold, tokens)``; ``code[k]`` is fold
    ``k``'s code): how plausible a real text looks to a model that never saw it."""
    tokens, bigrams = _count_texts(t for _, t in items)
    all_code = sum(code, Counter())
    logs: list[float] = []
    for k, code_k in enumerate(code):
        mine = [t for f, t in items if f == k and t]
        if not mine:
            continue
        tokens_k, bigrams_k = _count_texts(mine)
        rest = {a: dict(nxt - bigrams_k.get(a, Counter())) for a, nxt in bigrams.items()}
        model = SequenceModel(
            dict(tokens - tokens_k), dict(all_code - code_k), {a: n for a, n in rest.items() if n}
        )
        logs += [model.log_q(t) for t in mine]
    return logs


def count(corpora: Sequence[Path], held_out: bool = False) -> dict[str, object]:
    """The table: per target, token counts of the texts and of the code, and lengths,
    over every method of the ``corpora`` together; and the thresholds, quantiles of the
    real texts' plausibility under the whole table (the shipped table's) or, with
    ``held_out``, each under the table without its fold (:func:`held_out_logs`)."""
    split = splitter(SEGMENTED)
    texts: dict[str, list[tuple[int, list[str]]]] = {"name": [], "summary": []}
    code: dict[str, list[Counter[str]]] = {t: [Counter() for _ in range(FOLDS)] for t in texts}
    copied: dict[str, Counter[int]] = {t: Counter() for t in texts}
    records = list(_records(corpora))
    # Folds by project (the archive a method came from) where there are enough projects
    # for every fold, else by file: a new project's names are what the threshold is for.
    by_project = len({project for project, _, _ in records}) >= FOLDS
    for project, reserved, record in records:
        key = project if by_project else f"{project}/{record['path']}"
        fold = hashlib.sha256(key.encode("utf-8")).digest()[0] % FOLDS
        words = record["code_words"]
        mine = {"name": split(record["name"])}
        if record["summary"]:
            mine["summary"] = split(record["summary"])
        for target, folds in code.items():
            read = read_code_words(words, target=target, name=record["name"], segmented=SEGMENTED)
            folds[fold].update(read)
            text = mine.get(target)
            if text is not None:
                texts[target].append((fold, text))
                # How many of its tokens a real text takes from its own code (the gate
                # of issue 32's round 4 compares a prediction's with these).
                found = set(read)
                copied[target][sum(t in found or t in reserved for t in text)] += 1
    out: dict[str, object] = {}
    for target, items in texts.items():
        if not items:
            what = "method" if target == "name" else "method with a Javadoc summary"
            raise WrdscoreError(f"the corpora hold no {what}: a table needs names and summaries")
        tokens, counted_bigrams = _count_texts(t for _, t in items)
        bigrams = bigrams_of(counted_bigrams)
        lengths = Counter(len(t) for _, t in items)
        all_code = sum(code[target], Counter())
        if held_out:
            logs = held_out_logs(items, code[target])
        else:
            model = SequenceModel(dict(tokens), dict(all_code), bigrams)
            logs = [model.log_q(t) for _, t in items if t]
        entry: dict[str, object] = {
            "texts": len(items),
            "lengths": [lengths.get(m, 0) for m in range(max(lengths) + 1)],
            "copied": [copied[target].get(k, 0) for k in range(max(copied[target]) + 1)],
            "tokens": dict(tokens.most_common()),
            "code": dict(all_code.most_common()),
            "bigrams": bigrams,
            "thresholds": {f"{q:g}": float(np.exp(np.quantile(logs, q))) for q in QUANTILES},
        }
        if held_out:
            entry["folds"] = {"count": FOLDS, "by": "project" if by_project else "file"}
        out[target] = entry
    return out


def bigrams_of(bigrams: dict[str, Counter[str]]) -> dict[str, dict[str, int]]:
    """The table's form of bigram counts: contexts sorted, successors most common first."""
    return {a: dict(nxt.most_common()) for a, nxt in sorted(bigrams.items())}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "corpus", type=Path, nargs="*", help="ingested corpus folders (format 4), counted together"
    )
    ap.add_argument("output", type=Path, help="the table to write (.zip)")
    ap.add_argument(
        "--held-out-thresholds",
        action="store_true",
        help="thresholds from each text scored without its fold (the shipped table's)",
    )
    ap.add_argument(
        "--from-table",
        type=Path,
        metavar="TABLE",
        help="write the counts of an existing table (of any layout) in today's, counting nothing",
    )
    ap.add_argument("--force", action="store_true", help="replace an existing output")
    args = ap.parse_args(argv)
    if bool(args.corpus) == (args.from_table is not None):
        sys.exit("error: give the corpora to count or --from-table TABLE, not both")
    if args.output.exists() and not args.force:
        sys.exit(f"error: {args.output} exists; give --force to replace it")
    if args.from_table is not None:
        if not args.from_table.is_file():
            sys.exit(f"error: no table {args.from_table}")
        write_table(read_table(args.from_table), args.output)
        return
    try:
        source = "+".join(c.name for c in args.corpus)
        table = {"source": source, "targets": count(args.corpus, args.held_out_thresholds)}
    except WrdscoreError as exc:
        sys.exit(f"error: {exc}")
    write_table(table, args.output)


def write_table(table: dict[str, Any], output: Path) -> None:
    """``table`` as the toolkit reads it: a zip archive of ``source.json`` and the
    members of each target (:mod:`wrdscore.metrics._prior_table`: its counts as arrays),
    written atomically; the same table gives the same bytes (every member dated
    1980-01-01)."""
    source = {"source": table["source"]}
    text = json.dumps(source, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    members = {"source.json": text.encode("utf-8")}
    for target, part in table["targets"].items():
        members |= target_members(target, TargetCounts.from_dict(part))
    with atomic_write(output, "wb") as fh, zipfile.ZipFile(fh, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)


def read_table(path: Path) -> dict[str, Any]:
    """A table, whole: ``{"source": ..., "targets": ...}``, each target's counts in their
    JSON form. Written by :func:`write_table`, or in the layout before it (each target's
    counts one JSON member, ``<target>.json``), which ``--from-table`` rewrites."""
    data = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        out: dict[str, Any] = json.loads(archive.read("source.json"))
        names = archive.namelist()
        targets = [n.removesuffix(".json") for n in names if n.endswith(".json")]
        targets.remove("source")
        if all(f"{t}.vocabulary.txt" in names for t in targets):
            out["targets"] = {t: table_part(data, t) for t in targets}
        else:
            out["targets"] = {t: json.loads(archive.read(f"{t}.json")) for t in targets}
    return out


if __name__ == "__main__":
    main()
