"""Tables and heat maps of one pair's transport, and of a prediction's onto its code."""

from __future__ import annotations

import json
import os

import numpy as np
import ot
import pytest
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.explain import (
    code_table,
    matrix_table,
    plot_code_transport,
    plot_transport,
    support_breakdown,
    support_table,
    transport_tables,
)
from wrdscore.metrics._validate import MAX_TOKENS
from wrdscore.metrics.wrd import WRDScore


@pytest.fixture
def transport():
    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "count": [0.6, 0.8], "size": [0.0, 1.0]})
    return WRDScore(emb).transport("getCount", "size")


def test_tables_show_tokens_masses_and_values(transport):
    cos, flow = transport_tables(transport)
    assert [c.header for c in cos.columns] == ["reference \\ prediction", "size (1.00)"]
    assert list(cos.columns[0].cells) == ["get (0.50)", "count (0.50)"]
    assert list(cos.columns[1].cells) == ["0.000", "0.800"]
    assert list(flow.columns[1].cells) == ["0.500", "0.500"]


def test_matrix_table_rejects_mislabelled_matrices():
    with pytest.raises(ValueError):
        matrix_table("x", np.eye(2), ["a"], ["b", "c"], np.ones(1), np.ones(2))


def test_plot_writes_a_png_atomically(transport, tmp_path):
    out = plot_transport(transport, tmp_path / "sub" / "pair.png")
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert [p.name for p in out.parent.iterdir()] == ["pair.png"]  # no temp file left


@pytest.mark.parametrize(
    ("ref", "pred", "side"),
    [
        ("qzxvbn", "getCount", "reference"),
        ("size", "qzxvbn", "prediction"),
        ("qzxvbn", "qzxvbn", "reference"),
    ],
)
def test_plot_refuses_a_side_that_drop_emptied(tmp_path, ref, pred, side):
    emb = TokenEmbeddings.from_vectors({"get": [1.0, 0.0], "count": [0.6, 0.8], "size": [0.0, 1.0]})
    t = WRDScore(emb, oov="drop").transport(ref, pred)
    with pytest.raises(WrdscoreError, match=f"nothing to draw: the {side} has no tokens left"):
        plot_transport(t, tmp_path / "e.png")
    assert not any(tmp_path.iterdir())
    # The tables still print the empty side.
    assert len(transport_tables(t)) == 2


# --- explain --code: the transport of a prediction onto its method's code ---------------

# No comments and no strings: every code-reading rule reads it the same way.
METHOD = """public int countActiveUsers(List<User> users) {
    int total = 0;
    for (User user : users) {
        if (user.isActive()) {
            total += countActiveUsers(user.children());
        }
    }
    return total;
}
"""
# Its identifiers, split by hand: keywords and the declared name (also called inside) gone.
METHOD_TOKENS = ["list", "user", "users", "total", "user", "user", "users", "user", "is",
                 "active", "total", "user", "children", "total"]  # fmt: skip


@pytest.fixture(scope="module")
def code_emb():
    rng = np.random.default_rng(5)
    words = {*METHOD_TOKENS, "count", "active", "sum", "number", "of"}
    return TokenEmbeddings.from_vectors({w: rng.normal(size=6) for w in sorted(words)})


