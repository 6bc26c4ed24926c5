"""Scores on fixed inputs stay what they were when code scoring moved into its own part.

Moving code-aware scoring out of :class:`~wrdscore.metrics.Metric` (its own scorer, support
models chosen by name, pure scoring, an engine without module state) must change no
number: this test scores the example files and the example project's corpus with the
bundled model, reference-only and against code, names and summaries, through the library,
the streaming engine and the CLI, and compares every value, corpus value, count and
signature with ``tests/data/fixed_scores.json``, recorded before the move (to a relative
1e-9: float sums may round differently, nothing else may change). A deliberate change of
a number rewrites that file in the same commit, with the reason::

    python tests/test_code_fixed_scores.py --record
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RECORD = Path(__file__).resolve().parent / "data" / "fixed_scores.json"

#: Metrics of the bundled model scored against references (no torch).
REFERENCE_METRICS = ("wrd", "rouge1", "rougeL", "subtoken", "bertscore", "wmd", "twmd", "trwmd")
#: Those of them that read code.
CODE_METRICS = ("wrd", "rouge1", "subtoken", "bertscore", "wmd", "twmd", "trwmd", "sbert", "cka")


def _lines(name: str) -> list[str]:
    return (EXAMPLES / name).read_text(encoding="utf-8").splitlines()


def _code() -> list[dict[str, str]]:
    return [json.loads(line) for line in _lines("code.jsonl")]


def _result(res: Any) -> dict[str, Any]:
    return {
        "signature": res.signature,
        "primary": res.primary,
        "values": {k: v.tolist() for k, v in res.values.items()},
        "corpus": res.corpus,
        "counts": [res.oov_tokens, res.empty_predictions, res.degenerate_pairs, res.empty_code],
    }


def _library() -> dict[str, Any]:
    from wrdscore.metrics import get_metric

    refs, preds, code = _lines("refs.txt"), _lines("preds.txt"), _code()
    out: dict[str, Any] = {}
    for name in REFERENCE_METRICS:
        out[f"ref/{name}"] = _result(get_metric(name).score(refs, preds))
    for name in CODE_METRICS:
        metric = get_metric(name)
        out[f"code/{name}"] = _result(metric.score(refs, preds, code=code))
        out[f"free/{name}"] = _result(metric.score(None, preds, code=code))
    out["code/wrd-cw0.25-java"] = _result(
        get_metric("wrd", code_weight=0.25, language="java").score(refs, preds, code=code)
    )
    # The references read as summaries, the code with its strings and comments' words.
    out["code/wrd-summary-keep"] = _result(
        get_metric("wrd", target="summary", strings="keep").score(preds, refs, code=code)
    )
    out["code/rouge1-summary"] = _result(
        get_metric("rouge1", target="summary").score(preds, refs, code=code)
    )
    wrd = get_metric("wrd")
    transports = [wrd.code_transport(p, c["code"]) for p, c in zip(preds, code, strict=True)]
    out["explain/wrd"] = [[t.support, t.match, t.prior] for t in transports]
    return out


def _engine(workdir: Path) -> dict[str, Any]:
    from wrdscore.metrics import build_metrics, score_files

    metrics = build_metrics(["wrd", "rouge1", "bertscore"])
    out: dict[str, Any] = {}
    for label, refs in (("refs", EXAMPLES / "refs.txt"), ("free", None)):
        pairs = workdir / f"{label}.jsonl"
        results = score_files(
            metrics,
            refs,
            EXAMPLES / "preds.txt",
            code=EXAMPLES / "code.jsonl",
            per_pair=pairs,
            jobs=1,
            chunk_pairs=3,
        )
        out[f"engine/{label}"] = {
            "corpus": {r.metric: r.corpus for r in results},
            "signatures": [r.signature for r in results],
            "rows": [json.loads(line) for line in pairs.read_text().splitlines()],
        }
    return out


def _cli(workdir: Path) -> dict[str, Any]:
    from typer.testing import CliRunner

    from wrdscore.cli import app
    from wrdscore.corpora import corpus_methods, ingest

    corpus = workdir / "project"
    ingest([EXAMPLES / "project"], corpus, jobs=1, quiet=True)
    methods = list(corpus_methods(corpus))
    preds = workdir / "preds.txt"
    preds.write_text("".join(f"get {m.name}\n" for m in methods), encoding="utf-8")
    summaries = workdir / "summaries.txt"
    summaries.write_text("".join(f"returns the {m.name}\n" for m in methods), encoding="utf-8")
    out: dict[str, Any] = {}
    runs: dict[str, list[Any]] = {
        "corpus/names": ["--preds", preds, "-m", "wrd", "-m", "rouge1", "-m", "bertscore"],
        "corpus/summaries": [
            "--preds",
            summaries,
            "-m",
            "wrd",
            "-m",
            "rouge1",
            "--target",
            "summary",
            "--allow-empty-reference",
        ],
        "corpus/keep": ["--preds", preds, "-m", "wrd", "--strings", "keep"],
    }
    for label, args in runs.items():
        res = CliRunner().invoke(
            app,
            [str(a) for a in ["score", "--corpus", corpus, *args, "-q", "--format", "json"]],
        )
        assert res.exit_code == 0, res.output
        out[label] = json.loads(res.stdout)
    return out


def fixed_scores() -> dict[str, Any]:
    """Every number this test pins, as JSON-ready data."""
    with tempfile.TemporaryDirectory() as tmp:
        return {**_library(), **_engine(Path(tmp)), **_cli(Path(tmp))}


def _compare(got: Any, want: Any, where: str, fail: Callable[[str], None]) -> None:
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            keys = sorted(got) if isinstance(got, dict) else got
            fail(f"{where}: keys {keys!r} != {sorted(want)}")
            return
        for k in want:
            _compare(got[k], want[k], f"{where}.{k}", fail)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            fail(f"{where}: {got!r} != {want!r}")
            return
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _compare(g, w, f"{where}[{i}]", fail)
    elif isinstance(want, float) and not isinstance(want, bool):
        if got != pytest.approx(want, rel=1e-9, abs=1e-12):
            fail(f"{where}: {got!r} != {want!r}")
    elif got != want:
        fail(f"{where}: {got!r} != {want!r}")


def test_scores_on_fixed_inputs_are_the_recorded_ones():
    want = json.loads(RECORD.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(fixed_scores()))
    problems: list[str] = []
    _compare(got, want, "scores", problems.append)
    assert not problems, "\n".join(problems[:20])


def test_the_comparison_finds_a_changed_number():
    problems: list[str] = []
    _compare({"a": [0.5, 1.0]}, {"a": [0.5, 1.0 + 1e-6]}, "x", problems.append)
    _compare({"a": "wrdscore|v:1"}, {"a": "wrdscore|v:2"}, "x", problems.append)
    assert problems == ["x.a[1]: 1.0 != 1.000001", "x.a: 'wrdscore|v:1' != 'wrdscore|v:2'"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_code_fixed_scores.py --record")
    RECORD.write_text(json.dumps(fixed_scores(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RECORD}")
