"""Support models: chosen by name, recorded in the signature, and R0 is round 2's priors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.cli._scoring_options import with_code_options
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.metrics.code import (
    CODE_OPTIONS,
    SUPPORT_MODELS,
    CodeScorer,
    SupportInput,
    SupportModel,
    register_support,
    support_model,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CODE = "String getUserName() { return user.name(); }"


def _examples() -> tuple[list[str], list[str], list[dict[str, str]]]:
    refs = (EXAMPLES / "refs.txt").read_text().splitlines()
    preds = (EXAMPLES / "preds.txt").read_text().splitlines()
    code = [json.loads(line) for line in (EXAMPLES / "code.jsonl").read_text().splitlines()]
    return refs, preds, code


def test_the_shipped_models_and_the_default():
    assert {"src69-copied", "jdk17-seq", "none", "coverage", "distinct-coverage"} <= set(
        SUPPORT_MODELS
    )
    # wrd reads the code's side (issue 41's choice for summaries); the others gate.
    assert "|prior:distinct-coverage|empty:ref|" in get_metric("wrd").code_signature
    assert "|prior:src69-copied|empty:ref|" in get_metric("bertscore").code_signature
    signature = get_metric("wrd", code_support="jdk17-seq").code_signature
    assert "|prior:jdk17-seq|empty:ref|" in signature
    with pytest.raises(WrdscoreError, match="unknown code support 'r9'; choose one of"):
        get_metric("wrd", code_support="r9")


def test_none_is_the_raw_best_match_and_the_gates_scale_it():
    _, preds, code = _examples()
    raw = get_metric("wrd", code_support="none").score(None, preds, code=code).values["code"]
    metric = get_metric("wrd")
    want = [metric.code_transport(p, c["code"]).match for p, c in zip(preds, code, strict=True)]
    np.testing.assert_allclose(raw, want, atol=1e-12)
    for name in ("src69-copied", "jdk17-seq"):
        gated = get_metric("wrd", code_support=name).score(None, preds, code=code).values["code"]
        assert np.all(gated <= raw + 1e-12) and not np.allclose(gated, raw)


def test_r0_is_round_2s_prior():
    """jdk17-seq is the table shipped before round 4 (git 3dcb2da^, q 0.05, no copying):
    these factors were computed with that commit's own code and table."""
    preds = [["get", "name"], ["set", "artwork", "entry"], ["log"], ["is", "all", "capitalized"],
             ["the", "a", "b", "c", "d", "e", "f"], ["returns", "the", "count"],
             ["public", "void", "run"]]  # fmt: skip
    want = {
        "name": [1.0, 1.0, 0.7807, 0.9197, 0.0017, 0.6411, 0.2194],
        "summary": [0.0641, 0.0801, 0.0311, 0.0368, 0.044, 1.0, 0.0819],
    }
    model = support_model("jdk17-seq")
    for target, factors in want.items():
        given = SupportInput(
            np.ones(len(preds)), preds, [["x"]] * len(preds), ["java"] * len(preds), target,
            get_metric("wrd"),
        )  # fmt: skip
        np.testing.assert_allclose(model.support(given), factors, atol=5e-5)


class _Halved(SupportModel):
    name = "halved-test"

    def support(self, given: SupportInput) -> np.ndarray:
        return given.raw / 2

    def signature_fields(self) -> dict[str, str]:
        return {"prior": "none", "half": "yes"}


