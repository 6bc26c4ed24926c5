"""benchmarks/code_adversarial.py: its copies come from the method's own code, its
commands score every row, and bad input is one error line."""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import code_adversarial as bench

from wrdscore.corpora import ingest, read_code

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpora")
    ingest([ROOT / "examples" / "project"], out / "example", quiet=True)
    return out


@pytest.fixture(scope="module")
def cases(corpora):
    return bench.build_cases(bench._signal_script(), corpora / "example", "name", "seed")


def test_the_copies_are_made_of_the_methods_own_code(cases):
    assert cases
    for c in cases:
        words = set(read_code(c.code, target="name", name=c.name))
        stitched = c.adversaries["stitched"]
        # camelCase of 2 to 4 of the code's words: split at the capitals again.
        parts = [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", stitched)]
        assert 2 <= len(parts) <= 4 and set(parts) <= words, stitched
        assert c.adversaries["signature"] == " ".join(c.code.split("{", 1)[0].split())
        assert c.truth == c.name and c.name not in c.others


def test_both_commands_score_every_row(corpora, capsys):
    common = ["--corpora", str(corpora), "--projects", "example", "--methods", "5"]
    bench.main(["candidates", *common])
    out = capsys.readouterr().out
    assert (
        "| wrd best match alone (none) (name) |" in out and "| wrd R0 (jdk17-seq) (name) |" in out
    )
    bench.main(["library", *common, "--metrics", "rouge1"])
    assert "| rouge1 (name) |" in capsys.readouterr().out


def test_round_4_scores_its_candidates_and_the_transport_it_is_measured_against(
    corpora, tmp_path, capsys
):
    from corpus_fixtures import load_script

    table = tmp_path / "t.zip"
    load_script("build_code_prior").main([str(corpora / "example"), str(table)])
    common = ["--corpora", str(corpora), "--projects", "example", "--methods", "5"]
    bench.main(["candidates", *common, "--prior", str(table)])
    out = capsys.readouterr().out
    for row in (
        "transport precision, before issue 32",
        "R0 (jdk17-seq)",
        "G1 (0.01, 0.2, copied 0.01)",
    ):
        assert f"| wrd {row} (name) |" in out, row
    bench.main(["candidates", *common, "--prior", str(table), "--round", "3"])
    out = capsys.readouterr().out
    assert "| wrd R1 (0.01, 0.2, copied None) (name) |" in out and "transport" not in out


def test_the_transport_precision_is_wrds_precision_with_the_code_as_reference(cases):
    # The code support before issue 32: score's own precision against the code's tokens.
    from wrdscore.metrics import get_metric

    metric = get_metric("wrd", target="name")
    (got,) = bench.transport_precision(metric, cases[:1])
    c = cases[0]
    code = " ".join(read_code(c.code, target="name", name=c.name))
    texts = [c.truth, *c.adversaries.values(), *c.others]
    want = metric.score([code] * len(texts), texts).values["precision"]
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["library", "--projects", "nothing"], r"^error: no corpus .*nothing"),
        (["candidates", "--projects", "example", "--prior", "none.gz"], r"^error: no table "),
        (["candidates", "--projects", "example", "--prior", "OLD"], r"^error: .* is not a table"),
    ],
)
def test_bad_input_is_one_error_line(corpora, argv, message, tmp_path):
    old = tmp_path / "old.json.gz"  # a table as rounds 2 and 3 wrote it
    old.write_bytes(gzip.compress(b'{"targets": {}}'))
    argv = [str(old) if a == "OLD" else a for a in argv]
    with pytest.raises(SystemExit, match=message):
        bench.main([*argv, "--corpora", str(corpora)])


def test_a_rated_pair_among_the_cases_is_one_error_line(corpora, monkeypatch):
    # "is blank" / "is empty" is one of the 150 rated pairs: planted among the cases.
    real = bench.build_cases

    def planted(*args):
        cases = real(*args)
        cases[0].others.append("isEmpty")
        cases[0].truth = "isBlank"
        return cases

    monkeypatch.setattr(bench, "build_cases", planted)
    with pytest.raises(
        SystemExit, match=r"^error: 1 case is a rated pair, the first \('isBlank', 'isEmpty'\)$"
    ):
        bench.held_out_cases(corpora, "name", 5, ["example"])


