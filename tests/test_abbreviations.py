"""Abbreviations mined from Java declarations (issue 33 item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import require
from wrdscore.cli import app
from wrdscore.corpora import mine_abbreviations, read_abbreviations, write_abbreviations
from wrdscore.corpora._abbreviations import (
    COLUMNS,
    AbbreviationMiner,
    expansion,
    held_out,
)

require("tree_sitter_java")
runner = CliRunner()

# Each kind of evidence once, with names that must not count beside them.
ORDERS = """
package shop;

class Orders {
    private Config cfg;
    private final Message message;
    private int n;

    Config getConfig() { return cfg; }
    Message getMessage() { return this.message; }
    boolean isOpen() { log(); return open; }

    String render(Message msg, Map map, String name, Exception e) {
        StringBuilder sb = new StringBuilder();
        int len = name.length(), idx = 0;
        String s = msg.getText();
        var buf = new StringBuffer();
        for (Message m : messages) { sb.append(m); }
        try (InputStream in = open()) {
            sb.append(in.read());
        } catch (IOException ex) {
            return null;
        }
        return sb.toString();
    }
}
"""

ORDERS_FOUND = {
    ("cfg", "config", ("type", "getter")),
    ("msg", "message", ("type",)),
    ("sb", "string builder", ("type", "new")),
    ("len", "length", ("call",)),
    ("buf", "buffer", ("new",)),
    ("in", "input", ("type",)),
    ("ex", "exception", ("type",)),
}


def mined(*sources: str, min_files: int = 1) -> set[tuple[str, str, tuple[str, ...]]]:
    miner = AbbreviationMiner()
    for source in sources:
        miner.add(source.encode("utf-8"))
    return {(p.abbreviation, p.words, p.kinds) for p in miner.pairs(min_files)}


def test_each_kind_of_declaration_gives_its_pair_and_nothing_else():
    # Left out: a field returned by a getter under its own name (message), a getter
    # with more than a return (isOpen), one-letter names (n, s, e, m), a name that is a
    # word of its type (Map map), a name that abbreviates nothing (String name), and
    # idx, which has no declared type or call to expand it.
    assert mined(ORDERS) == ORDERS_FOUND


def test_abbreviation_rules():
    assert expansion("sb", ["string", "builder"]) == "string builder"
    assert expansion("baos", ["byte", "array", "output", "stream"]) == "byte array output stream"
    assert expansion("os", ["byte", "array", "output", "stream"]) == "output stream"
    assert expansion("cfg", ["server", "config"]) == "config"
    assert expansion("idx", ["index"]) == "index"
    assert expansion("ndx", ["index"]) is None  # not the word's first letter
    assert expansion("cgf", ["config"]) is None  # letters out of order
    assert expansion("config", ["config"]) is None  # the word itself
    assert expansion("configs", ["config"]) is None  # longer than the word
    assert expansion("x", ["index"]) is None
    assert expansion("Cfg", ["config"]) is None  # one lower-case sub-token only
    # Another form of the word is not an abbreviation of it; a prefix that is not one is.
    for short, word in [
        ("option", "options"),
        ("map", "mapping"),
        ("make", "maker"),
        ("box", "boxes"),
        ("use", "used"),
        ("run", "running"),
    ]:
        assert expansion(short, [word]) is None
    assert expansion("min", ["minimum"]) == "minimum"
    assert expansion("dir", ["directory"]) == "directory"
    assert expansion("buf", ["buffer"]) == "buffer"  # not buf + a doubled f + er


def test_min_files_counts_files_not_occurrences():
    twice = "class A { void f(Config cfg) {} void g(Config cfg) {} }"
    other = "class B { void h(Config cfg) {} }"
    assert mined(twice, min_files=2) == set()
    assert mined(twice, other, min_files=2) == {("cfg", "config", ("type",))}


def test_a_broken_declaration_is_skipped_and_the_rest_read():
    broken = "class A { void f(Config cfg) { int len = s.length( ; } void g(Message msg) {} }"
    found = {pair[:2] for pair in mined(broken)}
    assert ("msg", "message") in found
    assert ("len", "length") not in found


def test_held_out_part_is_chosen_by_the_abbreviation_alone():
    assert held_out("sb") and not held_out("cfg")
    miner = AbbreviationMiner()
    miner.add(b"class A { void f(StringBuilder sb, StringBuffer sb2, Config cfg) {} }")
    miner.add(b"class B { void f(StringBuffer sb) {} }")
    parts = {(p.abbreviation, p.words): p.part for p in miner.pairs(1)}
    assert parts == {
        ("sb", "string builder"): "held-out",
        ("sb", "string buffer"): "held-out",
        ("cfg", "config"): "tune",
    }


def test_write_and_read_back(tmp_path):
    java = tmp_path / "src"
    java.mkdir()
    (java / "Orders.java").write_text(ORDERS)
    (java / "Other.java").write_text("class O { void f(Config cfg, Message msg) {} }")
    pairs, files = mine_abbreviations([java], min_files=2)
    assert files == 2
    assert [(p.abbreviation, p.words, p.files) for p in pairs] == [
        ("cfg", "config", 2),
        ("msg", "message", 2),
    ]
    out = write_abbreviations(pairs, tmp_path / "abbr.tsv")
    lines = out.read_text().splitlines()
    assert lines[0] == "#" + "\t".join(COLUMNS)
    assert lines[1].split("\t")[:6] == ["cfg", "config", "2", "3", "type,getter", "tune"]
    assert read_abbreviations(out) == pairs


def test_cli_writes_a_tsv_and_refuses_to_overwrite(tmp_path):
    source = tmp_path / "Orders.java"
    source.write_text(ORDERS)
    out = tmp_path / "abbr.tsv"
    args = ["corpus", "abbreviations", str(source), "-o", str(out), "--min-files", "1"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    # One file is "1 Java file" (it said "from 1 Java files").
    assert "7 pairs (" in res.output and res.output.rstrip().endswith(" from 1 Java file")
    rows = {tuple(line.split("\t")[:2]) for line in out.read_text().splitlines()[1:]}
    assert rows == {(a, w) for a, w, _ in ORDERS_FOUND}
    res = runner.invoke(app, args)
    assert res.exit_code != 0
    assert "already exists (use --force" in res.output
    assert runner.invoke(app, [*args, "--force"]).exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/nonexistent/src"], "/nonexistent/src"),
        (["{java}", "--min-files", "0"], "--min-files must be at least 1"),
        (["{java}", "--max-file-mb", "0"], "--max-file-mb must be a positive number"),
        (["{java}", "--max-file-mb", "nan"], "--max-file-mb must be a positive number"),
    ],
)
def test_cli_bad_input(tmp_path, args, message):
    java = tmp_path / "A.java"
    java.write_text("class A {}")
    args = [a.format(java=java) for a in args]
    res = runner.invoke(app, ["corpus", "abbreviations", *args, "-o", str(tmp_path / "o.tsv")])
    assert res.exit_code != 0
    assert message in res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "o.tsv").exists()


def test_read_rejects_a_malformed_file(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("cfg\tconfig\n")
    with pytest.raises(Exception, match=r"bad.tsv:1: expected 7 tab-separated fields"):
        read_abbreviations(bad)


def test_fixture_is_read_as_java_not_as_text():
    # The same words in a comment and a string give nothing: only declarations count.
    text = 'class A { /* Config cfg */ String s = "Message msg"; }'
    assert mined(text) == set()


def test_paths_are_accepted_as_strings(tmp_path: Path):
    (tmp_path / "A.java").write_text("class A { void f(Config cfg) {} }")
    pairs, _ = mine_abbreviations([str(tmp_path)], min_files=1)
    assert [(p.abbreviation, p.words) for p in pairs] == [("cfg", "config")]


def test_cli_tune_output_is_what_tune_reads(tmp_path):
    from wrdscore.embeddings.encoders._pairs import read_pair_file

    source = tmp_path / "A.java"
    source.write_text(ORDERS + "class B { void f(StringBuilder sb) {} }\n")
    out, tune = tmp_path / "abbr.tsv", tmp_path / "tune.tsv"
    args = ["corpus", "abbreviations", str(source), "-o", str(out), "--min-files", "1"]
    res = runner.invoke(app, [*args, "--tune-output", str(tune)])
    assert res.exit_code == 0, res.output
    mined = read_abbreviations(out)
    held = {(p.abbreviation, p.words) for p in mined if p.part == "held-out"}
    # sb and ex are held out (their hashes): not in the tune file.
    assert held == {("sb", "string builder"), ("ex", "exception")}
    want = [(p.abbreviation, p.words) for p in mined if p.part == "tune"]
    assert read_pair_file(tune) == want
    res = runner.invoke(app, [*args, "--force", "--tune-output", str(out)])
    assert res.exit_code != 0 and "--tune-output must be another file" in res.output