def test_a_new_model_added_by_name_reaches_the_metric_signature_and_cli(tmp_path):
    register_support("halved-test", _Halved)
    refs, preds, code = _examples()
    raw = get_metric("wrd", code_support="none").score(refs, preds, code=code)
    res = get_metric("wrd", code_support="halved-test").score(refs, preds, code=code)
    np.testing.assert_allclose(res.values["code"], raw.values["code"] / 2, atol=1e-12)
    assert "|prior:none|half:yes|empty:ref|" in res.signature
    # An instance needs no registration; a scorer can be given whole.
    scorer = CodeScorer(0.25, support=_Halved())
    res = get_metric("wrd", code_scorer=scorer).score(refs, preds, code=code)
    assert "|cw:0.25|" in res.signature
    out = CliRunner().invoke(
        app,
        ["score", "--refs", str(EXAMPLES / "refs.txt"), "--preds", str(EXAMPLES / "preds.txt"),
         "--code", str(EXAMPLES / "code.jsonl"), "--code-support", "halved-test", "-q",
         "--format", "json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    corpus = json.loads(out.stdout)["metrics"]["wrd"]["corpus"]
    assert corpus["code"] == pytest.approx(raw.corpus["code"] / 2, abs=1e-12)


def test_metrics_that_cannot_read_code_take_no_code_options():
    for name in ("bleu", "chrf", "rougeL"):
        with pytest.raises(WrdscoreError, match=f"metric '{name}' cannot score against code"):
            get_metric(name, target="summary")
        assert get_metric(name).code_scorer is None
    with pytest.raises(WrdscoreError, match="not both"):
        get_metric("wrd", code_scorer=CodeScorer(), code_weight=0.2)


JUDGE = {"base_url": "http://127.0.0.1:9", "model": "m"}


@pytest.mark.parametrize(
    ("option", "value"),
    [("code_weight", 0.3), ("strings", "keep"), ("code_support", "none"), ("allow_unmasked", True)],
)
def test_the_judge_refuses_the_code_options_it_does_not_use(option, value):
    judge = get_metric("judge", **JUDGE, target="summary", language="python")
    assert (judge.target, judge.language) == ("summary", "python")
    assert judge.taken_code_options() == ("target", "language")
    with pytest.raises(WrdscoreError, match=f"metric 'judge' takes no {option}: it has no code"):
        get_metric("judge", **JUDGE, **{option: value})
    assert get_metric("bleu").taken_code_options() == ()
    assert get_metric("rouge1").taken_code_options() == CODE_OPTIONS


def test_the_command_line_gives_each_metric_only_the_code_options_it_takes():
    given = {"code_weight": 0.3, "target": "summary"}
    options = with_code_options(["wrd", "judge", "bleu"], {}, given, "python", Path("c"), None)
    assert options == {
        "wrd": {"code_weight": 0.3, "target": "summary", "language": "python"},
        "judge": {"target": "summary", "language": "python"},
        "bleu": {},  # refused when it scores: it cannot read code
    }


@pytest.mark.parametrize(
    "option", [["--code-weight", "0.3"], ["--code-support", "none"], ["--allow-unmasked"]]
)
def test_a_code_option_no_metric_takes_is_one_error_line(option):
    out = CliRunner().invoke(
        app,
        ["score", "--preds", str(EXAMPLES / "preds.txt"), "--code", str(EXAMPLES / "code.jsonl"),
         "-m", "judge", "--judge-url", JUDGE["base_url"], "--judge-model", "m", *option],
    )  # fmt: skip
    assert out.exit_code == 2, out.output
    assert f"error: {option[0]} does not apply to judge (judge: it has no code" in out.output
    assert out.output.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--code-support", "none"], "--code-support only applies with --code or --corpus"),
        (["--code", "CODE", "--code-support", "r9"], "unknown code support 'r9'"),
    ],
)
def test_cli_code_support_errors_are_one_line(args, message):
    args = [str(EXAMPLES / "code.jsonl") if a == "CODE" else a for a in args]
    out = CliRunner().invoke(
        app,
        ["score", "--refs", str(EXAMPLES / "refs.txt"), "--preds", str(EXAMPLES / "preds.txt"),
         *args],
    )  # fmt: skip
    assert out.exit_code == 2 and message in out.output and out.output.count("\n") == 1


def test_explain_code_reads_the_support_model(tmp_path):
    source = tmp_path / "m.java"
    source.write_text(CODE)
    run = CliRunner().invoke
    shown = {}
    for name in ("none", "src69-copied"):
        argv = ["explain", "user name", "--code", str(source), "--format", "json"]
        shown[name] = json.loads(run(app, [*argv, "--code-support", name]).stdout)
    t = get_metric("wrd").code_transport("user name", CODE)
    assert shown["none"]["code_support"] == pytest.approx(t.match, abs=1e-12)
    assert shown["src69-copied"]["code_support"] == pytest.approx(t.support, abs=1e-12)
    assert "|prior:none|" in shown["none"]["signature"]
