"""80 columns: nothing the CLI prints in a terminal is cut with an ellipsis.

rich fits a wide table to the terminal by cutting cells (``-0.0…``, ``refer…``); the
CLI's tables go in blocks of columns instead (:func:`wrdscore.cli._tables.fit_table`),
and its help texts fit 80 columns. Each check runs as a terminal of that width
(``TTY_COMPATIBLE=1``: rich then measures the terminal, not a pipe).
"""

from __future__ import annotations

import inspect
import json
import re
from io import StringIO
from pathlib import Path

import pytest
import typer.main
from corpus_fixtures import method_record, write_records
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.cli._tables import fit_table, print_tables

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
NUMBER = re.compile(r"-?\d+\.\d+")
REFERENCE = "getUserAccountReferenceIdentifierFromDatabaseConnection"
PREDICTION = "fetchAccountReferenceNumberForUserSessionIdentifier"


def terminal(args: list[str], columns: int) -> tuple[int, str, str]:
    env = {"COLUMNS": str(columns), "TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
    res = CliRunner().invoke(app, args, env=env, prog_name="wrdscore")
    return res.exit_code, ANSI.sub("", res.stdout), res.stderr


def _commands(group, prefix=()):
    for name, cmd in group.commands.items():
        yield (*prefix, name), cmd
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, (*prefix, name))


COMMANDS = [((), typer.main.get_command(app)), *_commands(typer.main.get_command(app))]


@pytest.mark.parametrize("columns", [80, 60, 40])
def test_explain_of_long_names_keeps_every_number_and_token_whole(columns):
    code, text, err = terminal(["explain", REFERENCE, PREDICTION], columns)
    assert code == 0, err
    assert "…" not in text
    assert max(map(len, text.splitlines()[:-1])) <= columns  # the signature line is long
    _, raw, _ = terminal(["explain", REFERENCE, PREDICTION, "--format", "json"], columns)
    t = json.loads(raw)
    # Every value of both matrices is printed whole, each in its own cell.
    numbers = NUMBER.findall(text)
    shown = [n for n in numbers if len(n.split(".")[1]) == 3]
    want = [f"{v:.3f}" for m in ("cosine", "flow") for row in t[m] for v in row]
    assert sorted(shown) == sorted(want)
    words = set(re.findall(r"[a-z]+", text))
    assert set(t["reference_tokens"]) | set(t["prediction_tokens"]) <= words
    masses = [f"({w:.2f})" for side in ("reference", "prediction") for w in t[f"{side}_weights"]]
    assert all(m in text for m in masses)


def test_explain_at_80_columns_repeats_the_row_labels_beside_each_block():
    code, text, _ = terminal(["explain", REFERENCE, PREDICTION], 80)
    assert code == 0
    cosine = text.split("optimal flow")[0]
    # Two blocks of columns, each with every reference token as its row labels.
    assert cosine.count("reference \\") == 2
    assert cosine.count("│ connection") == 2


def _render(table: Table, width: int) -> str:
    console = Console(file=StringIO(), width=width, force_terminal=True, color_system=None)
    print_tables([table], console)
    return ANSI.sub("", console.file.getvalue())  # type: ignore[attr-defined]


@pytest.mark.parametrize("width", [30, 60, 80, 200])
def test_a_wide_table_goes_in_blocks_with_nothing_cut(width):
    table = Table(title="cosine similarity")
    table.add_column("reference \\ prediction")
    values = [[(i - j) / 7 for j in range(15)] for i in range(4)]
    for j in range(15):
        table.add_column(f"columnName{j} (0.07)", justify="right")
    for i, row in enumerate(values):
        table.add_row(f"rowTokenName{i} (0.25)", *(f"{v:.3f}" for v in row))
    text = _render(table, width)
    assert "…" not in text
    assert max(map(len, text.splitlines())) <= width
    assert sorted(NUMBER.findall(text)) == sorted(
        [f"{v:.3f}" for row in values for v in row]
        + ["0.07"] * 15
        + ["0.25"] * 4 * len(fit_table(table, Console(width=width)))
    )
    assert text.count("cosine similarity") == 1


def test_a_word_wider_than_the_terminal_folds_and_keeps_every_character():
    word = "x" * 50 + "y" * 50
    table = Table()
    table.add_column("token")
    table.add_column("count", justify="right")
    table.add_row(word, "12345")
    text = _render(table, 60)
    assert "…" not in text and "12345" in text
    assert re.sub(r"[^xy]", "", text) == word


def test_a_table_that_fits_is_printed_as_it_was():
    table = Table()
    table.add_column("a")
    table.add_column("b")
    table.add_row("1.000", "2.000")
    assert fit_table(table, Console(width=80)) == [table]


def test_corpus_stats_with_a_long_source_path_is_not_cut(tmp_path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "corpus"
    write_records(deep, [method_record("getName", "A"), method_record("setName", "A")])
    code, text, err = terminal(["corpus", "stats", str(deep)], 80)
    assert code == 0, err
    assert "…" not in text and max(map(len, text.splitlines())) <= 80


@pytest.mark.parametrize(
    ("words", "command"), COMMANDS, ids=[" ".join(w) or "wrdscore" for w, _ in COMMANDS]
)
def test_help_fits_80_columns(words, command):
    code, text, _ = terminal([*words, "--help"], 80)
    assert code == 0
    assert "…" not in text
    # typer prints the first paragraph of a command's docstring as it is, line breaks
    # and all, in its group's list of commands: one line, or the list breaks mid-entry.
    if words:
        assert "\n" not in inspect.cleandoc(command.help or "").split("\n\n")[0]
