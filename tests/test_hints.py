"""Hints for likely misuse: on standard error, and the results are the same with or without.

Each case ran silently before: chat replies scored whole without --clean-predictions,
sentences scored as names against the code, a model folder taken for a word by
`similarity`, and a bootstrap of a handful of pairs in `compare` and `study analyze`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.hints import SMALL_SAMPLE, chat_hint, first_predictions, sentence_hint

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CHAT = [
    "The method name is `setArtworkEntry`.",
    "Sure! A better name: **nextChar**",
    "```java\ngetCount()\n```",
]


def _run(*args: str) -> tuple[str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _hints(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("hint: ")]


def test_chat_replies_get_a_hint_to_clean_them_and_the_same_scores(tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text("setArtworkEntry\nnextChar\ngetCount\n", encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in CHAT), encoding="utf-8")
    args = ("score", "--refs", str(refs), "--preds", str(preds), "--format", "json")
    out, err = _run(*args)
    (hint,) = _hints(err)
    assert "3 of the first 3 predictions hold more than a name" in hint
    assert "--clean-predictions" in hint
    # Cleaned: no hint. The hint changed nothing: the scores are what they are without it.
    cleaned_out, cleaned_err = _run(*args, "--clean-predictions")
    assert _hints(cleaned_err) == []
    raw = json.loads(out)["metrics"]["wrd"]["corpus"]["f1"]
    assert raw < json.loads(cleaned_out)["metrics"]["wrd"]["corpus"]["f1"]
    assert chat_hint(CHAT, cleaned=False) is not None


def test_names_get_no_hint():
    # The paper's pairs: names, written as words, no chat and no sentences.
    refs, preds = str(EXAMPLES / "refs.txt"), str(EXAMPLES / "preds.txt")
    _, err = _run("score", "--refs", refs, "--preds", preds, "-q")
    assert _hints(err) == []
    _, err = _run("score", "--code", str(EXAMPLES / "code.jsonl"), "--preds", preds, "-q")
    assert _hints(err) == []
    sample = first_predictions(preds)
    assert chat_hint(sample, False) is None and sentence_hint(sample, "name") is None


def test_sentences_scored_as_names_get_a_hint_to_target_summaries(tmp_path):
    code = tmp_path / "code.jsonl"
    code.write_text(
        "".join((EXAMPLES / "code.jsonl").read_text().splitlines(keepends=True)[:3]),
        encoding="utf-8",
    )
    preds = tmp_path / "summaries.txt"
    preds.write_text(
        "Sets the entry of the artwork.\nReturns the next character.\nCounts the items.\n"
    )
    args = ("score", "--code", str(code), "--preds", str(preds), "--format", "json")
    _, err = _run(*args)
    (hint,) = _hints(err)
    assert "read as sentences" in hint and "--target summary" in hint
    _, err = _run(*args, "--target", "summary")
    assert _hints(err) == []
    # Without code there is no --target: no hint either.
    refs = tmp_path / "refs.txt"
    refs.write_text("setArtworkEntry\nnextChar\ngetCount\n")
    _, err = _run("score", "--refs", str(refs), "--preds", str(preds))
    assert _hints(err) == []


def test_similarity_says_a_model_folder_is_not_a_word(tmp_path):
    model = tmp_path / "my-model"
    model.mkdir()
    (model / "model.json").write_text("{}")
    out, err = _run("similarity", str(model), "getBook")
    (hint,) = _hints(err)
    assert f"{model} is a model folder" in hint and f"-e {model}" in hint
    # The command did what it was told: the word against getBook in the bundled model.
    assert "getBook" in out
    _, err = _run("similarity", "size", "count")
    assert _hints(err) == []


@pytest.mark.parametrize("pairs", [3, SMALL_SAMPLE])
def test_compare_of_a_handful_of_pairs_gets_a_hint(tmp_path, pairs):
    names = ["getName", "size", "count", "isEmpty", "getUser", "setValue"] * 10
    refs, a, b = (tmp_path / f"{x}.txt" for x in "rab")
    refs.write_text("\n".join(names[:pairs]) + "\n")
    a.write_text("\n".join(names[:pairs]) + "\n")
    b.write_text("\n".join(reversed(names[:pairs])) + "\n")
    args = ["compare", "--refs", str(refs), "--preds", str(a), "--preds", str(b)]
    _, err = _run(*args, "--resamples", "100")
    small = [h for h in _hints(err) if "bootstrap" in h]
    if pairs < SMALL_SAMPLE:
        assert small == [
            f"hint: only {pairs} pairs: the bootstrap's interval and p-value are "
            f"rough on fewer than {SMALL_SAMPLE}; score more pairs before drawing "
            "a conclusion"
        ]
    else:
        assert small == []


def test_study_analyze_of_a_handful_of_pairs_gets_a_hint(tmp_path):
    rated = tmp_path / "rated.csv"
    rows = [("getName", "name", 0.8), ("size", "count", 0.5), ("isEmpty", "empty", 0.7)]
    rows += [("getUser", "fetchUser", 0.9), ("setValue", "value", 0.4)]
    rated.write_text("reference,prediction,score\n" + "".join(f"{r},{p},{s}\n" for r, p, s in rows))
    args = ["study", "analyze", "--pairs", str(rated), "-o", str(tmp_path / "report")]
    _, err = _run(*args, "-m", "wrd", "--baseline", "wrd", "--resamples", "40")
    assert any("only 5 pairs" in h for h in _hints(err))