def test_code_flow_is_ot_emd_on_the_split_code_tokens(code_emb):
    t = WRDScore(code_emb).code_transport("numberOfActiveUsers", METHOD)
    assert t.code_tokens == METHOD_TOKENS and t.pred_tokens == ["number", "of", "active", "users"]
    # Independently: norm masses, cost 1 - cosine, POT's own ot.emd.
    code_vecs = np.array([code_emb.kv[w] for w in METHOD_TOKENS], dtype=np.float64)
    pred_vecs = np.array([code_emb.kv[w] for w in t.pred_tokens], dtype=np.float64)
    a = np.linalg.norm(code_vecs, axis=1)
    b = np.linalg.norm(pred_vecs, axis=1)
    a, b = a / a.sum(), b / b.sum()
    cos = (code_vecs @ pred_vecs.T) / np.outer(
        np.linalg.norm(code_vecs, axis=1), np.linalg.norm(pred_vecs, axis=1)
    )
    flow = ot.emd(a, b, 1.0 - cos)
    np.testing.assert_allclose(t.cosine, cos, atol=1e-6)
    # Repeated code tokens make the plan non-unique (identical rows can trade flow), so
    # compare the cost, and the plan with each token's occurrences summed, which is unique.
    assert (t.flow * (1 - cos)).sum() == pytest.approx((flow * (1 - cos)).sum(), abs=1e-7)
    tokens, _, _, summed = t.distinct()
    by_token = np.array([flow[[c == tok for c in METHOD_TOKENS]].sum(axis=0) for tok in tokens])
    np.testing.assert_allclose(summed, by_token, atol=1e-9)
    np.testing.assert_allclose(t.flow.sum(axis=1), a, atol=1e-9)
    np.testing.assert_allclose(t.flow.sum(axis=0), b, atol=1e-9)
    np.testing.assert_allclose(t.code_weights, a, atol=1e-9)
    # Code support is each prediction token's best clipped cosine in the code, averaged,
    # times the prediction's priors (issue 32).
    best = np.mean(cos.clip(0).max(axis=0))
    assert t.match == pytest.approx(best, abs=1e-6)
    assert t.support == pytest.approx(best * t.prior, abs=1e-6) and 0 < t.prior <= 1
    # ...and the metric's own code value for the pair.
    res = WRDScore(code_emb).score(None, ["numberOfActiveUsers"], code=[METHOD])
    assert t.support == pytest.approx(float(res.values["code"][0]), abs=1e-9)


@pytest.mark.parametrize(
    "pred", ["numberOfActiveUsers", "total user children users list active is user total"]
)
def test_the_support_is_each_best_match_times_each_factor_of_the_priors(code_emb, pred):
    metric = WRDScore(code_emb)
    t = metric.code_transport(pred, METHOD)
    code_vecs = np.array([code_emb.kv[w] for w in METHOD_TOKENS], dtype=np.float64)
    pred_vecs = np.array([code_emb.kv[w] for w in t.pred_tokens], dtype=np.float64)
    cos = (code_vecs / np.linalg.norm(code_vecs, axis=1)[:, None]) @ (
        pred_vecs / np.linalg.norm(pred_vecs, axis=1)[:, None]
    ).T
    b = support_breakdown(t)
    # The code token behind each prediction token's share: its best cosine, not its
    # largest flow (numberOfActiveUsers' 'users' sends most flow to 'total', cosine .13).
    assert [m["code_token"] for m in b["best_matches"]] == [
        METHOD_TOKENS[i] for i in cos.argmax(axis=0)
    ]
    best = [m["cosine"] for m in b["best_matches"]]
    np.testing.assert_allclose(best, cos.clip(0).max(axis=0), atol=1e-9)
    assert b["match"] == pytest.approx(np.mean(best), abs=1e-12)
    f = b["priors"]
    assert f["exponent"] == f["copied"] / f["tokens"]
    assert f["plausibility_gate"] == pytest.approx(f["plausibility"] ** f["exponent"], abs=1e-15)
    product = f["conciseness"] * f["copied_conciseness"] * f["plausibility_gate"]
    assert product == pytest.approx(b["prior"], abs=1e-15)
    # match x each factor = the metric's own code value for the pair.
    res = metric.score(None, [pred], code=[METHOD])
    assert b["match"] * product == pytest.approx(float(res.values["code"][0]), abs=1e-12)
    assert b["code_support"] == t.support
    if len(t.pred_tokens) == 9:
        # A copy of nine code tokens: the priors are not all 1 here.
        assert f["copied"] == 9 and f["copied_conciseness"] < 1 and f["plausibility_gate"] < 1
    else:
        assert t.top(1)[3][0][0] == "total" and b["best_matches"][3]["code_token"] == "users"
    # The table prints the same numbers.
    cells = [list(c.cells) for c in support_table(t).columns]
    assert cells[0][: len(best)] == [f"best match of {tok}" for tok in t.pred_tokens]
    assert cells[2][: len(best)] == [f"{c:.3f}" for c in best]
    assert cells[2][len(best) :] == [
        f"{v:.4f}"
        for v in (b["match"], f["conciseness"], f["copied_conciseness"],
                  f["plausibility_gate"], b["code_support"])
    ]  # fmt: skip


