"""Masking never fails silently: code read in a wrong language, or given a name it does
not declare, is refused (or, when allowed, scored unmasked, counted and signed), and a
grammar's error recovery never cuts a word in two.

Before these checks, ``score --code java.jsonl --language python`` read Java through
Python's grammar, which finds no declaration: nothing was masked, every true name was
copied from its code and got ``wrd.code`` 1.0, and tokens came out cut (``ocket``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from corpus_fixtures import method_record, write_records
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.corpora import SourceCode, read_code, read_method, split_identifier
from wrdscore.embeddings import TokenEmbeddings
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric

TOTAL = (
    "int computeTotal(List<Item> items) {\n"
    "    int total = 0;\n"
    "    for (Item item : items) total += item.price();\n"
    "    return total;\n"
    "}"
)
SEND = (
    "Response send(Socket socket, Request request) throws IOException {\n"
    "    if (!socket.isOpen()) return null;\n"
    "    return socket.write(request);\n"
    "}"
)
JS = "function computeTotal(items) {\n  return items.reduce((t, i) => t + i.price, 0);\n}"
GO = "func (s *Stack) Size() int {\n\treturn len(s.items)\n}"

WORDS = "compute total items item price send socket request response write open size len"


@pytest.fixture(scope="module")
def emb() -> TokenEmbeddings:
    rng = np.random.default_rng(43)
    return TokenEmbeddings.from_vectors({w: rng.normal(size=8) for w in WORDS.split()}, name="m")


def _words_of(code: str) -> set[str]:
    """Every sub-token of every whole word of ``code``."""
    return {t for w in re.findall(r"\w+", code) for t in split_identifier(w)}


# --- the reader -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "language"),
    [(TOTAL, "python"), (SEND, "python"), (SEND, "go"), (JS, "python"), (GO, "python")],
)
def test_a_wrong_language_is_refused_with_one_line(code: str, language: str) -> None:
    with pytest.raises(WrdscoreError) as err:
        read_method(code, language=language)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"cannot be masked: read as {language}, it declares no function")
    # Through a SourceCode (a --code line's language key) as through the option.
    with pytest.raises(WrdscoreError, match="cannot be masked"):
        read_method(SourceCode(code, language))


def test_a_name_the_code_does_not_declare_is_refused() -> None:
    with pytest.raises(WrdscoreError) as err:
        read_method(TOTAL, name="wrongName")
    assert str(err.value).startswith(
        "cannot be masked: read as java, it declares 'computeTotal', not the name 'wrongName'"
    )
    # A name declared anywhere in the code is masked, not only the first one.
    both = "class A { int first() { return 1; } int second() { return first(); } }"
    assert read_method(both, name="second").tokens == ("a", "first", "first")
    # For summaries nothing is masked, so nothing can fail to be.
    assert read_method(TOTAL, target="summary", language="python").masked is None


def test_unmasked_code_is_read_as_before_and_says_why() -> None:
    read = read_method(TOTAL, name="wrongName", allow_unmasked=True)
    # As before the check: the given name masked wherever it occurs (nowhere here).
    assert read.masked == "wrongName" and read.unmasked is not None
    assert {"compute", "total"} <= set(read.tokens)
    assert list(read.tokens) == read_code(TOTAL, name="wrongName")
    wrong = read_method(TOTAL, language="python", allow_unmasked=True)
    assert wrong.masked is None and "declares no function" in (wrong.unmasked or "")


def test_a_right_reading_says_what_it_masked_and_keeps_the_documentation_apart() -> None:
    read = read_method("/** Sums the prices. */\n" + TOTAL)
    assert (read.language, read.masked, read.unmasked) == ("java", "computeTotal", None)
    assert read.docstring == "/** Sums the prices. */"
    assert "sums" not in read.tokens and "compute" not in read.tokens
    assert read.words == "computeTotal List Item items total Item item items total item price total"
    assert "int" in read.reserved
    py = read_method('def get_name(self):\n    """Return the name."""\n    return self.name')
    assert (py.language, py.masked, py.tokens) == ("python", "get_name", ("name",))
    assert py.docstring == '"""Return the name."""' and not py.reserved
    # Stored words (a corpus record's) are read without a parse, as a parse reads them.
    stored = read_method(words=read.words, name="computeTotal")
    assert stored.tokens == read_method(TOTAL).tokens and stored.language == "java"


@pytest.mark.parametrize("language", ["python", "go", "javascript", "ruby", "c_sharp"])
def test_error_recovery_never_cuts_a_word(language: str) -> None:
    # Python's grammar read `!socket` as the conversion `!s` and the name `ocket`.
    for code in (TOTAL, SEND, JS, GO):
        tokens = read_code(code, language=language)
        assert set(tokens) <= _words_of(code), (language, code[:30])


def test_a_clean_parse_reads_as_before() -> None:
    # Words are widened only in parses with errors: here nothing is near a word.
    assert read_code(SEND) == [
        "response", "socket", "socket", "request", "request", "io", "exception",
        "socket", "is", "open", "socket", "write", "request",
    ]  # fmt: skip


# --- scoring, through the library ---------------------------------------------------------


def test_score_refuses_a_wrong_language_naming_the_item(emb: TokenEmbeddings) -> None:
    metric = get_metric("wrd", embeddings=emb, language="python")
    # Before the check: both true names copied from their unmasked code, code 1.0 each.
    with pytest.raises(WrdscoreError, match=r"^code 1 cannot be masked: read as python"):
        metric.score(None, ["computeTotal", "send"], code=[TOTAL, SEND])
    with pytest.raises(WrdscoreError, match=r"^code 2 cannot be masked: .* 'wrongName'"):
        get_metric("rouge1").score(
            None,
            ["size", "computeTotal"],
            code=[GO, {"code": TOTAL, "name": "wrongName"}],
        )


def test_allowed_unmasked_code_is_counted_and_signed(emb: TokenEmbeddings) -> None:
    masked = get_metric("wrd", embeddings=emb).score(None, ["computeTotal"], code=[TOTAL])
    assert masked.code[0] < 1.0 and masked.unmasked_code == 0
    assert "|mask:name|" in masked.signature
    allowed = get_metric("wrd", embeddings=emb, allow_unmasked=True).score(
        None, ["computeTotal", "computeTotal"], code=[{"code": TOTAL, "name": "wrongName"}, TOTAL]
    )
    assert allowed.unmasked_code == 1
    assert "|mask:name-if-declared|" in allowed.signature
    # The unmasked item copies its true name; the masked one, the same code, does not.
    assert allowed.code[0] > allowed.code[1] == pytest.approx(masked.code[0])


# --- the CLI --------------------------------------------------------------------------------


def _run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def _files(tmp_path: Path, emb: TokenEmbeddings) -> tuple[Path, Path, Path]:
    model = tmp_path / "vectors.txt"
    emb.kv.save_word2vec_format(str(model))
    code = tmp_path / "code.jsonl"
    code.write_text("".join(json.dumps({"code": c}) + "\n" for c in (TOTAL, SEND)))
    preds = tmp_path / "preds.txt"
    preds.write_text("computeTotal\nsend\n")
    return model, code, preds


def test_cli_score_code_refuses_a_wrong_language(tmp_path: Path, emb: TokenEmbeddings) -> None:
    model, code, preds = _files(tmp_path, emb)
    res = _run("score", "--preds", preds, "--code", code, "--language", "python", "-e", model)
    assert res.exit_code == 2, res.output
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"error: {code}:1: code 1 cannot be masked: read as python"), line
    assert not res.stdout
    # A line's language key, and a name the code does not declare, alike.
    code.write_text(json.dumps({"code": TOTAL, "name": "wrongName"}) + "\n")
    preds.write_text("computeTotal\n")
    res = _run("score", "--preds", preds, "--code", code, "-e", model)
    assert res.exit_code == 2 and "code 1 cannot be masked" in res.stderr, res.output


def test_cli_allow_unmasked_notes_and_signs(tmp_path: Path, emb: TokenEmbeddings) -> None:
    model, code, preds = _files(tmp_path, emb)
    args = ["score", "--preds", preds, "--code", code, "--language", "python", "-e", model]
    res = _run(*args, "--allow-unmasked", "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["metrics"]["wrd"]
    assert out["unmasked_code"] == 2
    assert "|mask:name-if-declared|" in out["signature"]
    table = _run(*args, "--allow-unmasked")
    assert table.exit_code == 0, table.output
    assert "note: 2 methods scored unmasked (--allow-unmasked)" in table.stderr
    assert "|mask:name-if-declared|" in table.stdout
    # Error recovery no longer cuts `socket` into an unseen `ocket`.
    assert "ocket" not in table.stderr
    refused = _run("score", "--refs", preds, "--preds", preds, "--allow-unmasked", "-e", model)
    assert refused.exit_code == 2
    assert "--allow-unmasked applies to code" in refused.stderr


def test_each_command_names_the_option_that_allows_unmasked_code(
    tmp_path: Path, emb: TokenEmbeddings
) -> None:
    # The refusal said "or allow it unmasked" and no option: score's and explain's is
    # --allow-unmasked, compare had none (only --set wrd.allow_unmasked=true), and
    # study sample has none.
    model, code, preds = _files(tmp_path, emb)
    source = tmp_path / "m.java"
    source.write_text(SEND)
    why = "cannot be masked: read as python, it declares no function or method (is python its "
    allow = "language?); give its language or allow it unmasked (--allow-unmasked)\n"
    python = ["--code", code, "--language", "python", "-e", model]
    compare = ["compare", "--preds", preds, "--preds", preds, *python]
    for args, where in (
        (["score", "--preds", preds, *python], f"{code}:1: code 1 "),
        (compare, f"{code}:1: code 1 "),
        (["explain", "send", "--code", source, "--language", "python", "-e", model], ""),
    ):
        res = _run(*args)
        assert (res.exit_code, res.stderr) == (2, f"error: {where}{why}{allow}"), res.output
    # compare takes it as score does: scored, noted, signed.
    allowed = _run(*compare, "--allow-unmasked")
    assert allowed.exit_code == 0, allowed.output
    assert "note: 2 methods scored unmasked (--allow-unmasked)" in allowed.stderr
    assert "|mask:name-if-declared|" in allowed.stdout
    refused = _run("compare", "--refs", preds, "--preds", preds, "--preds", preds,
                   "--allow-unmasked", "-e", model)  # fmt: skip
    assert refused.exit_code == 2
    assert refused.stderr == "error: --allow-unmasked applies to code: give --code or --corpus\n"
    # A study has no such option: its refusal ends with the remedy it has.
    study = _run(
        "study", "sample", "--refs", preds, "--preds", preds, "--code", code, "--language",
        "python", "--embeddings", model, "--stratum", "1:wrd.code<2", "--sets", "1",
        "--raters", "1", "-o", tmp_path / "s",
    )  # fmt: skip
    assert study.exit_code == 2, study.output
    assert study.stderr.endswith("(is python its language?); give its language\n")


def test_cli_explain_shows_what_was_masked(tmp_path: Path, emb: TokenEmbeddings) -> None:
    model = _files(tmp_path, emb)[0]
    source = tmp_path / "m.java"
    source.write_text(SEND)
    base = ["explain", "send", "--code", source, "-e", model]
    shown = _run(*base)
    assert shown.exit_code == 0 and "masked send" in shown.stdout, shown.output
    wrong = _run(*base, "--language", "python")
    assert wrong.exit_code == 2 and "cannot be masked: read as python" in wrong.stderr
    allowed = _run(*base, "--language", "python", "--allow-unmasked", "--format", "json")
    assert allowed.exit_code == 0, allowed.output
    out = json.loads(allowed.stdout)
    assert out["masked"] is None and "declares no function" in out["unmasked"]
    # The note says why, not the remedy already taken.
    assert "note: scored unmasked (--allow-unmasked): the code cannot be masked" in allowed.stderr
    assert "allow it unmasked" not in allowed.stderr and "give its language" not in allowed.stdout


def test_cli_corpus_refuses_a_record_whose_name_is_not_declared(
    tmp_path: Path, emb: TokenEmbeddings
) -> None:
    model = _files(tmp_path, emb)[0]
    records = [
        # A record without stored words is parsed, and its name checked.
        {**method_record("wrongName"), "code": TOTAL, "code_words": None},
        {**method_record("send"), "code": SEND, "code_words": None},
    ]
    corpus = write_records(tmp_path / "c", records, {"format": 4, "counts": {"methods": 2}})
    preds = tmp_path / "p.txt"
    preds.write_text("computeTotal\nsend\n")
    res = _run("score", "--corpus", corpus, "--preds", preds, "-e", model)
    assert res.exit_code == 2, res.output
    assert "method 'T.java:1:wrongName' (record 1)" in res.stderr
    assert "cannot be masked" in res.stderr
    allowed = _run("score", "--corpus", corpus, "--preds", preds, "-e", model, "--allow-unmasked")
    assert allowed.exit_code == 0, allowed.output
    assert "note: 1 method scored unmasked" in allowed.stderr
