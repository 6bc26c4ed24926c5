"""`wrdscore corpus stats`: token counts and name lengths read back from the records."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import CorpusWriter, corpus_stats, split_identifier

NAMES = ["getName", "getValue", "setName", "run", "toASN1Primitive", "isEmpty", "getName"]


def _corpus(folder: Path, names: list[str], manifest_methods: int | None = None, **extra) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with CorpusWriter(folder) as writer:
        for i, name in enumerate(names):
            writer.write(
                {
                    "name": name,
                    "tokens": split_identifier(name),
                    "type": "A",
                    "path": "A.java",
                    "line": i + 1,
                    "summary": None,
                    "source": 0,
                }
            )
        methods = len(names) if manifest_methods is None else manifest_methods
        writer.write_manifest({"counts": {"methods": methods, "files_seen": 1}, **extra})
    return folder


def test_top_tokens_and_name_lengths_by_hand(tmp_path):
    stats = corpus_stats(_corpus(tmp_path / "c", NAMES), top=4)
    # get x3, name x3, set/value/run/to/asn/1/primitive/is/empty x1; ties alphabetical.
    assert stats.top_tokens == [("get", 3), ("name", 3), ("1", 1), ("asn", 1)]
    assert stats.name_lengths == {1: 1, 2: 5, 4: 1}
    assert stats.methods == 7


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(
        st.from_regex(r"[a-z]{1,4}([A-Z][a-z]{0,3}|[0-9]){0,12}", fullmatch=True),
        min_size=1,
        max_size=30,
    )
)
def test_counts_match_an_independent_count(tmp_path_factory, names):
    folder = _corpus(tmp_path_factory.mktemp("c") / "c", names)
    stats = corpus_stats(folder, top=1000)
    expected = Counter(t for n in names for t in split_identifier(n))
    assert dict(stats.top_tokens) == dict(expected)
    assert [c for _, c in stats.top_tokens] == sorted(expected.values(), reverse=True)
    assert stats.name_lengths == dict(Counter(len(split_identifier(n)) for n in names))


def test_cli_prints_summary_tokens_histogram_and_failed_files(tmp_path):
    failed = [{"source": 0, "path": "Bad.java", "reason": "tree-sitter: line 3: syntax error"}]
    folder = _corpus(tmp_path / "c", NAMES * 3, failed=failed)
    result = CliRunner().invoke(app, ["corpus", "stats", str(folder), "--top", "2"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "top 2 tokens" in out and "│ get " in out and "│ name " in out and " set " not in out
    assert "name length (sub-tokens)" in out and "15" in out  # 5 two-token names x 3
    assert "Bad.java" in out and "line 3: syntax error" in out


def test_a_corpus_of_another_language_shows_its_grammar_not_java_parsers(tmp_path):
    # ingest --language python reads with tree-sitter-python only; the manifest's parser
    # fields are Java's, and stats showed them as the corpus's parser.
    folder = _corpus(tmp_path / "c", NAMES, language="python",
                     grammars={"python": "tree-sitter-python 0.25.0"},
                     parser={"name": "javalang", "version": "javalang 0.13.0"})  # fmt: skip
    result = CliRunner().invoke(app, ["corpus", "stats", str(folder)])
    assert result.exit_code == 0, result.output
    assert "tree-sitter-python 0.25.0" in result.stdout and "python" in result.stdout
    assert "javalang" not in result.stdout and "parser" not in result.stdout


def test_long_names_share_the_last_histogram_row(tmp_path):
    names = ["a1" * 5, "a1" * 6, "aBcD"]  # 10, 12 and 3 tokens
    result = CliRunner().invoke(app, ["corpus", "stats", str(_corpus(tmp_path / "c", names))])
    assert result.exit_code == 0
    rows = [line for line in result.stdout.splitlines() if "10+" in line]
    assert len(rows) == 1 and rows[0].split("│")[2].strip() == "2"


def test_record_count_must_match_the_manifest(tmp_path):
    folder = _corpus(tmp_path / "c", NAMES, manifest_methods=99)
    result = CliRunner().invoke(app, ["corpus", "stats", str(folder)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {folder}: manifest says 99 methods but the records file has 7"
    )


def test_not_a_corpus_and_bad_top(tmp_path):
    runner = CliRunner()
    (tmp_path / "plain").mkdir()
    result = runner.invoke(app, ["corpus", "stats", str(tmp_path / "plain")])
    assert result.exit_code == 2 and "is not a corpus" in result.stderr
    result = runner.invoke(app, ["corpus", "stats", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "does not exist" in result.stderr
    folder = _corpus(tmp_path / "c", NAMES)
    result = runner.invoke(app, ["corpus", "stats", str(folder), "--top", "0"])
    assert (result.exit_code, result.stderr.strip()) == (
        2,
        "error: --top must be at least 1, not 0",
    )


def test_truncated_records_file_is_an_error(tmp_path):
    folder = _corpus(tmp_path / "c", NAMES * 50)
    data = (folder / "methods.jsonl.gz").read_bytes()
    (folder / "methods.jsonl.gz").write_bytes(data[: len(data) // 2])
    result = CliRunner().invoke(app, ["corpus", "stats", str(folder)])
    assert result.exit_code == 2 and "corrupt corpus file" in result.stderr


@pytest.mark.parametrize("top", [1, 3])
def test_top_limits_the_list(tmp_path, top):
    assert len(corpus_stats(_corpus(tmp_path / "c", NAMES), top=top).top_tokens) == top