def test_a_token_with_nothing_in_the_code_pointing_its_way_has_no_best_match():
    emb = TokenEmbeddings.from_vectors({"count": [1.0, 0.0], "away": [-1.0, 0.1]})
    code = "int size() { return count; }"
    clipped = support_breakdown(WRDScore(emb).code_transport("away", code))
    assert clipped["best_matches"] == [{"token": "away", "code_token": None, "cosine": 0.0}]
    kept = support_breakdown(WRDScore(emb, clip=False).code_transport("away", code))
    assert kept["best_matches"][0]["code_token"] == "count"
    assert kept["best_matches"][0]["cosine"] == pytest.approx(-1 / np.hypot(1, 0.1))
    table = support_table(WRDScore(emb).code_transport("away", code))
    assert next(iter(table.columns[1].cells)) == "(none in the code)"


def test_a_support_model_without_priors_shows_the_match_and_its_support(code_emb):
    # --code-support none: the support is the match itself, with no factors to show.
    t = WRDScore(code_emb, code_support="none").code_transport("numberOfActiveUsers", METHOD)
    b = support_breakdown(t)
    assert b["priors"] is None and b["support_model"] == "none"
    assert b["code_support"] == b["match"] == t.support
    cells = [list(c.cells) for c in support_table(t).columns]
    assert [r[-1] for r in zip(*cells, strict=True)][-2:] == [f"{t.match:.4f}"] * 2
    assert cells[1][-1] == "support model none"


def test_code_support_reads_the_flow_even_for_a_copied_unknown_name(code_emb):
    # transport() scores equal token lists 1 even when no token is known; code support
    # is the metric's value, 0 when nothing has a vector.
    t = WRDScore(code_emb).code_transport("qzxv", "int f() { return qzxv; }")
    res = WRDScore(code_emb).score(None, ["qzxv"], code=["int f() { return qzxv; }"])
    assert t.support == float(res.values["code"][0]) == 0.0


def test_code_transport_reads_the_code_in_the_metrics_language(code_emb):
    # score read the code in the metric's language; code_transport told it from the
    # code, so code many grammars parse alike was refused there and scored here.
    # Summaries: a fragment declares no name to mask, which names would refuse.
    metric = WRDScore(code_emb, language="python", target="summary")
    code = "print(count_active(users))"
    t = metric.code_transport("count active", code)
    res = metric.score(None, ["count active"], code=[code])
    assert t.support == pytest.approx(float(res.values["code"][0]), abs=1e-12)
    assert t.support > 0


def test_the_declared_name_is_masked_for_target_name(code_emb):
    named = WRDScore(code_emb).code_transport("countActiveUsers", METHOD, target="name")
    assert named.masked == "countActiveUsers"
    assert "count" not in named.code_tokens  # the declaration and the recursive call
    # For a summary the name is part of the code the summary describes.
    summary = WRDScore(code_emb).code_transport("counts active users", METHOD, target="summary")
    assert summary.masked is None and summary.code_tokens.count("count") == 2


def test_top_sums_occurrences_and_ranks_by_flow(code_emb):
    t = WRDScore(code_emb).code_transport("activeUsers", METHOD)
    tokens, counts, _, flow = t.distinct()
    assert dict(zip(tokens, counts.tolist(), strict=True))["user"] == 5
    np.testing.assert_allclose(flow.sum(axis=0), t.pred_weights)
    for j, carriers in enumerate(t.top(2)):
        assert len(carriers) == 2
        flows = [f for *_, f in carriers]
        assert flows == sorted(flows, reverse=True) and flows[0] == pytest.approx(flow[:, j].max())
        for tok, n, cos, f in carriers:
            i = tokens.index(tok)
            assert (n, f) == (counts[i], pytest.approx(flow[i, j]))
            # Static embeddings: every occurrence of a token has the same cosine.
            assert cos == pytest.approx(t.cosine[t.code_tokens.index(tok), j])