def test_each_rounds_projects_are_committed_with_their_versions():
    held_out = list(bench._signal_script().HELD_OUT)
    assert [list(bench.round_projects(r)) for r in (1, 2, 3)] == [held_out] * 3
    assert list(bench.round_projects(4)) == [
        "libmetadata-extractor-java", "libjgraphx-java", "libcommons-jexl3-java", "jflex",
        "libjlatexmath-java",
    ]  # fmt: skip
    for r in (1, 4):
        for version in bench.round_projects(r).values():
            assert re.fullmatch(r"[0-9][\w.~+]*-[\w.~+]+", version), version


def test_the_r0_row_runs_round_2s_prior_not_the_shipped_one(corpora, capsys):
    """R0 used to run the shipped prior (the engine's, monkeypatched in vain): its row was
    G1's. Now it is the support model jdk17-seq, and G1 is the shipped default."""
    common = ["--corpora", str(corpora), "--projects", "example", "--methods", "5"]
    bench.main(["candidates", *common])  # the shipped table: round 4's candidates
    rows = {}
    for block in capsys.readouterr().out.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].startswith("| wrd "):
            rows[lines[0].split("|")[1].strip()] = lines[-1]  # the pooled row
    g1 = rows["wrd G1 (0.01, 0.2, copied 0.01) (name)"]
    assert rows["wrd R0 (jdk17-seq) (name)"] != g1


def test_library_prints_issue_41s_attacks_each_template_and_the_floors(corpora, capsys):
    common = ["--corpora", str(corpora), "--projects", "example", "--methods", "5"]
    bench.main(["library", *common, "--metrics", "wrd"])
    out = capsys.readouterr().out
    head = out.splitlines()[0]
    for column in ("stitched", "template (best)", "padded", "repeat x2", "repeat x3"):
        assert f"over {column} |" in head, column
    assert "| wrd (name), each template |" in out and "over template create |" in out
    assert re.search(r"^floors met: .*; missed: ", out, re.M)
    bench.main(["library", *common, "--metrics", "wrd", "--target", "summary"])
    out = capsys.readouterr().out
    assert "over template returns | over template gets |" in out and "repeat x3" not in out


def test_the_best_template_is_the_attackers_pick_and_ties_count_half():
    attacks = ("template get", "template is", "padded")
    # Method 1: truth 0.5 against get 0.6, is 0.4, padded 0.5 (a tie), one other at 0.1.
    # Method 2: truth 0.9 beats everything.
    scores = [np.array([0.5, 0.6, 0.4, 0.5, 0.1]), np.array([0.9, 0.1, 0.2, 0.3, 0.95])]
    r = bench.summarise(scores, attacks, np.random.default_rng(0))
    assert r["template get"][0] == 0.5 and r["template is"][0] == 1.0
    assert r[bench.BEST_TEMPLATE][0] == 0.5 and r["padded"][0] == 0.75
    assert r["auc"] == 0.5 and r["methods"] == 2


def test_an_unknown_code_support_is_one_error_line(corpora):
    argv = ["library", "--corpora", str(corpora), "--projects", "example", "--methods", "2"]
    with pytest.raises(SystemExit, match=r"^error: .*code.support"):
        bench.main([*argv, "--metrics", "wrd", "--code-support", "no-such-support"])


def test_lowercase_scores_the_run_together_names_with_and_without_segmentation(corpora, capsys):
    argv = ["--corpora", str(corpora), "--projects", "example", "--methods", "5"]
    bench.main(["lowercase", *argv, "--metrics", "wrd"])
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| wrd |")]
    assert [r.split("|")[2].strip() for r in rows] == ["False", "True"]


def test_library_scores_a_centering_as_users_run_it(corpora, capsys):
    common = ["--corpora", str(corpora), "--projects", "example", "--methods", "5"]
    rows = {}
    for extra in ([], ["--centering", "corpus"]):
        bench.main(["library", *common, "--metrics", "wrd", "--target", "summary", *extra])
        block = capsys.readouterr().out.split("\n\n")[0].splitlines()
        rows[block[0].split("|")[1].strip()] = block[-1]
    assert set(rows) == {"wrd (summary)", "wrd, centering corpus (summary)"}
    # The metric scored is the library's with that centering (its signature says so).
    assert "|c:corpus|" in bench.build_metric("wrd", "summary", centering="corpus").signature
    assert "|c:corpus|" not in bench.build_metric("wrd", "summary").signature
    argv = ["library", *common, "--metrics", "wrd", "--centering", "middle"]
    with pytest.raises(SystemExit, match=r"^error: .*centering"):
        bench.main(argv)
