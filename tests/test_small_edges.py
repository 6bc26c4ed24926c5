"""Small rough edges of the command line: -q everywhere, metric names in any case, one
line for a file given as a corpus, no "-0.00%", `score` first in the help, and links of
the examples' README that lead somewhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from wrdscore.cli import EXIT_USER_ERROR, app
from wrdscore.human_eval._report import _pct, _than

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _commands(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, object]]:
    subs = getattr(command, "commands", None)
    if subs is None:
        return [(" ".join(path), command)]
    return [c for name, sub in subs.items() for c in _commands(sub, (*path, name))]


def test_every_command_takes_q():
    commands = _commands(typer.main.get_command(app))
    assert len(commands) >= 18
    missing = [
        name
        for name, command in commands
        if "-q" not in {o for p in command.params for o in getattr(p, "opts", [])}
    ]
    assert missing == []


@pytest.mark.parametrize(
    "args",
    [
        ["corpus", "stats", "CORPUS", "-q"],
        ["corpus", "records", "CORPUS", "-q"],
        ["similarity", "size", "count", "-q"],
        ["explain", "size", "count", "-q"],
    ],
)
def test_q_is_taken_and_changes_no_output(tmp_path, args):
    made = CliRunner().invoke(
        app, ["ingest", str(EXAMPLES / "project"), "-o", str(tmp_path / "c"), "-q"]
    )
    assert made.exit_code == 0
    args = [str(tmp_path / "c") if a == "CORPUS" else a for a in args]
    quiet, plain = (CliRunner().invoke(app, a) for a in (args, args[:-1]))
    assert quiet.exit_code == plain.exit_code == 0, quiet.output
    assert quiet.stdout == plain.stdout


def _corpus_f1(*args: str) -> dict[str, float]:
    refs, preds = str(EXAMPLES / "refs.txt"), str(EXAMPLES / "preds.txt")
    result = CliRunner().invoke(
        app, ["score", "--refs", refs, "--preds", preds, "--format", "json", *args]
    )
    assert result.exit_code == 0, result.output
    return {k: v["corpus"]["f1"] for k, v in json.loads(result.stdout)["metrics"].items()}


def test_metric_names_in_any_case():
    lower = _corpus_f1("-m", "wrd", "-m", "rougeL", "--set", "wrd.weights=idf")
    upper = _corpus_f1("-m", "WRD", "-m", "ROUGEL", "--set", "Wrd.weights=idf")
    assert upper == lower
    # The --set reached the metric given in another case (idf weights change the value).
    assert _corpus_f1("-m", "WRD")["wrd"] != pytest.approx(lower["wrd"], abs=1e-9)
    refs = str(EXAMPLES / "refs.txt")
    compared = CliRunner().invoke(
        app, ["compare", "--refs", refs, "--preds", refs, "--preds", refs, "-m", "Rouge1"]
    )
    assert compared.exit_code == 0, compared.output
    assert "rouge1" in compared.stdout


def test_a_file_given_as_a_corpus_is_named_as_a_file(tmp_path):
    records = tmp_path / "methods.jsonl"
    records.write_text("{}\n")
    result = CliRunner().invoke(app, ["corpus", "records", str(records)])
    assert result.exit_code == EXIT_USER_ERROR
    assert result.stderr.strip() == (
        f"error: {records} is a file, not a corpus folder (a folder written by `wrdscore ingest`)"
    )
    gone = CliRunner().invoke(app, ["corpus", "records", str(tmp_path / "nope")])
    assert "does not exist" in gone.stderr


def test_a_change_that_rounds_to_nothing_has_no_sign():
    assert _pct(-0.0001) == "0.00" and _pct(0.0001) == "0.00"
    assert _pct(-0.0051) == "-0.01" and _pct(34.9512) == "34.95"
    assert _than(-0.0001, "rouge1") == "MSE within 0.01% of rouge1"
    assert _than(-1.5, "rouge1") == "MSE 1.50% higher than rouge1"


def test_score_comes_first_in_the_help():
    result = CliRunner().invoke(app, ["--help"], terminal_width=100)
    names = re.findall(r"^│ (\w+) ", result.stdout.split("Commands")[1], re.M)
    assert names[:3] == ["score", "explain", "compare"]


def _slug(heading: str) -> str:
    # As mkdocs (Python-Markdown's toc) makes a heading's anchor.
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def test_the_examples_readme_links_lead_somewhere():
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#([^)]+))?\)", text)
    assert links
    for target, anchor in links:
        page = (EXAMPLES / target).resolve()
        assert page.is_file(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, f"{target}#{anchor}"
    # Sections of other pages are named by link, not by a title that may go away.
    assert 'section "' not in text