def test_code_table_fits_80_columns_and_plot_writes_a_png(code_emb, tmp_path):
    from rich.console import Console

    t = WRDScore(code_emb).code_transport("numberOfActiveUsers", METHOD)
    console = Console(width=80, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(code_table(t, 3))
    text = console.export_text()
    assert max(map(len, text.splitlines())) <= 80
    assert "number (" in text and "users" in text
    out = plot_code_transport(t, tmp_path / "code.png")
    assert out.read_bytes()[:4] == b"\x89PNG"


# Under the character cap but over MAX_TOKENS sub-tokens: 5 a line and x twice, 1,252 in all.
LONG_METHOD = (
    "int sumAll(int x) {\n" + "    total(userUsers, activeTotal);\n" * 250 + "    return x;\n}\n"
)


def test_code_over_max_tokens_is_read_whole_as_score_reads_it(code_emb):
    # code_transport went through transport(), whose pair score refuses a reference of
    # over MAX_TOKENS sub-tokens; score's code value reads the method whole.
    t = WRDScore(code_emb).code_transport("countActiveUsers", LONG_METHOD)
    assert len(t.code_tokens) == 1252 > MAX_TOKENS
    res = WRDScore(code_emb).score(None, ["countActiveUsers"], code=[LONG_METHOD])
    assert t.support == pytest.approx(float(res.values["code"][0]), abs=1e-12)
    np.testing.assert_allclose(t.flow.sum(axis=0), t.pred_weights, atol=1e-9)
    # The prediction keeps score's cap.
    with pytest.raises(WrdscoreError, match="the prediction has 1,001 sub-tokens"):
        WRDScore(code_emb).code_transport(" ".join(["total"] * 1001), LONG_METHOD)


def test_code_with_nothing_to_read_is_one_error(code_emb):
    with pytest.raises(WrdscoreError, match="the code has no tokens to read"):
        WRDScore(code_emb).code_transport("size", "@Override int f() { return 0; }")
    with pytest.raises(WrdscoreError, match="empty"):
        WRDScore(code_emb).code_transport("size", "  ")


def _cli(*args, **kwargs):
    return CliRunner().invoke(app, [str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def code_model(code_emb, tmp_path_factory):
    path = tmp_path_factory.mktemp("code-model") / "vectors.txt"
    code_emb.kv.save_word2vec_format(str(path))
    return str(path)


def test_cli_explain_code_from_stdin_and_file(code_model, code_emb, tmp_path):
    res = _cli("explain", "numberOfActiveUsers", "--code", "-", "-e", code_model, input=METHOD)
    assert res.exit_code == 0, res.output
    assert "code tokens carrying each prediction token" in res.stdout
    assert "masked countActiveUsers" in res.stdout
    # The code token behind each share of the support is shown by default, and the
    # JSON carries the same breakdown.
    by_json = json.loads(
        _cli("explain", "numberOfActiveUsers", "--code", "-", "-e", code_model, "--format",
             "json", input=METHOD).stdout
    )["support"]  # fmt: skip
    want = support_breakdown(WRDScore(code_emb).code_transport("numberOfActiveUsers", METHOD))
    assert json.dumps(by_json) == json.dumps(want)  # the same keys, numbers to the bit
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in res.stdout.splitlines()]
    for found in want["best_matches"]:
        shown = [f"best match of {found['token']}", found["code_token"], f"{found['cosine']:.3f}"]
        assert shown in rows
    gate = want["priors"]["plausibility_gate"]
    for label, value in (("best match (mean)", want["match"]),
                         ("x plausibility ^ (copied / tokens)", gate),
                         ("= code support", want["code_support"])):  # fmt: skip
        assert any(r[:1] == [label] and r[-1] == f"{value:.4f}" for r in rows)
    # The table fits 80 columns; only the summary and the signature are printed unwrapped.
    table = [line for line in res.stdout.splitlines() if not line.startswith(("code ", "wrd"))]
    assert len(table) > 10 and max(map(len, table)) <= 80
    source = tmp_path / "method.java"
    source.write_text(METHOD)
    png = tmp_path / "c.png"
    res = _cli("explain", "countUsers", "numberOfActiveUsers", "--code", source, "-e",
               code_model, "--format", "json", "--top", "2", "--plot", png)  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    want = WRDScore(code_emb).code_transport("numberOfActiveUsers", METHOD)
    assert out["code_support"] == pytest.approx(want.support)
    np.testing.assert_allclose(out["flow"], want.flow)
    assert [len(t["code"]) for t in out["top"]] == [2, 2, 2, 2]
    assert out["reference"]["reference_tokens"] == ["count", "users"]
    both = WRDScore(code_emb).score(["countUsers"], ["numberOfActiveUsers"], code=[METHOD])
    assert out["combined"] == pytest.approx(float(both.values["combined"][0]), abs=1e-9)
    assert "|code:yes|cw:0.5|tgt:name|" in out["signature"]
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explain", "size"], "give REFERENCE PREDICTION, or PREDICTION with --code"),
        (["explain", "a", "b", "--target", "summary"], "error: --target only applies with --code"),
        # Only what was given: it named all four options whichever was.
        (["explain", "a", "b", "--language", "python"], "error: --language only applies with"),
        (["explain", "a", "b", "--top", "2", "--strings", "keep"], "--strings, --top only apply"),
        (["explain", "size", "--code", "/nonexistent.java"], "no such file"),
        # A folder is there: it said "no such file".
        (["explain", "size", "--code", "/"], "--code /: a folder"),
        (["explain", "size", "--code", "-", "--top", "0"], "--top must be at least 1"),
        (["explain", "size", "--code", "-", "--target", "doc"], "unknown target 'doc'"),
        (["explain", "size", "--code", "-", "--strings", "all"], "unknown string policy"),
    ],
)
def test_cli_explain_code_bad_input(code_model, args, message):
    res = _cli(*args, "-e", code_model, input=METHOD)
    assert res.exit_code == 2 and res.stderr.startswith("error: ") and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_cli_explain_code_over_max_tokens_shows_its_flow(code_model, code_emb):
    # It was 'error: reference 1 has 1,252 sub-tokens, more than the 1,000 ...' while
    # score --code scored the method.
    res = _cli("explain", "countActiveUsers", "--code", "-", "-e", code_model, "--format",
               "json", input=LONG_METHOD)  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out["code_tokens"]) == 1252
    want = WRDScore(code_emb).score(None, ["countActiveUsers"], code=[LONG_METHOD])
    assert out["code_support"] == pytest.approx(float(want.values["code"][0]), abs=1e-12)


def test_cli_explain_plot_never_replaces_a_file_without_force(code_model, tmp_path):
    # explain had no --force and drew over whatever file --plot named.
    png = tmp_path / "pair.png"
    png.write_text("not mine to replace\n")
    pair = ["explain", "countUsers", "numberOfActiveUsers", "-e", code_model, "--plot", png]
    res = _cli(*pair)
    assert res.exit_code == 2
    assert res.stderr == f"error: output {png} already exists (use --force to replace it)\n"
    assert png.read_text() == "not mine to replace\n"
    res = _cli(*pair, "--force")
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:4] == b"\x89PNG"
    res = _cli("explain", "countUsers", "numberOfActiveUsers", "-e", code_model, "--force")
    assert (res.exit_code, res.stderr) == (2, "error: --force only applies with --plot\n")


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--plot", "j.png"], "--plot does not apply"),
        (["--weights", "idf", "--no-clip"], "--weights, --no-clip do not apply"),
        (["--oov", "drop", "--centering", "sentence"], "--oov, --centering do not apply"),
        (["--no-segment", "--top", "2", "--strings", "keep"], "--top, --no-segment, --strings"),
        (["--code-support", "none", "--allow-unmasked"], "--code-support, --allow-unmasked"),
        (["--encoder", "some-encoder"], "--encoder does not apply"),
    ],
)
def test_cli_explain_judge_refuses_the_options_it_does_not_use(tmp_path, extra, named):
    # The judge shows its prompt and reply; these options were ignored without a word
    # (no plot drawn, exit 0). Refused before any request: nothing listens on port 9.
    res = _cli(
        "explain", "size", "count", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model",
        "m", "--judge-cache", tmp_path / "j.sqlite", *extra,
    )  # fmt: skip
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ") and named in res.stderr
    assert "(--judge-url, --judge-model)" in res.stderr
    assert len(res.stderr.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
